//! `equimorph models`: the detectors available here (`list`), and pinning an exported model
//! directory with an `equimorph.toml` (`inspect`).

use super::Printout;
use crate::detector::infer;
use crate::detector::model::{models_dir, runtime_library, ModelDir, ModelKind};
use crate::detector::DetectorError;
use serde::Serialize;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why `models inspect` wrote nothing.
#[derive(Debug, Error)]
pub enum InspectError {
    /// The directory is already pinned and neither `--force` nor `--dry-run` was given.
    #[error(
        "{0} exists: this directory is already pinned (--force updates it, keeping every key it \
         sets unless the inspection has a reason to change it; --dry-run shows the result)"
    )]
    Pinned(PathBuf),
    /// The existing file could not be read, or the new one written.
    #[error("cannot {verb} {path}: {source}")]
    Io {
        /// read or write.
        verb: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The directory could not be inspected.
    #[error(transparent)]
    Detector(#[from] DetectorError),
}

/// What `models inspect` is asked to do.
#[derive(Debug, Clone)]
pub struct Inspect {
    /// The model directory.
    pub dir: PathBuf,
    /// Pooling to use instead of what the directory says.
    pub pooling: Option<String>,
    /// Only say what would be written.
    pub dry_run: bool,
    /// Update an existing equimorph.toml.
    pub force: bool,
}

impl Inspect {
    /// Inspects the directory, writes (unless a dry run) the equimorph.toml that pins it, and
    /// returns what to tell the user: what was inferred, and with an existing file, what was
    /// kept and what changed and why.
    pub fn run(&self) -> Result<Printout, InspectError> {
        let toml_path = self.dir.join("equimorph.toml");
        let existing = if toml_path.is_file() {
            if !self.force && !self.dry_run {
                return Err(InspectError::Pinned(toml_path));
            }
            Some(
                std::fs::read_to_string(&toml_path).map_err(|source| InspectError::Io {
                    verb: "read",
                    path: toml_path.clone(),
                    source,
                })?,
            )
        } else {
            None
        };
        // The graph the file names, when it names one that is there.
        let named_graph = existing
            .as_deref()
            .and_then(|t| toml::from_str::<toml::Table>(t).ok())
            .and_then(|t| t.get("model").and_then(|m| m.as_str()).map(String::from))
            .filter(|m| self.dir.join(m).is_file());
        let found = infer::infer_graph(&self.dir, self.pooling.as_deref(), named_graph.as_deref())?;
        let mut p = Printout::new();
        p.out(format!("{}: inferred", self.dir.display()));
        for n in &found.notes {
            p.out(format!("  {n}"));
        }
        let Some(existing) = existing else {
            let text = format!(
                "# Written by `equimorph models inspect`: what equimorph inferred from this directory.\n{}",
                found.config.to_toml()
            );
            return self.write(p, &toml_path, text);
        };
        let merged = infer::merge(
            &self.dir,
            &toml_path,
            &existing,
            &found,
            self.pooling.as_deref(),
        )?;
        p.out(format!("\nmerged with {}:", toml_path.display()));
        for k in &merged.kept {
            p.out(format!(
                "  kept {} = {} (the inspection alone would {})",
                k.key,
                k.value,
                k.inferred
                    .as_ref()
                    .map_or("not set it".to_string(), |v| format!("say {v}"))
            ));
        }
        for c in &merged.changes {
            p.out(format!(
                "  changed {}: {} -> {} ({})",
                c.key,
                c.before.as_deref().unwrap_or("(not set)"),
                c.after.as_deref().unwrap_or("(removed)"),
                c.reason
            ));
        }
        if merged.changes.is_empty() {
            let left = if self.dry_run {
                ""
            } else {
                "; the file is left as it is"
            };
            p.out(format!(
                "  nothing to change: every key the file sets still holds{left}"
            ));
            if self.dry_run {
                p.out(format!("\n{existing}"));
            }
            return Ok(p);
        }
        let text = format!(
            "# Updated by `equimorph models inspect --force`: the earlier equimorph.toml's keys, \
             with the changes it printed.\n{}",
            merged.config.to_toml()
        );
        self.write(p, &toml_path, text)
    }

    /// Shows `text` and, unless a dry run, writes it to `path`.
    fn write(&self, mut p: Printout, path: &Path, text: String) -> Result<Printout, InspectError> {
        p.out(format!("\n{text}"));
        if !self.dry_run {
            std::fs::write(path, &text).map_err(|source| InspectError::Io {
                verb: "write",
                path: path.to_path_buf(),
                source,
            })?;
            p.out(format!("wrote {}", path.display()));
        }
        Ok(p)
    }
}

/// One detector a run can name with `--detector`.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// What to pass to `--detector`.
    pub spec: String,
    /// embedding, cross-encoder, siamese or classic.
    pub kind: String,
    /// Tokens the model sees (none for the classic measures).
    pub window: Option<usize>,
    /// cpu, and cuda where the installed runtime has the CUDA provider.
    pub devices: Vec<&'static str>,
    /// Whether it has a fused fp16 graph (`gpu_model`), what `--device cuda` runs by default.
    pub gpu_graph: bool,
    /// Whether it can be used now (the model directory is complete).
    pub available: bool,
    /// Where it lives, or why it cannot be used.
    pub note: String,
}

/// The entry of an ONNX model directory (or `.toml` in one) named by `spec`.
fn onnx_entry(spec: &str, path: &Path, cuda: bool) -> Entry {
    let devices = if cuda {
        vec!["cpu", "cuda"]
    } else {
        vec!["cpu"]
    };
    let m = match ModelDir::open(path) {
        Ok(m) => m,
        Err(e) => {
            return Entry {
                spec: spec.into(),
                kind: "onnx".into(),
                window: None,
                devices,
                gpu_graph: false,
                available: false,
                note: format!(
                    "{e} (the default models are installed by `{}`)",
                    crate::install::layout().setup_command()
                ),
            }
        }
    };
    let complete = m.file(&m.config.model).is_file() && m.file(&m.config.tokenizer).is_file();
    let gpu_graph = m
        .config
        .gpu_model
        .as_ref()
        .is_some_and(|g| m.file(g).is_file());
    Entry {
        spec: spec.into(),
        kind: match m.config.kind {
            ModelKind::Embedding => "embedding",
            ModelKind::CrossEncoder => "cross-encoder",
            ModelKind::Siamese => "siamese",
        }
        .into(),
        window: Some(m.config.max_length),
        devices,
        gpu_graph,
        available: complete,
        note: match (complete, gpu_graph) {
            _ if m.inferred.is_some() && complete => format!(
                "{} (no equimorph.toml: read as an export; `models inspect` pins it)",
                m.dir.display()
            ),
            (true, true) => format!("{} (+ fused fp16 GPU graph)", m.config_file.display()),
            (true, false) => m.config_file.display().to_string(),
            (false, _) => format!("{}: model or tokenizer file missing", m.dir.display()),
        },
    }
}

/// Every detector a run can name here: the built-in models, the classic measures, and the
/// model directories (pinned or exports) under the models directory.
pub fn detectors() -> Vec<Entry> {
    // The GPU wheel's runtime carries the CUDA provider next to the library.
    let cuda = runtime_library()
        .parent()
        .is_some_and(|d| d.join("libonnxruntime_providers_cuda.so").is_file());
    let dir = models_dir();
    let mut entries = vec![
        onnx_entry("minilm", &dir.join("minilm"), cuda),
        onnx_entry("minilm-int8", &dir.join("minilm/equimorph-int8.toml"), cuda),
    ];
    for (spec, what) in [
        ("jaccard", "token-multiset Jaccard"),
        ("sourcerercc", "SourcererCC-style token overlap"),
        ("nicad", "NiCad-style line similarity, with clone types"),
    ] {
        entries.push(Entry {
            spec: spec.into(),
            kind: "classic".into(),
            window: None,
            devices: vec!["cpu"],
            gpu_graph: false,
            available: true,
            note: what.into(),
        });
    }
    let mut found: Vec<_> = std::fs::read_dir(&dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    found.sort();
    for p in found {
        // Pinned directories, and exports (optimum, sentence-transformers) read without one.
        let export = p.join("model.onnx").is_file() || p.join("onnx/model.onnx").is_file();
        if (p.join("equimorph.toml").is_file() || export)
            && p.file_name().is_some_and(|n| n != "minilm")
        {
            entries.push(onnx_entry(&format!("onnx:{}", p.display()), &p, cuda));
        }
    }
    entries
}

/// The detectors as one JSON object per line, or as a table with where models and the
/// runtime live.
pub fn detectors_printout(entries: &[Entry], json: bool) -> Printout {
    let mut p = Printout::new();
    if json {
        for e in entries {
            p.out(serde_json::to_string(e).unwrap_or_default());
        }
        return p;
    }
    let w = entries
        .iter()
        .map(|e| e.spec.len())
        .max()
        .unwrap_or(4)
        .max(4);
    p.out(format!(
        "{:<w$}  {:<13} {:>6}  {:<9} NOTE",
        "SPEC", "KIND", "WINDOW", "DEVICES"
    ));
    for e in entries {
        let window = e.window.map_or("-".into(), |w| w.to_string());
        let note = if e.available {
            e.note.clone()
        } else {
            format!("NOT AVAILABLE: {}", e.note)
        };
        p.out(format!(
            "{:<w$}  {:<13} {:>6}  {:<9} {note}",
            e.spec,
            e.kind,
            window,
            e.devices.join(",")
        ));
    }
    p.out(format!(
        "models directory: {} (EQUIMORPH_HOME); ONNX Runtime: {} (ORT_DYLIB_PATH)",
        models_dir().display(),
        runtime_library().display()
    ));
    p
}
