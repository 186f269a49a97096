//! Results and reports: `results.jsonl` (one line per task, resumable), `summary.json`,
//! `report.md` and a self-contained `report.html`.

pub mod calibration;
pub mod compare;
pub mod gallery;
pub mod reference;
pub mod render;
pub mod results;
pub mod shard;
mod stats;
pub mod summary;

pub use results::{ResultLine, ResultsWriter, Status};

/// The constraints of a search in words, for `run.json` and the report.
pub fn constraints_label(c: &crate::search::Constraints, window: Option<usize>) -> String {
    let mut parts = Vec::new();
    if c.window {
        match window {
            Some(w) => parts.push(format!(
                "window: no candidate longer than the detector's {w} tokens was scored (waived for originals longer than that)"
            )),
            None => parts.push("window (the detector has none)".to_string()),
        }
    }
    if let Some(g) = c.max_growth {
        parts.push(format!("max growth {g}× the original's tokens"));
    }
    if parts.is_empty() {
        "none (candidates longer than the detector's window were scored truncated)".into()
    } else {
        parts.join("; ")
    }
}
pub use summary::{RunInfo, Summary, SymbolicTotals};

use std::path::Path;

/// Writes `summary.json`, `report.md` and `report.html` in `dir` from `dir/results.jsonl`.
pub fn write_reports(dir: &Path, run: RunInfo) -> Result<Summary, results::ResultsError> {
    let lines = results::read(&dir.join("results.jsonl"))?;
    let mut summary = Summary::of(&lines, run);
    if let Some(r) = reference::read(dir) {
        let winners: Vec<f64> = summary.distances.iter().map(|l| 1.0 - l).collect();
        summary.reference_clones = Some(reference::compare(&r, &winners));
    }
    let io = |p: &Path, e: std::io::Error| results::ResultsError::Io {
        path: p.to_path_buf(),
        source: e,
    };
    let write = |name: &str, text: String| {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| io(&p, e))
    };
    write(
        "summary.json",
        serde_json::to_string_pretty(&summary).unwrap_or_default(),
    )?;
    write("report.md", render::markdown(&summary))?;
    write("report.html", render::html(&summary, &lines))?;
    Ok(summary)
}
