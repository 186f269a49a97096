//! Sets of transforms: directories of components and scripts, single files, and names.

use super::error::LoadError;
use super::runtime::{LoadedTransform, TransformRuntime};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The default transform directory: `$EQUIMORPH_TRANSFORMS`, else the built-in transforms of
/// this binary's layout ([`crate::install::Layout::transforms_dir`]).
pub fn default_transforms_dir() -> PathBuf {
    std::env::var_os("EQUIMORPH_TRANSFORMS")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::install::layout().transforms_dir())
}

/// Loaded transforms with unique names, in name order.
#[derive(Clone, Debug, Default)]
pub struct TransformSet {
    transforms: Vec<LoadedTransform>,
}

impl TransformSet {
    /// Loads every `*.wasm` component and `*.py` script of `dir`; names must be unique.
    pub fn load_dir(runtime: &TransformRuntime, dir: &Path) -> Result<Self, LoadError> {
        Self::load_files(runtime, &transform_files(dir)?)
    }

    /// Loads a `--transforms` specification: comma-separated items, each a directory of
    /// transforms, a single `.wasm` or `.py` file, or the name of a transform in `default_dir`.
    /// Items may be mixed; names must be unique across all of them.
    pub fn load_spec(
        runtime: &TransformRuntime,
        spec: &str,
        default_dir: &Path,
    ) -> Result<Self, LoadError> {
        let items: Vec<&str> = spec
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect();
        if items.is_empty() {
            return Err(LoadError::Directory {
                path: PathBuf::from(spec),
                message: "names no transform".into(),
            });
        }
        let mut files = Vec::new();
        let mut names = Vec::new();
        for item in items {
            let path = Path::new(item);
            if path.is_dir() {
                files.extend(transform_files(path)?);
            } else if path.is_file() || item.ends_with(".py") || item.ends_with(".wasm") {
                files.push(path.to_path_buf());
            } else {
                names.push(item.to_string());
            }
        }
        let mut loaded = Self::load_files(runtime, &files)?.transforms;
        if !names.is_empty() {
            let defaults = Self::load_dir(runtime, default_dir)?;
            loaded.extend(defaults.select(&names)?);
            loaded.dedup_by(|a, b| a.name == b.name && a.file == b.file);
        }
        Self::from_transforms(loaded)
    }

    /// Loads the given component and script files; names must be unique.
    pub fn load_files(runtime: &TransformRuntime, files: &[PathBuf]) -> Result<Self, LoadError> {
        let loaded: Vec<LoadedTransform> = {
            use rayon::prelude::*;
            files
                .par_iter()
                .map(|f| runtime.load(f))
                .collect::<Result<_, _>>()?
        };
        Self::from_transforms(loaded)
    }

    /// A set from already loaded transforms; names must be unique.
    pub fn from_transforms(mut transforms: Vec<LoadedTransform>) -> Result<Self, LoadError> {
        let mut seen: HashMap<String, PathBuf> = HashMap::new();
        for t in &transforms {
            if let Some(first) = seen.insert(t.name.clone(), t.file.clone()) {
                return Err(LoadError::DuplicateName {
                    name: t.name.clone(),
                    first,
                    second: t.file.clone(),
                });
            }
        }
        transforms.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(TransformSet { transforms })
    }

    /// The transforms named in `names`, in that order (duplicates allowed: `a,a` applies twice).
    pub fn select(&self, names: &[String]) -> Result<Vec<LoadedTransform>, LoadError> {
        names.iter().map(|n| self.get(n).cloned()).collect()
    }

    /// The subset named in `names`, as a set.
    pub fn subset(&self, names: &[String]) -> Result<TransformSet, LoadError> {
        let mut picked = self.select(names)?;
        picked.dedup_by(|a, b| a.name == b.name);
        TransformSet::from_transforms(picked)
    }

    /// The transform called `name`.
    pub fn get(&self, name: &str) -> Result<&LoadedTransform, LoadError> {
        self.transforms
            .iter()
            .find(|t| t.name == name)
            .ok_or_else(|| LoadError::Unknown {
                name: name.to_string(),
                available: self.names().join(", "),
            })
    }

    /// All names, sorted.
    pub fn names(&self) -> Vec<String> {
        self.transforms.iter().map(|t| t.name.clone()).collect()
    }

    /// All transforms, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = &LoadedTransform> {
        self.transforms.iter()
    }

    /// Number of transforms.
    pub fn len(&self) -> usize {
        self.transforms.len()
    }

    /// A warning for each language of `tasks` that no transform of the set rewrites (a C task
    /// when the set holds only Python, Java and C++ transforms): such tasks run, but nothing
    /// is applied to them, so their distance stays 0. Empty when every language is covered.
    pub fn uncovered_languages<'t>(
        &self,
        tasks: impl IntoIterator<Item = &'t crate::task::Task>,
    ) -> Vec<String> {
        let mut counts: std::collections::BTreeMap<crate::language::Language, usize> =
            std::collections::BTreeMap::new();
        for t in tasks {
            if !self.transforms.iter().any(|x| x.rewrites(t.language)) {
                *counts.entry(t.language).or_default() += 1;
            }
        }
        counts
            .into_iter()
            .map(|(language, n)| {
                format!(
                    "warning: no transform of the set rewrites {} programs: {n} {} task(s) \
                     will have nothing applied (their distance stays 0)",
                    language.title(),
                    language.title()
                )
            })
            .collect()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.transforms.is_empty()
    }
}

/// The `*.wasm` and `*.py` files of `dir`, sorted.
fn transform_files(dir: &Path) -> Result<Vec<PathBuf>, LoadError> {
    let entries = std::fs::read_dir(dir).map_err(|e| LoadError::Directory {
        path: dir.to_path_buf(),
        message: format!("{e} (build the transforms with `make transforms`)"),
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "wasm" || x == "py"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(LoadError::Directory {
            path: dir.to_path_buf(),
            message: "holds no .wasm component or .py script (build the built-in ones with \
                      `make transforms`)"
                .into(),
        });
    }
    Ok(files)
}
