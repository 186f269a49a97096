//! `equimorph score`: the pairwise similarity matrix M (and L = 1 − M) of text files.

use super::common::{read_text, DetectorArgs};
use anyhow::{bail, Result};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `score`.
#[derive(Args)]
pub struct ScoreArgs {
    /// Files to compare (any text; they need not parse).
    #[arg(required = true, num_args = 1..)]
    files: Vec<PathBuf>,
    /// Print {"files": [...], "similarity": [[...]], "distance": [[...]]}.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    detector: DetectorArgs,
}

/// Runs `score`.
pub fn run(args: ScoreArgs) -> Result<ExitCode> {
    if args.files.len() < 2 {
        bail!("give at least two files to compare");
    }
    let texts: Vec<String> = args
        .files
        .iter()
        .map(|f| read_text(f))
        .collect::<Result<_>>()?;
    let detector = args.detector.open()?;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut m = Vec::with_capacity(texts.len());
    for t in &texts {
        m.push(detector.score(t, &refs)?);
    }
    let names: Vec<String> = args.files.iter().map(|f| f.display().to_string()).collect();
    let stats = detector.stats();
    // Files, each once, longer than the window; the detector's own counter counts each time
    // a text was cut, once per pair.
    let longer: Vec<usize> = match detector.window() {
        Some(window) => detector
            .token_counts(&refs)?
            .iter()
            .enumerate()
            .filter(|(_, n)| n.is_some_and(|n| n > window))
            .map(|(i, _)| i)
            .collect(),
        None => Vec::new(),
    };
    if args.json {
        let l: Vec<Vec<f32>> = m
            .iter()
            .map(|r| r.iter().map(|v| 1.0 - v).collect())
            .collect();
        let out = serde_json::json!({
            "detector": detector.name(), "files": names, "similarity": m, "distance": l,
            "truncated": longer.len(),
            "truncated_files": longer.iter().map(|&i| &names[i]).collect::<Vec<_>>(),
            "truncated_inputs": stats.truncated,
        });
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        println!("detector: {}   M = similarity (L = 1 - M)", detector.name());
        let w = 10;
        print!("{:>w$}", "");
        for j in 0..names.len() {
            print!("{:>w$}", format!("[{j}]"));
        }
        println!();
        for (i, row) in m.iter().enumerate() {
            print!("{:>w$}", format!("[{i}]"));
            for v in row {
                print!("{v:>w$.4}");
            }
            println!();
        }
        for (i, n) in names.iter().enumerate() {
            println!("[{i}] {n}");
        }
        if !longer.is_empty() {
            let list: Vec<String> = longer.iter().map(|i| format!("[{i}]")).collect();
            println!(
                "{} of {} files are longer than the model's window of {} tokens and were \
                 truncated: {}",
                longer.len(),
                names.len(),
                detector.window().unwrap_or_default(),
                list.join(", ")
            );
        } else if stats.truncated > 0 {
            // Each file fits, but a pair read as one sequence (a cross-encoder) does not.
            println!(
                "{} pair(s) were truncated to the model's window of {} tokens (each file fits; \
                 the pair is read as one sequence)",
                stats.truncated,
                detector.window().unwrap_or_default()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
