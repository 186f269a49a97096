//! The CodeXGLUE clone-detection layout: `data.jsonl` (`{"idx", "func"}`) and `pairs.txt`
//! (`idx1<TAB>idx2<TAB>label`), label 1 for clones (original–variant, variant–variant of one
//! task) and 0 for seeded negatives (programs of two different tasks).

use rand::seq::{IndexedRandom, SliceRandom};
use rand::{Rng, SeedableRng};
use serde::Serialize;
use std::path::Path;

/// One task's programs: its original first, then its variants.
pub struct Group<'a> {
    /// The problem the task solves (its id when it is the only task of its problem): groups of
    /// one problem are clones of each other, never negatives, and share a split.
    pub problem: &'a str,
    /// Their language: a negative pairs programs of one language (a Java program and a Python
    /// one are trivially told apart, which teaches a detector nothing).
    pub language: crate::program::Language,
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
    /// Which split it belongs to (index into [`SPLITS`]; 0 when not split).
    pub split: usize,
}

/// The split files, in order.
pub const SPLITS: [&str; 3] = ["train", "valid", "test"];

/// The dataset: programs numbered from 0 in group order, and pairs.
pub struct Dataset<'a> {
    /// Programs, numbered by position.
    pub data: Vec<DataLine<'a>>,
    /// Positive pairs, each followed by its negatives.
    pub pairs: Vec<Pair>,
    /// Whether the pairs are split into train / valid / test.
    pub split: bool,
}

/// Builds the dataset of `groups` (groups with no variant give no positive pair and are left
/// out): every positive pair, each followed by `negatives` pairs of one of its programs with a
/// random program of another task, drawn with `seed`. With `split` (train, valid, test
/// fractions), whole tasks are assigned to splits (seeded), and negatives are drawn within the
/// split, so no task's programs appear in two splits.
pub fn build<'a>(
    groups: &[Group<'a>],
    negatives: usize,
    seed: u64,
    split: Option<[f64; 3]>,
) -> Dataset<'a> {
    let groups: Vec<&Group<'a>> = groups.iter().filter(|g| g.programs.len() > 1).collect();
    // Splits are drawn per problem, so every solution of a problem lands in the same one.
    let mut problems: Vec<&str> = groups.iter().map(|g| g.problem).collect();
    problems.sort_unstable();
    problems.dedup();
    let problem_split = assign_splits(problems.len(), split, seed);
    let split_of: Vec<usize> = groups
        .iter()
        .map(|g| problem_split[problems.binary_search(&g.problem).unwrap_or(0)])
        .collect();
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
    // Unordered pairs already written: a negative drawn twice is drawn again (a few times).
    let mut taken = std::collections::HashSet::new();
    for (gi, range) in ranges.iter().enumerate() {
        let split = split_of[gi];
        let others: Vec<usize> = (0..ranges.len())
            .filter(|&o| {
                groups[o].problem != groups[gi].problem
                    && split_of[o] == split
                    && groups[o].language == groups[gi].language
            })
            .collect();
        for a in range.clone() {
            for b in a + 1..range.end {
                taken.insert((a, b));
                pairs.push(Pair {
                    a,
                    b,
                    label: 1,
                    split,
                });
                for n in 0..negatives {
                    let from = if n % 2 == 0 { a } else { b };
                    let fresh = (0..NEGATIVE_DRAWS).find_map(|_| {
                        let &o = others.choose(&mut rng)?;
                        let to = rng.random_range(ranges[o].clone());
                        taken.insert((from.min(to), from.max(to))).then_some(to)
                    });
                    if let Some(to) = fresh {
                        pairs.push(Pair {
                            a: from,
                            b: to,
                            label: 0,
                            split,
                        });
                    }
                }
            }
        }
    }
    Dataset {
        data,
        pairs,
        split: split.is_some(),
    }
}

/// Draws of a negative partner before giving up on one that is not yet paired.
const NEGATIVE_DRAWS: usize = 8;

impl Dataset<'_> {
    /// The splits (names) that have positive pairs but no negative one: a classifier trained
    /// or evaluated there would see one class only.
    pub fn splits_without_negatives(&self) -> Vec<&'static str> {
        let splits = if self.split { 3 } else { 1 };
        (0..splits)
            .filter(|&s| {
                let of = |label| self.pairs.iter().any(|p| p.split == s && p.label == label);
                of(1) && !of(0)
            })
            .map(|s| if self.split { SPLITS[s] } else { "pairs" })
            .collect()
    }
}

/// How many of `n` problems each split gets (train, valid, test).
pub fn split_sizes(n: usize, f: [f64; 3]) -> [usize; 3] {
    let total: f64 = f.iter().sum();
    let train = (((f[0] / total) * n as f64).round() as usize).min(n);
    let valid = (((f[1] / total) * n as f64).round() as usize).min(n - train);
    [train, valid, n - train - valid]
}

/// The split of each of `n` groups: a seeded shuffle, cut by the fractions (all 0 without).
fn assign_splits(n: usize, split: Option<[f64; 3]>, seed: u64) -> Vec<usize> {
    let Some(f) = split else {
        return vec![0; n];
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(
        seed ^ 0x5EED_5B11,
    ));
    let [train, valid, _] = split_sizes(n, f);
    let mut out = vec![2; n];
    for (rank, &g) in order.iter().enumerate() {
        if rank < train {
            out[g] = 0;
        } else if rank < train + valid {
            out[g] = 1;
        }
    }
    out
}

/// Parses `TRAIN,VALID,TEST`: fractions that add up to 1 (`0.8,0.1,0.1`) or whole-number
/// ratios (`8,1,1`).
pub fn parse_split(s: &str) -> Result<[f64; 3], String> {
    let parts: Vec<f64> = s
        .split(',')
        .map(|x| x.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("`{s}` is not TRAIN,VALID,TEST fractions (e.g. 0.8,0.1,0.1)"))?;
    match parts.as_slice() {
        [a, b, c] if [a, b, c].iter().all(|x| x.is_finite() && **x >= 0.0) && a + b + c > 0.0 => {
            let sum = a + b + c;
            let ratios = [a, b, c].iter().all(|x| x.fract() == 0.0);
            if (sum - 1.0).abs() > 1e-6 && !ratios {
                return Err(format!(
                    "`{s}`: fractions must add up to 1 (these add up to {sum}); or give \
                     whole-number ratios such as 8,1,1"
                ));
            }
            Ok([*a, *b, *c])
        }
        _ => Err(format!(
            "`{s}`: need three non-negative fractions, not all zero (e.g. 0.8,0.1,0.1)"
        )),
    }
}

/// Writes `dir/data.jsonl`, `dir/pairs.txt` and, when split, `train.txt`, `valid.txt` and
/// `test.txt` (each through a temporary file, so a reader
/// never sees half of one).
pub fn write(dir: &Path, d: &Dataset<'_>) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut data = Vec::new();
    for line in &d.data {
        serde_json::to_writer(&mut data, line)?;
        data.push(b'\n');
    }
    let line = |p: &Pair| format!("{}\t{}\t{}\n", p.a, p.b, p.label);
    let mut files = vec![
        ("data.jsonl".to_string(), data),
        (
            "pairs.txt".to_string(),
            d.pairs.iter().map(line).collect::<String>().into_bytes(),
        ),
    ];
    if d.split {
        for (i, name) in SPLITS.iter().enumerate() {
            let text: String = d.pairs.iter().filter(|p| p.split == i).map(line).collect();
            files.push((format!("{name}.txt"), text.into_bytes()));
        }
    }
    for (name, bytes) in files {
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
                language: crate::program::Language::Python,
                problem: "a",
                programs: vec!["a0", "a1", "a2"],
            },
            Group {
                language: crate::program::Language::Python,
                problem: "l",
                programs: vec!["lonely"],
            },
            Group {
                language: crate::program::Language::Python,
                problem: "b",
                programs: vec!["b0", "b1"],
            },
            // Another solution of problem b: a clone of b's programs, never a negative of them.
            Group {
                language: crate::program::Language::Python,
                problem: "b",
                programs: vec!["c0", "c1"],
            },
        ];
        let d = build(&groups, 2, 7, None);
        // "lonely" has no variant: left out.
        assert_eq!(d.data.len(), 7);
        let task = |i: usize| d.data[i].func.chars().next();
        let problem = |i: usize| task(i).map(|c| if c == 'c' { 'b' } else { c });
        let positives = d.pairs.iter().filter(|p| p.label == 1).count();
        assert_eq!(positives, 3 + 1 + 1);
        // Two negatives per positive, less the few that found no fresh partner in this tiny set.
        assert!(
            d.pairs.len() > positives * 2 && d.pairs.len() <= positives * 3,
            "{}",
            d.pairs.len()
        );
        for p in &d.pairs {
            if p.label == 1 {
                assert_eq!(task(p.a), task(p.b), "{p:?}");
            } else {
                assert_ne!(
                    problem(p.a),
                    problem(p.b),
                    "{p:?}: a negative of one problem"
                );
            }
        }
        assert_eq!(build(&groups, 2, 7, None).pairs, d.pairs, "seeded");
        let unique: std::collections::HashSet<(usize, usize)> = d
            .pairs
            .iter()
            .map(|p| (p.a.min(p.b), p.a.max(p.b)))
            .collect();
        assert_eq!(unique.len(), d.pairs.len(), "no pair twice");
        assert!(d.splits_without_negatives().is_empty());
    }

    #[test]
    fn splits_keep_every_task_and_its_negatives_in_one_split() {
        let texts: Vec<Vec<String>> = (0..20)
            .map(|g| (0..3).map(|v| format!("{g}-{v}")).collect())
            .collect();
        let groups: Vec<Group<'_>> = texts
            .iter()
            .map(|t| Group {
                language: crate::program::Language::Python,
                problem: t[0].split('-').next().unwrap_or_default(),
                programs: t.iter().map(String::as_str).collect(),
            })
            .collect();
        let d = build(&groups, 1, 3, Some([0.6, 0.2, 0.2]));
        let task = |i: usize| d.data[i].func.split('-').next().unwrap().to_string();
        let mut split_of_task = std::collections::HashMap::new();
        for p in &d.pairs {
            for i in [p.a, p.b] {
                let s = *split_of_task.entry(task(i)).or_insert(p.split);
                assert_eq!(s, p.split, "task {} in two splits", task(i));
            }
        }
        let count = |s| split_of_task.values().filter(|&&x| x == s).count();
        assert_eq!((count(0), count(1), count(2)), (12, 4, 4));
        assert!(parse_split("0.8,0.1").is_err());
        assert!(parse_split("0.8,-0.1,0.3").is_err());
        assert!(parse_split("0.8,0.8,0.8")
            .unwrap_err()
            .contains("add up to 1"));
        assert_eq!(parse_split("0.7,0.2,0.1"), Ok([0.7, 0.2, 0.1]));
        assert_eq!(parse_split("8,1,1"), Ok([8.0, 1.0, 1.0]));
    }
}
