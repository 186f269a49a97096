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

/// One attack's figures in a seed's `robustness.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttackResult {
    /// `base`, `robust-<training set>`, either with `+<defence>`.
    pub detector: String,
    /// The transform set's name.
    pub transform_set: String,
    /// Mean worst-case distance L over attacked tasks.
    pub mean_distance: f64,
    /// Its standard deviation.
    pub std_distance: f64,
    /// Share of attacked tasks whose best rewrite scores below the threshold.
    pub success_rate: f64,
    /// The detector's own threshold for 5 % false positives on non-clone pairs of the
    /// held-out originals.
    pub threshold: f32,
    /// Tasks attacked.
    pub tasks: usize,
    /// Median detector queries per task (the attack's cost).
    #[serde(default)]
    pub median_queries: f64,
    /// Seconds the attack's searches took, summed over tasks.
    #[serde(default)]
    pub seconds: f64,
    /// The attack's run directory.
    pub run: String,
}

/// Clean discrimination of one detector on held-out clone and non-clone pairs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct CleanResult {
    /// ROC AUC.
    pub auc: f64,
    /// F1 of the clone class at the detector's 5 %-false-positive threshold (null when no
    /// attack measured that threshold).
    pub f1: Option<f64>,
}

/// F1 of the clone class when pairs scoring `threshold` or more are called clones.
pub fn f1_at(scores: &[f32], labels: &[bool], threshold: f32) -> f64 {
    let (mut tp, mut fp, mut fneg) = (0usize, 0usize, 0usize);
    for (&s, &clone) in scores.iter().zip(labels) {
        match (s >= threshold, clone) {
            (true, true) => tp += 1,
            (true, false) => fp += 1,
            (false, true) => fneg += 1,
            (false, false) => {}
        }
    }
    if tp == 0 {
        return 0.0;
    }
    2.0 * tp as f64 / (2 * tp + fp + fneg) as f64
}

/// One seed's experiment: `seed-<s>/robustness.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SeedReport {
    /// The seed of this repetition's split, augmentation, training and attacks.
    pub seed: u64,
    /// The task split.
    pub split: TaskSplit,
    /// Clean metrics per detector; null where the held-out tasks have no two independent
    /// solutions of one problem.
    pub clean: BTreeMap<String, Option<CleanResult>>,
    /// Clean pairs measured (clones, non-clones).
    pub clean_pairs: (usize, usize),
    /// With `--clean-pairs`: ROC AUC per detector on GPTCloneBench's labelled pairs (all
    /// clone types against its cross-file non-clones).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub clean_auc_gptclonebench: BTreeMap<String, f64>,
    /// One entry per (detector, transform set).
    pub results: Vec<AttackResult>,
    /// Training set → the model directory trained on its variants.
    pub models: BTreeMap<String, String>,
    /// Training set → epochs run, the epoch kept, validation loss base → kept, programs,
    /// seconds.
    pub training: BTreeMap<String, serde_json::Value>,
}

/// A figure over the seeds: mean, sample standard deviation (null with one seed) and each
/// seed's value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Mean over the seeds.
    pub mean: f64,
    /// Sample standard deviation; null with one seed, where it is not defined.
    pub sd: Option<f64>,
    /// One value per seed, in seed order.
    pub values: Vec<f64>,
}

impl Spread {
    /// The spread of `values`; `None` when there are none.
    pub fn of(values: Vec<f64>) -> Option<Spread> {
        if values.is_empty() {
            return None;
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let sd = (values.len() > 1)
            .then(|| (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt());
        Some(Spread { mean, sd, values })
    }

    /// `mean ± sd` with `digits` decimals, each scaled by `scale` (100 for percentages).
    pub fn show(&self, digits: usize, scale: f64) -> String {
        match self.sd {
            Some(sd) => format!("{:.digits$} ± {:.digits$}", scale * self.mean, scale * sd),
            None => format!("{:.digits$}", scale * self.mean),
        }
    }
}

/// One (detector, transform set) cell over the seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttackRow {
    /// `base`, `robust-<training set>`, either with `+<defence>`.
    pub detector: String,
    /// The training set the detector was trained on (none for the base detector).
    pub trained_on: Option<String>,
    /// The attack's transform set.
    pub transform_set: String,
    /// Whether the attack used transforms the detector was not trained on (a set other than
    /// its training set: the transfer result).
    pub held_out_set: bool,
    /// Share of tasks attacked successfully.
    pub success_rate: Spread,
    /// Mean worst-case distance L.
    pub mean_distance: Spread,
    /// The 5 %-false-positive threshold.
    pub threshold: Spread,
    /// Median detector queries per task.
    pub median_queries: Spread,
    /// Tasks attacked per seed.
    pub tasks: Vec<usize>,
}

/// Clean metrics of one detector over the seeds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CleanRow {
    /// ROC AUC on held-out clone and non-clone pairs (null where no seed measured it).
    pub auc: Option<Spread>,
    /// F1 at the detector's 5 %-false-positive threshold.
    pub f1: Option<Spread>,
    /// ROC AUC on GPTCloneBench's pairs, with `--clean-pairs`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auc_gptclonebench: Option<Spread>,
}

/// `robustness.json`: the experiment over every seed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RobustnessReport {
    /// The seeds, one repetition each (split, augmentation, training and attacks).
    pub seeds: Vec<u64>,
    /// The base detector's spec.
    pub base: String,
    /// Defences each detector was also attacked behind (`base+canon`, `robust-all+smooth:4`).
    #[serde(default)]
    pub defences: Vec<String>,
    /// Transform set name → what it is.
    pub transform_sets: BTreeMap<String, String>,
    /// The sets a detector was trained on (`robust-<name>`).
    pub training_sets: Vec<String>,
    /// One row per (detector, transform set), over the seeds.
    pub results: Vec<AttackRow>,
    /// Clean metrics per detector, over the seeds.
    pub clean: BTreeMap<String, CleanRow>,
    /// Clean pairs measured per seed (clones, non-clones).
    pub clean_pairs: Vec<(usize, usize)>,
    /// Each seed's own report, as `seed-<s>/robustness.json` holds it.
    pub runs: Vec<SeedReport>,
}

impl RobustnessReport {
    /// The report over `runs` (one per seed, in seed order).
    pub fn over(
        runs: Vec<SeedReport>,
        base: String,
        defences: Vec<String>,
        transform_sets: BTreeMap<String, String>,
        training_sets: Vec<String>,
    ) -> Self {
        let mut cells: Vec<(String, String)> = Vec::new();
        for r in runs.iter().flat_map(|s| &s.results) {
            let key = (r.detector.clone(), r.transform_set.clone());
            if !cells.contains(&key) {
                cells.push(key);
            }
        }
        let results = cells
            .into_iter()
            .filter_map(|(detector, set)| {
                let hits: Vec<&AttackResult> = runs
                    .iter()
                    .flat_map(|s| &s.results)
                    .filter(|r| r.detector == detector && r.transform_set == set)
                    .collect();
                let spread = |f: &dyn Fn(&AttackResult) -> f64| {
                    Spread::of(hits.iter().map(|r| f(r)).collect())
                };
                let trained_on = trained_on(&detector, &training_sets);
                Some(AttackRow {
                    held_out_set: trained_on.as_deref().is_some_and(|t| t != set),
                    trained_on,
                    success_rate: spread(&|r| r.success_rate)?,
                    mean_distance: spread(&|r| r.mean_distance)?,
                    threshold: spread(&|r| f64::from(r.threshold))?,
                    median_queries: spread(&|r| r.median_queries)?,
                    tasks: hits.iter().map(|r| r.tasks).collect(),
                    detector,
                    transform_set: set,
                })
            })
            .collect();
        let mut clean = BTreeMap::new();
        let detectors: Vec<&String> = runs
            .iter()
            .flat_map(|s| s.clean.keys())
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .collect();
        for d in detectors {
            let measured: Vec<CleanResult> = runs
                .iter()
                .filter_map(|s| s.clean.get(d).copied().flatten())
                .collect();
            clean.insert(
                d.clone(),
                CleanRow {
                    auc: Spread::of(measured.iter().map(|c| c.auc).collect()),
                    f1: Spread::of(measured.iter().filter_map(|c| c.f1).collect()),
                    auc_gptclonebench: Spread::of(
                        runs.iter()
                            .filter_map(|s| s.clean_auc_gptclonebench.get(d).copied())
                            .collect(),
                    ),
                },
            );
        }
        RobustnessReport {
            seeds: runs.iter().map(|s| s.seed).collect(),
            clean_pairs: runs.iter().map(|s| s.clean_pairs).collect(),
            base,
            defences,
            transform_sets,
            training_sets,
            results,
            clean,
            runs,
        }
    }

    /// The row of `detector` attacked with `set`.
    pub fn row(&self, detector: &str, set: &str) -> Option<&AttackRow> {
        self.results
            .iter()
            .find(|r| r.detector == detector && r.transform_set == set)
    }

    /// The matrix cell of `detector` × `set`: its success (`*` when the detector was not
    /// trained on the set), or `–`.
    fn cell(&self, detector: &str, set: &str) -> String {
        self.row(detector, set).map_or("–".into(), |r| {
            format!(
                "{} %{}",
                r.success_rate.show(1, 100.0),
                if r.held_out_set { " *" } else { "" }
            )
        })
    }

    /// The detectors in row order (base first, then trained, each followed by its defences).
    fn detectors(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for r in &self.results {
            if !out.contains(&r.detector.as_str()) {
                out.push(&r.detector);
            }
        }
        out
    }

    /// The transform sets in column order.
    fn sets(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for r in &self.results {
            if !out.contains(&r.transform_set.as_str()) {
                out.push(&r.transform_set);
            }
        }
        out
    }

    /// "3 seeds (0, 1, 2)" or "seed 0".
    fn seeds_said(&self) -> String {
        let list = self
            .seeds
            .iter()
            .map(u64::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        if self.seeds.len() == 1 {
            format!("seed {list}")
        } else {
            format!(
                "{} seeds ({list}); mean ± sample sd over them",
                self.seeds.len()
            )
        }
    }

    /// `robustness.md`.
    pub fn markdown(&self) -> String {
        let mut o = String::from("# Robustness: base vs trained detectors (Auto-SPT RQ3)\n\n");
        let (train, test) = self
            .runs
            .first()
            .map_or((0, 0), |r| (r.split.train.len(), r.split.test.len()));
        let _ = writeln!(
            o,
            "Base detector `{}`; {}. Each seed splits the tasks by problem anew ({train} \
             training and {test} held-out task(s) in the first): no held-out program was \
             augmented or trained on. `robust-S` is the base detector trained on variants \
             made by the transform set S.\n",
            self.base,
            self.seeds_said(),
        );
        if !self.defences.is_empty() {
            let _ = writeln!(
                o,
                "Each detector is also attacked behind the defence(s) {} (`base+D`, \
                 `robust-S+D`); those attacks are adaptive: they query the defended detector.\n",
                self.defences
                    .iter()
                    .map(|d| format!("`{d}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        let sets = self.sets();
        let _ = writeln!(
            o,
            "## Attack success (train set × attack set)\n\nSuccess: share of held-out tasks \
             whose best equivalent rewrite scores below the detector's own threshold for 5 % \
             false positives on non-clone pairs of the held-out originals. A cell marked * \
             attacks with a set the detector was not trained on.\n"
        );
        let _ = writeln!(
            o,
            "| detector | {} |\n|---|{}",
            sets.join(" | "),
            "---|".repeat(sets.len())
        );
        for d in self.detectors() {
            let cells: Vec<String> = sets.iter().map(|s| self.cell(d, s)).collect();
            let _ = writeln!(o, "| {d} | {} |", cells.join(" | "));
        }
        let _ = writeln!(
            o,
            "\n## Every attack\n\n| detector | transform set | success | mean L | threshold \
             (5 % FPR) | median queries/task | tasks |\n|---|---|---|---|---|---|---|"
        );
        for r in &self.results {
            let _ = writeln!(
                o,
                "| {} | {} | {} % | {} | {} | {} | {} |",
                r.detector,
                r.transform_set,
                r.success_rate.show(1, 100.0),
                r.mean_distance.show(4, 1.0),
                r.threshold.show(4, 1.0),
                r.median_queries.show(0, 1.0),
                r.tasks
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        let _ = writeln!(
            o,
            "\nL values of different detectors are on different scales; success rates are \
             comparable.\n\n## Clean discrimination\n"
        );
        if self.clean_pairs.iter().all(|(c, _)| *c == 0) {
            let _ = writeln!(
                o,
                "No held-out problem has two independent solutions, so clean ROC AUC and F1 \
                 are not measured (null in robustness.json)."
            );
        } else {
            let pairs = self
                .clean_pairs
                .iter()
                .map(|(c, n)| format!("{c}/{n}"))
                .collect::<Vec<_>>()
                .join(", ");
            let _ = writeln!(
                o,
                "Clone pairs (independent solutions of one problem) / non-clone pairs \
                 (solutions of different problems) among the held-out tasks, per seed: \
                 {pairs}. F1 of the clone class at the detector's 5 % FPR threshold.\n\n\
                 | detector | clean ROC AUC | F1 |\n|---|---|---|"
            );
            for (d, c) in &self.clean {
                let show = |s: &Option<Spread>| s.as_ref().map_or("–".into(), |s| s.show(4, 1.0));
                let _ = writeln!(o, "| {d} | {} | {} |", show(&c.auc), show(&c.f1));
            }
        }
        if self.clean.values().any(|c| c.auc_gptclonebench.is_some()) {
            let _ = writeln!(
                o,
                "\nOn GPTCloneBench's labelled pairs (real clones written by people and GPT, \
                 against cross-file non-clones):\n\n| detector | ROC AUC |\n|---|---|"
            );
            for (d, c) in &self.clean {
                if let Some(a) = &c.auc_gptclonebench {
                    let _ = writeln!(o, "| {d} | {} |", a.show(4, 1.0));
                }
            }
        }
        let _ = writeln!(o, "\n## Training\n");
        for run in &self.runs {
            for (set, t) in &run.training {
                let _ = writeln!(o, "- seed {}, `robust-{set}`: `{t}`", run.seed);
            }
        }
        let _ = writeln!(o, "\n## Transform sets\n");
        for (k, v) in &self.transform_sets {
            let _ = writeln!(o, "- **{k}**: {v}");
        }
        o
    }

    /// `robustness.html`: the same tables, self-contained.
    pub fn html(&self) -> String {
        let esc = |s: &str| {
            s.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
        };
        let sets = self.sets();
        let mut matrix = format!(
            "<tr><th>detector</th>{}</tr>",
            sets.iter()
                .map(|s| format!("<th>{}</th>", esc(s)))
                .collect::<String>()
        );
        for d in self.detectors() {
            let cells: String = sets
                .iter()
                .map(|s| format!("<td>{}</td>", esc(&self.cell(d, s))))
                .collect();
            let _ = write!(matrix, "<tr><td>{}</td>{cells}</tr>", esc(d));
        }
        let mut rows = String::new();
        for r in &self.results {
            let _ = write!(
                rows,
                "<tr><td>{}</td><td>{}</td><td>{} %</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                esc(&r.detector),
                esc(&r.transform_set),
                r.success_rate.show(1, 100.0),
                r.mean_distance.show(4, 1.0),
                r.threshold.show(4, 1.0),
                r.median_queries.show(0, 1.0),
            );
        }
        let show = |s: &Option<Spread>| s.as_ref().map_or("–".into(), |s| s.show(4, 1.0));
        let clean: String = self
            .clean
            .iter()
            .map(|(d, c)| {
                format!(
                    "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
                    esc(d),
                    show(&c.auc),
                    show(&c.f1)
                )
            })
            .collect();
        format!(
            "<!doctype html><html><head><meta charset=\"utf-8\"><title>equimorph robustness</title>\
             <style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}table{{border-collapse:collapse}}\
             td,th{{border:1px solid #ccc;padding:4px 8px}}</style></head><body>\
             <h1>Robustness: base vs trained detectors</h1><p>Base <b>{}</b>; {}; tasks split by problem.</p>\
             <h2>Attack success (train set × attack set)</h2><p>* marks a set the detector was not trained on.</p>\
             <table id=\"matrix\">{matrix}</table>\
             <h2>Every attack</h2>\
             <table id=\"results\"><tr><th>detector</th><th>transform set</th><th>success</th><th>mean L</th><th>threshold (5 % FPR)</th><th>median queries/task</th></tr>{rows}</table>\
             <h2>Clean discrimination</h2>\
             <table id=\"clean\"><tr><th>detector</th><th>clean ROC AUC</th><th>F1</th></tr>{clean}</table>\
             </body></html>\n",
            esc(&self.base),
            esc(&self.seeds_said()),
        )
    }
}

/// The training set of a `robust-<set>` label (with or without `+<defence>`).
fn trained_on(detector: &str, training_sets: &[String]) -> Option<String> {
    let bare = detector.split('+').next().unwrap_or(detector);
    let set = bare.strip_prefix("robust-")?;
    training_sets.iter().find(|t| *t == set).cloned()
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

    #[test]
    fn spread_has_no_sd_for_one_seed_and_the_sample_sd_for_more() {
        assert!(Spread::of(Vec::new()).is_none());
        let one = Spread::of(vec![0.5]).unwrap();
        assert_eq!((one.mean, one.sd), (0.5, None));
        assert_eq!(one.show(1, 100.0), "50.0");
        let two = Spread::of(vec![0.2, 0.4]).unwrap();
        assert!((two.mean - 0.3).abs() < 1e-12);
        assert!((two.sd.unwrap() - 0.02f64.sqrt()).abs() < 1e-12);
        assert_eq!(two.show(1, 100.0), "30.0 ± 14.1");
    }

    #[test]
    fn f1_counts_pairs_at_or_above_the_threshold_as_clones() {
        let scores = [0.9, 0.8, 0.3, 0.7, 0.1];
        let labels = [true, true, true, false, false];
        // tp 2 (0.9, 0.8), fp 1 (0.7), fn 1 (0.3): 4 / 6.
        assert!((f1_at(&scores, &labels, 0.7) - 4.0 / 6.0).abs() < 1e-12);
        assert_eq!(f1_at(&scores, &labels, 0.95), 0.0);
    }

    fn attack(detector: &str, set: &str, success: f64) -> AttackResult {
        AttackResult {
            detector: detector.into(),
            transform_set: set.into(),
            mean_distance: success / 2.0,
            std_distance: 0.0,
            success_rate: success,
            threshold: 0.5,
            tasks: 9,
            median_queries: 100.0,
            seconds: 1.0,
            run: String::new(),
        }
    }

    #[test]
    fn the_report_over_seeds_gives_each_cell_its_spread_and_marks_held_out_sets() {
        let seed = |seed: u64, s: f64| SeedReport {
            seed,
            results: vec![
                attack("base", "all", s),
                attack("robust-classic", "all", s / 2.0),
                attack("robust-classic", "classic", s / 4.0),
                attack("robust-classic+canon", "all", s / 8.0),
            ],
            clean: BTreeMap::from([
                (
                    "base".to_string(),
                    Some(CleanResult {
                        auc: s,
                        f1: Some(s),
                    }),
                ),
                ("robust-classic".to_string(), None),
            ]),
            clean_pairs: (9, 9),
            ..SeedReport::default()
        };
        let r = RobustnessReport::over(
            vec![seed(0, 0.8), seed(1, 0.4)],
            "minilm".into(),
            vec!["canon".into()],
            BTreeMap::new(),
            vec!["classic".into()],
        );
        assert_eq!(r.seeds, [0, 1]);
        let base = r.row("base", "all").unwrap();
        assert!((base.success_rate.mean - 0.6).abs() < 1e-12);
        assert_eq!(base.success_rate.values, [0.8, 0.4]);
        assert!(!base.held_out_set && base.trained_on.is_none());
        let transfer = r.row("robust-classic", "all").unwrap();
        assert!(transfer.held_out_set);
        assert_eq!(transfer.trained_on.as_deref(), Some("classic"));
        assert!(!r.row("robust-classic", "classic").unwrap().held_out_set);
        assert!(r.row("robust-classic+canon", "all").unwrap().held_out_set);
        assert!((r.clean["base"].auc.as_ref().unwrap().mean - 0.6).abs() < 1e-12);
        assert!(r.clean["robust-classic"].auc.is_none());
        let md = r.markdown();
        assert!(md.contains("| detector | all | classic |"), "{md}");
        assert!(
            md.contains("| robust-classic | 30.0 ± 14.1 % * | 15.0 ± 7.1 % |"),
            "{md}"
        );
        assert!(md.contains("2 seeds (0, 1)"), "{md}");
        assert!(r.html().contains("id=\"matrix\""));
    }
}
