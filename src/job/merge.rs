//! `equimorph merge`: one run directory from the directories of a sharded run (attack,
//! augment or select), as if the run had not been split.
//!
//! The shards must all be of one job and, unless `partial`, every shard of one split exactly
//! once; the merged directory is written by this process alone and must not hold results yet.
//! Its `run.json` keeps the shards' settings without the shard, so it reads like an unsharded
//! run's (`report --threshold auto` finds its detector), and its files list the tasks in the
//! task file's order.

use super::exit::ExitStatus;
use super::select::{MergedSelection, SelectError};
use super::settings::load_dataset;
use super::{Notices, Printout};
use crate::augment::summary::{AugmentOutputError, AugmentSummary};
use crate::report::results::{write_jsonl, ResultsError};
use crate::report::shard::{check_complete, MergeError as ShardError, Shard};
use crate::report::summary::Summary;
use crate::report::write_reports;
use crate::run::{JobKind, RunDirError, RunSettings};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Files that mean a directory already holds a run's results.
const RESULTS: [&str; 3] = ["results.jsonl", "tasks.jsonl", "pairs.jsonl"];

/// Why shard directories were not merged.
#[derive(Debug, Error)]
pub enum MergeError {
    /// No shard directory given.
    #[error("no shard directory given")]
    NoShards,
    /// A directory without a readable run.json.
    #[error("{} is not a run directory", .dir.display())]
    NotARun {
        /// The directory.
        dir: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A run.json that is not JSON.
    #[error("{} is not JSON", .path.display())]
    NotJson {
        /// The file.
        path: PathBuf,
        /// Why.
        source: serde_json::Error,
    },
    /// Shards of different jobs.
    #[error("{} is not a {kind} run like {}", .dir.display(), .first.display())]
    OtherJob {
        /// The directory of another job.
        dir: PathBuf,
        /// The first directory's job (the one the others must share).
        kind: String,
        /// The first directory.
        first: PathBuf,
    },
    /// The merged directory could not be created.
    #[error("cannot create {}", .path.display())]
    Create {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The merged directory already holds results.
    #[error("{} already holds results; merge into a new directory", .0.display())]
    HasResults(PathBuf),
    /// run.json (without settings) could not be written.
    #[error("cannot write {}", .path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A record could not be serialised.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
    /// The merged directory is owned by another process, or its run.json not written.
    #[error(transparent)]
    RunDir(#[from] RunDirError),
    /// The shards do not make one run (missing, twice, other settings), or one's results.
    #[error(transparent)]
    Shards(#[from] ShardError),
    /// A merged log could not be written.
    #[error(transparent)]
    Results(#[from] ResultsError),
    /// The augment run's outputs could not be written.
    #[error(transparent)]
    Augment(#[from] AugmentOutputError),
    /// The select shards could not be merged.
    #[error(transparent)]
    Select(#[from] SelectError),
}

/// Merging shard directories into one run.
#[derive(Debug, Clone)]
pub struct MergeJob {
    /// The merged run's directory (created).
    pub out: PathBuf,
    /// The shard directories.
    pub shards: Vec<PathBuf>,
    /// Merge even if some shards are missing (never duplicated ones).
    pub partial: bool,
}

/// What the merged run holds.
#[derive(Debug)]
pub enum Merged {
    /// An attack run's summary.
    Attack(Summary),
    /// An augment run's summary.
    Augment(AugmentSummary),
    /// A selection.
    Select(MergedSelection),
}

/// A merged run.
#[derive(Debug)]
pub struct MergeOutcome {
    /// The merged run's directory.
    pub out: PathBuf,
    /// Shard directories merged.
    pub shards: usize,
    /// What it holds.
    pub merged: Merged,
}

impl MergeJob {
    /// Checks that the shards make one run and merges them into [`MergeJob::out`]; a
    /// `--partial` merge is a warning.
    pub fn run(&self, notices: &dyn Notices) -> Result<MergeOutcome, MergeError> {
        let runs: Vec<(String, serde_json::Value)> = self
            .shards
            .iter()
            .map(|d| kind_of(d))
            .collect::<Result<_, _>>()?;
        let ((kind, first), first_dir) = runs
            .first()
            .zip(self.shards.first())
            .ok_or(MergeError::NoShards)?;
        if let Some((dir, _)) = self.shards.iter().zip(&runs).find(|(_, (k, _))| k != kind) {
            return Err(MergeError::OtherJob {
                dir: dir.clone(),
                kind: kind.clone(),
                first: first_dir.clone(),
            });
        }
        // The merged run is written by this process alone.
        let create = |source| MergeError::Create {
            path: self.out.clone(),
            source,
        };
        std::fs::create_dir_all(&self.out).map_err(create)?;
        let _owner = crate::run::lock(&self.out)?;
        let shards: Vec<(String, Option<Shard>)> = self
            .shards
            .iter()
            .zip(&runs)
            .map(|(d, (_, v))| {
                let shard = v["shard"].as_str().and_then(|s| s.parse().ok());
                (d.display().to_string(), shard)
            })
            .collect();
        check_complete(&shards, self.partial)?;
        if self.partial {
            notices.warn(&format!(
                "--partial: merging {} shard directories; the merged run covers only their tasks",
                self.shards.len()
            ));
        }
        if RESULTS.iter().any(|done| self.out.join(done).exists()) {
            return Err(MergeError::HasResults(self.out.clone()));
        }
        let run_json = RunJson {
            out: &self.out,
            settings: merged_settings(first),
        };
        let dirs: Vec<&Path> = self.shards.iter().map(PathBuf::as_path).collect();
        let merged = match kind.as_str() {
            "augment" => Merged::Augment(self.augment(&dirs, first, &run_json, notices)?),
            "select" => {
                let merged = super::select::merge(&self.out, &dirs, notices)?;
                run_json.write(JobKind::Select, &merged.run)?;
                Merged::Select(merged)
            }
            _ => Merged::Attack(self.attack(&dirs, first, &run_json, notices)?),
        };
        Ok(MergeOutcome {
            out: self.out.clone(),
            shards: dirs.len(),
            merged,
        })
    }

    /// Merges attack shards: results.jsonl, run.json and the reports.
    fn attack(
        &self,
        dirs: &[&Path],
        first: &serde_json::Value,
        run_json: &RunJson<'_>,
        notices: &dyn Notices,
    ) -> Result<Summary, MergeError> {
        let order = task_order(first, notices);
        let (run, lines) = crate::report::shard::merge(dirs, Some(&order))?;
        write_jsonl(&self.out.join("results.jsonl"), &lines)?;
        run_json.write(JobKind::Attack, &run)?;
        Ok(write_reports(&self.out, run)?)
    }

    /// Merges augment shards: variants.jsonl, tasks.jsonl, run.json and the summaries.
    fn augment(
        &self,
        dirs: &[&Path],
        first: &serde_json::Value,
        run_json: &RunJson<'_>,
        notices: &dyn Notices,
    ) -> Result<AugmentSummary, MergeError> {
        use crate::augment::summary::{finish, merge};
        let order = task_order(first, notices);
        let (run, tasks, variants) = merge(dirs, &order)?;
        write_jsonl(&self.out.join("variants.jsonl"), &variants)?;
        write_jsonl(&self.out.join("tasks.jsonl"), &tasks)?;
        run_json.write(JobKind::Augment, &run)?;
        Ok(finish(&self.out, &run, &tasks, &variants)?)
    }
}

impl MergeOutcome {
    /// Always 0: the run was merged.
    pub fn status(&self) -> ExitStatus {
        ExitStatus::Ok
    }

    /// What the merged run holds and where it is.
    pub fn printout(&self) -> Printout {
        let (n, out) = (self.shards, self.out.display());
        let mut p = Printout::new();
        match &self.merged {
            Merged::Attack(s) => p.out(format!(
                "merged {n} shard(s): {} tasks, {} attacked, L = {:.4} ± {:.4}, success rate \
                 {:.1} %; wrote {out}",
                s.tasks,
                s.attacked,
                s.mean_distance,
                s.std_distance,
                s.success_rate * 100.0,
            )),
            Merged::Augment(s) => p.out(format!(
                "merged {n} shard(s): {} tasks, {} augmented, {} variants; wrote {out}",
                s.tasks, s.augmented, s.variants,
            )),
            Merged::Select(merged) => p.extend(merged.printout(&self.out)),
        };
        p
    }
}

/// The job of the run in `dir`, from its `run.json` (`kind`; attack runs have none), and the
/// record itself.
fn kind_of(dir: &Path) -> Result<(String, serde_json::Value), MergeError> {
    let path = dir.join("run.json");
    let text = std::fs::read_to_string(&path).map_err(|source| MergeError::NotARun {
        dir: dir.to_path_buf(),
        source,
    })?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|source| MergeError::NotJson { path, source })?;
    let kind = v["kind"].as_str().unwrap_or("attack").to_string();
    Ok((kind, v))
}

/// The shards' settings without the shard, when they recorded some.
fn merged_settings(run: &serde_json::Value) -> Option<RunSettings> {
    let mut s: RunSettings = serde_json::from_value(run.get("settings")?.clone()).ok()?;
    s.set("shard", crate::run::NOT_SET);
    Some(s)
}

/// The task file's ids in order, so merged files read like an unsharded run's (empty when the
/// file the run names cannot be loaded: the merge then keeps the shards' order).
fn task_order(run: &serde_json::Value, notices: &dyn Notices) -> Vec<String> {
    run["tasks"]
        .as_str()
        .and_then(|p| {
            load_dataset(Path::new(p), None, "--format", &Default::default(), notices).ok()
        })
        .map(|set| {
            set.run_order(true)
                .into_iter()
                .map(|t| t.id.clone())
                .collect()
        })
        .unwrap_or_default()
}

/// Writes the merged run's `run.json`: the job's record, with the shards' settings when they
/// recorded some.
struct RunJson<'a> {
    out: &'a Path,
    settings: Option<RunSettings>,
}

impl RunJson<'_> {
    /// Writes `record` (of a run of `kind`).
    fn write<T: serde::Serialize>(&self, kind: JobKind, record: &T) -> Result<(), MergeError> {
        match &self.settings {
            Some(s) => crate::run::write_run_json(self.out, kind, s, record)?,
            None => {
                let path = self.out.join("run.json");
                let text = serde_json::to_string_pretty(record)?;
                std::fs::write(&path, text).map_err(|source| MergeError::Write { path, source })?;
            }
        }
        Ok(())
    }
}
