//! Splitting a run into shards by task id, and merging shard directories back into one run.

use super::results::{self, ResultLine, ResultsError};
use super::summary::RunInfo;
use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// Shard `index` of `count` (users write `--shard I/N` with 1 ≤ I ≤ N).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, from 0 (users write it from 1: `--shard 1/3` is `index` 0).
    pub index: u64,
    /// How many shards.
    pub count: u64,
}

impl Shard {
    /// Whether the task `id` belongs to this shard: a stable split by a hash of the id, the
    /// same on every machine and for every task file order.
    pub fn owns(&self, id: &str) -> bool {
        let h = blake3::hash(id.as_bytes());
        let n = u64::from_le_bytes(h.as_bytes()[..8].try_into().unwrap_or([0; 8]));
        n % self.count == self.index
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| format!("`{s}` is not I/N (e.g. 1/4: the first of four shards)"))?;
        let (number, count): (u64, u64) = match (i.trim().parse(), n.trim().parse()) {
            (Ok(i), Ok(n)) => (i, n),
            _ => return Err(format!("`{s}` is not I/N with whole numbers")),
        };
        if count == 0 {
            return Err(format!("shard {number}/{count}: N must be at least 1"));
        }
        if number == 0 {
            return Err(format!(
                "shard 0/{count}: shards count from 1 (the first of {count} is 1/{count})"
            ));
        }
        if number > count {
            return Err(format!("shard {number}/{count}: I must lie in 1..=N"));
        }
        Ok(Shard {
            index: number - 1,
            count,
        })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.count)
    }
}

/// Why shard directories could not be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// A results file could not be read.
    #[error(transparent)]
    Results(#[from] ResultsError),
    /// A directory has no run.json, or an unreadable one.
    #[error("{0}")]
    Run(String),
    /// The directories are not shards of one run.
    #[error("not shards of one run: {0}")]
    Mismatch(String),
}

/// Checks that `shards` (each directory's recorded shard, `None` for a directory that is not
/// one) are every shard of one split exactly once. With `partial`, missing shards are allowed
/// (never duplicates or mixed splits).
pub fn check_complete(shards: &[(String, Option<Shard>)], partial: bool) -> Result<(), MergeError> {
    let mut count = None;
    let mut seen: HashMap<u64, &str> = HashMap::new();
    for (dir, shard) in shards {
        let Some(s) = shard else {
            if partial {
                continue;
            }
            return Err(MergeError::Mismatch(format!(
                "{dir} is not a shard (it was not run with --shard I/N)"
            )));
        };
        match count {
            None => count = Some(s.count),
            Some(n) if n != s.count => {
                return Err(MergeError::Mismatch(format!(
                    "{dir} is shard {s} of another split (the others are of {n})"
                )))
            }
            Some(_) => {}
        }
        if let Some(other) = seen.insert(s.index, dir) {
            return Err(MergeError::Mismatch(format!(
                "shard {s} is given twice: {other} and {dir}"
            )));
        }
    }
    if let Some(n) = count {
        let missing: Vec<String> = (0..n)
            .filter(|i| !seen.contains_key(i))
            .map(|i| Shard { index: i, count: n }.to_string())
            .collect();
        if !missing.is_empty() && !partial {
            return Err(MergeError::Mismatch(format!(
                "shard(s) {} missing: merge every shard, or pass --partial to merge what is there",
                missing.join(", ")
            )));
        }
    }
    Ok(())
}

/// Reads each shard directory's `run.json` and `results.jsonl` and returns the run (without
/// its shard) and every result, in the order of `order` (the task ids of the task file) where
/// given, else by id. Shards must share their configuration and may not share a task.
pub fn merge(
    dirs: &[&Path],
    order: Option<&[String]>,
) -> Result<(RunInfo, Vec<ResultLine>), MergeError> {
    let mut run: Option<RunInfo> = None;
    let mut lines: Vec<ResultLine> = Vec::new();
    let mut from: HashMap<String, String> = HashMap::new();
    // The merged run plans what its shards planned (unknown if one did not record it).
    let mut planned: Option<usize> = Some(0);
    for dir in dirs {
        let path = dir.join("run.json");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| MergeError::Run(format!("{}: {e}", path.display())))?;
        let mut this: RunInfo = serde_json::from_str(&text)
            .map_err(|e| MergeError::Run(format!("{}: {e}", path.display())))?;
        this.shard = None;
        planned = planned.zip(this.planned_tasks.take()).map(|(a, b)| a + b);
        match &run {
            None => run = Some(this),
            Some(r) if serde_json::to_value(r).ok() != serde_json::to_value(&this).ok() => {
                return Err(MergeError::Mismatch(format!(
                    "{} was run with another configuration (detector, threshold, transforms, seed…)",
                    dir.display()
                )))
            }
            Some(_) => {}
        }
        for l in results::read(&dir.join("results.jsonl"))? {
            if let Some(other) = from.insert(l.id.clone(), dir.display().to_string()) {
                return Err(MergeError::Mismatch(format!(
                    "task {} is in both {other} and {}",
                    l.id,
                    dir.display()
                )));
            }
            lines.push(l);
        }
    }
    let mut run = run.ok_or_else(|| MergeError::Run("no shard directory given".into()))?;
    run.planned_tasks = planned;
    let rank: HashMap<&str, usize> = order
        .unwrap_or(&[])
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    lines.sort_by(|a, b| {
        let (ra, rb) = (rank.get(a.id.as_str()), rank.get(b.id.as_str()));
        ra.cmp(&rb).then_with(|| a.id.cmp(&b.id))
    });
    Ok((run, lines))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_split_every_id_exactly_once() {
        assert_eq!("1/4".parse(), Ok(Shard { index: 0, count: 4 }));
        assert_eq!("4/4".parse(), Ok(Shard { index: 3, count: 4 }));
        assert_eq!(Shard { index: 0, count: 4 }.to_string(), "1/4");
        assert!("0/4"
            .parse::<Shard>()
            .unwrap_err()
            .contains("shards count from 1"));
        for bad in ["5/4", "1", "a/b", "0/0", "1/0"] {
            assert!(bad.parse::<Shard>().is_err(), "{bad}");
        }
        for id in ["HumanEval/0", "x", "sum-two"] {
            let owners = (0..3)
                .filter(|i| {
                    Shard {
                        index: *i,
                        count: 3,
                    }
                    .owns(id)
                })
                .count();
            assert_eq!(owners, 1, "{id}");
        }
    }
}
