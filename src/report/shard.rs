//! Splitting a run into shards by task id, and merging shard directories back into one run.

use super::results::{self, ResultLine, ResultsError};
use super::summary::RunInfo;
use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

/// Shard `index` of `count` (`--shard I/N`, 0 ≤ I < N).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// This shard, from 0.
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
            .ok_or_else(|| format!("`{s}` is not I/N (e.g. 0/4: the first of four shards)"))?;
        let (index, count): (u64, u64) = match (i.trim().parse(), n.trim().parse()) {
            (Ok(i), Ok(n)) => (i, n),
            _ => return Err(format!("`{s}` is not I/N with whole numbers")),
        };
        if count == 0 || index >= count {
            return Err(format!("shard {index}/{count}: I must lie in 0..N"));
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
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
    for dir in dirs {
        let path = dir.join("run.json");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| MergeError::Run(format!("{}: {e}", path.display())))?;
        let mut this: RunInfo = serde_json::from_str(&text)
            .map_err(|e| MergeError::Run(format!("{}: {e}", path.display())))?;
        this.shard = None;
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
    let run = run.ok_or_else(|| MergeError::Run("no shard directory given".into()))?;
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
        assert_eq!("1/4".parse(), Ok(Shard { index: 1, count: 4 }));
        for bad in ["4/4", "1", "a/b", "0/0"] {
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
