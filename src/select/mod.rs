//! Best-of-N selection of transform implementations (Auto-SPT's step 2 reward).
//!
//! A candidates directory holds one subdirectory per SPT (a *group*) with N candidate
//! implementations of it (scripts or components). Every candidate T is applied to every
//! validation task x and judged: not applicable (output unchanged), invalid (does not parse),
//! broken (parses, A = 0), correct (A = 1, with L = 1 − M), or an error of the application. The
//! reward is R(T) = (1/n) Σ A(x, T(x)) · L(x, T(x)) over the n tasks; the winner of a group is
//! the candidate with the highest positive reward (ties: fewer broken, then file name).

mod render;

pub use render::{html, markdown, SelectionInfo};

use crate::detector::{tokens_of, Detector, DetectorError};
use crate::oracle::{Oracle, Reference};
use crate::program::{classify_as, Candidate, Classified, ProgramHash, Step};
use crate::report::results::DroppedDuplicate;
use crate::search::{applicable_window, derive_seed};
use crate::task::Task;
use crate::transform::{LoadedTransform, ScriptHeader};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Problems with a candidates directory or the selection's files.
#[derive(Debug, Error)]
pub enum SelectError {
    /// The candidates directory cannot be read or holds no candidate.
    #[error("candidates directory {path}: {message}")]
    Candidates {
        /// The directory.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// Reading or writing an output file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> SelectError + '_ {
    move |source| SelectError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// One candidate implementation: `CANDIDATES/<group>/<file>`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct CandidateFile {
    /// The group (the subdirectory's name).
    pub group: String,
    /// The file name inside the group.
    pub file: String,
    /// The full path.
    pub path: PathBuf,
}

/// The candidates of `dir`: every `.py` and `.wasm` file of every subdirectory, sorted by group
/// and file name.
pub fn discover(dir: &Path) -> Result<Vec<CandidateFile>, SelectError> {
    let problem = |message: String| SelectError::Candidates {
        path: dir.to_path_buf(),
        message,
    };
    let entries = std::fs::read_dir(dir).map_err(|e| problem(e.to_string()))?;
    let mut out = Vec::new();
    for group_dir in entries.filter_map(Result::ok).map(|e| e.path()) {
        if !group_dir.is_dir() {
            continue;
        }
        let group = file_name(&group_dir);
        let files = std::fs::read_dir(&group_dir)
            .map_err(|e| problem(format!("{}: {e}", group_dir.display())))?;
        for path in files.filter_map(Result::ok).map(|e| e.path()) {
            if path.is_file() && path.extension().is_some_and(|x| x == "py" || x == "wasm") {
                out.push(CandidateFile {
                    group: group.clone(),
                    file: file_name(&path),
                    path,
                });
            }
        }
    }
    out.sort();
    if out.is_empty() {
        return Err(problem(
            "holds no candidate: expected one subdirectory per SPT with .py or .wasm files".into(),
        ));
    }
    Ok(out)
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// What one application of a candidate to one task gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Outcome {
    /// The output was the input (or the candidate declined).
    NotApplicable,
    /// The output does not parse.
    Invalid,
    /// The output parses but behaves differently (A = 0).
    Broken,
    /// The output is equivalent (A = 1), at distance L from the original.
    Correct {
        /// L = 1 − M(original, output).
        distance: f32,
    },
    /// The output is equivalent but longer than the detector's window (which the original
    /// fits): the detector would not see all of it, so it is not scored and earns no distance
    /// (A = 1, L = 0).
    Truncated,
    /// The application failed.
    Error {
        /// The kind of failure (`ApplyError::kind`, or `load`).
        kind: String,
        /// The message.
        message: String,
    },
}

/// One (candidate, task) evaluation: a line of `pairs.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairRecord {
    /// The candidate's group.
    pub group: String,
    /// The candidate's file name.
    pub file: String,
    /// The task id.
    pub task: String,
    /// The seed the candidate was applied with.
    pub seed: u64,
    /// What happened.
    #[serde(flatten)]
    pub outcome: Outcome,
}

impl PairRecord {
    /// Whether the record is not a judgement of the candidate, so a rerun must judge it again:
    /// the candidate did not load, or the sandbox failed.
    pub fn is_transient(&self) -> bool {
        matches!(&self.outcome, Outcome::Error { kind, .. } if kind == "load" || kind == "oracle")
    }

    /// The (group, file, task) key of this record.
    pub fn key(&self) -> (String, String, String) {
        (self.group.clone(), self.file.clone(), self.task.clone())
    }
}

/// A candidate ready to evaluate: its file and its loaded transform (or why it did not load).
#[derive(Clone)]
pub struct Contender<'a> {
    /// Where it is.
    pub candidate: &'a CandidateFile,
    /// The transform, or the load error's message.
    pub transform: Result<&'a LoadedTransform, String>,
}

/// The seed every candidate is applied with on `task` (the same for all, so they compete on
/// equal terms; derived from the run seed and the task's text).
pub fn task_seed(run_seed: u64, task: &Task) -> u64 {
    derive_seed(run_seed, 0, &ProgramHash::of(&task.source), "select")
}

/// Evaluates every contender on one task: applications and oracle checks in parallel, then one
/// detector call for all correct outputs. With `window`, correct outputs longer than the
/// detector's window (when the original fits it) are not scored ([`Outcome::Truncated`]).
#[allow(clippy::too_many_arguments)]
pub fn evaluate_task(
    task: &Task,
    reference: &Reference,
    contenders: &[Contender<'_>],
    detector: &dyn Detector,
    oracle: &Oracle,
    run_seed: u64,
    window: bool,
    verified: &mut dyn FnMut(&Candidate),
) -> Result<Vec<PairRecord>, DetectorError> {
    let seed = task_seed(run_seed, task);
    let judged: Vec<(Outcome, Option<String>)> = contenders
        .par_iter()
        .map(|c| {
            let t = match &c.transform {
                Ok(t) => t,
                Err(message) => {
                    return (
                        Outcome::Error {
                            kind: "load".into(),
                            message: message.clone(),
                        },
                        None,
                    )
                }
            };
            if !t.rewrites(task.language) {
                // Offered only programs of its language.
                return (Outcome::NotApplicable, None);
            }
            match t.apply(&task.source, seed) {
                Err(e) => (
                    Outcome::Error {
                        kind: e.kind().into(),
                        message: e.to_string(),
                    },
                    None,
                ),
                Ok(None) => (Outcome::NotApplicable, None),
                Ok(Some(out)) => match classify_as(task.language, &task.source, out) {
                    Classified::Unchanged => (Outcome::NotApplicable, None),
                    Classified::Invalid(_) => (Outcome::Invalid, None),
                    Classified::Valid(text) => match oracle.check(task, reference, &text) {
                        // Scored below, all at once.
                        Ok(d) if d.equivalent => {
                            (Outcome::Correct { distance: f32::NAN }, Some(text))
                        }
                        // A Java output that does not compile is invalid, not broken.
                        Ok(d) if d.invalid.is_some() => (Outcome::Invalid, None),
                        Ok(_) => (Outcome::Broken, None),
                        Err(fault) => (
                            Outcome::Error {
                                kind: "oracle".into(),
                                message: fault.to_string(),
                            },
                            None,
                        ),
                    },
                },
            }
        })
        .collect();
    let mut judged = judged;
    if let Some(w) = applicable_window(detector, &task.source, window)? {
        let texts: Vec<&str> = judged.iter().filter_map(|(_, t)| t.as_deref()).collect();
        let mut counts = detector.token_counts(&texts)?.into_iter();
        for (outcome, text) in judged.iter_mut() {
            let Some(t) = text.as_deref() else { continue };
            let tokens = match counts.next().flatten() {
                Some(n) => n,
                None => tokens_of(detector, t)?,
            };
            if tokens > w {
                *outcome = Outcome::Truncated;
                *text = None;
            }
        }
    }
    let correct: Vec<&str> = judged.iter().filter_map(|(_, t)| t.as_deref()).collect();
    let mut similarities = detector.score(&task.source, &correct)?.into_iter();
    let original = Candidate::original(&task.source);
    Ok(contenders
        .iter()
        .zip(judged)
        .map(|(c, (outcome, text))| {
            let outcome = match (outcome, text) {
                (Outcome::Correct { .. }, Some(text)) => match similarities.next() {
                    Some(m) => {
                        let step = Step {
                            name: format!("{}/{}", c.candidate.group, c.candidate.file),
                            seed,
                        };
                        let mut found = Candidate::derived(&original, text, step);
                        found.similarity = m;
                        verified(&found);
                        Outcome::Correct { distance: 1.0 - m }
                    }
                    None => Outcome::Error {
                        kind: "detector".into(),
                        message: "the detector returned too few scores".into(),
                    },
                },
                (o, _) => o,
            };
            PairRecord {
                group: c.candidate.group.clone(),
                file: c.candidate.file.clone(),
                task: task.id.clone(),
                seed,
                outcome,
            }
        })
        .collect())
}

/// One task's contest, as a [`crate::pipeline::Job`]: every contender on the task, skipping
/// evaluations already in the log. (The whole `select` job is [`crate::job::select`].)
pub struct Contest<'a> {
    /// The contenders.
    pub contenders: Vec<Contender<'a>>,
    /// (group, file, task) evaluations already done (a resumed run skips them).
    pub done: HashSet<(String, String, String)>,
    /// Scores correct outputs.
    pub detector: &'a dyn Detector,
    /// Judges outputs.
    pub oracle: &'a Oracle,
    /// Run seed.
    pub seed: u64,
    /// Outputs longer than the detector's window are not scored (see [`evaluate_task`]).
    pub window: bool,
}

impl crate::pipeline::Job for Contest<'_> {
    type Output = Vec<PairRecord>;

    /// Evaluations of different tasks are independent.
    fn parallel_tasks(&self) -> bool {
        true
    }

    fn run(
        &self,
        task: &Task,
        reference: Option<&Reference>,
        verified: &mut dyn FnMut(&Candidate),
    ) -> Result<Vec<PairRecord>, String> {
        let reference = reference.ok_or("select needs the original's reference behaviour")?;
        let todo: Vec<Contender<'_>> = self
            .contenders
            .iter()
            .filter(|c| {
                !self.done.contains(&(
                    c.candidate.group.clone(),
                    c.candidate.file.clone(),
                    task.id.clone(),
                ))
            })
            .cloned()
            .collect();
        if todo.is_empty() {
            return Ok(Vec::new());
        }
        evaluate_task(
            task,
            reference,
            &todo,
            self.detector,
            self.oracle,
            self.seed,
            self.window,
            verified,
        )
        .map_err(|e| format!("detector: {e}"))
    }
}

/// `pairs.jsonl`: finished evaluations, appended as they complete, so a rerun resumes.
pub struct PairLog {
    path: PathBuf,
    file: std::fs::File,
}

impl PairLog {
    /// Opens (or creates) the log; returns it with the complete records already in it, one per
    /// (group, file, task) key, and the duplicates it dropped (a log that an older equimorph or
    /// a second process wrote twice keeps the first record of each key). A torn last line (an
    /// interrupted write) is dropped; other unreadable lines are skipped. The file is rewritten
    /// when a line was dropped; the run directory's lock makes that safe.
    pub fn open(
        path: &Path,
    ) -> Result<(Self, Vec<PairRecord>, Vec<DroppedDuplicate>), SelectError> {
        let existing = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(io_error(path)(e)),
        };
        let complete = match existing.iter().rposition(|&b| b == b'\n') {
            Some(i) => &existing[..=i],
            None => &existing[..0],
        };
        let (records, dropped) = dedup_records(complete);
        if !dropped.is_empty() {
            let mut kept = Vec::new();
            append_lines(&mut kept, &records);
            std::fs::write(path, kept).map_err(io_error(path))?;
        } else if complete.len() != existing.len() {
            std::fs::write(path, complete).map_err(io_error(path))?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(io_error(path))?;
        Ok((
            PairLog {
                path: path.to_path_buf(),
                file,
            },
            records,
            dropped,
        ))
    }

    /// Appends records, one line each, and flushes them to disk.
    pub fn append(&mut self, records: &[PairRecord]) -> Result<(), SelectError> {
        let mut buf = Vec::new();
        append_lines(&mut buf, records);
        self.file.write_all(&buf).map_err(io_error(&self.path))?;
        self.file.sync_data().map_err(io_error(&self.path))
    }
}

/// `records` as JSON lines, appended to `buf`.
fn append_lines(buf: &mut Vec<u8>, records: &[PairRecord]) {
    for r in records {
        // A record holds only strings and numbers: serialisation cannot fail.
        if let Ok(line) = serde_json::to_vec(r) {
            buf.extend_from_slice(&line);
            buf.push(b'\n');
        }
    }
}

/// The records of complete JSON lines, the first of each key, and the duplicates left out
/// (with 1-based line numbers). Unreadable lines are skipped.
fn dedup_records(text: &[u8]) -> (Vec<PairRecord>, Vec<DroppedDuplicate>) {
    let mut first: std::collections::HashMap<(String, String, String), usize> = Default::default();
    let mut records = Vec::new();
    let mut dropped = Vec::new();
    for (i, line) in text.split(|&b| b == b'\n').enumerate() {
        let Ok(r) = serde_json::from_slice::<PairRecord>(line) else {
            continue;
        };
        match first.get(&r.key()) {
            Some(&f) => dropped.push(DroppedDuplicate {
                key: format!("{}/{} on task {}", r.group, r.file, r.task),
                line: i + 1,
                first: f,
            }),
            None => {
                first.insert(r.key(), i + 1);
                records.push(r);
            }
        }
    }
    (records, dropped)
}

/// The records of `records` without repeated (group, file, task) keys (the first of each).
pub fn dedup(records: Vec<PairRecord>) -> Vec<PairRecord> {
    let mut seen = HashSet::new();
    records
        .into_iter()
        .filter(|r| seen.insert(r.key()))
        .collect()
}

/// The (group, file, task) keys already evaluated.
pub fn done_keys(records: &[PairRecord]) -> HashSet<(String, String, String)> {
    records.iter().map(PairRecord::key).collect()
}

/// One row of `selection.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CandidateScore {
    /// The group (SPT).
    pub group: String,
    /// The file name inside the group.
    pub file: String,
    /// The transform's name (empty when it did not load).
    pub name: String,
    /// n: the validation tasks.
    pub tasks: usize,
    /// Tasks whose output differed from the input (correct + broken + invalid).
    pub applicable: usize,
    /// Valid and equivalent outputs.
    pub correct: usize,
    /// Valid outputs that behave differently.
    pub broken: usize,
    /// Outputs that do not parse.
    pub invalid: usize,
    /// Failed applications by kind.
    pub errors: BTreeMap<String, usize>,
    /// Correct outputs longer than the detector's window (counted as L = 0).
    #[serde(default)]
    pub truncated: usize,
    /// Mean L over correct outputs (0 when none).
    pub mean_distance: f64,
    /// R(T) = (1/n) Σ A·L.
    pub reward: f64,
    /// Whether it won its group.
    pub selected: bool,
}

/// Aggregates the records of `tasks` into one score per candidate, and marks the winners
/// (see [`mark_winners`]). `names` gives each candidate's transform name (by group and file).
pub fn aggregate(
    candidates: &[CandidateFile],
    names: &BTreeMap<(String, String), String>,
    records: &[PairRecord],
    tasks: &[String],
    max_broken: Option<f64>,
) -> Vec<CandidateScore> {
    let task_set: HashSet<&str> = tasks.iter().map(String::as_str).collect();
    let n = tasks.len();
    let mut scores: Vec<CandidateScore> = candidates
        .iter()
        .map(|c| {
            let key = (c.group.clone(), c.file.clone());
            let mut s = CandidateScore {
                group: c.group.clone(),
                file: c.file.clone(),
                name: names.get(&key).cloned().unwrap_or_default(),
                tasks: n,
                applicable: 0,
                correct: 0,
                broken: 0,
                invalid: 0,
                errors: BTreeMap::new(),
                truncated: 0,
                mean_distance: 0.0,
                reward: 0.0,
                selected: false,
            };
            let mut seen = HashSet::new();
            let mut distance_sum = 0.0f64;
            for r in records.iter().filter(|r| {
                r.group == c.group && r.file == c.file && task_set.contains(r.task.as_str())
            }) {
                if !seen.insert(r.task.as_str()) {
                    continue;
                }
                match &r.outcome {
                    Outcome::NotApplicable => {}
                    Outcome::Invalid => {
                        s.applicable += 1;
                        s.invalid += 1;
                    }
                    Outcome::Broken => {
                        s.applicable += 1;
                        s.broken += 1;
                    }
                    Outcome::Correct { distance } => {
                        s.applicable += 1;
                        s.correct += 1;
                        distance_sum += f64::from(*distance);
                    }
                    Outcome::Truncated => {
                        s.applicable += 1;
                        s.correct += 1;
                        s.truncated += 1;
                    }
                    Outcome::Error { kind, .. } => *s.errors.entry(kind.clone()).or_default() += 1,
                }
            }
            if s.correct > 0 {
                s.mean_distance = distance_sum / s.correct as f64;
            }
            if n > 0 {
                s.reward = distance_sum / n as f64;
            }
            s
        })
        .collect();
    mark_winners(&mut scores, max_broken);
    scores
}

/// The share of a candidate's applicable outputs that are broken or invalid.
pub fn broken_share(s: &CandidateScore) -> f64 {
    if s.applicable == 0 {
        0.0
    } else {
        (s.broken + s.invalid) as f64 / s.applicable as f64
    }
}

/// In each group, selects the candidate with the highest positive reward; ties go to fewer
/// broken outputs, then to the file name. With `max_broken`, a candidate whose
/// [`broken_share`] exceeds it cannot win (the paper's reward alone lets a candidate that
/// breaks some programs win when it applies more often).
pub fn mark_winners(scores: &mut [CandidateScore], max_broken: Option<f64>) {
    let groups: Vec<String> = {
        let mut g: Vec<String> = scores.iter().map(|s| s.group.clone()).collect();
        g.dedup();
        g
    };
    for group in groups {
        let best = scores
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                s.group == group
                    && s.reward > 0.0
                    && max_broken.is_none_or(|m| broken_share(s) <= m)
            })
            .min_by(|(_, a), (_, b)| {
                b.reward
                    .total_cmp(&a.reward)
                    .then(a.broken.cmp(&b.broken))
                    .then(a.file.cmp(&b.file))
            })
            .map(|(i, _)| i);
        if let Some(i) = best {
            scores[i].selected = true;
        }
    }
}

/// Writes the winners into `dir` (emptied first) as a transform set: `<group>.py` or
/// `<group>.wasm`. A script's `# name:` header is set to the group's kebab-case name, so the
/// winners of different groups never clash; a component keeps the name it reports.
pub fn write_selected(
    dir: &Path,
    candidates: &[CandidateFile],
    scores: &[CandidateScore],
) -> Result<Vec<PathBuf>, SelectError> {
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(io_error(dir))?;
    }
    std::fs::create_dir_all(dir).map_err(io_error(dir))?;
    let mut written = Vec::new();
    for s in scores.iter().filter(|s| s.selected) {
        let Some(c) = candidates
            .iter()
            .find(|c| c.group == s.group && c.file == s.file)
        else {
            continue;
        };
        let slug = ScriptHeader::name_from_stem(Path::new(&format!("{}.x", s.group)));
        let slug = if slug.is_empty() {
            "selected".to_string()
        } else {
            slug
        };
        let ext = c.path.extension().and_then(|e| e.to_str()).unwrap_or("py");
        let dest = dir.join(format!("{slug}.{ext}"));
        if ext == "py" {
            let text = std::fs::read_to_string(&c.path).map_err(io_error(&c.path))?;
            std::fs::write(&dest, with_name_header(&text, &slug)).map_err(io_error(&dest))?;
        } else {
            std::fs::copy(&c.path, &dest).map_err(io_error(&dest))?;
        }
        written.push(dest);
    }
    Ok(written)
}

/// `text` with its `# name:` header line set to `name` (added at the top when absent).
fn with_name_header(text: &str, name: &str) -> String {
    let header_len = text
        .lines()
        .take_while(|l| {
            let t = l.trim();
            t.is_empty() || t.starts_with('#')
        })
        .count();
    let mut replaced = false;
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            let t = l.trim_start().trim_start_matches('#').trim_start();
            let is_name = i < header_len
                && l.trim_start().starts_with('#')
                && t.to_ascii_lowercase().starts_with("name:");
            if is_name && !replaced {
                replaced = true;
                format!("# name: {name}")
            } else {
                l.to_string()
            }
        })
        .collect();
    let mut out = lines.join("\n");
    if text.ends_with('\n') {
        out.push('\n');
    }
    if replaced {
        out
    } else if out.starts_with("#!") {
        match out.split_once('\n') {
            Some((shebang, rest)) => format!("{shebang}\n# name: {name}\n{rest}"),
            None => format!("{out}\n# name: {name}\n"),
        }
    } else {
        format!("# name: {name}\n{out}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(group: &str, file: &str, reward: f64, broken: usize) -> CandidateScore {
        CandidateScore {
            group: group.into(),
            file: file.into(),
            name: file.into(),
            tasks: 4,
            applicable: 4,
            correct: 4,
            broken,
            invalid: 0,
            errors: BTreeMap::new(),
            truncated: 0,
            mean_distance: reward,
            reward,
            selected: false,
        }
    }

    #[test]
    fn winners_by_reward_then_broken_then_name() {
        let mut s = vec![
            score("a", "1.py", 0.2, 0),
            score("a", "2.py", 0.3, 1),
            score("b", "1.py", 0.3, 2),
            score("b", "2.py", 0.3, 1),
            score("b", "3.py", 0.3, 1),
            score("c", "1.py", 0.0, 0),
        ];
        let winners = |s: &mut Vec<CandidateScore>, max: Option<f64>| {
            s.iter_mut().for_each(|s| s.selected = false);
            mark_winners(s, max);
            s.iter()
                .filter(|s| s.selected)
                .map(|s| format!("{}/{}", s.group, s.file))
                .collect::<Vec<_>>()
        };
        assert_eq!(winners(&mut s, None), vec!["a/2.py", "b/2.py"]);
        // 1 broken of 4 applicable is a share of 0.25; 2 of 4 is 0.5.
        assert_eq!(winners(&mut s, Some(0.3)), vec!["a/2.py", "b/2.py"]);
        assert_eq!(winners(&mut s, Some(0.0)), vec!["a/1.py"]);
    }

    #[test]
    fn aggregate_counts_and_reward() {
        let c = vec![CandidateFile {
            group: "g".into(),
            file: "1.py".into(),
            path: "g/1.py".into(),
        }];
        let rec = |task: &str, outcome: Outcome| PairRecord {
            group: "g".into(),
            file: "1.py".into(),
            task: task.into(),
            seed: 0,
            outcome,
        };
        let records = vec![
            rec("t1", Outcome::Correct { distance: 0.5 }),
            rec("t2", Outcome::Broken),
            rec("t3", Outcome::Invalid),
            rec(
                "t4",
                Outcome::Error {
                    kind: "timeout".into(),
                    message: String::new(),
                },
            ),
            rec("t5", Outcome::Correct { distance: 0.25 }),
            rec("t6", Outcome::NotApplicable),
            rec("other", Outcome::Correct { distance: 0.9 }),
        ];
        let tasks: Vec<String> = (1..=6).map(|i| format!("t{i}")).collect();
        let s = aggregate(&c, &BTreeMap::new(), &records, &tasks, None).remove(0);
        assert_eq!((s.applicable, s.correct, s.broken, s.invalid), (4, 2, 1, 1));
        assert_eq!(s.errors.get("timeout"), Some(&1));
        assert!((s.mean_distance - 0.375).abs() < 1e-9);
        assert!((s.reward - 0.75 / 6.0).abs() < 1e-9);
        assert!(s.selected);
    }

    #[test]
    fn name_header_is_set_or_added() {
        assert_eq!(
            with_name_header("# name: x\n# category: naming\nimport sys\n", "g"),
            "# name: g\n# category: naming\nimport sys\n"
        );
        assert_eq!(
            with_name_header("import sys\n# name: late\n", "g"),
            "# name: g\nimport sys\n# name: late\n"
        );
        assert_eq!(
            with_name_header("#!/usr/bin/env python3\nprint(1)\n", "g"),
            "#!/usr/bin/env python3\n# name: g\nprint(1)\n"
        );
    }
}
