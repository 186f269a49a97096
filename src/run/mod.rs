//! Run directories: the one place where a job (`attack`, `augment`, `select`) creates or reopens
//! its output directory.
//!
//! A run is defined by its job kind and its settings: the task file and a digest of its content,
//! the detector spec and a digest of its model, the transforms with digests of their files, the
//! search or sampling settings, the seed, the constraints, the shard. They are recorded in
//! `run.json` (`kind` and `settings`, beside the job's own record that reports read). Reopening a
//! directory resumes its append-only logs only when the kind and every setting agree; otherwise
//! it is refused, naming each setting that differs and its two values, unless the caller starts
//! over (`--force-new`), which removes the outputs a run writes and nothing else.
//!
//! One process owns a run directory at a time: [`RunDir::open`] takes an exclusive OS file lock
//! on `run.lock` (released by the kernel when the process ends, however it ends) and writes its
//! pid and command line there; a second process on the same directory is refused with the
//! holder's pid and command ([`RunDirError::Busy`]).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The jobs that own run directories.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// `equimorph attack`.
    Attack,
    /// `equimorph augment`.
    Augment,
    /// `equimorph select`.
    Select,
}

impl JobKind {
    /// The name used in `run.json` and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::Attack => "attack",
            JobKind::Augment => "augment",
            JobKind::Select => "select",
        }
    }

    fn parse(s: &str) -> Option<JobKind> {
        match s {
            "attack" => Some(JobKind::Attack),
            "augment" => Some(JobKind::Augment),
            "select" => Some(JobKind::Select),
            _ => None,
        }
    }
}

impl fmt::Display for JobKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The settings that define a run: name → value, both as users read them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RunSettings(BTreeMap<String, String>);

/// Value of a setting that was not given.
pub const NOT_SET: &str = "(not set)";

impl RunSettings {
    /// No settings yet.
    pub fn new() -> Self {
        RunSettings::default()
    }

    /// Records `name = value`.
    pub fn set(&mut self, name: &str, value: impl fmt::Display) -> &mut Self {
        self.0.insert(name.to_string(), value.to_string());
        self
    }

    /// Records `name = value`, or [`NOT_SET`].
    pub fn set_opt<T: fmt::Display>(&mut self, name: &str, value: Option<T>) -> &mut Self {
        match value {
            Some(v) => self.set(name, v),
            None => self.set(name, NOT_SET),
        }
    }

    /// The value of `name`, if recorded.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0.get(name).map(String::as_str)
    }

    /// Every setting whose value differs from `before`'s: (name, before, now).
    pub fn differences(&self, before: &RunSettings) -> Vec<(String, String, String)> {
        let names: std::collections::BTreeSet<&String> =
            self.0.keys().chain(before.0.keys()).collect();
        names
            .into_iter()
            .filter_map(|n| {
                let (b, a) = (before.0.get(n), self.0.get(n));
                (b != a).then(|| {
                    (
                        n.clone(),
                        b.cloned().unwrap_or_else(|| NOT_SET.into()),
                        a.cloned().unwrap_or_else(|| NOT_SET.into()),
                    )
                })
            })
            .collect()
    }
}

/// Why a run directory could not be opened or written.
#[derive(Debug, Error)]
pub enum RunDirError {
    /// The directory or a file in it could not be created, read or written.
    #[error("{path}: {source}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// `run.json` is not what equimorph writes.
    #[error("{path} is not a run.json equimorph can read: {message}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The directory holds another job's run.
    #[error(
        "{path} holds {found} run, not {wanted} run: choose another --out (or pass --force-new to \
         replace it)"
    )]
    OtherJob {
        /// The directory.
        path: PathBuf,
        /// What it holds ("an augment").
        found: String,
        /// What was asked for ("an attack").
        wanted: String,
    },
    /// The directory holds a run of this job made with other settings.
    #[error(
        "{path} holds a run made with other settings:\n{}\nresume with the same arguments, pass \
         --force-new to start over in this directory, or choose another --out",
        .differences.iter().map(|(n, b, a)| format!("  {n}: {b} (in the directory) ≠ {a} (now)"))
            .collect::<Vec<_>>().join("\n")
    )]
    OtherSettings {
        /// The directory.
        path: PathBuf,
        /// (setting, value in the directory, value now).
        differences: Vec<(String, String, String)>,
    },
    /// Another process holds the directory's lock: it is running a job there now.
    #[error(
        "{path} is in use by another equimorph process ({holder}); wait for it to finish, or \
         choose another --out"
    )]
    Busy {
        /// The directory.
        path: PathBuf,
        /// Who holds it: "pid N: equimorph attack …", as it wrote in `run.lock`.
        holder: String,
    },
    /// The directory holds a run from before settings were recorded.
    #[error(
        "{path} holds a run made by an earlier equimorph that did not record its settings, so \
         resuming it cannot be checked: pass --force-new to start over, or choose another --out"
    )]
    Unchecked {
        /// The directory.
        path: PathBuf,
    },
}

/// How [`RunDir::open`] found the directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opened {
    /// Empty or new: a fresh run.
    Fresh,
    /// It holds this run: its logs are resumed.
    Resumed,
    /// It held a run that `--force-new` removed.
    Replaced,
}

/// Every file or directory a job writes in its run directory (what `--force-new` removes).
pub const RUN_OUTPUTS: &[&str] = &[
    "run.json",
    "stats.json",
    "summary.json",
    "report.md",
    "report.html",
    "results.jsonl",
    "verified.jsonl",
    "variants.jsonl",
    "tasks.jsonl",
    "codexglue",
    "pairs.jsonl",
    "state.json",
    "selection.json",
    "selection.md",
    "selection.html",
    "selected",
];

/// The lock file of a run directory.
pub const LOCK_FILE: &str = "run.lock";

/// An opened run directory, owned by this process until it is dropped.
#[derive(Debug, Clone)]
pub struct RunDir {
    path: PathBuf,
    kind: JobKind,
    settings: RunSettings,
    /// The locked `run.lock`: held (and the directory owned) as long as any clone lives.
    _lock: std::sync::Arc<std::fs::File>,
}

/// Takes the exclusive lock of `dir` for this process and records who holds it, or says who
/// does. The kernel releases it when the file is closed or the process ends.
pub fn lock(dir: &Path) -> Result<std::fs::File, RunDirError> {
    use std::io::{Read, Seek, Write};
    let path = dir.join(LOCK_FILE);
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io(&path))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut holder = String::new();
            // The holder writes its line right after locking: an empty read is a race with it.
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            return Err(RunDirError::Busy {
                path: dir.to_path_buf(),
                holder: if holder.is_empty() {
                    "a process that is starting".into()
                } else {
                    holder.to_string()
                },
            });
        }
        Err(std::fs::TryLockError::Error(e)) => return Err(io(&path)(e)),
    }
    let command: Vec<String> = std::env::args().collect();
    let line = format!("pid {}: {}\n", std::process::id(), command.join(" "));
    file.set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| file.write_all(line.as_bytes()))
        .map_err(io(&path))?;
    Ok(file)
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RunDirError + '_ {
    move |source| RunDirError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// "an attack", "a select".
fn with_article(kind: &str) -> String {
    if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
        format!("an {kind}")
    } else {
        format!("a {kind}")
    }
}

/// The kind and settings recorded in `dir/run.json`, if there is one. A `run.json` without a
/// `kind` is an attack's (attacks did not record it at first).
pub fn recorded(dir: &Path) -> Result<Option<(String, Option<RunSettings>)>, RunDirError> {
    let path = dir.join("run.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(&path)(e)),
    };
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| RunDirError::Unreadable {
            path: path.clone(),
            message: e.to_string(),
        })?;
    let kind = v["kind"].as_str().unwrap_or("attack").to_string();
    let settings = match v.get("settings") {
        Some(s) => {
            Some(
                serde_json::from_value(s.clone()).map_err(|e| RunDirError::Unreadable {
                    path: path.clone(),
                    message: format!("settings: {e}"),
                })?,
            )
        }
        None => None,
    };
    Ok(Some((kind, settings)))
}

impl RunDir {
    /// Creates `path` for a run of `kind` with `settings`, or reopens it to resume the same run.
    /// Refuses a directory that another process holds ([`RunDirError::Busy`]), or that holds
    /// another job's run or this job's run with other settings, unless `force_new`, which
    /// removes the previous run's outputs first.
    pub fn open(
        path: &Path,
        kind: JobKind,
        settings: RunSettings,
        force_new: bool,
    ) -> Result<(RunDir, Opened), RunDirError> {
        std::fs::create_dir_all(path).map_err(io(path))?;
        let lock = lock(path)?;
        let dir = RunDir {
            path: path.to_path_buf(),
            kind,
            settings,
            _lock: std::sync::Arc::new(lock),
        };
        let opened = match recorded(path)? {
            None => Opened::Fresh,
            Some(_) if force_new => {
                dir.remove_outputs()?;
                Opened::Replaced
            }
            Some((found, _)) if JobKind::parse(&found) != Some(kind) => {
                return Err(RunDirError::OtherJob {
                    path: path.to_path_buf(),
                    found: with_article(&found),
                    wanted: with_article(kind.as_str()),
                })
            }
            Some((_, None)) => {
                return Err(RunDirError::Unchecked {
                    path: path.to_path_buf(),
                })
            }
            Some((_, Some(before))) => {
                let differences = dir.settings.differences(&before);
                if !differences.is_empty() {
                    return Err(RunDirError::OtherSettings {
                        path: path.to_path_buf(),
                        differences,
                    });
                }
                Opened::Resumed
            }
        };
        Ok((dir, opened))
    }

    /// The directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A file in the directory.
    pub fn join(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Writes `run.json`: the job's own `record` (what reports and `merge` read) with the run's
    /// `kind` and `settings` added.
    pub fn write_run_json<T: Serialize>(&self, record: &T) -> Result<(), RunDirError> {
        write_run_json(&self.path, self.kind, &self.settings, record)
    }

    /// Writes `stats.json` (counters of the last invocation on this directory).
    pub fn write_stats(&self, stats: &serde_json::Value) -> Result<(), RunDirError> {
        let path = self.join("stats.json");
        let text = serde_json::to_string_pretty(stats).map_err(|e| RunDirError::Unreadable {
            path: path.clone(),
            message: e.to_string(),
        })?;
        std::fs::write(&path, text).map_err(io(&path))
    }

    fn remove_outputs(&self) -> Result<(), RunDirError> {
        for name in RUN_OUTPUTS {
            let p = self.join(name);
            let r = if p.is_dir() {
                std::fs::remove_dir_all(&p)
            } else {
                std::fs::remove_file(&p)
            };
            match r {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(&p)(e)),
                _ => {}
            }
        }
        Ok(())
    }
}

/// Writes `dir/run.json`: `record` with `kind` and `settings` added (used by [`RunDir`] and by
/// `merge`, whose merged run has the shards' settings less the shard).
pub fn write_run_json<T: Serialize>(
    dir: &Path,
    kind: JobKind,
    settings: &RunSettings,
    record: &T,
) -> Result<(), RunDirError> {
    let path = dir.join("run.json");
    let bad = |message: String| RunDirError::Unreadable {
        path: path.clone(),
        message,
    };
    // Through text, not `to_value`: an f32 field then keeps its short form (0.987371, as in
    // the summary), not its f64 widening (0.987371027469635).
    let text = serde_json::to_string(record).map_err(|e| bad(e.to_string()))?;
    let mut v: serde_json::Value = serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let obj = v
        .as_object_mut()
        .ok_or_else(|| bad("the run record is not an object".into()))?;
    obj.insert("kind".into(), kind.as_str().into());
    obj.insert(
        "settings".into(),
        serde_json::to_value(settings).map_err(|e| bad(e.to_string()))?,
    );
    let text = serde_json::to_string_pretty(&v).map_err(|e| bad(e.to_string()))?;
    std::fs::write(&path, text).map_err(io(&path))
}

/// Rewrites the job's record in `dir/run.json` (a new threshold, say), keeping the `kind` and
/// `settings` already there.
pub fn update_run_json<T: Serialize>(dir: &Path, record: &T) -> Result<(), RunDirError> {
    let path = dir.join("run.json");
    let kept =
        recorded(dir)?.and_then(|(kind, settings)| Some((JobKind::parse(&kind)?, settings?)));
    match kept {
        Some((kind, settings)) => write_run_json(dir, kind, &settings, record),
        None => {
            let text =
                serde_json::to_string_pretty(record).map_err(|e| RunDirError::Unreadable {
                    path: path.clone(),
                    message: e.to_string(),
                })?;
            std::fs::write(&path, text).map_err(io(&path))
        }
    }
}

/// How far a run has come: the tasks it must finish (those its task file holds for its shard)
/// and how many of them are finished. Every job's summary and reports carry it, so an
/// interrupted run never reads as a finished one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Progress {
    /// Tasks the run must finish (`None`: a run from before this was recorded).
    pub planned: Option<usize>,
    /// Distinct tasks finished.
    pub finished: usize,
}

impl Progress {
    /// Tasks not finished yet, when known.
    pub fn pending(&self) -> Option<usize> {
        self.planned.map(|p| p.saturating_sub(self.finished))
    }

    /// Whether every planned task is finished (`None` when the plan is not recorded).
    pub fn complete(&self) -> Option<bool> {
        self.pending().map(|p| p == 0)
    }

    /// The first line a report of an incomplete run must show, or `None` when it is complete
    /// (or its plan was not recorded).
    pub fn incomplete_notice(&self) -> Option<String> {
        match (self.planned, self.complete()) {
            (Some(planned), Some(false)) => Some(format!(
                "incomplete: {} of {planned} tasks finished, {} pending; rerun the same command \
                 to finish",
                self.finished,
                planned.saturating_sub(self.finished)
            )),
            _ => None,
        }
    }
}

/// A short content digest of a file, or of a directory's files (their relative paths, sizes and
/// contents, in path order): the first 16 hex digits of BLAKE3.
pub fn digest(path: &Path) -> std::io::Result<String> {
    let mut h = blake3::Hasher::new();
    if path.is_dir() {
        let mut files = Vec::new();
        collect_files(path, path, &mut files)?;
        files.sort();
        for rel in files {
            h.update(rel.to_string_lossy().as_bytes());
            h.update(&[0]);
            let mut f = std::fs::File::open(path.join(&rel))?;
            h.update_reader(&mut f)?;
            h.update(&[0]);
        }
    } else {
        let mut f = std::fs::File::open(path)?;
        h.update_reader(&mut f)?;
    }
    Ok(h.finalize().to_hex()[..16].to_string())
}

fn collect_files(root: &Path, dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let p = entry.path();
        let ty = entry.file_type()?;
        if ty.is_dir() {
            collect_files(root, &p, out)?;
        } else if ty.is_file() {
            out.push(p.strip_prefix(root).unwrap_or(&p).to_path_buf());
        }
    }
    Ok(())
}

/// `digest`, or why it could not be taken, as a setting's value.
pub fn digest_setting(path: &Path) -> String {
    digest(path).unwrap_or_else(|e| format!("unreadable: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(pairs: &[(&str, &str)]) -> RunSettings {
        let mut s = RunSettings::new();
        for (k, v) in pairs {
            s.set(k, v);
        }
        s
    }

    #[test]
    fn differences_name_each_setting_with_both_values() {
        let before = settings(&[("detector", "jaccard"), ("beam", "2"), ("seed", "0")]);
        let now = settings(&[("detector", "nicad"), ("beam", "2"), ("window", "true")]);
        assert_eq!(
            now.differences(&before),
            vec![
                ("detector".into(), "jaccard".into(), "nicad".into()),
                ("seed".into(), "0".into(), NOT_SET.into()),
                ("window".into(), NOT_SET.into(), "true".into()),
            ]
        );
        assert!(before.differences(&before).is_empty());
    }

    #[test]
    fn reopening_resumes_the_same_run_and_refuses_others() {
        let d = tempfile::tempdir().unwrap();
        let a = settings(&[("detector", "jaccard")]);
        let (dir, opened) = RunDir::open(d.path(), JobKind::Attack, a.clone(), false).unwrap();
        assert_eq!(opened, Opened::Fresh);
        dir.write_run_json(&serde_json::json!({"threshold": 0.5}))
            .unwrap();
        std::fs::write(dir.join("results.jsonl"), "{}\n").unwrap();
        // One owner at a time, even within a process.
        let e = RunDir::open(d.path(), JobKind::Attack, a.clone(), false).unwrap_err();
        assert!(matches!(e, RunDirError::Busy { .. }), "{e}");
        assert!(
            e.to_string()
                .contains(&format!("pid {}", std::process::id())),
            "{e}"
        );
        let results = dir.join("results.jsonl");
        drop(dir);
        let (_, opened) = RunDir::open(d.path(), JobKind::Attack, a.clone(), false).unwrap();
        assert_eq!(opened, Opened::Resumed);
        let b = settings(&[("detector", "nicad")]);
        let e = RunDir::open(d.path(), JobKind::Attack, b.clone(), false).unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("detector: jaccard (in the directory) ≠ nicad (now)"),
            "{text}"
        );
        let e = RunDir::open(d.path(), JobKind::Augment, a.clone(), false).unwrap_err();
        assert!(e
            .to_string()
            .contains("holds an attack run, not an augment run"));
        // Starting over removes the run's outputs, and only those.
        std::fs::write(d.path().join("notes.txt"), "mine").unwrap();
        let (_, opened) = RunDir::open(d.path(), JobKind::Attack, b, true).unwrap();
        assert_eq!(opened, Opened::Replaced);
        assert!(!results.exists() && !d.path().join("run.json").exists());
        assert!(d.path().join("notes.txt").exists());
    }

    #[test]
    fn an_update_keeps_kind_and_settings() {
        let d = tempfile::tempdir().unwrap();
        let s = settings(&[("seed", "3")]);
        let (dir, _) = RunDir::open(d.path(), JobKind::Select, s.clone(), false).unwrap();
        dir.write_run_json(&serde_json::json!({"x": 1})).unwrap();
        update_run_json(d.path(), &serde_json::json!({"x": 2})).unwrap();
        let (kind, settings) = recorded(d.path()).unwrap().unwrap();
        assert_eq!((kind.as_str(), settings), ("select", Some(s)));
    }

    #[test]
    fn digests_follow_content() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("a.txt");
        std::fs::write(&f, "one").unwrap();
        let one = digest(&f).unwrap();
        let dir_one = digest(d.path()).unwrap();
        std::fs::write(&f, "two").unwrap();
        assert_ne!(digest(&f).unwrap(), one);
        assert_ne!(digest(d.path()).unwrap(), dir_one);
        assert_eq!(one.len(), 16);
    }
}
