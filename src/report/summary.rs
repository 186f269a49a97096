//! The run summary: the paper's Table 2 figure (mean ± std worst-case distance), success
//! rate, costs, transform usage and where the time went.

use super::results::{ResultLine, Status};
use super::stats::median;
use crate::search::{count_error, StageSeconds, TransformErrors};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How the run was configured (`run.json`).
#[derive(Debug, Clone, Serialize, Deserialize, Default, schemars::JsonSchema)]
pub struct RunInfo {
    /// Detector name.
    pub detector: String,
    /// Success threshold on M.
    pub threshold: f32,
    /// How the threshold was set (`fixed`, or the calibration that produced it).
    #[serde(default)]
    pub threshold_source: String,
    /// beam / greedy / random.
    pub strategy: String,
    /// Beam width.
    pub beam: usize,
    /// Iterations.
    pub iterations: usize,
    /// Run seed.
    pub seed: u64,
    /// The constraints candidates had to meet before scoring, in words ("none" when none).
    #[serde(default)]
    pub constraints: String,
    /// Transform names.
    pub transforms: Vec<String>,
    /// Task file.
    pub tasks: String,
    /// The shard this directory holds (`--shard I/N`), if the run was split.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// What the task loader kept and skipped, by reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dataset: Option<crate::task::LoadReport>,
    /// How strong the tasks' tests are: counts, and recorded mutation scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub adequacy: Option<crate::adequacy::SetAdequacy>,
    /// Tasks this run must finish (its task file's tasks in its shard); `None` in runs made
    /// before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub planned_tasks: Option<usize>,
}

/// Aggregates over a results file.
#[derive(Debug, Clone, Serialize, Deserialize, Default, schemars::JsonSchema)]
pub struct Summary {
    /// Whether every planned task has a result (`null` when the plan was not recorded).
    #[serde(default)]
    pub complete: Option<bool>,
    /// Planned tasks without a result yet (`null` when the plan was not recorded).
    #[serde(default)]
    pub pending: Option<usize>,
    /// The configuration.
    pub run: RunInfo,
    /// Lines in the results file.
    pub tasks: usize,
    /// Tasks attacked.
    pub attacked: usize,
    /// Tasks skipped (original not ok), with reasons.
    pub skipped: Vec<(String, String)>,
    /// Tasks whose attack failed, with reasons.
    pub errors: Vec<(String, String)>,
    /// Mean worst-case distance L over attacked tasks.
    pub mean_distance: f64,
    /// Its standard deviation.
    pub std_distance: f64,
    /// Fraction of attacked tasks whose best M is below the threshold.
    pub success_rate: f64,
    /// Median candidates scored per task.
    pub median_scored: f64,
    /// Median oracle checks per task.
    pub median_oracle_checked: f64,
    /// Occurrences of each transform in winning sequences.
    pub transform_usage: BTreeMap<String, u64>,
    /// Tasks per clone type of best vs original.
    pub clone_types: BTreeMap<String, u64>,
    /// Summed time per stage.
    pub seconds: StageSeconds,
    /// Share of search time spent in the detector.
    pub detector_share: f64,
    /// Mean best distance after each iteration (tasks that stopped early keep their last value).
    pub mean_distance_per_iteration: Vec<f64>,
    /// Final distance of each attacked task (for the histogram).
    pub distances: Vec<f64>,
    /// Failed transform applications over all tasks: transform → kind of failure → count.
    #[serde(default)]
    pub transform_errors: TransformErrors,
    /// Candidates rejected by `--max-growth` over all tasks.
    #[serde(default)]
    pub rejected_growth: u64,
    /// Candidates rejected by `--window` over all tasks.
    #[serde(default)]
    pub rejected_window: u64,
    /// Candidates the sandbox could not judge by their output, over all tasks: they made it
    /// fail (killed their test harness, say) while the original ran normally (not equivalent).
    #[serde(default)]
    pub sandbox_breakers: u64,
    /// Mean growth (tokens of the best / tokens of the original) over attacked tasks.
    #[serde(default)]
    pub mean_growth: f64,
    /// The anytime curve: (detector queries per task q, mean over attacked tasks of the best L
    /// found within the first q queries), at evenly spaced q up to the longest task's queries.
    #[serde(default)]
    pub anytime: Vec<(u64, f64)>,
    /// The anytime curve in time: (wall seconds into each task's search t, mean over attacked
    /// tasks of the best L found within its first t seconds), at evenly spaced t up to the
    /// longest task's search. Varies between identical runs, like `seconds`.
    #[serde(default)]
    pub anytime_seconds: Vec<(f64, f64)>,
    /// Attacked tasks whose original is longer than the detector's window, so the window rule
    /// was waived for them.
    #[serde(default)]
    pub window_waived: usize,
    /// Attacked tasks that searched past the run's N iterations because their best M was
    /// still above the threshold there (`attack --extend`).
    #[serde(default)]
    pub extended: usize,
    /// Attacked tasks whose best program the detector truncated.
    #[serde(default)]
    pub truncated_winners: usize,
    /// Attacked tasks where the window rule dropped candidates, the most held back first: why
    /// a task may have stayed strong.
    #[serde(default)]
    pub window_held: Vec<WindowHeld>,
    /// Per transform: mean distance L of one application to an original, over the tasks
    /// where it applied (its strength alone).
    #[serde(default)]
    pub transform_strength: BTreeMap<String, f64>,
    /// The winners against real clones scored by the same detector
    /// (`attack --reference-clones`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_clones: Option<super::reference::ReferenceComparison>,
    /// The symbolic check's totals (`--verify symbolic`), summed over tasks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbolic: Option<SymbolicTotals>,
}

/// One task's candidates that the window rule dropped before scoring.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WindowHeld {
    /// The task.
    pub id: String,
    /// Candidates dropped because the detector would have truncated them.
    pub dropped: u64,
    /// Valid candidates the search made.
    pub valid: u64,
    /// The task's worst-case distance L.
    pub distance: f64,
}

impl WindowHeld {
    /// The tasks of `lines` where the window rule dropped candidates, the largest share
    /// first (ties by id).
    pub fn of(lines: &[&ResultLine]) -> Vec<WindowHeld> {
        let mut held: Vec<WindowHeld> = lines
            .iter()
            .filter(|l| l.counts.rejected_window > 0)
            .map(|l| WindowHeld {
                id: l.id.clone(),
                dropped: l.counts.rejected_window,
                valid: l.counts.valid,
                distance: l.distance.map_or(0.0, f64::from),
            })
            .collect();
        held.sort_by(|a, b| {
            b.share()
                .total_cmp(&a.share())
                .then_with(|| a.id.cmp(&b.id))
        });
        held
    }

    /// Dropped candidates as a share of valid ones.
    pub fn share(&self) -> f64 {
        self.dropped as f64 / self.valid.max(1) as f64
    }
}

/// The symbolic check over a run.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema,
)]
pub struct SymbolicTotals {
    /// Tasks it could check (function tasks with annotated parameters).
    pub tasks: usize,
    /// Programs checked.
    pub checked: usize,
    /// Programs the tests accepted and a confirmed counterexample rejected.
    pub rejected: usize,
    /// Reported differences the real oracle did not confirm.
    pub unconfirmed: usize,
    /// Checks without an answer.
    pub failed: usize,
    /// Tests grown from counterexamples.
    pub counterexamples: usize,
    /// Reported winners that still fail it.
    pub winners_rejected: usize,
}

impl SymbolicTotals {
    /// The totals of `records`; `None` when there is none.
    pub fn of<'a>(
        records: impl IntoIterator<Item = &'a crate::adequacy::symbolic::SymbolicRecord>,
    ) -> Option<Self> {
        let mut t: Option<SymbolicTotals> = None;
        for r in records {
            let s = t.get_or_insert_with(Default::default);
            s.tasks += usize::from(r.not_applicable.is_none());
            s.checked += r.checked;
            s.rejected += r.rejected;
            s.unconfirmed += r.unconfirmed;
            s.failed += r.failed;
            s.counterexamples += r.counterexamples.len();
            s.winners_rejected += usize::from(r.winner_rejected);
        }
        t
    }

    /// One line in words.
    pub fn describe(&self) -> String {
        format!(
            "{} program(s) of {} task(s) checked; {} accepted by the tests but rejected on a \
             confirmed counterexample ({} test(s) grown), {} unconfirmed, {} without an answer, \
             {} reported winner(s) still rejected",
            self.checked,
            self.tasks,
            self.rejected,
            self.counterexamples,
            self.unconfirmed,
            self.failed,
            self.winners_rejected
        )
    }
}

/// The best L a task had found once it had used `q` detector queries (0 before its first
/// iteration's queries; its final L after its last).
pub fn best_within(line: &ResultLine, q: u64) -> f64 {
    line.scored_per_iteration
        .iter()
        .zip(&line.best_per_iteration)
        .take_while(|(scored, _)| **scored <= q)
        .last()
        .map_or(0.0, |(_, m)| 1.0 - f64::from(*m))
}

/// The best L a task had found `t` wall seconds into its search (0 before its first
/// iteration ended; its final L after its last).
pub fn best_within_seconds(line: &ResultLine, t: f64) -> f64 {
    line.seconds
        .per_iteration
        .iter()
        .zip(&line.best_per_iteration)
        .take_while(|(s, _)| **s <= t)
        .last()
        .map_or(0.0, |(_, m)| 1.0 - f64::from(*m))
}

/// The smallest step of 1, 2 or 5 × a power of ten (from 0.1) that covers `longest` in at
/// most 200 steps, so budgets like 100 or 250 (queries or seconds) fall on the curve.
fn curve_step(longest: f64) -> f64 {
    for power in -1..12 {
        for m in [1.0, 2.0, 5.0] {
            let step = m * 10f64.powi(power);
            if longest / step <= 200.0 {
                return step;
            }
        }
    }
    longest / 200.0
}

/// The anytime curve of `lines` at no more than 200 evenly spaced query counts.
pub fn anytime_curve(lines: &[&ResultLine]) -> Vec<(u64, f64)> {
    let longest = lines
        .iter()
        .filter_map(|l| l.scored_per_iteration.last().copied())
        .max()
        .unwrap_or(0);
    if longest == 0 {
        return Vec::new();
    }
    let step = (curve_step(longest as f64) as u64).max(1);
    let n = lines.len().max(1) as f64;
    (0..=longest.div_ceil(step))
        .map(|i| {
            let q = i * step;
            (q, lines.iter().map(|l| best_within(l, q)).sum::<f64>() / n)
        })
        .collect()
}

/// The anytime curve of `lines` in wall seconds, at no more than 200 evenly spaced times
/// (empty when no line recorded its iterations' times).
pub fn anytime_seconds_curve(lines: &[&ResultLine]) -> Vec<(f64, f64)> {
    let longest = lines
        .iter()
        .filter_map(|l| l.seconds.per_iteration.last().copied())
        .fold(0.0f64, f64::max);
    if longest <= 0.0 {
        return Vec::new();
    }
    let step = curve_step(longest);
    let n = lines.len().max(1) as f64;
    (0..=(longest / step).ceil() as u64)
        .map(|i| {
            // Rounded so that budgets like 0.3 s print and compare as written.
            let t = (i as f64 * step * 1e6).round() / 1e6;
            let mean = lines.iter().map(|l| best_within_seconds(l, t)).sum::<f64>() / n;
            (t, mean)
        })
        .collect()
}

impl Summary {
    /// How far the run has come.
    pub fn progress(&self) -> crate::run::Progress {
        crate::run::Progress {
            planned: self.run.planned_tasks,
            finished: self.tasks,
        }
    }

    /// Summarises `lines` of a run configured as `run`.
    pub fn of(lines: &[ResultLine], run: RunInfo) -> Summary {
        let progress = crate::run::Progress {
            planned: run.planned_tasks,
            finished: lines.len(),
        };
        let ok: Vec<&ResultLine> = lines.iter().filter(|l| l.status == Status::Ok).collect();
        let distances: Vec<f64> = ok
            .iter()
            .map(|l| f64::from(l.distance.unwrap_or(0.0)))
            .collect();
        let n = distances.len().max(1) as f64;
        let mean = distances.iter().sum::<f64>() / n;
        let var = if distances.len() > 1 {
            distances.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (distances.len() - 1) as f64
        } else {
            0.0
        };
        let successes = ok
            .iter()
            .filter(|l| l.similarity.is_some_and(|m| m < run.threshold))
            .count();
        let mut usage = BTreeMap::new();
        let mut types = BTreeMap::new();
        let mut seconds = StageSeconds::default();
        let mut errors = TransformErrors::new();
        for l in lines {
            for (name, kinds) in &l.transform_errors {
                for (kind, n) in kinds {
                    for _ in 0..*n {
                        count_error(&mut errors, name, kind);
                    }
                }
            }
        }
        for l in &ok {
            for s in &l.transforms {
                *usage.entry(s.name.clone()).or_insert(0) += 1;
            }
            if let Some(t) = &l.clone_type {
                *types.entry(t.clone()).or_insert(0) += 1;
            }
            seconds.transform += l.seconds.transform;
            seconds.detector += l.seconds.detector;
            seconds.tokenize += l.seconds.tokenize;
            seconds.oracle += l.seconds.oracle;
            seconds.total += l.seconds.total;
        }
        let longest = ok
            .iter()
            .map(|l| l.best_per_iteration.len())
            .max()
            .unwrap_or(0);
        let per_iteration = (0..longest)
            .map(|i| {
                ok.iter()
                    .map(|l| {
                        let v = l
                            .best_per_iteration
                            .get(i)
                            .or(l.best_per_iteration.last())
                            .copied()
                            .unwrap_or(1.0);
                        1.0 - f64::from(v)
                    })
                    .sum::<f64>()
                    / n
            })
            .collect();
        let reasons = |s: Status| -> Vec<(String, String)> {
            lines
                .iter()
                .filter(|l| l.status == s)
                .map(|l| (l.id.clone(), l.reason.clone().unwrap_or_default()))
                .collect()
        };
        let growths: Vec<f64> = ok.iter().filter_map(|l| l.growth).collect();
        let mut strength: BTreeMap<String, (f64, usize)> = BTreeMap::new();
        for l in &ok {
            for (name, m) in &l.single_step {
                let e = strength.entry(name.clone()).or_default();
                e.0 += 1.0 - f64::from(*m);
                e.1 += 1;
            }
        }
        Summary {
            rejected_growth: lines.iter().map(|l| l.counts.rejected_growth).sum(),
            rejected_window: lines.iter().map(|l| l.counts.rejected_window).sum(),
            sandbox_breakers: lines.iter().map(|l| l.counts.sandbox_breakers).sum(),
            mean_growth: if growths.is_empty() {
                0.0
            } else {
                growths.iter().sum::<f64>() / growths.len() as f64
            },
            truncated_winners: ok.iter().filter(|l| l.truncated == Some(true)).count(),
            window_waived: ok.iter().filter(|l| l.window_waived).count(),
            extended: ok.iter().filter(|l| l.iterations > run.iterations).count(),
            window_held: WindowHeld::of(&ok),
            anytime: anytime_curve(&ok),
            anytime_seconds: anytime_seconds_curve(&ok),
            reference_clones: None,
            symbolic: SymbolicTotals::of(lines.iter().filter_map(|l| l.symbolic.as_ref())),
            transform_strength: strength
                .into_iter()
                .map(|(k, (sum, n))| (k, sum / n as f64))
                .collect(),
            complete: progress.complete(),
            pending: progress.pending(),
            run,
            tasks: lines.len(),
            attacked: ok.len(),
            skipped: reasons(Status::Skipped),
            errors: reasons(Status::Error),
            mean_distance: if ok.is_empty() { 0.0 } else { mean },
            std_distance: var.sqrt(),
            success_rate: if ok.is_empty() {
                0.0
            } else {
                successes as f64 / ok.len() as f64
            },
            median_scored: median(ok.iter().map(|l| l.counts.scored as f64).collect()),
            median_oracle_checked: median(
                ok.iter().map(|l| l.counts.oracle_checked as f64).collect(),
            ),
            transform_usage: usage,
            clone_types: types,
            detector_share: if seconds.total > 0.0 {
                seconds.detector / seconds.total
            } else {
                0.0
            },
            seconds,
            mean_distance_per_iteration: per_iteration,
            distances,
            transform_errors: errors,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(scored: Vec<u64>, best: Vec<f32>) -> ResultLine {
        let task = crate::task::Task::new("t", "x = 1\n", Vec::new());
        let mut l = ResultLine::not_attacked(&task, Status::Ok, String::new());
        l.scored_per_iteration = scored;
        l.best_per_iteration = best;
        l
    }

    #[test]
    fn the_tasks_the_window_held_back_come_most_held_first_and_are_reported() {
        let held = |id: &str, dropped: u64, valid: u64, l: f32| {
            let mut x = line(vec![10], vec![1.0 - l]);
            x.id = id.into();
            x.distance = Some(l);
            x.counts.rejected_window = dropped;
            x.counts.valid = valid;
            x
        };
        let (a, b, c) = (
            held("a", 10, 100, 0.6),
            held("b", 80, 100, 0.2),
            held("c", 0, 100, 0.9),
        );
        let w = WindowHeld::of(&[&a, &b, &c]);
        let ids: Vec<&str> = w.iter().map(|x| x.id.as_str()).collect();
        assert_eq!(
            ids,
            ["b", "a"],
            "c dropped nothing; b lost the larger share"
        );
        assert!((w[0].share() - 0.8).abs() < 1e-9);
        let summary = Summary::of(&[a, b, c], RunInfo::default());
        assert_eq!(summary.window_held.len(), 2);
        let md = crate::report::render::markdown(&summary);
        assert!(
            md.contains("dropped candidates in 2 of 3 attacked tasks"),
            "{md}"
        );
        assert!(md.contains("| b | 80 / 100 (80 %) | 0.2000 |"), "{md}");
    }

    #[test]
    fn the_anytime_curve_is_the_mean_best_within_each_budget() {
        let a = line(vec![30, 60, 90], vec![0.8, 0.6, 0.5]);
        let b = line(vec![10], vec![0.9]);
        assert_eq!(best_within(&a, 29), 0.0);
        assert!((best_within(&a, 60) - 0.4).abs() < 1e-6);
        assert!((best_within(&a, 1000) - 0.5).abs() < 1e-6);
        let curve = anytime_curve(&[&a, &b]);
        // Step 1 for 90 queries: 91 points, from 0 to 90.
        assert_eq!(curve.len(), 91);
        assert_eq!(curve[0], (0, 0.0));
        let at = |q: u64| curve.iter().find(|p| p.0 == q).map(|p| p.1).unwrap();
        assert!(
            (at(10) - 0.05).abs() < 1e-6,
            "only b has scored: (0 + 0.1) / 2"
        );
        assert!((at(90) - 0.3).abs() < 1e-6, "(0.5 + 0.1) / 2");
        // The same in seconds: before a's first iteration ended nothing counts.
        let mut a = a;
        a.seconds.per_iteration = vec![2.0, 4.5, 7.0];
        assert_eq!(best_within_seconds(&a, 1.9), 0.0);
        assert!((best_within_seconds(&a, 5.0) - 0.4).abs() < 1e-6);
        let timed = anytime_seconds_curve(&[&a, &b]);
        assert_eq!(timed.first(), Some(&(0.0, 0.0)));
        let at_t = |t: f64| timed.iter().find(|p| p.0 == t).map(|p| p.1).unwrap();
        // b recorded no times: it counts as 0 throughout.
        assert!((at_t(7.0) - 0.25).abs() < 1e-6, "(0.5 + 0) / 2");
        assert!(anytime_seconds_curve(&[&b]).is_empty());
        // A long run gets a coarser step, never more than 201 points.
        let long = line(vec![5_000], vec![0.5]);
        let curve = anytime_curve(&[&long]);
        assert!(
            curve.len() <= 201 && curve.last().unwrap().0 >= 5_000,
            "{}",
            curve.len()
        );
    }
}
