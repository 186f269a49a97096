//! `equimorph diversity`: the k-step diameter D_k and the leave-one-out diversity Δ_k of a
//! transform set, per program and averaged; `--grow` adds transforms one at a time.

use super::common::{load_tasks, progress, DetectorArgs, TransformOptions};
use anyhow::{bail, Context, Result};
use clap::{Args, ValueEnum};
use equimorph::search::diversity::{diameter, diversity, DiversityConfig, ProgramDiversity};
use equimorph::transform::LoadedTransform;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// How `--grow` orders the transforms.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum GrowOrder {
    /// The order of --transforms.
    Given,
    /// At each step the transform that raises the mean diameter most.
    Greedy,
}

/// Arguments of `diversity`.
#[derive(Args)]
pub struct DiversityArgs {
    /// Task file or directory (the originals are the programs P).
    tasks: PathBuf,
    /// Steps k.
    #[arg(short = 'k', long, default_value_t = 2)]
    k: usize,
    /// Programs kept per level of the bounded search.
    #[arg(long, default_value_t = 4)]
    beam: usize,
    /// Use a seeded sample of N tasks.
    #[arg(long, value_name = "N")]
    sample: Option<usize>,
    /// Seed of the sample and of every transform application.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Also grow the set one transform at a time and report D_k and Δ_k at each size.
    #[arg(long, value_enum, value_name = "given|greedy")]
    grow: Option<GrowOrder>,
    /// Where to write diversity.json, diversity.md and diversity.svg.
    #[arg(long, default_value = "out/diversity")]
    out: PathBuf,
    #[command(flatten)]
    detector: DetectorArgs,
    #[command(flatten)]
    transforms: TransformOptions,
}

fn mean(v: impl IntoIterator<Item = f64>) -> f64 {
    let v: Vec<f64> = v.into_iter().collect();
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

/// What a negative Δ_k means, added to the report when one is printed.
const NEGATIVE_NOTE: &str = "\nNote: a negative Δ_k means that the set without that \
     transform reached a larger diameter estimate than the whole set. D_k is estimated by a \
     bounded search (--beam programs per step, seeded), so removing a transform can let the \
     search go farther by chance: read a negative Δ_k as sampling noise around 0 (the \
     transform adds nothing measurable here), not as harm. A larger --beam or more programs \
     narrow it.\n";

/// Runs `diversity`.
pub fn run(args: DiversityArgs) -> Result<ExitCode> {
    if args.k == 0 || args.beam == 0 {
        bail!("-k and --beam must be at least 1");
    }
    let set = load_tasks(&args.tasks, None)?;
    let mut programs: Vec<(String, String)> = set
        .tasks
        .iter()
        .map(|t| (t.id.clone(), t.source.clone()))
        .collect();
    if let Some(n) = args.sample {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(args.seed);
        programs.shuffle(&mut rng);
        programs.truncate(n);
        programs.sort();
    }
    if programs.is_empty() {
        bail!("no task to measure");
    }
    let runtime = args.transforms.runtime()?;
    let loaded = args.transforms.load(&runtime)?;
    let list: Vec<&LoadedTransform> = loaded.iter().collect();
    if list.is_empty() {
        bail!("no transforms selected");
    }
    let detector = args.detector.open()?;
    let c = DiversityConfig {
        k: args.k,
        beam: args.beam,
        seed: args.seed,
    };
    let pb = progress(programs.len() as u64, false);
    pb.set_message("D_k and leave-one-out Δ_k");
    let mut per_program: Vec<(String, ProgramDiversity)> = Vec::new();
    for (id, source) in &programs {
        per_program.push((id.clone(), diversity(source, &list, detector.as_ref(), c)?));
        pb.inc(1);
    }
    pb.finish_and_clear();
    let mean_d = mean(per_program.iter().map(|(_, p)| p.diameter));
    let mean_delta = mean(per_program.iter().map(|(_, p)| p.diversity));
    let contributions: Vec<(String, f64)> = list
        .iter()
        .enumerate()
        .map(|(i, t)| {
            (
                t.name.clone(),
                mean(per_program.iter().map(|(_, p)| p.contributions[i].1)),
            )
        })
        .collect();

    // Growing the set: (size, added transform, mean D_k, mean Δ_k).
    let mut growth: Vec<(usize, String, f64, f64)> = Vec::new();
    if let Some(order) = args.grow {
        let mut chosen: Vec<&LoadedTransform> = Vec::new();
        let mut left: Vec<&LoadedTransform> = list.clone();
        let mean_diameter = |s: &[&LoadedTransform]| -> Result<f64> {
            let mut v = Vec::new();
            for (_, source) in &programs {
                v.push(diameter(source, s, detector.as_ref(), c)?);
            }
            Ok(mean(v))
        };
        let pb = progress(list.len() as u64, false);
        pb.set_message("growing the set");
        while !left.is_empty() {
            let pick = match order {
                GrowOrder::Given => 0,
                GrowOrder::Greedy => {
                    let mut best = (0, f64::NEG_INFINITY);
                    for (i, t) in left.iter().enumerate() {
                        let mut s = chosen.clone();
                        s.push(t);
                        let d = mean_diameter(&s)?;
                        if d > best.1 {
                            best = (i, d);
                        }
                    }
                    best.0
                }
            };
            chosen.push(left.remove(pick));
            let mut deltas = Vec::new();
            let mut ds = Vec::new();
            for (_, source) in &programs {
                let p = diversity(source, &chosen, detector.as_ref(), c)?;
                ds.push(p.diameter);
                deltas.push(p.diversity);
            }
            let name = chosen.last().map(|t| t.name.clone()).unwrap_or_default();
            growth.push((chosen.len(), name, mean(ds), mean(deltas)));
            pb.inc(1);
        }
        pb.finish_and_clear();
    }

    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let json = serde_json::json!({
        "detector": detector.name(),
        "k": args.k,
        "beam": args.beam,
        "seed": args.seed,
        "transforms": list.iter().map(|t| t.name.clone()).collect::<Vec<_>>(),
        "mean_diameter": mean_d,
        "mean_diversity": mean_delta,
        "mean_contributions": contributions,
        "programs": per_program.iter().map(|(id, p)| serde_json::json!({"id": id, "diameter": p.diameter, "diversity": p.diversity, "contributions": p.contributions})).collect::<Vec<_>>(),
        "grow": growth.iter().map(|(n, t, d, delta)| serde_json::json!({"size": n, "added": t, "mean_diameter": d, "mean_diversity": delta})).collect::<Vec<_>>(),
    });
    let mut md = format!(
        "# Diversity of {} transforms ({}, k = {}, beam {}, {} programs)\n\n\
         Mean k-step diameter D_k = {mean_d:.4}; mean diversity Δ_k = {mean_delta:.4}.\n\n\
         | transform | mean Δ_k(t) (leave-one-out) |\n|---|---|\n",
        list.len(),
        detector.name(),
        args.k,
        args.beam,
        programs.len()
    );
    let mut sorted = contributions.clone();
    sorted.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    for (t, v) in &sorted {
        let _ = writeln!(md, "| {t} | {v:.4} |");
    }
    if !growth.is_empty() {
        md.push_str(
            "\n## Growing the set\n\n| size | added | mean D_k | mean Δ_k |\n|---|---|---|---|\n",
        );
        for (n, t, d, delta) in &growth {
            let _ = writeln!(md, "| {n} | {t} | {d:.4} | {delta:.4} |");
        }
    }
    md.push_str("\n## Per program\n\n| task | D_k | Δ_k |\n|---|---|---|\n");
    for (id, p) in &per_program {
        let _ = writeln!(md, "| {id} | {:.4} | {:.4} |", p.diameter, p.diversity);
    }
    let negative = sorted.iter().filter(|(_, v)| *v < 0.0).count()
        + growth.iter().filter(|g| g.3 < 0.0).count()
        + per_program
            .iter()
            .filter(|(_, p)| p.diversity < 0.0)
            .count();
    if negative > 0 {
        md.push_str(NEGATIVE_NOTE);
    }
    let svg = plot(&growth, &sorted);
    for (name, text) in [
        ("diversity.json", serde_json::to_string_pretty(&json)?),
        ("diversity.md", md.clone()),
        ("diversity.svg", svg),
    ] {
        let p = args.out.join(name);
        std::fs::write(&p, text).with_context(|| format!("cannot write {}", p.display()))?;
    }
    print!("{md}");
    println!(
        "wrote diversity.json, diversity.md and diversity.svg in {}",
        args.out.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// D_k and Δ_k against set size when growing, else the contributions as bars.
fn plot(growth: &[(usize, String, f64, f64)], contributions: &[(String, f64)]) -> String {
    let (w, h, pad) = (520.0, 260.0, 40.0);
    let mut o = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"11\">\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\
         <line x1=\"{pad}\" y1=\"{y0}\" x2=\"{x1}\" y2=\"{y0}\" stroke=\"#444\"/><line x1=\"{pad}\" y1=\"{pad}\" x2=\"{pad}\" y2=\"{y0}\" stroke=\"#444\"/>",
        y0 = h - pad,
        x1 = w - 10.0
    );
    if growth.is_empty() {
        let max = contributions.iter().map(|c| c.1).fold(1e-9, f64::max);
        let bh = (h - 2.0 * pad) / contributions.len().max(1) as f64;
        for (i, (t, v)) in contributions.iter().enumerate() {
            let bw = ((w - 200.0) * v.max(0.0) / max).max(0.0);
            let y = pad + i as f64 * bh;
            let _ = write!(
                o,
                "<rect x=\"150\" y=\"{y:.1}\" width=\"{bw:.1}\" height=\"{:.1}\" fill=\"#27ae60\"/><text x=\"146\" y=\"{:.1}\" text-anchor=\"end\">{t}</text>",
                (bh - 1.0).max(1.0),
                y + bh / 2.0 + 4.0
            );
        }
        let _ = write!(
            o,
            "<text x=\"{pad}\" y=\"20\">mean leave-one-out Δ_k per transform</text>"
        );
    } else {
        let max = growth.iter().map(|g| g.2.max(g.3)).fold(1e-9, f64::max);
        let n = growth.len().max(2) - 1;
        for (idx, colour, label) in [(2, "#1f6feb", "D_k"), (3, "#c0392b", "Δ_k")] {
            let pts: Vec<String> = growth
                .iter()
                .enumerate()
                .map(|(i, g)| {
                    let v = if idx == 2 { g.2 } else { g.3 };
                    format!(
                        "{:.1},{:.1}",
                        pad + (w - pad - 10.0) * i as f64 / n as f64,
                        h - pad - (h - 2.0 * pad) * v / max
                    )
                })
                .collect();
            let _ = write!(
                o,
                "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" points=\"{}\"><title>{label}</title></polyline>",
                pts.join(" ")
            );
        }
        let _ = write!(o, "<text x=\"{pad}\" y=\"20\">mean D_k (blue) and Δ_k (red) as transforms are added</text>");
    }
    o + "</svg>\n"
}
