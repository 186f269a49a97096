//! # hostile (test-only guest)
//!
//! A transform that misbehaves on purpose, so the host's sandbox can be tested. The first line
//! of the source picks the misbehaviour:
//! `loop` (never returns), `alloc` (allocates without bound), `recurse` (infinite recursion),
//! `panic`, `huge` (returns a 64 MiB output), `error` (a guest error), `badutf8` is impossible
//! through the WIT string type, so `echo` returns the input unchanged instead.
//! Any other input is transformed by appending a comment (a well-behaved call).
//!
//! It is never part of the default transform set. It exports version 0.1.0 of the WIT world
//! (before `language`), so that loading old components stays tested.

use sdk::{Info, Outcome};

/// This transform's self-description.
pub const INFO: Info = Info {
    name: "hostile",
    description: "Test-only guest that loops, allocates, recurses, panics or floods on demand",
    category: "structure",
    language: "python",
};

#[inline(never)]
#[allow(unconditional_recursion)]
fn recurse(n: u64, acc: &mut Vec<u64>) -> u64 {
    acc.push(n);
    let r = recurse(n + 1, acc);
    r.wrapping_add(acc.len() as u64)
}

/// Misbehaves according to the first line of `source` (see the crate docs).
pub fn apply(source: &str, seed: u64) -> Outcome {
    match source.lines().next().unwrap_or("").trim() {
        "loop" => {
            let mut x = seed;
            loop {
                x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
            }
        }
        "alloc" => {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                hoard.push(vec![1u8; 1 << 20]);
                std::hint::black_box(&hoard);
            }
        }
        "recurse" => {
            let mut acc = Vec::new();
            Ok(Some(recurse(seed, &mut acc).to_string()))
        }
        "panic" => panic!("hostile guest panics on purpose"),
        "huge" => Ok(Some("x".repeat(64 << 20))),
        "error" => Err("hostile guest refuses this input".to_string()),
        "echo" => Ok(Some(source.to_string())),
        _ => Ok(Some(format!("{source}# seen by hostile {seed}\n"))),
    }
}

// The old WIT world (0.1.0, no `language` in `info`): the host must still load it, as Python.
sdk::export_transform_v01!(crate::INFO, crate::apply);
