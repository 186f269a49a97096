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
    /// With `--reference-clones`: the share of GPTCloneBench's Type-4 clones the detector
    /// scores above the run's median winner.
    pub type4_above: Option<f64>,
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
    /// Each run's anytime curve (see [`Summary::anytime`]), labelled like its column (and its
    /// detector when the runs use more than one).
    pub anytime: Vec<(String, Vec<(u64, f64)>)>,
    /// Each run's anytime curve in wall seconds (see [`Summary::anytime_seconds`]), labelled
    /// the same way.
    pub anytime_seconds: Vec<(String, Vec<(f64, f64)>)>,
}

/// Query budgets at which the Markdown table reads the anytime curves.
const BUDGETS: [u64; 6] = [50, 100, 200, 400, 800, 1600];

/// Wall-time budgets (seconds per task) at which the tables read the time curves: the
/// time-to-quality headline.
pub const TIME_BUDGETS: [f64; 3] = [30.0, 60.0, 120.0];

/// A short label for a run's transform set.
pub fn transform_set_label(transforms: &[String]) -> String {
    match transforms.len() {
        0 => "none".into(),
        1..=3 => transforms.join("+"),
        n => format!("{n} SPTs ({}…)", transforms[..2].join(", ")),
    }
}

/// The job that made the run in `dir` (`attack`, `augment`, `select`): what its `run.json`
/// records, else what its logs say (`variants.jsonl` is an augment's, `results.jsonl` an
/// attack's); `None` when nothing says.
pub fn job_of(dir: &std::path::Path) -> Option<String> {
    if let Ok(Some((kind, _))) = crate::run::recorded(dir) {
        return Some(kind);
    }
    if dir.join("variants.jsonl").is_file() {
        return Some("augment".into());
    }
    dir.join("results.jsonl")
        .is_file()
        .then(|| "attack".to_string())
}

/// `kind` with its indefinite article ("an augment", "a select").
pub fn with_article(kind: &str) -> String {
    if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        format!("an {kind}")
    } else {
        format!("a {kind}")
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
            type4_above: s
                .reference_clones
                .as_ref()
                .and_then(|r| r.by_type.get("Type-4"))
                .map(|t| t.above_median_winner),
        };
        if c.cells.insert((row.clone(), label.clone()), cell).is_some() {
            c.duplicates.push(format!("{row} × {label}"));
        }
    }
    c.rows = rows.into_iter().collect();
    let several = c.rows.len() > 1;
    let name = |label: &String, s: &Summary| {
        if several {
            format!("{label} · {}", s.run.detector)
        } else {
            label.clone()
        }
    };
    c.anytime = runs
        .iter()
        .filter(|(_, s)| !s.anytime.is_empty())
        .map(|(label, s)| (name(label, s), s.anytime.clone()))
        .collect();
    c.anytime_seconds = runs
        .iter()
        .filter(|(_, s)| !s.anytime_seconds.is_empty())
        .map(|(label, s)| (name(label, s), s.anytime_seconds.clone()))
        .collect();
    c
}

/// The mean best L of `curve` within budget `q` per task (the last point at or below q);
/// `None` when the curve starts above it.
fn within<X: PartialOrd + Copy>(curve: &[(X, f64)], q: X) -> Option<f64> {
    curve
        .iter()
        .take_while(|(x, _)| *x <= q)
        .last()
        .map(|(_, l)| *l)
}

/// Appends a Markdown section `heading` with one row per run of `rows` (label, one cell per
/// column); nothing when there is no row.
fn write_curve_table(
    o: &mut String,
    heading: &str,
    columns: &[String],
    rows: &[(&str, Vec<String>)],
) {
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "\n## {heading}\n\n| run | {} |\n|---|{}",
        columns.join(" | "),
        "---|".repeat(columns.len())
    );
    for (label, cells) in rows {
        let _ = writeln!(o, "| {label} | {} |", cells.join(" | "));
    }
}

/// The mean best L of a time curve at each of [`TIME_BUDGETS`], as table cells; a budget
/// past the curve's end reads its last point (every task had ended by then).
pub fn time_cells(curve: &[(f64, f64)]) -> Vec<String> {
    TIME_BUDGETS
        .iter()
        .map(|t| within(curve, *t).map_or("–".into(), |l| format!("{l:.3}")))
        .collect()
}

/// Colours of the anytime curves, in run order.
const COLOURS: [&str; 8] = [
    "#c0392b", "#2471a3", "#239b56", "#b7950b", "#7d3c98", "#ca6f1e", "#17a589", "#566573",
];

/// One SVG chart with every run's anytime curve.
fn anytime_svg(curves: &[(String, Vec<(u64, f64)>)], esc: &dyn Fn(&str) -> String) -> String {
    let (w, h, pad) = (640.0, 300.0, 40.0);
    let qmax = curves
        .iter()
        .filter_map(|(_, c)| c.last().map(|p| p.0))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let lmax = curves
        .iter()
        .flat_map(|(_, c)| c.iter().map(|p| p.1))
        .fold(0.0f64, f64::max)
        .max(1e-6);
    let mut o = format!(
        "<h2>Anytime curves</h2><svg id=\"anytime\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" \
         xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\" font-size=\"11\">\
         <line x1=\"{pad}\" y1=\"{y0}\" x2=\"{x1}\" y2=\"{y0}\" stroke=\"#888\"/>\
         <line x1=\"{pad}\" y1=\"{pad}\" x2=\"{pad}\" y2=\"{y0}\" stroke=\"#888\"/>\
         <text x=\"{x1}\" y=\"{yl}\" text-anchor=\"end\">{qmax} queries per task</text>\
         <text x=\"4\" y=\"{pad}\">{lmax:.3}</text><text x=\"4\" y=\"{y0}\">0</text>",
        y0 = h - pad,
        x1 = w - 10.0,
        yl = h - pad + 16.0,
    );
    for (i, (label, curve)) in curves.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let pts: Vec<String> = curve
            .iter()
            .map(|(q, l)| {
                let x = pad + (w - pad - 10.0) * *q as f64 / qmax;
                let y = h - pad - (h - 2.0 * pad) * l / lmax;
                format!("{x:.1},{y:.1}")
            })
            .collect();
        let _ = write!(
            o,
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" points=\"{}\"><title>{}</title></polyline>\
             <text x=\"{:.1}\" y=\"{:.1}\" fill=\"{colour}\">{}</text>",
            pts.join(" "),
            esc(label),
            pad + 10.0,
            pad + 14.0 * i as f64,
            esc(label)
        );
    }
    o.push_str("</svg><p>Mean over tasks of the best distance L found within the first q detector queries of each task.</p>");
    o
}

/// "; median winner below 80 % of Type-4 clones", when the run has reference clones.
fn type4_text(x: &Cell) -> String {
    x.type4_above
        .map(|t| format!("; median winner below {:.0} % of Type-4 clones", t * 100.0))
        .unwrap_or_default()
}

fn cell_text(cell: Option<&Cell>) -> String {
    match cell {
        Some(x) => format!(
            "{:.3} ± {:.3}; {:.0} % (M < {:.3}); {} queries{}",
            x.mean,
            x.std,
            x.success_rate * 100.0,
            x.threshold,
            x.median_queries,
            type4_text(x)
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
        let anytime: Vec<(&str, Vec<String>)> = self
            .anytime
            .iter()
            .map(|(label, curve)| {
                let cells = BUDGETS
                    .iter()
                    .map(|q| within(curve, *q).map_or("–".into(), |l| format!("{l:.3}")))
                    .collect();
                (label.as_str(), cells)
            })
            .collect();
        write_curve_table(
            &mut o,
            "Anytime: mean best L within q detector queries per task",
            &BUDGETS.map(|q| format!("q = {q}")),
            &anytime,
        );
        let seconds: Vec<(&str, Vec<String>)> = self
            .anytime_seconds
            .iter()
            .map(|(label, curve)| (label.as_str(), time_cells(curve)))
            .collect();
        write_curve_table(
            &mut o,
            "Time to quality: mean best L within t wall seconds per task",
            &TIME_BUDGETS.map(|t| format!("t = {t} s")),
            &seconds,
        );
        o
    }

    /// CSV, one line per cell.
    pub fn csv(&self) -> String {
        let quote = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
        let mut o = String::from(
            "detector,column,mean_distance,std_distance,success_rate,threshold,median_queries,attacked,type4_clones_above_median_winner\n",
        );
        for ((r, col), x) in &self.cells {
            let _ = writeln!(
                o,
                "{},{},{:.6},{:.6},{:.6},{:.6},{},{},{}",
                quote(r),
                quote(col),
                x.mean,
                x.std,
                x.success_rate,
                x.threshold,
                x.median_queries,
                x.attacked,
                x.type4_above.map(|t| format!("{t:.6}")).unwrap_or_default()
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
                            "<td><div class=\"l\">{:.3} ± {:.3}</div><div class=\"s\">success {:.0} % (M &lt; {:.3}) · {} queries · {} tasks{}</div></td>",
                            x.mean,
                            x.std,
                            x.success_rate * 100.0,
                            x.threshold,
                            x.median_queries,
                            x.attacked,
                            x.type4_above
                                .map(|t| format!(" · median winner below {:.0} % of Type-4 clones", t * 100.0))
                                .unwrap_or_default()
                        );
                    }
                    None => o.push_str("<td>–</td>"),
                }
            }
            o.push_str("</tr>");
        }
        o.push_str("</table><p>Mean ± std worst-case distance L (higher = the detector is fooled more); success rate at each run's own threshold; median candidates scored per task.</p>");
        if !self.anytime.is_empty() {
            o.push_str(&anytime_svg(&self.anytime, &esc));
        }
        if !self.anytime_seconds.is_empty() {
            o.push_str("<h2>Time to quality</h2><table><tr><th>run</th>");
            for t in TIME_BUDGETS {
                let _ = write!(o, "<th>L within {t} s</th>");
            }
            o.push_str("</tr>");
            for (label, curve) in &self.anytime_seconds {
                let _ = write!(o, "<tr><th>{}</th>", esc(label));
                for cell in time_cells(curve) {
                    let _ = write!(o, "<td>{cell}</td>");
                }
                o.push_str("</tr>");
            }
            o.push_str("</table><p>Mean over tasks of the best distance L found within the first t wall seconds of each task's search.</p>");
        }
        o.push_str("</body></html>\n");
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

    #[test]
    fn anytime_curves_are_read_at_budgets_and_drawn_on_one_chart() {
        let mut beam = summary("minilm", 0.6);
        beam.anytime = vec![(0, 0.0), (100, 0.3), (200, 0.5), (300, 0.6)];
        let mut guided = summary("minilm", 0.65);
        guided.anytime = vec![(0, 0.0), (50, 0.4), (100, 0.55), (150, 0.65)];
        let c = compare(&[("beam".into(), beam), ("guided".into(), guided)]);
        let md = c.markdown();
        // q = 50: beam has nothing yet at 50 (its first point after 0 is 100); q = 200: guided
        // kept its final value.
        assert!(
            md.contains("| beam | 0.000 | 0.300 | 0.500 | 0.600 | 0.600 | 0.600 |"),
            "{md}"
        );
        assert!(
            md.contains("| guided | 0.400 | 0.550 | 0.650 | 0.650 | 0.650 | 0.650 |"),
            "{md}"
        );
        let html = c.html();
        assert_eq!(html.matches("<polyline").count(), 2, "{html}");
        assert!(html.contains("id=\"anytime\""));
        // No run recorded times: no time table.
        assert!(!md.contains("Time to quality"), "{md}");
    }

    #[test]
    fn time_curves_are_read_at_30_60_and_120_seconds() {
        let mut fast = summary("minilm", 0.6);
        fast.anytime_seconds = vec![(0.0, 0.0), (20.0, 0.5), (50.0, 0.6)];
        let mut slow = summary("minilm", 0.65);
        slow.anytime_seconds = vec![(0.0, 0.0), (40.0, 0.3), (100.0, 0.65)];
        let c = compare(&[("fast".into(), fast), ("slow".into(), slow)]);
        let md = c.markdown();
        assert!(
            md.contains("| run | t = 30 s | t = 60 s | t = 120 s |"),
            "{md}"
        );
        assert!(md.contains("| fast | 0.500 | 0.600 | 0.600 |"), "{md}");
        assert!(md.contains("| slow | 0.000 | 0.300 | 0.650 |"), "{md}");
        assert!(c.html().contains("<th>L within 30 s</th>"));
    }
}
