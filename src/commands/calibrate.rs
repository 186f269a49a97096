//! `equimorph calibrate`: a detector's ROC AUC and thresholds on labelled pairs.

use super::common::DetectorArgs;
use anyhow::{bail, Context, Result};
use clap::Args;
use equimorph::report::calibration::{read_labelled_pairs, roc, roc_svg};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `calibrate`.
#[derive(Args)]
pub struct CalibrateArgs {
    /// Labelled pairs: `{"a", "b", "label"}` JSONL (label 1 = clone), or CodeXGLUE's
    /// `data.jsonl` together with --pairs.
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
    #[command(flatten)]
    detector: DetectorArgs,
}

/// Runs `calibrate`.
pub fn run(args: CalibrateArgs) -> Result<ExitCode> {
    if !(0.0..=1.0).contains(&args.fpr) {
        bail!("--fpr must lie in [0, 1]");
    }
    let (pairs, problems) = read_labelled_pairs(&args.pairs_file, args.pairs.as_deref())?;
    for p in problems.iter().take(10) {
        eprintln!("warning: skipped {p}");
    }
    if problems.len() > 10 {
        eprintln!("warning: … and {} more unusable lines", problems.len() - 10);
    }
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
    for (anchor, idx) in &by_anchor {
        let others: Vec<&str> = idx.iter().map(|&i| pairs[i].b.as_str()).collect();
        let s = detector.score(anchor, &others)?;
        for (&i, v) in idx.iter().zip(s) {
            scores[i] = v;
        }
    }
    let labels: Vec<bool> = pairs.iter().map(|p| p.label).collect();
    let r = roc(&scores, &labels)?;
    let at = r.at_fpr(args.fpr);
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let json = serde_json::json!({
        "detector": detector.name(),
        "pairs": pairs.len(),
        "skipped_lines": problems.len(),
        "positives": r.positives,
        "negatives": r.negatives,
        "auc": r.auc,
        "f1_optimal": r.best_f1,
        "fpr": args.fpr,
        "at_fpr": at,
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
    match at {
        Some(p) => println!(
            "threshold at FPR <= {}: {:.4} (TPR {:.3}, FPR {:.3}); use it with --threshold {:.4}",
            args.fpr, p.threshold, p.tpr, p.fpr, p.threshold
        ),
        None => println!(
            "no threshold keeps the false-positive rate at or below {}",
            args.fpr
        ),
    }
    println!("wrote {} and {}", json_path.display(), svg_path.display());
    Ok(ExitCode::SUCCESS)
}
