//! One table over several runs (the paper's Table 2): rows are detectors, columns are
//! transform sets or any run label, cells are mean ± std worst-case distance, success rate at
//! each run's own threshold and the median number of detector queries per task.

use super::summary::Summary;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

/// One cell of the comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// Mean worst-case distance L.
    pub mean: f64,
    /// Its standard deviation.
    pub std: f64,
    /// Success rate at the run's threshold.
    pub success_rate: f64,
    /// That threshold.
    pub threshold: f32,
    /// Median candidates scored (detector queries) per task.
    pub median_queries: f64,
    /// Tasks attacked.
    pub attacked: usize,
}

/// A detectors × columns table.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Comparison {
    /// Detector names, sorted.
    pub rows: Vec<String>,
    /// Column labels, in the order first seen.
    pub columns: Vec<String>,
    /// (row, column) → cell.
    pub cells: BTreeMap<(String, String), Cell>,
    /// Runs that landed on a (row, column) another run already filled.
    pub duplicates: Vec<String>,
}

/// A short label for a run's transform set.
pub fn transform_set_label(transforms: &[String]) -> String {
    match transforms.len() {
        0 => "none".into(),
        1..=3 => transforms.join("+"),
        n => format!("{n} SPTs ({}…)", transforms[..2].join(", ")),
    }
}

/// Builds the table from `(column label, summary)` pairs.
pub fn compare(runs: &[(String, Summary)]) -> Comparison {
    let mut c = Comparison::default();
    let mut rows = BTreeSet::new();
    for (label, s) in runs {
        let row = if s.run.detector.is_empty() {
            "unknown detector".to_string()
        } else {
            s.run.detector.clone()
        };
        rows.insert(row.clone());
        if !c.columns.contains(label) {
            c.columns.push(label.clone());
        }
        let cell = Cell {
            mean: s.mean_distance,
            std: s.std_distance,
            success_rate: s.success_rate,
            threshold: s.run.threshold,
            median_queries: s.median_scored,
            attacked: s.attacked,
        };
        if c.cells.insert((row.clone(), label.clone()), cell).is_some() {
            c.duplicates.push(format!("{row} × {label}"));
        }
    }
    c.rows = rows.into_iter().collect();
    c
}

fn cell_text(cell: Option<&Cell>) -> String {
    match cell {
        Some(x) => format!(
            "{:.3} ± {:.3}; {:.0} % (M < {:.3}); {} queries",
            x.mean,
            x.std,
            x.success_rate * 100.0,
            x.threshold,
            x.median_queries
        ),
        None => "–".into(),
    }
}

impl Comparison {
    /// Markdown table.
    pub fn markdown(&self) -> String {
        let mut o = String::new();
        let _ = writeln!(o, "| detector | {} |", self.columns.join(" | "));
        let _ = writeln!(o, "|---|{}", "---|".repeat(self.columns.len()));
        for r in &self.rows {
            let cells: Vec<String> = self
                .columns
                .iter()
                .map(|col| cell_text(self.cells.get(&(r.clone(), col.clone()))))
                .collect();
            let _ = writeln!(o, "| {r} | {} |", cells.join(" | "));
        }
        let _ = writeln!(
            o,
            "\nCells: mean ± std worst-case distance L; success rate at the run's threshold; \
             median candidates scored per task."
        );
        o
    }

    /// CSV, one line per cell.
    pub fn csv(&self) -> String {
        let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
        let mut o = String::from(
            "detector,column,mean_distance,std_distance,success_rate,threshold,median_queries,attacked\n",
        );
        for ((r, col), x) in &self.cells {
            let _ = writeln!(
                o,
                "{},{},{:.6},{:.6},{:.6},{:.6},{},{}",
                quote(r),
                quote(col),
                x.mean,
                x.std,
                x.success_rate,
                x.threshold,
                x.median_queries,
                x.attacked
            );
        }
        o
    }

    /// A self-contained HTML page.
    pub fn html(&self) -> String {
        let esc = |s: &str| {
            s.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
        };
        let mut o = String::from(
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>equimorph comparison</title>\
             <style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}\
             td,th{border:1px solid #ccc;padding:6px 10px;text-align:left}th{background:#f3f3f3}\
             .l{font-size:1.1em;font-weight:bold}.s{color:#555;font-size:.9em}</style></head><body>\
             <h1>Worst-case distance by detector and transform set</h1><table><tr><th>detector</th>",
        );
        for col in &self.columns {
            let _ = write!(o, "<th>{}</th>", esc(col));
        }
        o.push_str("</tr>");
        for r in &self.rows {
            let _ = write!(o, "<tr><th>{}</th>", esc(r));
            for col in &self.columns {
                match self.cells.get(&(r.clone(), col.clone())) {
                    Some(x) => {
                        let _ = write!(
                            o,
                            "<td><div class=\"l\">{:.3} ± {:.3}</div><div class=\"s\">success {:.0} % (M &lt; {:.3}) · {} queries · {} tasks</div></td>",
                            x.mean,
                            x.std,
                            x.success_rate * 100.0,
                            x.threshold,
                            x.median_queries,
                            x.attacked
                        );
                    }
                    None => o.push_str("<td>–</td>"),
                }
            }
            o.push_str("</tr>");
        }
        o.push_str("</table><p>Mean ± std worst-case distance L (higher = the detector is fooled more); success rate at each run's own threshold; median candidates scored per task.</p></body></html>\n");
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::RunInfo;

    fn summary(detector: &str, mean: f64) -> Summary {
        Summary {
            run: RunInfo {
                detector: detector.into(),
                threshold: 0.5,
                ..RunInfo::default()
            },
            mean_distance: mean,
            attacked: 3,
            ..Summary::default()
        }
    }

    #[test]
    fn rows_are_detectors_and_columns_labels() {
        let c = compare(&[
            ("classic".into(), summary("minilm", 0.4)),
            ("all".into(), summary("minilm", 0.7)),
            ("all".into(), summary("jaccard", 0.9)),
        ]);
        assert_eq!(c.rows, vec!["jaccard", "minilm"]);
        assert_eq!(c.columns, vec!["classic", "all"]);
        let md = c.markdown();
        assert!(md.contains("| jaccard | – | 0.900 ± 0.000"), "{md}");
        assert_eq!(c.csv().lines().count(), 4);
        assert!(c.html().contains("<th>classic</th>"));
        let dup = compare(&[
            ("x".into(), summary("m", 0.1)),
            ("x".into(), summary("m", 0.2)),
        ]);
        assert_eq!(dup.duplicates, vec!["m × x"]);
    }
}
