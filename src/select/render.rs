//! `selection.md` and `selection.html`: one table per group in the style of the paper's
//! Tables 1 and 3, the winner marked, and a bar chart of rewards per group.

use super::CandidateScore;
use crate::report::render::{bar_chart, esc};
use std::fmt::Write;

/// What the renderers say about the run besides the scores.
#[derive(Debug, Clone, Default)]
pub struct SelectionInfo {
    /// The detector's name.
    pub detector: String,
    /// The task file.
    pub tasks_path: String,
    /// The run seed.
    pub seed: u64,
    /// Tasks not used (their original is not ok), with reasons.
    pub excluded: Vec<(String, String)>,
    /// The largest share of broken or invalid outputs a winner may have, if limited.
    pub max_broken: Option<f64>,
    /// How strong the validation tasks' tests are.
    pub adequacy: Option<crate::adequacy::SetAdequacy>,
    /// How far the run has come: an incomplete run's reports say so first.
    pub progress: crate::run::Progress,
}

impl SelectionInfo {
    /// The winning rule and the tests' adequacy, as sentences.
    fn rule(&self) -> String {
        let mut s = match self.max_broken {
            Some(m) => format!(
                " Only candidates with at most {:.0} % broken or invalid outputs may win.",
                m * 100.0
            ),
            None => String::new(),
        };
        if let Some(a) = &self.adequacy {
            s.push_str(&format!(" Test adequacy: {}.", a.describe()));
        }
        s
    }
}

fn groups(scores: &[CandidateScore]) -> Vec<(&str, Vec<&CandidateScore>)> {
    let mut out: Vec<(&str, Vec<&CandidateScore>)> = Vec::new();
    for s in scores {
        match out.last_mut() {
            Some((g, v)) if *g == s.group => v.push(s),
            _ => out.push((&s.group, vec![s])),
        }
    }
    out
}

fn errors(s: &CandidateScore) -> String {
    if s.errors.is_empty() {
        return "0".into();
    }
    s.errors
        .iter()
        .map(|(k, n)| format!("{k} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The Markdown report.
pub fn markdown(scores: &[CandidateScore], info: &SelectionInfo) -> String {
    let mut o = String::new();
    let n = scores.first().map_or(0, |s| s.tasks);
    let _ = writeln!(o, "# equimorph selection report\n");
    if let Some(notice) = info.progress.incomplete_notice() {
        let _ = writeln!(
            o,
            "**{notice}.** The tables below cover the finished tasks only.\n"
        );
    }
    let _ = writeln!(
        o,
        "Best-of-N selection over **{n}** validation tasks (`{}`), detector **{}**, seed {}. \
         R(T) = (1/n) Σ A·L; a group's winner has the highest positive reward \
         (ties: fewer broken, then file name).{}\n",
        info.tasks_path,
        info.detector,
        info.seed,
        info.rule()
    );
    for (group, rows) in groups(scores) {
        let _ = writeln!(o, "## {group}\n");
        let _ = writeln!(
            o,
            "| candidate | name | correct + applicable | broken | invalid | errors | mean L | reward R(T) | selected |\n\
             |---|---|---|---|---|---|---|---|---|"
        );
        for s in rows {
            let _ = writeln!(
                o,
                "| {} | {} | {} + {} / {} | {} | {} | {} | {:.4} | {:.4} | {} |",
                s.file,
                s.name,
                s.correct,
                s.applicable,
                s.tasks,
                s.broken,
                s.invalid,
                errors(s),
                s.mean_distance,
                s.reward,
                if s.selected { "**winner**" } else { "" }
            );
        }
        let _ = writeln!(o);
    }
    if !info.excluded.is_empty() {
        let _ = writeln!(o, "## Tasks not used\n\n| task | reason |\n|---|---|");
        for (id, why) in &info.excluded {
            let _ = writeln!(
                o,
                "| {id} | {} |",
                why.replace('|', "\\|").replace('\n', " ")
            );
        }
    }
    o
}

/// The self-contained HTML page.
pub fn html(scores: &[CandidateScore], info: &SelectionInfo) -> String {
    let n = scores.first().map_or(0, |s| s.tasks);
    let mut body = String::new();
    for (group, rows) in groups(scores) {
        let _ = write!(
            body,
            "<h2>{}</h2><table><tr><th>candidate</th><th>name</th><th>correct</th><th>applicable</th>\
             <th>broken</th><th>invalid</th><th>errors</th><th>mean L</th><th>reward R(T)</th><th>selected</th></tr>",
            esc(group)
        );
        for s in &rows {
            let _ = write!(
                body,
                "<tr{}><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>\
                 <td>{:.4}</td><td>{:.4}</td><td>{}</td></tr>",
                if s.selected { " class=\"win\"" } else { "" },
                esc(&s.file),
                esc(&s.name),
                s.correct,
                s.applicable,
                s.broken,
                s.invalid,
                esc(&errors(s)),
                s.mean_distance,
                s.reward,
                if s.selected { "winner" } else { "" }
            );
        }
        body.push_str("</table>");
        let bars: Vec<(String, f64)> = rows.iter().map(|s| (s.file.clone(), s.reward)).collect();
        let winner = rows.iter().position(|s| s.selected);
        body.push_str(&bar_chart(
            &format!("Reward R(T) of the candidates of {group}"),
            &bars,
            winner,
        ));
    }
    if !info.excluded.is_empty() {
        body.push_str("<h2>Tasks not used</h2><table><tr><th>task</th><th>reason</th></tr>");
        for (id, why) in &info.excluded {
            let _ = write!(body, "<tr><td>{}</td><td>{}</td></tr>", esc(id), esc(why));
        }
        body.push_str("</table>");
    }
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>equimorph selection</title><style>\
         body{{font-family:sans-serif;max-width:60em;margin:2em auto;color:#222}}\
         table{{border-collapse:collapse}}th,td{{border:1px solid #ccc;padding:4px 8px;text-align:left}}\
         tr.win{{background:#fdecea;font-weight:bold}}\
         figure{{display:block;margin:1em 0}}figcaption{{font-weight:bold}}</style></head><body>\
         <h1>equimorph selection report</h1>{}<p>Best-of-N selection over <b>{n}</b> validation tasks \
         (<code>{}</code>), detector <b>{}</b>, seed {}. R(T) = (1/n) &Sigma; A&middot;L; the winner \
         (highlighted) has the highest positive reward.{}</p>{body}</body></html>\n",
        info.progress
            .incomplete_notice()
            .map(|n| format!(
                "<p id=\"incomplete\"><b>{}.</b> The tables below cover the finished tasks only.</p>",
                esc(&n)
            ))
            .unwrap_or_default(),
        esc(&info.tasks_path),
        esc(&info.detector),
        info.seed,
        esc(&info.rule())
    )
}
