//! `equimorph robustness`: the Auto-SPT RQ3 experiment end to end. Tasks are split by
//! problem; the training tasks are augmented and a detector is trained on them; the base and
//! the trained detector are then attacked on the held-out tasks with one or more transform
//! sets, and their clean discrimination is measured on pairs that do not come from SPTs
//! (independent solutions of one problem against solutions of others). This module holds
//! the parts that are not orchestration: the split, the clean pairs and the report.

use crate::task::Task;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Train and test task ids, split by problem.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskSplit {
    /// Tasks whose problems are augmented and trained on.
    pub train: Vec<String>,
    /// Tasks whose problems are only attacked and measured.
    pub test: Vec<String>,
}

fn problem_of(t: &Task) -> &str {
    t.problem_key()
}

/// Splits `tasks` by problem, seeded: about `test_fraction` of the problems (at least one of
/// each side) are held out. `None` with fewer than two problems.
pub fn split_tasks(tasks: &[&Task], test_fraction: f64, seed: u64) -> Option<TaskSplit> {
    let mut problems: Vec<&str> = tasks.iter().map(|t| problem_of(t)).collect();
    problems.sort_unstable();
    problems.dedup();
    if problems.len() < 2 {
        return None;
    }
    problems.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
    let n_test =
        ((problems.len() as f64 * test_fraction).round() as usize).clamp(1, problems.len() - 1);
    let test: std::collections::HashSet<&str> = problems[..n_test].iter().copied().collect();
    let mut split = TaskSplit::default();
    for t in tasks {
        if test.contains(problem_of(t)) {
            split.test.push(t.id.clone());
        } else {
            split.train.push(t.id.clone());
        }
    }
    Some(split)
}

/// Clean pairs among `tasks`: every pair of tasks of one problem (independent solutions: a
/// clone) and as many seeded pairs of tasks of different problems (a non-clone), as
/// (index, index, clone). Empty when no problem has two tasks.
pub fn clean_pairs(tasks: &[&Task], seed: u64) -> Vec<(usize, usize, bool)> {
    let mut by_problem: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, t) in tasks.iter().enumerate() {
        by_problem.entry(problem_of(t)).or_default().push(i);
    }
    let mut out = Vec::new();
    for members in by_problem.values() {
        for (k, &a) in members.iter().enumerate() {
            for &b in &members[k + 1..] {
                out.push((a, b, true));
            }
        }
    }
    let clones = out.len();
    if clones == 0 || by_problem.len() < 2 {
        return Vec::new();
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut cross: Vec<(usize, usize)> = Vec::new();
    for (i, a) in tasks.iter().enumerate() {
        for (j, b) in tasks.iter().enumerate().skip(i + 1) {
            if problem_of(a) != problem_of(b) {
                cross.push((i, j));
            }
        }
    }
    cross.shuffle(&mut rng);
    out.extend(cross.into_iter().take(clones).map(|(a, b)| (a, b, false)));
    out
}

/// One attack's figures in `robustness.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttackResult {
    /// `base` or `robust`.
    pub detector: String,
    /// The transform set's name.
    pub transform_set: String,
    /// Mean worst-case distance L over attacked tasks.
    pub mean_distance: f64,
    /// Its standard deviation.
    pub std_distance: f64,
    /// Share of attacked tasks whose best rewrite scores below the threshold.
    pub success_rate: f64,
    /// The detector's own calibrated threshold.
    pub threshold: f32,
    /// Tasks attacked.
    pub tasks: usize,
    /// The attack's run directory.
    pub run: String,
}

/// `robustness.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RobustnessReport {
    /// The task split.
    pub split: TaskSplit,
    /// Clean ROC AUC per detector (`base`, `robust`); null where the data has no two
    /// independent solutions of one problem among the test tasks.
    pub clean_auc: BTreeMap<String, Option<f64>>,
    /// Clean pairs measured (clones, non-clones).
    pub clean_pairs: (usize, usize),
    /// With `--clean-pairs`: ROC AUC per detector on GPTCloneBench's labelled pairs (all
    /// clone types against its cross-file non-clones).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub clean_auc_gptclonebench: BTreeMap<String, f64>,
    /// One entry per (detector, transform set).
    pub results: Vec<AttackResult>,
    /// The base detector's spec.
    pub base: String,
    /// Defences each detector was also attacked behind (`base+canon`, `robust+smooth:4`).
    #[serde(default)]
    pub defences: Vec<String>,
    /// The trained model directory.
    pub model: String,
    /// Training: epochs run, the epoch kept, validation loss base → kept, seconds.
    pub training: serde_json::Value,
    /// Transform set name → what it is.
    pub transform_sets: BTreeMap<String, String>,
}

impl RobustnessReport {
    /// `robustness.md`.
    pub fn markdown(&self) -> String {
        let mut o = String::from("# Robustness: base vs trained detector (Auto-SPT RQ3)\n\n");
        let _ = writeln!(
            o,
            "Base detector `{}`; trained model `{}`. {} training task(s), {} held-out task(s) \
             (split by problem: no held-out program was augmented or trained on).\n",
            self.base,
            self.model,
            self.split.train.len(),
            self.split.test.len()
        );
        if !self.defences.is_empty() {
            let _ = writeln!(
                o,
                "Each detector is also attacked behind the defence(s) {} (`base+D`,                  `robust+D`); those attacks are adaptive: they query the defended detector.\n",
                self.defences
                    .iter()
                    .map(|d| format!("`{d}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        let _ = writeln!(
            o,
            "| detector | transform set | mean ± std L | success (M < threshold) | threshold | tasks |\n|---|---|---|---|---|---|"
        );
        for r in &self.results {
            let _ = writeln!(
                o,
                "| {} | {} | {:.4} ± {:.4} | {:.1} % | {:.4} | {} |",
                r.detector,
                r.transform_set,
                r.mean_distance,
                r.std_distance,
                100.0 * r.success_rate,
                r.threshold,
                r.tasks
            );
        }
        let _ = writeln!(
            o,
            "\nEach detector is judged at its own calibrated threshold (95 % of its non-clone \
             pairs of originals score below it): L values of different detectors are on \
             different scales, success rates are comparable.\n\n## Clean discrimination\n"
        );
        let (c, n) = self.clean_pairs;
        if c == 0 {
            let _ = writeln!(
                o,
                "No held-out problem has two independent solutions, so clean ROC AUC is not \
                 measured (null in robustness.json)."
            );
        } else {
            let _ = writeln!(
                o,
                "ROC AUC on {c} clone pairs (independent solutions of one problem) and {n} \
                 non-clone pairs (solutions of different problems) among the held-out tasks:\n\n\
                 | detector | clean ROC AUC |\n|---|---|"
            );
            for (d, auc) in &self.clean_auc {
                let _ = writeln!(
                    o,
                    "| {d} | {} |",
                    auc.map_or("–".into(), |a| format!("{a:.4}"))
                );
            }
        }
        if !self.clean_auc_gptclonebench.is_empty() {
            let _ = writeln!(
                o,
                "\nOn GPTCloneBench's labelled pairs (real clones written by people and GPT, \
                 against cross-file non-clones):\n\n| detector | ROC AUC |\n|---|---|"
            );
            for (d, auc) in &self.clean_auc_gptclonebench {
                let _ = writeln!(o, "| {d} | {auc:.4} |");
            }
        }
        let _ = writeln!(o, "\n## Training\n\n```json\n{}\n```", self.training);
        let _ = writeln!(o, "\n## Transform sets\n");
        for (k, v) in &self.transform_sets {
            let _ = writeln!(o, "- **{k}**: {v}");
        }
        o
    }

    /// `robustness.html`: the same, self-contained.
    pub fn html(&self) -> String {
        let esc = |s: &str| {
            s.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
        };
        let mut rows = String::new();
        for r in &self.results {
            let _ = write!(
                rows,
                "<tr><td>{}</td><td>{}</td><td>{:.4} ± {:.4}</td><td>{:.1} %</td><td>{:.4}</td><td>{}</td></tr>",
                esc(&r.detector),
                esc(&r.transform_set),
                r.mean_distance,
                r.std_distance,
                100.0 * r.success_rate,
                r.threshold,
                r.tasks
            );
        }
        let auc: String = self
            .clean_auc
            .iter()
            .map(|(d, a)| {
                format!(
                    "<tr><td>{}</td><td>{}</td></tr>",
                    esc(d),
                    a.map_or("–".into(), |a| format!("{a:.4}"))
                )
            })
            .collect();
        format!(
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>equimorph robustness</title>\
             <style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}table{{border-collapse:collapse}}\
             td,th{{border:1px solid #ccc;padding:4px 8px}}</style></head><body>\
             <h1>Robustness: base vs trained detector</h1><p>Base <b>{}</b>, trained <b>{}</b>; {} training and {} held-out tasks, split by problem.</p>\
             <table id=\"results\"><tr><th>detector</th><th>transform set</th><th>mean ± std L</th><th>success</th><th>threshold</th><th>tasks</th></tr>{rows}</table>\
             <h2>Clean discrimination</h2><p>{} clone and {} non-clone pairs of held-out tasks.</p>\
             <table id=\"clean\"><tr><th>detector</th><th>clean ROC AUC</th></tr>{auc}</table>\
             <h2>Training</h2><pre>{}</pre></body></html>\n",
            esc(&self.base),
            esc(&self.model),
            self.split.train.len(),
            self.split.test.len(),
            self.clean_pairs.0,
            self.clean_pairs.1,
            esc(&self.training.to_string())
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, problem: &str) -> Task {
        let mut t = Task::new(id, "pass\n", Vec::new());
        t.problem = Some(problem.into());
        t
    }

    #[test]
    fn split_keeps_problems_whole_and_clean_pairs_balance() {
        let tasks: Vec<Task> = (0..12)
            .map(|i| task(&format!("t{i}"), &format!("p{}", i / 3)))
            .collect();
        let refs: Vec<&Task> = tasks.iter().collect();
        let s = split_tasks(&refs, 0.25, 1).unwrap();
        assert_eq!(s.test.len(), 3, "one problem of four, with its three tasks");
        let problem = |id: &str| tasks.iter().find(|t| t.id == id).unwrap().problem.clone();
        let test_problems: std::collections::HashSet<_> =
            s.test.iter().map(|id| problem(id)).collect();
        assert!(s
            .train
            .iter()
            .all(|id| !test_problems.contains(&problem(id))));
        let pairs = clean_pairs(&refs, 0);
        let clones = pairs.iter().filter(|p| p.2).count();
        assert_eq!(clones, 4 * 3);
        assert_eq!(pairs.len(), 2 * clones);
        for (a, b, c) in pairs {
            assert_eq!(tasks[a].problem == tasks[b].problem, c);
        }
        let lone: Vec<Task> = (0..3)
            .map(|i| task(&format!("u{i}"), &format!("q{i}")))
            .collect();
        assert!(clean_pairs(&lone.iter().collect::<Vec<_>>(), 0).is_empty());
    }
}
