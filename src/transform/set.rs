//! Sets of transforms: a directory of components, selected by name.

use super::error::LoadError;
use super::runtime::{LoadedTransform, TransformRuntime};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The default transform directory: `$EQUIMORPH_TRANSFORMS`, else `build/transforms` next to
/// the equimorph sources this binary was built from.
pub fn default_transforms_dir() -> PathBuf {
    std::env::var_os("EQUIMORPH_TRANSFORMS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("build/transforms"))
}

/// Loaded transforms with unique names, in name order.
#[derive(Clone, Debug, Default)]
pub struct TransformSet {
    transforms: Vec<LoadedTransform>,
}

impl TransformSet {
    /// Loads every `*.wasm` component of `dir`; names must be unique.
    pub fn load_dir(runtime: &TransformRuntime, dir: &Path) -> Result<Self, LoadError> {
        let entries = std::fs::read_dir(dir).map_err(|e| LoadError::Directory {
            path: dir.to_path_buf(),
            message: format!("{e} (build the transforms with `make transforms`)"),
        })?;
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "wasm"))
            .collect();
        files.sort();
        if files.is_empty() {
            return Err(LoadError::Directory {
                path: dir.to_path_buf(),
                message: "holds no .wasm component (build them with `make transforms`)".into(),
            });
        }
        Self::load_files(runtime, &files)
    }

    /// Loads the given component files; names must be unique.
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

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.transforms.is_empty()
    }
}
