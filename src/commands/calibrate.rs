//! `equimorph calibrate`: a detector's ROC AUC and thresholds on labelled pairs.

use super::common::{progress, DetectorArgs};
use anyhow::{bail, Context, Result};
use clap::Args;
use equimorph::report::calibration::{read_labelled_pairs, roc, roc_svg, LabelledPair, Roc};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `calibrate`.
#[derive(Args)]
pub struct CalibrateArgs {
    /// Labelled pairs: `{"a", "b", "label"}` JSONL (label 1 = clone), CodeXGLUE's
    /// `data.jsonl` together with --pairs, or GPTCloneBench's stand-alone clones (the
    /// extracted folder or its zip; AUC is then also reported per clone type).
    pairs_file: PathBuf,
    /// CodeXGLUE pair file (`idx1<TAB>idx2<TAB>label` lines) indexing PAIRS_FILE.
    #[arg(long, value_name = "FILE")]
    pairs: Option<PathBuf>,
    /// Also report the threshold at this false-positive rate.
    #[arg(long, default_value_t = 0.05, value_name = "RATE")]
    fpr: f64,
    /// Where to write calibration.json and roc.svg.
    #[arg(long, default_value = "out/calibrate")]
    out: PathBuf,
    /// Seed of GPTCloneBench's non-clone pairs (drawn across its files).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    #[command(flatten)]
    detector: DetectorArgs,
}

/// Runs `calibrate`.
pub fn run(args: CalibrateArgs) -> Result<ExitCode> {
    if !(0.0..=1.0).contains(&args.fpr) {
        bail!("--fpr must lie in [0, 1]");
    }
    let (pairs, types, skipped) =
        if equimorph::task::gptclonebench::is_clone_bench(&args.pairs_file) {
            read_clone_bench(&args)?
        } else {
            // The error's message already holds its I/O cause: one line, not the cause twice.
            let (pairs, problems) = read_labelled_pairs(&args.pairs_file, args.pairs.as_deref())
                .map_err(|e| anyhow::anyhow!("{e}"))?;
            for p in problems.iter().take(10) {
                eprintln!("warning: skipped {p}");
            }
            if problems.len() > 10 {
                eprintln!("warning: … and {} more unusable lines", problems.len() - 10);
            }
            let n = problems.len();
            (pairs, Vec::new(), n)
        };
    if pairs.is_empty() {
        bail!("no usable labelled pair in {}", args.pairs_file.display());
    }
    let detector = args.detector.open()?;
    // One detector call per distinct first program.
    let mut by_anchor: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, p) in pairs.iter().enumerate() {
        by_anchor.entry(p.a.as_str()).or_default().push(i);
    }
    let mut scores = vec![0f32; pairs.len()];
    let pb = progress(pairs.len() as u64, args.quiet);
    pb.set_message("pairs scored");
    for (anchor, idx) in &by_anchor {
        let others: Vec<&str> = idx.iter().map(|&i| pairs[i].b.as_str()).collect();
        let s = detector.score(anchor, &others)?;
        for (&i, v) in idx.iter().zip(s) {
            scores[i] = v;
        }
        pb.inc(idx.len() as u64);
    }
    pb.finish_and_clear();
    let labels: Vec<bool> = pairs.iter().map(|p| p.label).collect();
    let r = roc(&scores, &labels)?;
    let at = r.at_fpr(args.fpr);
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    // Per clone type: that type's clones against every non-clone pair.
    // A type that cannot be measured is said so, with why, and the others still are.
    let mut by_type: BTreeMap<String, Result<Roc, String>> = BTreeMap::new();
    let type_names: std::collections::BTreeSet<&str> =
        types.iter().filter_map(|t| t.as_deref()).collect();
    for name in type_names {
        let keep: Vec<usize> = (0..pairs.len())
            .filter(|&i| !pairs[i].label || types[i].as_deref() == Some(name))
            .collect();
        let s: Vec<f32> = keep.iter().map(|&i| scores[i]).collect();
        let l: Vec<bool> = keep.iter().map(|&i| pairs[i].label).collect();
        by_type.insert(name.to_string(), roc(&s, &l).map_err(|e| e.to_string()));
    }
    let json = serde_json::json!({
        "detector": detector.name(),
        "pairs": pairs.len(),
        "skipped_lines": skipped,
        "by_clone_type": by_type.iter().map(|(k, r)| (k.clone(), match r {
            Ok(r) => type_json(r, args.fpr),
            Err(why) => serde_json::json!({"not_measured": why}),
        })).collect::<BTreeMap<_, _>>(),
        "positives": r.positives,
        "negatives": r.negatives,
        "auc": r.auc,
        "f1_optimal": r.best_f1,
        "fpr": args.fpr,
        "at_fpr": at,
        "at_fpr_missing": at.is_none().then(|| no_threshold_at(&r, args.fpr)),
        "curve": r.curve,
    });
    let json_path = args.out.join("calibration.json");
    std::fs::write(&json_path, serde_json::to_string_pretty(&json)?)
        .with_context(|| format!("cannot write {}", json_path.display()))?;
    let svg_path = args.out.join("roc.svg");
    std::fs::write(&svg_path, roc_svg(&r, detector.name()))
        .with_context(|| format!("cannot write {}", svg_path.display()))?;
    println!(
        "{}: {} pairs ({} clones, {} non-clones), ROC AUC {:.4}",
        detector.name(),
        pairs.len(),
        r.positives,
        r.negatives,
        r.auc
    );
    println!(
        "F1-optimal threshold: M >= {:.4} is a clone (F1 {:.4}, TPR {:.3}, FPR {:.3})",
        r.best_f1.threshold, r.best_f1.f1, r.best_f1.tpr, r.best_f1.fpr
    );
    for (name, r) in &by_type {
        let r = match r {
            Ok(r) => r,
            Err(why) => {
                println!("  {name}: not measured: {why}");
                continue;
            }
        };
        println!(
            "  {name}: {} clones vs {} non-clones, ROC AUC {:.4}, F1-optimal threshold {:.4}, \
             at FPR <= {}: {}",
            r.positives,
            r.negatives,
            r.auc,
            r.best_f1.threshold,
            args.fpr,
            r.at_fpr(args.fpr).map_or_else(
                || format!("none ({})", no_threshold_at(r, args.fpr)),
                |p| format!("{:.4}", p.threshold)
            )
        );
    }
    match at {
        Some(p) => println!(
            "threshold at FPR <= {}: {:.4} (TPR {:.3}, FPR {:.3}); use it with --threshold {:.4}",
            args.fpr, p.threshold, p.tpr, p.fpr, p.threshold
        ),
        None => println!(
            "no threshold keeps the false-positive rate at or below {}: {}",
            args.fpr,
            no_threshold_at(&r, args.fpr)
        ),
    }
    println!("wrote {} and {}", json_path.display(), svg_path.display());
    Ok(ExitCode::SUCCESS)
}

/// One clone type's figures in `calibration.json`.
fn type_json(r: &Roc, fpr: f64) -> serde_json::Value {
    let at = r.at_fpr(fpr);
    serde_json::json!({
        "positives": r.positives,
        "negatives": r.negatives,
        "auc": r.auc,
        "f1_optimal": r.best_f1,
        "at_fpr": at,
        "at_fpr_missing": at.is_none().then(|| no_threshold_at(r, fpr)),
    })
}

/// Why `r` has no threshold at false-positive rate `fpr`: even the strictest threshold (the
/// highest score) counts too many non-clone pairs as clones.
fn no_threshold_at(r: &Roc, fpr: f64) -> String {
    let Some(p) = r.curve.first() else {
        return "the ROC curve is empty".into();
    };
    let one = 1.0 / r.negatives.max(1) as f64;
    format!(
        "non-clone pairs score as high as any clone: even the strictest threshold, M >= {:.4}, \
         counts {} of the {} non-clone pairs as clones (FPR {:.3}){}",
        p.threshold,
        (p.fpr * r.negatives as f64).round(),
        r.negatives,
        p.fpr,
        if fpr > 0.0 && one > fpr {
            format!(
                "; {} non-clone pairs are too few to measure an FPR of {fpr} (one pair is \
                 already {one:.3})",
                r.negatives
            )
        } else {
            String::new()
        }
    )
}

/// GPTCloneBench's pairs, their clone types, and how many files were skipped.
type ClonePairs = (Vec<LabelledPair>, Vec<Option<String>>, usize);

fn read_clone_bench(args: &CalibrateArgs) -> Result<ClonePairs> {
    let bench = equimorph::task::gptclonebench::load(&args.pairs_file, args.seed)?;
    for p in bench.problems.iter().take(10) {
        eprintln!("warning: {p}");
    }
    let counts: Vec<String> = bench
        .counts()
        .iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    let skipped: Vec<String> = bench
        .skipped
        .iter()
        .map(|(k, n)| format!("{n} {k}"))
        .collect();
    eprintln!(
        "{}: GPTCloneBench pairs: {}{}",
        args.pairs_file.display(),
        counts.join(", "),
        if skipped.is_empty() {
            String::new()
        } else {
            format!("; skipped: {}", skipped.join(", "))
        }
    );
    let n_skipped = bench.skipped.values().sum::<usize>() + bench.problems.len();
    let types = bench
        .pairs
        .iter()
        .map(|p| p.clone_type.map(|t| t.label().to_string()))
        .collect();
    let pairs = bench
        .pairs
        .into_iter()
        .map(|p| LabelledPair {
            a: p.a,
            b: p.b,
            label: p.clone,
        })
        .collect();
    Ok((pairs, types, n_skipped))
}
