//! The per-task part of `report.html`: a sortable table of tasks, each attacked task's
//! original and best rewrite side by side with the changed lines highlighted, and the anytime
//! curve (best distance against detector queries). Plain HTML, inline CSS and a few lines of
//! inline JavaScript for sorting: the page opens offline.

use super::results::{ResultLine, Status};
use std::fmt::Write;

/// Escapes text for HTML.
pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One row of a side-by-side diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffRow<'a> {
    /// The line is in both.
    Same(&'a str),
    /// Only in the original.
    Removed(&'a str),
    /// Only in the rewrite.
    Added(&'a str),
}

/// A line diff (longest common subsequence) of `a` and `b`; texts longer than 3,000 lines
/// are shown as removed-then-added instead.
pub fn line_diff<'a>(a: &'a str, b: &'a str) -> Vec<DiffRow<'a>> {
    let (x, y): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
    if x.len() > 3000 || y.len() > 3000 {
        return x
            .iter()
            .map(|l| DiffRow::Removed(l))
            .chain(y.iter().map(|l| DiffRow::Added(l)))
            .collect();
    }
    let (n, m) = (x.len(), y.len());
    // lcs[i][j]: LCS length of x[i..] and y[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if x[i] == y[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out) = (0, 0, Vec::new());
    while i < n || j < m {
        if i < n && j < m && x[i] == y[j] {
            out.push(DiffRow::Same(x[i]));
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            out.push(DiffRow::Added(y[j]));
            j += 1;
        } else {
            out.push(DiffRow::Removed(x[i]));
            i += 1;
        }
    }
    out
}

fn side_by_side(original: &str, best: &str) -> String {
    side_by_side_titled(original, best, "best rewrite")
}

/// `original` and `rewrite` side by side, changed lines highlighted; `title` heads the right.
pub(crate) fn side_by_side_titled(original: &str, best: &str, title: &str) -> String {
    let mut o = format!(
        "<table class=\"diff\"><tr><th>original</th><th>{}</th></tr>",
        esc(title)
    );
    for row in line_diff(original, best) {
        let (l, r, class) = match row {
            DiffRow::Same(t) => (esc(t), esc(t), "same"),
            DiffRow::Removed(t) => (esc(t), String::new(), "del"),
            DiffRow::Added(t) => (String::new(), esc(t), "add"),
        };
        let _ = write!(
            o,
            "<tr class=\"{class}\"><td><pre>{l}</pre></td><td><pre>{r}</pre></td></tr>"
        );
    }
    o + "</table>"
}

/// The anytime curve: for each task, best distance against candidates scored.
fn anytime_svg(lines: &[&ResultLine]) -> String {
    let (w, h, pad) = (520.0, 240.0, 40.0);
    let max_x = lines
        .iter()
        .filter_map(|l| l.scored_per_iteration.last())
        .copied()
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let mut o = format!(
        "<figure><figcaption>Anytime curve: best distance L against detector queries (one line per task)</figcaption>\
         <svg id=\"anytime\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\" font-size=\"11\">\
         <line x1=\"{pad}\" y1=\"{y0}\" x2=\"{x1}\" y2=\"{y0}\" stroke=\"#444\"/><line x1=\"{pad}\" y1=\"{pad}\" x2=\"{pad}\" y2=\"{y0}\" stroke=\"#444\"/>\
         <text x=\"{x1}\" y=\"{yl}\" text-anchor=\"end\">{max_x} queries</text><text x=\"4\" y=\"{pad}\">1.0</text><text x=\"4\" y=\"{y0}\">0</text>",
        y0 = h - pad,
        x1 = w - 10.0,
        yl = h - pad + 16.0,
    );
    for l in lines {
        let mut pts = vec![format!("{pad:.1},{:.1}", h - pad)];
        for (q, m) in l.scored_per_iteration.iter().zip(&l.best_per_iteration) {
            let x = pad + (w - pad - 10.0) * *q as f64 / max_x;
            let y = h - pad - (h - 2.0 * pad) * (1.0 - f64::from(*m));
            pts.push(format!("{x:.1},{y:.1}"));
        }
        let _ = write!(
            o,
            "<polyline fill=\"none\" stroke=\"#1f6feb\" stroke-opacity=\"0.45\" points=\"{}\"><title>{}</title></polyline>",
            pts.join(" "),
            esc(&l.id)
        );
    }
    o + "</svg></figure>"
}

/// Sorting for every table with class `sortable`: click a header to sort by that column
/// (numbers numerically, by each cell's `data-v`).
const SORT_JS: &str = "document.querySelectorAll('table.sortable').forEach(function(t){\
var hs=t.querySelectorAll('th');hs.forEach(function(h,i){h.style.cursor='pointer';h.addEventListener('click',function(){\
var rows=Array.from(t.querySelectorAll('tr')).slice(1);var asc=h.dataset.asc!=='1';h.dataset.asc=asc?'1':'0';\
rows.sort(function(a,b){var x=a.children[i].dataset.v,y=b.children[i].dataset.v;var nx=parseFloat(x),ny=parseFloat(y);\
var c=(isNaN(nx)||isNaN(ny))?String(x).localeCompare(String(y)):nx-ny;return asc?c:-c;});rows.forEach(function(r){t.appendChild(r);});});});\
t.dataset.ready='1';});";

/// CSS of the gallery.
pub(crate) const CSS: &str = "table.diff{font-size:12px;width:100%;table-layout:fixed}table.diff td{vertical-align:top;padding:0 6px}\
table.diff pre{margin:0;white-space:pre-wrap}tr.del td:first-child{background:#ffe3e3}tr.add td:last-child{background:#dcffe0}\
section.task{border-top:1px solid #ddd;margin-top:1.5em}table.sortable th{background:#f3f3f3}";

/// The gallery: table of tasks, anytime curve and one section per attacked task.
pub fn gallery(lines: &[ResultLine]) -> String {
    let ok: Vec<&ResultLine> = lines.iter().filter(|l| l.status == Status::Ok).collect();
    let mut o = String::from("<h2>Tasks</h2><table class=\"sortable\" id=\"tasks\"><tr><th>task</th><th>L</th><th>M</th><th>success</th><th>queries</th><th>oracle checks</th><th>clone type</th><th>growth</th><th>winning sequence</th></tr>");
    for (i, l) in ok.iter().enumerate() {
        let d = l.distance.unwrap_or(0.0);
        let m = l.similarity.unwrap_or(1.0);
        let seq: Vec<&str> = l.transforms.iter().map(|s| s.name.as_str()).collect();
        let success = match l.success {
            Some(true) => "yes",
            Some(false) => "no",
            None => "",
        };
        let clone_type = l.clone_type.clone().unwrap_or_default();
        let growth = l.growth.map_or(String::new(), |g| format!("{g:.2}"));
        let _ = write!(
            o,
            "<tr><td data-v=\"{id}\"><a href=\"#task-{i}\">{id}</a></td><td data-v=\"{d}\">{d:.4}</td><td data-v=\"{m}\">{m:.4}</td>\
             <td data-v=\"{success}\">{success}</td><td data-v=\"{q}\">{q}</td><td data-v=\"{c}\">{c}</td><td data-v=\"{ct}\">{ct}</td>\
             <td data-v=\"{growth}\">{growth}</td><td data-v=\"{n}\">{s}</td></tr>",
            id = esc(&l.id),
            q = l.counts.scored,
            c = l.counts.oracle_checked,
            ct = esc(&clone_type),
            n = seq.len(),
            s = esc(&seq.join(" → ")),
        );
    }
    o.push_str("</table>");
    o.push_str(&anytime_svg(&ok));
    o.push_str("<h2>Gallery</h2>");
    for (i, l) in ok.iter().enumerate() {
        let seq: Vec<String> = l
            .transforms
            .iter()
            .map(|s| format!("{} (seed {})", s.name, s.seed))
            .collect();
        let _ = write!(
            o,
            "<section class=\"task\" id=\"task-{i}\"><h3>{}</h3><p>M = {:.4}, L = {:.4}; sequence: {}</p>{}</section>",
            esc(&l.id),
            l.similarity.unwrap_or(1.0),
            l.distance.unwrap_or(0.0),
            if seq.is_empty() {
                "none (no equivalent rewrite was less similar)".to_string()
            } else {
                esc(&seq.join(" → "))
            },
            side_by_side(&l.original, l.best.as_deref().unwrap_or(&l.original))
        );
    }
    let _ = write!(o, "<script>{SORT_JS}</script>");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_diff_keeps_common_lines_in_order() {
        let d = line_diff("a\nb\nc\n", "a\nx\nc\n");
        assert_eq!(
            d,
            vec![
                DiffRow::Same("a"),
                DiffRow::Added("x"),
                DiffRow::Removed("b"),
                DiffRow::Same("c")
            ]
        );
        assert!(side_by_side("<a>", "<a>").contains("&lt;a&gt;"));
    }
}
