//! Prints the canonical forms in which `canon:SPEC` compares two programs (what the wrapped
//! detector reads), to see what a rewrite leaves after the defence.
//!
//! Usage: `cargo run --release --example canon_form -- A B`

use anyhow::Context;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [a, b] = args.as_slice() else {
        anyhow::bail!("usage: canon_form A B (two program files)");
    };
    let read = |p: &str| std::fs::read_to_string(p).with_context(|| format!("reading {p}"));
    let (x, y) = equimorph::detector::canon::canonical_pair(&read(a)?, &read(b)?);
    println!("== {a}\n{x}\n== {b}\n{y}");
    Ok(())
}
