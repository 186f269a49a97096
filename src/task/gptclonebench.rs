//! GPTCloneBench's stand-alone clones as labelled clone pairs.
//!
//! The benchmark (Alam et al., ICSME 2023; Zenodo 10.5281/zenodo.10198952) ships one pair per
//! file, in an extracted folder or its zip:
//! - `true_semantic_clones/<lang>/prompt_{1,2}/{MT3,T4}/Clone_N.<ext>`: moderately Type-3
//!   (similarity above 50 % up to 75 %) and Type-4 (at most 50 %) clones;
//! - `false_semantic_clones/<lang>/Gpt_false_pair_N.<ext>`: pairs its validators found too
//!   similar to count as semantic clones (Type-1/2). They are still clones, not non-clones.
//!
//! A file holds the seed function first and the generated one second; like the benchmark's
//! own scripts, a Python file is split at its second top-level `def` (decorators above it go
//! with it). Halves that do not parse are skipped, Python 2 ones with their own reason; other
//! languages are counted and skipped. Non-clone pairs are drawn across files — the seed of
//! one file against the generated function of another whose seed differs — seeded, one per
//! clone pair.

use super::{LoadProblem, Location, TaskError};
use crate::detector::CloneType;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// One labelled pair.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClonePair {
    /// Where it comes from: the file's path inside the benchmark, `+ <file>` for non-clones.
    pub id: String,
    /// The first function.
    pub a: String,
    /// The second function.
    pub b: String,
    /// Whether the two are clones.
    pub clone: bool,
    /// The benchmark's clone type of a clone pair.
    pub clone_type: Option<CloneType>,
}

/// The pairs of one benchmark copy, and what was left out.
#[derive(Debug, Clone, Default)]
pub struct CloneBench {
    /// Clone pairs in path order, then the non-clone pairs.
    pub pairs: Vec<ClonePair>,
    /// Files left out, by reason.
    pub skipped: BTreeMap<String, usize>,
    /// Files that could not be read.
    pub problems: Vec<LoadProblem>,
}

impl CloneBench {
    fn skip(&mut self, reason: impl Into<String>) {
        *self.skipped.entry(reason.into()).or_default() += 1;
    }

    /// Clone pairs per clone type label, and the number of non-clone pairs.
    pub fn counts(&self) -> BTreeMap<String, usize> {
        let mut m = BTreeMap::new();
        for p in &self.pairs {
            let key = match (p.clone, p.clone_type) {
                (true, Some(t)) => t.label().to_string(),
                (true, None) => "clone".to_string(),
                (false, _) => "non-clone".to_string(),
            };
            *m.entry(key).or_default() += 1;
        }
        m
    }
}

/// Whether `path` looks like GPTCloneBench (a `.zip`, or a folder with its clone folders).
pub fn is_clone_bench(path: &Path) -> bool {
    if path.is_file() {
        return path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("zip"));
    }
    path.is_dir() && find_dirs(path, 3).next().is_some()
}

/// Folders named `true_semantic_clones` or `false_semantic_clones` up to `depth` levels down.
fn find_dirs(root: &Path, depth: usize) -> impl Iterator<Item = PathBuf> {
    let mut out = Vec::new();
    let mut frontier = vec![root.to_path_buf()];
    for _ in 0..=depth {
        let mut next = Vec::new();
        for dir in frontier {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in entries.flatten() {
                let p = e.path();
                if !p.is_dir() {
                    continue;
                }
                let name = e.file_name().to_string_lossy().to_lowercase();
                if name == "true_semantic_clones" || name == "false_semantic_clones" {
                    out.push(p);
                } else {
                    next.push(p);
                }
            }
        }
        frontier = next;
    }
    out.sort();
    out.into_iter()
}

/// What a path inside the benchmark says about its file.
#[derive(Debug, PartialEq)]
enum Kind {
    Clone(CloneType),
    /// A file that is not a pair file (README, folder entry…).
    Other,
}

/// Classifies a `/`-separated path inside the benchmark.
fn kind_of(path: &str) -> (Kind, Option<String>) {
    let parts: Vec<String> = path.split('/').map(|s| s.to_lowercase()).collect();
    let at = |name: &str| parts.iter().position(|p| p == name);
    if let Some(i) = at("true_semantic_clones") {
        let lang = parts.get(i + 1).cloned();
        let band = parts.get(i + 3).map(String::as_str);
        let kind = match band {
            Some("mt3") if parts.len() == i + 5 => Kind::Clone(CloneType::Type3),
            Some("t4") if parts.len() == i + 5 => Kind::Clone(CloneType::Type4),
            _ => Kind::Other,
        };
        return (kind, lang);
    }
    if let Some(i) = at("false_semantic_clones") {
        let lang = parts.get(i + 1).cloned();
        let kind = if parts.len() == i + 3 {
            Kind::Clone(CloneType::Type12)
        } else {
            Kind::Other
        };
        return (kind, lang);
    }
    (Kind::Other, None)
}

fn is_python(path: &str, lang: Option<&str>) -> bool {
    lang.is_some_and(|l| l == "python" || l == "py") || path.to_lowercase().ends_with(".py")
}

/// Splits a pair file at its second top-level `def`, decorators going with it.
pub fn split_pair(text: &str) -> Option<(String, String)> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let is_def = |l: &str| l.starts_with("def ") || l.starts_with("async def ");
    let second = lines
        .iter()
        .enumerate()
        .filter(|(_, l)| is_def(l))
        .nth(1)?
        .0;
    let mut start = second;
    while start > 0 && lines[start - 1].starts_with('@') {
        start -= 1;
    }
    let a: String = lines[..start].concat();
    let b: String = lines[start..].concat();
    let a = a.trim_end().to_string() + "\n";
    (!a.trim().is_empty()).then_some((a, b))
}

/// Marks of Python 2 in a program that does not parse (`except E, e:`, backticks…), beyond
/// the statements the grammar itself knows.
fn looks_like_python2(text: &str) -> bool {
    text.lines().any(|l| {
        let t = l.trim_start();
        (t.starts_with("print ") && !t.starts_with("print ("))
            || t.starts_with("print\"")
            || t.starts_with("print'")
            || (t.starts_with("except ") && t.contains(',') && !t.contains('('))
            || t.starts_with("exec \"")
            || t.contains("<>")
            || t.contains('`')
    })
}

/// Adds one pair file to `bench`.
fn add_file(bench: &mut CloneBench, files: &mut Vec<ClonePair>, path: &str, bytes: &[u8]) {
    let (kind, lang) = kind_of(path);
    let Kind::Clone(clone_type) = kind else {
        return;
    };
    if !is_python(path, lang.as_deref()) {
        bench.skip(format!(
            "{} file(s) (not read until that language is supported)",
            lang.unwrap_or_else(|| "other-language".into())
        ));
        return;
    }
    let Ok(text) = std::str::from_utf8(bytes) else {
        bench.skip("file(s) that are not UTF-8");
        return;
    };
    let text = text.replace("\r\n", "\n");
    let Some((a, b)) = split_pair(&text) else {
        bench.skip("file(s) without two top-level functions");
        return;
    };
    let parses = crate::program::validate(&a).is_ok() && crate::program::validate(&b).is_ok();
    let python2 = crate::program::uses_python2_syntax(&a)
        || crate::program::uses_python2_syntax(&b)
        || (!parses && looks_like_python2(&text));
    if python2 {
        bench.skip("Python 2 file(s)");
        return;
    }
    if !parses {
        bench.skip("file(s) that do not parse");
        return;
    }
    // The id starts at the benchmark's own folder, however the copy was unpacked.
    let parts: Vec<&str> = path.split('/').collect();
    let from = parts
        .iter()
        .position(|p| {
            let p = p.to_lowercase();
            p == "true_semantic_clones" || p == "false_semantic_clones"
        })
        .unwrap_or(0);
    files.push(ClonePair {
        id: parts[from..].join("/"),
        a,
        b,
        clone: true,
        clone_type: Some(clone_type),
    });
}

/// Loads GPTCloneBench's stand-alone Python pairs from a folder or its zip; `seed` draws the
/// non-clone pairs.
pub fn load(path: &Path, seed: u64) -> Result<CloneBench, TaskError> {
    let mut bench = CloneBench::default();
    let mut clones = Vec::new();
    if path.is_file() {
        let file = std::fs::File::open(path).map_err(|error| TaskError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        let mut archive = zip::ZipArchive::new(file).map_err(|e| TaskError::Layout {
            path: path.to_path_buf(),
            message: format!("not a readable zip: {e}"),
        })?;
        let mut names: Vec<(String, usize)> = (0..archive.len())
            .filter_map(|i| {
                let f = archive.by_index(i).ok()?;
                let name = f.name().ok()?.to_string();
                Some((name, i))
            })
            .collect();
        names.sort();
        for (name, i) in names {
            if name.ends_with('/') || kind_of(&name).0 == Kind::Other {
                continue;
            }
            let mut bytes = Vec::new();
            match archive.by_index(i).map(|mut f| f.read_to_end(&mut bytes)) {
                Ok(Ok(_)) => add_file(&mut bench, &mut clones, &name, &bytes),
                Ok(Err(e)) => problem(&mut bench, path, &name, e.to_string()),
                Err(e) => problem(&mut bench, path, &name, e.to_string()),
            }
        }
    } else {
        let dirs: Vec<PathBuf> = find_dirs(path, 3).collect();
        if dirs.is_empty() {
            return Err(TaskError::Layout {
                path: path.to_path_buf(),
                message: "not GPTCloneBench: no true_semantic_clones/ or false_semantic_clones/ \
                          folder here"
                    .into(),
            });
        }
        for dir in dirs {
            let base = dir.parent().unwrap_or(path);
            for file in walk(&dir) {
                let rel = file
                    .strip_prefix(base)
                    .unwrap_or(&file)
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                match std::fs::read(&file) {
                    Ok(bytes) => add_file(&mut bench, &mut clones, &rel, &bytes),
                    Err(e) => problem(&mut bench, &file, &rel, e.to_string()),
                }
            }
        }
    }
    if clones.is_empty() {
        return Err(TaskError::Layout {
            path: path.to_path_buf(),
            message: format!(
                "no usable Python clone pair in this GPTCloneBench copy (skipped: {:?})",
                bench.skipped
            ),
        });
    }
    let negatives = non_clones(&clones, seed);
    bench.pairs = clones;
    bench.pairs.extend(negatives);
    Ok(bench)
}

fn problem(bench: &mut CloneBench, file: &Path, name: &str, message: String) {
    bench.problems.push(LoadProblem {
        location: Location {
            file: file.to_path_buf(),
            line: None,
        },
        message: format!("{name}: {message}"),
    });
}

/// Every file under `dir`, sorted.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// One non-clone pair per clone pair: the seed of file i against the generated function of
/// another file whose seed is a different function.
fn non_clones(clones: &[ClonePair], seed: u64) -> Vec<ClonePair> {
    let n = clones.len();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let seeds: Vec<String> = clones.iter().map(|c| norm(&c.a)).collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(&mut rng);
    let mut out = Vec::new();
    for i in order {
        // A few tries at random; a benchmark where every file shares one seed has none.
        for _ in 0..32 {
            let j = rng.random_range(0..n);
            if j != i && seeds[j] != seeds[i] {
                out.push(ClonePair {
                    id: format!("{} + {}", clones[i].id, clones[j].id),
                    a: clones[i].a.clone(),
                    b: clones[j].b.clone(),
                    clone: false,
                    clone_type: None,
                });
                break;
            }
        }
    }
    out.sort_by(|x, y| x.id.cmp(&y.id));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_give_the_clone_type() {
        let t = |p| kind_of(p).0;
        assert_eq!(
            t("GPTCloneBench/standalone/true_semantic_clones/python/prompt_1/MT3/Clone_3.py"),
            Kind::Clone(CloneType::Type3)
        );
        assert_eq!(
            t("true_semantic_clones/python/prompt_2/T4/Clone_9.py"),
            Kind::Clone(CloneType::Type4)
        );
        assert_eq!(
            t("false_semantic_clones/python/Gpt_false_pair_1.py"),
            Kind::Clone(CloneType::Type12)
        );
        assert_eq!(t("true_semantic_clones/python/prompt_2/"), Kind::Other);
        assert_eq!(t("README.md"), Kind::Other);
    }

    #[test]
    fn a_pair_splits_at_the_second_top_level_def() {
        let text = "def f(a):\n    def inner():\n        return a\n    return inner()\n\n\n@cache\ndef g(a):\n    return a\n";
        let (a, b) = split_pair(text).unwrap();
        assert_eq!(
            a,
            "def f(a):\n    def inner():\n        return a\n    return inner()\n"
        );
        assert_eq!(b, "@cache\ndef g(a):\n    return a\n");
        assert!(split_pair("def only():\n    pass\n").is_none());
    }

    #[test]
    fn python2_marks() {
        assert!(looks_like_python2("def f():\n    print \"hi\"\n"));
        assert!(looks_like_python2(
            "try:\n    pass\nexcept ValueError, e:\n    pass\n"
        ));
        assert!(!looks_like_python2("def f():\n    print(\"hi\")\n"));
    }
}
