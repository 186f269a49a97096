//! Renders a [`Summary`] as Markdown and as one self-contained HTML page with inline SVG plots.

use super::summary::Summary;
use std::fmt::Write;

pub(crate) use super::gallery::esc;

/// The Markdown report.
pub fn markdown(s: &Summary) -> String {
    let mut o = String::new();
    let r = &s.run;
    let _ = writeln!(o, "# equimorph attack report\n");
    if let Some(notice) = s.progress().incomplete_notice() {
        let _ = writeln!(
            o,
            "**{notice}.** The figures below cover the finished tasks only.\n"
        );
    }
    let _ = writeln!(
        o,
        "Detector **{}**, {} search (beam {}, {} iterations, seed {}), {} transforms, tasks `{}`.\n",
        r.detector,
        r.strategy,
        r.beam,
        r.iterations,
        r.seed,
        r.transforms.len(),
        r.tasks
    );
    if !r.constraints.is_empty() {
        let _ = writeln!(o, "Constraints: {}.\n", r.constraints);
    }
    if let Some(d) = &r.dataset {
        let _ = writeln!(o, "Tasks loaded: {d}.\n");
    }
    if let Some(a) = &r.adequacy {
        let _ = writeln!(o, "Test adequacy: {}.\n", a.describe());
    }
    let _ = writeln!(o, "| measure | value |\n|---|---|");
    let _ = writeln!(
        o,
        "| tasks attacked / skipped / errors | {} / {} / {} |",
        s.attacked,
        s.skipped.len(),
        s.errors.len()
    );
    let _ = writeln!(
        o,
        "| worst-case distance L (mean ± std) | {:.4} ± {:.4} |",
        s.mean_distance, s.std_distance
    );
    let _ = writeln!(
        o,
        "| success rate (best M < {:.4}) | {:.1} % |",
        r.threshold,
        s.success_rate * 100.0
    );
    let _ = writeln!(
        o,
        "| threshold set by | {} |",
        if r.threshold_source.is_empty() {
            "fixed"
        } else {
            r.threshold_source.as_str()
        }
    );
    let _ = writeln!(
        o,
        "| candidates rejected before scoring: growth / window | {} / {} |",
        s.rejected_growth, s.rejected_window
    );
    let _ = writeln!(
        o,
        "| candidates the sandbox could not judge (they broke their test harness; not equivalent) | {} |",
        s.sandbox_breakers
    );
    // Results written before growth was recorded have none.
    if s.mean_growth > 0.0 {
        let _ = writeln!(
            o,
            "| winners: mean growth in tokens / truncated by the detector | {:.2}× / {} |",
            s.mean_growth, s.truncated_winners
        );
    }
    if let Some(sym) = &s.symbolic {
        let _ = writeln!(o, "| symbolic check (CrossHair) | {} |", sym.describe());
    }
    if s.window_waived > 0 {
        let _ = writeln!(
            o,
            "| tasks whose original is longer than the window (window rule waived) | {} |",
            s.window_waived
        );
    }
    if s.extended > 0 {
        let _ = writeln!(
            o,
            "| tasks searched past {} iterations (not yet below the threshold there: `--extend`) | {} |",
            s.run.iterations, s.extended
        );
    }
    let _ = writeln!(
        o,
        "| median candidates scored per task | {} |",
        s.median_scored
    );
    let _ = writeln!(
        o,
        "| median oracle checks per task | {} |",
        s.median_oracle_checked
    );
    let t = &s.seconds;
    let _ = writeln!(
        o,
        "| time: transforms / detector / oracle / total | {:.1} s / {:.1} s / {:.1} s / {:.1} s (detector {:.0} %) |\n",
        t.transform,
        t.detector,
        t.oracle,
        t.total,
        s.detector_share * 100.0
    );
    let _ = writeln!(
        o,
        "## Transforms in winning sequences\n\n| transform | uses |\n|---|---|"
    );
    let mut usage: Vec<_> = s.transform_usage.iter().collect();
    usage.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    for (name, n) in usage {
        let _ = writeln!(o, "| {name} | {n} |");
    }
    let _ = writeln!(
        o,
        "\n## Clone types of best vs original (NiCad-style)\n\n| type | tasks |\n|---|---|"
    );
    for (k, v) in &s.clone_types {
        let _ = writeln!(o, "| {k} | {v} |");
    }
    if let Some(r) = &s.reference_clones {
        let _ = writeln!(o, "\n## Against real clones\n\n{}\n", reference_sentence(r));
        let _ = writeln!(
            o,
            "| clone type | pairs | median M | share scoring above the median winner | winners below its median |\n|---|---|---|---|---|"
        );
        for (t, c) in &r.by_type {
            let _ = writeln!(
                o,
                "| {t} | {} | {:.3} | {:.1} % | {:.1} % |",
                c.pairs,
                c.median_similarity,
                100.0 * c.above_median_winner,
                100.0 * c.winners_below_median
            );
        }
    }
    if !s.transform_errors.is_empty() {
        let _ = writeln!(
            o,
            "\n## Transform failures\n\nApplications that failed (the candidate was dropped), by kind.\n\n\
             | transform | failures |\n|---|---|"
        );
        for (name, kinds) in &s.transform_errors {
            let _ = writeln!(o, "| {name} | {} |", error_kinds(kinds));
        }
    }
    window_section(&mut o, s);
    if !s.mean_distance_per_iteration.is_empty() {
        let _ = writeln!(o, "\n## Mean best distance per iteration\n");
        let row: Vec<String> = s
            .mean_distance_per_iteration
            .iter()
            .map(|d| format!("{d:.4}"))
            .collect();
        let _ = writeln!(o, "{}", row.join(" → "));
    }
    if !s.skipped.is_empty() || !s.errors.is_empty() {
        let _ = writeln!(
            o,
            "\n## Not attacked\n\n| task | status | reason |\n|---|---|---|"
        );
        for (id, why) in &s.skipped {
            let _ = writeln!(
                o,
                "| {id} | skipped | {} |",
                why.replace('|', "\\|").replace('\n', " ")
            );
        }
        for (id, why) in &s.errors {
            let _ = writeln!(
                o,
                "| {id} | error | {} |",
                why.replace('|', "\\|").replace('\n', " ")
            );
        }
    }
    o
}

/// `timeout 3, trap 1`.
pub(crate) fn error_kinds(kinds: &std::collections::BTreeMap<String, u64>) -> String {
    kinds
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

const W: f64 = 520.0;
const H: f64 = 220.0;
const PAD: f64 = 36.0;

fn svg_open(title: &str) -> String {
    svg_open_sized(title, H)
}

/// An SVG figure `h` pixels high with its axes.
fn svg_open_sized(title: &str, h: f64) -> String {
    format!(
        "<figure><figcaption>{}</figcaption><svg viewBox=\"0 0 {W} {h}\" width=\"{W}\" height=\"{h}\" \
         xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\" font-size=\"11\">\
         <line x1=\"{PAD}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#444\"/>\
         <line x1=\"{PAD}\" y1=\"{PAD}\" x2=\"{PAD}\" y2=\"{}\" stroke=\"#444\"/>",
        esc(title),
        h - PAD,
        W - 10.0,
        h - PAD,
        h - PAD
    )
}

fn histogram(distances: &[f64]) -> String {
    histogram_titled("Distribution of final distances L = 1 − M", distances)
}

/// A 10-bin histogram of values in [0, 1], as inline SVG.
pub(crate) fn histogram_titled(title: &str, distances: &[f64]) -> String {
    let bins = 10usize;
    let mut counts = vec![0usize; bins];
    for d in distances {
        counts[((d * bins as f64) as usize).min(bins - 1)] += 1;
    }
    let max = counts.iter().copied().max().unwrap_or(1).max(1) as f64;
    let bw = (W - PAD - 10.0) / bins as f64;
    let mut o = svg_open(title);
    for (i, c) in counts.iter().enumerate() {
        let h = (H - 2.0 * PAD) * *c as f64 / max;
        let x = PAD + i as f64 * bw;
        let _ = write!(
            o,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{h:.1}\" fill=\"#4a7fb5\"><title>{c} tasks</title></rect>\
             <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{:.1}</text>",
            x + 1.0,
            H - PAD - h,
            bw - 2.0,
            x,
            H - PAD + 14.0,
            i as f64 / bins as f64
        );
        if *c > 0 {
            let _ = write!(
                o,
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{c}</text>",
                x + bw / 2.0,
                H - PAD - h - 3.0
            );
        }
    }
    let _ = write!(
        o,
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">1.0</text></svg></figure>",
        W - 10.0,
        H - PAD + 14.0
    );
    o
}

fn line_chart(values: &[f64]) -> String {
    let mut o = svg_open("Mean best distance after each iteration");
    if values.is_empty() {
        return o + "</svg></figure>";
    }
    let max = values.iter().copied().fold(0.0f64, f64::max).max(1e-6);
    let n = values.len().max(2) - 1;
    let pts: Vec<String> = values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let x = PAD + (W - PAD - 10.0) * i as f64 / n as f64;
            let y = H - PAD - (H - 2.0 * PAD) * v / max;
            format!("{x:.1},{y:.1}")
        })
        .collect();
    let _ = write!(
        o,
        "<polyline fill=\"none\" stroke=\"#c0392b\" stroke-width=\"2\" points=\"{}\"/>",
        pts.join(" ")
    );
    for (i, (p, v)) in pts.iter().zip(values).enumerate() {
        let (x, y) = p.split_once(',').unwrap_or(("0", "0"));
        let _ = write!(
            o,
            "<circle cx=\"{x}\" cy=\"{y}\" r=\"3\" fill=\"#c0392b\"><title>iteration {}: {v:.4}</title></circle>\
             <text x=\"{x}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            i + 1,
            H - PAD + 14.0,
            i + 1
        );
    }
    let _ = write!(o, "<text x=\"4\" y=\"{:.1}\">{max:.3}</text><text x=\"4\" y=\"{:.1}\">0</text></svg></figure>", PAD, H - PAD);
    o
}

/// A horizontal bar chart of `rows` (label, value); the bar at `highlight` is drawn in another
/// colour.
pub(crate) fn bar_chart(title: &str, rows: &[(String, f64)], highlight: Option<usize>) -> String {
    // At least 14 pixels a bar, so 35 transforms stay readable.
    let height = H.max(14.0 * rows.len() as f64 + 2.0 * PAD);
    let mut o = svg_open_sized(title, height);
    let max = rows
        .iter()
        .map(|(_, v)| *v)
        .fold(0.0f64, f64::max)
        .max(f64::MIN_POSITIVE);
    let bh = (height - 2.0 * PAD) / rows.len().max(1) as f64;
    for (i, (name, v)) in rows.iter().enumerate() {
        let w = ((W - 200.0) * v / max).max(0.0);
        let y = PAD + i as f64 * bh;
        let colour = if highlight == Some(i) {
            "#c0392b"
        } else {
            "#27ae60"
        };
        let value = if v.fract() == 0.0 {
            format!("{v}")
        } else {
            format!("{v:.4}")
        };
        let _ = write!(
            o,
            "<rect x=\"130\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"{colour}\"/>\
             <text x=\"126\" y=\"{:.1}\" text-anchor=\"end\">{}</text><text x=\"{:.1}\" y=\"{:.1}\">{value}</text>",
            y + 1.0,
            bh - 2.0,
            y + bh / 2.0 + 4.0,
            esc(name),
            134.0 + w,
            y + bh / 2.0 + 4.0
        );
    }
    o + "</svg></figure>"
}

/// The HTML page (no external resources): the summary, its charts, per-transform strength and
/// use in winners, then the gallery of every attacked task (`lines`).
pub fn html(s: &Summary, lines: &[super::results::ResultLine]) -> String {
    let mut usage: Vec<_> = s.transform_usage.iter().collect();
    usage.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let mut strength: Vec<(String, f64)> = s
        .transform_strength
        .iter()
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    strength.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let md = markdown(s);
    let table: String = md
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| measure") && !l.starts_with("|---"))
        .take(6)
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split(" | ").collect();
            format!(
                "<tr><th>{}</th><td>{}</td></tr>",
                esc(cells[0].trim()),
                esc(cells.get(1).unwrap_or(&"").trim())
            )
        })
        .collect();
    let mut extra = String::from("<h2>Clone types of best vs original (NiCad-style)</h2><table>");
    for (k, v) in &s.clone_types {
        let _ = write!(extra, "<tr><th>{}</th><td>{v}</td></tr>", esc(k));
    }
    extra.push_str("</table>");
    if !s.transform_errors.is_empty() {
        extra.push_str(
            "<h2>Transform failures</h2><table><tr><th>transform</th><th>failures</th></tr>",
        );
        for (name, kinds) in &s.transform_errors {
            let _ = write!(
                extra,
                "<tr><td>{}</td><td>{}</td></tr>",
                esc(name),
                esc(&error_kinds(kinds))
            );
        }
        extra.push_str("</table>");
    }
    if s.sandbox_breakers > 0 {
        let _ = write!(
            extra,
            "<h2>Candidates the sandbox could not judge</h2><p>{} candidate(s) broke their test \
             harness (killed the fork server, say) while the original, run again the same way, \
             did not: counted as not equivalent, and no task failed because of them.</p>",
            s.sandbox_breakers
        );
    }
    if !s.skipped.is_empty() || !s.errors.is_empty() {
        extra.push_str(
            "<h2>Not attacked</h2><table><tr><th>task</th><th>status</th><th>reason</th></tr>",
        );
        let rows = s
            .skipped
            .iter()
            .map(|r| ("skipped", r))
            .chain(s.errors.iter().map(|r| ("error", r)));
        for (status, (id, why)) in rows {
            let _ = write!(
                extra,
                "<tr><td>{}</td><td>{status}</td><td>{}</td></tr>",
                esc(id),
                esc(why)
            );
        }
        extra.push_str("</table>");
    }
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>equimorph report</title><style>\
         body{{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}}\
         table{{border-collapse:collapse}}th,td{{border:1px solid #ccc;padding:4px 8px;text-align:left}}\
         figure{{display:inline-block;margin:1em}}figcaption{{font-weight:bold}}{}</style></head><body>\
         <h1>equimorph attack report</h1>{}<p>Detector <b>{}</b>, {} search (beam {}, {} iterations, seed {}).</p>\
         <p id=\"constraints\">Constraints: {}.</p>{}<table>{table}</table>{}{}{}{}{extra}{}</body></html>\n",
        super::gallery::CSS,
        s.progress()
            .incomplete_notice()
            .map(|n| format!("<p id=\"incomplete\"><b>{}.</b> The figures below cover the finished tasks only.</p>", esc(&n)))
            .unwrap_or_default(),
        esc(&s.run.detector),
        esc(&s.run.strategy),
        s.run.beam,
        s.run.iterations,
        s.run.seed,
        if s.run.constraints.is_empty() {
            "not recorded".to_string()
        } else {
            esc(&s.run.constraints)
        },
        s.run
            .dataset
            .as_ref()
            .map(|d| format!("<p id=\"dataset\">Tasks loaded: {}.</p>", esc(&d.to_string())))
            .unwrap_or_default()
            + &s
                .run
                .adequacy
                .as_ref()
                .map(|a| format!("<p id=\"adequacy\">Test adequacy: {}.</p>", esc(&a.describe())))
                .unwrap_or_default()
            + &s
                .reference_clones
                .as_ref()
                .map(|r| format!("<p id=\"reference\">{}</p>", esc(&reference_sentence(r))))
                .unwrap_or_default(),
        histogram(&s.distances),
        line_chart(&s.mean_distance_per_iteration),
        bar_chart(
            "Transforms in winning sequences",
            &usage
                .iter()
                .map(|(n, v)| ((*n).clone(), **v as f64))
                .collect::<Vec<_>>(),
            None
        ),
        if strength.is_empty() {
            String::new()
        } else {
            bar_chart(
                "Strength: mean L of one application to an original",
                &strength,
                None,
            )
        },
        super::gallery::gallery(lines),
    )
}

/// "The median winner scores M = 0.412, below 78 % of the Type-4 clones of … (and …)."
fn reference_sentence(r: &super::reference::ReferenceComparison) -> String {
    let parts: Vec<String> = r
        .by_type
        .iter()
        .rev()
        .map(|(t, c)| format!("{:.0} % of its {t} clones", 100.0 * c.above_median_winner))
        .collect();
    format!(
        "The median winner scores M = {:.3} against its original: below {} in {}, scored by \
         the same detector.",
        r.median_winner_similarity,
        parts.join(", "),
        r.source
    )
}

/// The tasks the window rule held back most, so a user sees why a task stayed strong.
fn window_section(o: &mut String, s: &Summary) {
    const SHOWN: usize = 15;
    if s.window_held.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "\n## The window rule per task\n\nThe window rule dropped candidates in {} of {} attacked \
         tasks: rewrites longer than the detector's window, which it would truncate. A task \
         where most candidates were dropped had little room to move.\n\n\
         | task | dropped / valid candidates | L |\n|---|---|---|",
        s.window_held.len(),
        s.attacked
    );
    for w in s.window_held.iter().take(SHOWN) {
        let _ = writeln!(
            o,
            "| {} | {} / {} ({:.0} %) | {:.4} |",
            w.id,
            w.dropped,
            w.valid,
            100.0 * w.share(),
            w.distance
        );
    }
    if s.window_held.len() > SHOWN {
        let _ = writeln!(
            o,
            "\n… and {} more (summary.json: window_held)",
            s.window_held.len() - SHOWN
        );
    }
}
