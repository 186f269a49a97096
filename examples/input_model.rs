//! Prints inputs `tests grow` would draw from a task's test inputs: a look at what the stdin
//! input model makes of a problem (`cargo run --release --example input_model -- FILE N SEED`,
//! FILE holding one input per blank-line-separated block; an optional BASES file, in the same
//! layout, holds inputs to mutate by FILE's model instead of FILE's own, as growth mutates
//! the inputs it kept). With `EQUIMORPH_LARGE=CAP` set, it prints large inputs instead
//! (`InputModel::enlarge` at that cap).

use equimorph::adequacy::inputs::InputModel;
use rand::SeedableRng;

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let path = args
        .get(1)
        .ok_or_else(|| anyhow::anyhow!("usage: input_model FILE [N] [SEED] [BASES]"))?;
    let n: usize = args.get(2).map_or(Ok(20), |s| s.parse())?;
    let seed: u64 = args.get(3).map_or(Ok(0), |s| s.parse())?;
    let blocks = |text: &str| -> Vec<String> {
        text.split("\n\n")
            .filter(|b| !b.trim().is_empty())
            .map(|b| format!("{}\n", b.trim_end()))
            .collect()
    };
    let inputs = blocks(&std::fs::read_to_string(path)?);
    let model = InputModel::of(inputs.iter().map(String::as_str));
    let inputs = match args.get(4) {
        Some(bases) => blocks(&std::fs::read_to_string(bases)?),
        None => inputs,
    };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    // EQUIMORPH_LARGE=CAP: large inputs (`tests grow`'s rule 6) instead of small edits.
    let large: Option<usize> = std::env::var("EQUIMORPH_LARGE")
        .ok()
        .map(|v| v.parse())
        .transpose()?;
    let mut made = 0;
    while made < n {
        let Some(base) = inputs.get(made % inputs.len()) else {
            break;
        };
        let out = match large {
            Some(cap) => model.enlarge(base, cap, &mut rng),
            None => model.mutate(base, &mut rng),
        };
        if let Some(out) = out {
            println!("{out}---");
        }
        made += 1;
    }
    Ok(())
}
