//! The CodeXGLUE clone-detection layout: `data.jsonl` (`{"idx", "func"}`) and `pairs.txt`
//! (`idx1<TAB>idx2<TAB>label`), label 1 for clones (original–variant, variant–variant of one
//! task) and 0 for seeded negatives (programs of two different tasks).

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use std::io::Write;
use std::path::Path;

/// One task's programs: its original first, then its variants.
pub struct Group<'a> {
    /// The programs, original first.
    pub programs: Vec<&'a str>,
}

/// One line of `data.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DataLine<'a> {
    /// The program's index, as a string (as in CodeXGLUE's files).
    pub idx: String,
    /// The program.
    pub func: &'a str,
}

/// A labelled pair of program indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pair {
    /// First program.
    pub a: usize,
    /// Second program.
    pub b: usize,
    /// 1 = clones, 0 = not.
    pub label: u8,
}

/// The dataset: programs numbered from 0 in group order, and pairs.
pub struct Dataset<'a> {
    /// Programs, numbered by position.
    pub data: Vec<DataLine<'a>>,
    /// Positive pairs, each followed by its negatives.
    pub pairs: Vec<Pair>,
}

/// Builds the dataset of `groups` (groups with no variant give no positive pair and are left
/// out): every positive pair, each followed by `negatives` pairs of one of its programs with a
/// random program of another task, drawn with `seed`.
pub fn build<'a>(groups: &[Group<'a>], negatives: usize, seed: u64) -> Dataset<'a> {
    let groups: Vec<&Group<'a>> = groups.iter().filter(|g| g.programs.len() > 1).collect();
    let mut data = Vec::new();
    let mut ranges = Vec::with_capacity(groups.len());
    for g in &groups {
        let first = data.len();
        for p in &g.programs {
            data.push(DataLine {
                idx: data.len().to_string(),
                func: p,
            });
        }
        ranges.push(first..data.len());
    }
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut pairs = Vec::new();
    for (gi, range) in ranges.iter().enumerate() {
        let others: Vec<usize> = (0..ranges.len()).filter(|&o| o != gi).collect();
        for a in range.clone() {
            for b in a + 1..range.end {
                pairs.push(Pair { a, b, label: 1 });
                for n in 0..negatives {
                    let Some(&o) = others.choose(&mut rng) else {
                        break;
                    };
                    let from = if n % 2 == 0 { a } else { b };
                    let to = rng.random_range(ranges[o].clone());
                    pairs.push(Pair {
                        a: from,
                        b: to,
                        label: 0,
                    });
                }
            }
        }
    }
    Dataset { data, pairs }
}

/// Writes `dir/data.jsonl` and `dir/pairs.txt` (each through a temporary file, so a reader
/// never sees half of one).
pub fn write(dir: &Path, d: &Dataset<'_>) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut data = Vec::new();
    for line in &d.data {
        serde_json::to_writer(&mut data, line)?;
        data.push(b'\n');
    }
    let mut pairs = Vec::new();
    for p in &d.pairs {
        writeln!(pairs, "{}\t{}\t{}", p.a, p.b, p.label)?;
    }
    for (name, bytes) in [("data.jsonl", data), ("pairs.txt", pairs)] {
        let tmp = dir.join(format!(".{name}.tmp"));
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, dir.join(name))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positives_stay_in_a_task_and_negatives_cross_tasks() {
        let groups = [
            Group {
                programs: vec!["a0", "a1", "a2"],
            },
            Group {
                programs: vec!["lonely"],
            },
            Group {
                programs: vec!["b0", "b1"],
            },
        ];
        let d = build(&groups, 2, 7);
        // "lonely" has no variant: left out.
        assert_eq!(d.data.len(), 5);
        let task = |i: usize| d.data[i].func.chars().next();
        let positives = d.pairs.iter().filter(|p| p.label == 1).count();
        assert_eq!(positives, 3 + 1);
        assert_eq!(d.pairs.len(), positives * 3);
        for p in &d.pairs {
            assert_eq!(task(p.a) == task(p.b), p.label == 1, "{p:?}");
        }
        assert_eq!(build(&groups, 2, 7).pairs, d.pairs, "seeded");
    }
}
