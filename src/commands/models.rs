//! `equimorph models`: the detectors available here.

use anyhow::Result;
use clap::{Args, Subcommand};
use equimorph::detector::model::{models_dir, runtime_library, ModelDir, ModelKind};
use serde::Serialize;
use std::path::Path;
use std::process::ExitCode;

/// `models` subcommands.
#[derive(Subcommand)]
pub enum ModelsCommand {
    /// The detectors available here: built-in specs and model directories, with kind, window
    /// and devices.
    List(ListArgs),
    /// What equimorph reads from a model directory exported by another tool (optimum,
    /// sentence-transformers' ONNX backend) that has no equimorph.toml, and the equimorph.toml
    /// that pins it (written into the directory).
    Inspect(InspectArgs),
}

/// Arguments of `models inspect`.
#[derive(Args)]
pub struct InspectArgs {
    /// The model directory.
    dir: std::path::PathBuf,
    /// Pool per-token states this way instead of what the directory says (mean, cls, max).
    #[arg(long, value_name = "MODE")]
    pooling: Option<String>,
    /// Only print (with an existing equimorph.toml, the result of merging with it); write
    /// nothing.
    #[arg(long)]
    dry_run: bool,
    /// Update an existing equimorph.toml: every key it sets is kept unless the inspection has
    /// a reason to change it (each change is printed with its reason).
    #[arg(long)]
    force: bool,
}

/// Runs `models inspect`.
fn inspect(args: InspectArgs) -> Result<ExitCode> {
    use anyhow::{bail, Context};
    use equimorph::detector::infer;
    let toml_path = args.dir.join("equimorph.toml");
    let existing = if toml_path.is_file() {
        if !args.force && !args.dry_run {
            bail!(
                "{} exists: this directory is already pinned (--force updates it, keeping every \
                 key it sets unless the inspection has a reason to change it; --dry-run shows \
                 the result)",
                toml_path.display()
            );
        }
        Some(
            std::fs::read_to_string(&toml_path)
                .with_context(|| format!("cannot read {}", toml_path.display()))?,
        )
    } else {
        None
    };
    // The graph the file names, when it names one that is there.
    let named_graph = existing
        .as_deref()
        .and_then(|t| toml::from_str::<toml::Table>(t).ok())
        .and_then(|t| t.get("model").and_then(|m| m.as_str()).map(String::from))
        .filter(|m| args.dir.join(m).is_file());
    let found = infer::infer_graph(&args.dir, args.pooling.as_deref(), named_graph.as_deref())?;
    println!("{}: inferred", args.dir.display());
    for n in &found.notes {
        println!("  {n}");
    }
    let Some(existing) = existing else {
        let text = format!(
            "# Written by `equimorph models inspect`: what equimorph inferred from this directory.\n{}",
            found.config.to_toml()
        );
        println!("\n{text}");
        if !args.dry_run {
            std::fs::write(&toml_path, &text)
                .with_context(|| format!("cannot write {}", toml_path.display()))?;
            println!("wrote {}", toml_path.display());
        }
        return Ok(ExitCode::SUCCESS);
    };
    let merged = infer::merge(
        &args.dir,
        &toml_path,
        &existing,
        &found,
        args.pooling.as_deref(),
    )?;
    println!("\nmerged with {}:", toml_path.display());
    for k in &merged.kept {
        println!(
            "  kept {} = {} (the inspection alone would {})",
            k.key,
            k.value,
            k.inferred
                .as_ref()
                .map_or("not set it".to_string(), |v| format!("say {v}"))
        );
    }
    for c in &merged.changes {
        println!(
            "  changed {}: {} -> {} ({})",
            c.key,
            c.before.as_deref().unwrap_or("(not set)"),
            c.after.as_deref().unwrap_or("(removed)"),
            c.reason
        );
    }
    if merged.changes.is_empty() {
        println!(
            "  nothing to change: every key the file sets still holds{}",
            if args.dry_run {
                ""
            } else {
                "; the file is left as it is"
            }
        );
        if args.dry_run {
            println!("\n{existing}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    let text = format!(
        "# Updated by `equimorph models inspect --force`: the earlier equimorph.toml's keys, with \
         the changes it printed.\n{}",
        merged.config.to_toml()
    );
    println!("\n{text}");
    if !args.dry_run {
        std::fs::write(&toml_path, &text)
            .with_context(|| format!("cannot write {}", toml_path.display()))?;
        println!("wrote {}", toml_path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Arguments of `models list`.
#[derive(Args)]
pub struct ListArgs {
    /// One JSON object per detector instead of a table.
    #[arg(long)]
    json: bool,
}

/// One detector a run can name with `--detector`.
#[derive(Serialize)]
struct Entry {
    /// What to pass to `--detector`.
    spec: String,
    /// embedding, cross-encoder, siamese or classic.
    kind: String,
    /// Tokens the model sees (none for the classic measures).
    window: Option<usize>,
    /// cpu, and cuda where the installed runtime has the CUDA provider.
    devices: Vec<&'static str>,
    /// Whether it has a fused fp16 graph (`gpu_model`), what `--device cuda` runs by default.
    gpu_graph: bool,
    /// Whether it can be used now (the model directory is complete).
    available: bool,
    /// Where it lives, or why it cannot be used.
    note: String,
}

/// The entry of an ONNX model directory (or `.toml` in one) named by `spec`.
fn onnx_entry(spec: &str, path: &Path, cuda: bool) -> Entry {
    let devices = if cuda {
        vec!["cpu", "cuda"]
    } else {
        vec!["cpu"]
    };
    match ModelDir::open(path) {
        Ok(m) => {
            let complete =
                m.file(&m.config.model).is_file() && m.file(&m.config.tokenizer).is_file();
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
        Err(e) => Entry {
            spec: spec.into(),
            kind: "onnx".into(),
            window: None,
            devices,
            gpu_graph: false,
            available: false,
            note: format!("{e} (the default models are installed by `make setup`)"),
        },
    }
}

/// Runs `models`.
pub fn run(command: ModelsCommand) -> Result<ExitCode> {
    let args = match command {
        ModelsCommand::List(args) => args,
        ModelsCommand::Inspect(args) => return inspect(args),
    };
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
    // Other model directories under the models directory (test models, exported ones).
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
    if args.json {
        for e in &entries {
            println!("{}", serde_json::to_string(e)?);
        }
    } else {
        let w = entries
            .iter()
            .map(|e| e.spec.len())
            .max()
            .unwrap_or(4)
            .max(4);
        println!(
            "{:<w$}  {:<13} {:>6}  {:<9} NOTE",
            "SPEC", "KIND", "WINDOW", "DEVICES"
        );
        for e in &entries {
            let window = e.window.map_or("-".into(), |w| w.to_string());
            let note = if e.available {
                e.note.clone()
            } else {
                format!("NOT AVAILABLE: {}", e.note)
            };
            println!(
                "{:<w$}  {:<13} {:>6}  {:<9} {note}",
                e.spec,
                e.kind,
                window,
                e.devices.join(",")
            );
        }
        println!(
            "models directory: {} (EQUIMORPH_HOME); ONNX Runtime: {} (ORT_DYLIB_PATH)",
            dir.display(),
            runtime_library().display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
