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
    let ModelsCommand::List(args) = command;
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
        if p.join("equimorph.toml").is_file() && p.file_name().is_some_and(|n| n != "minilm") {
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
