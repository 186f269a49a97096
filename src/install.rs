//! Where equimorph's own files are. Two layouts:
//!
//! - **installed** (`pip install equimorph`): the binary in `PREFIX/bin`, the built transforms,
//!   the script runner and the model exporter in `PREFIX/share/equimorph`, models and ONNX
//!   Runtime in the user's cache (`~/.cache/equimorph`, put there by `equimorph setup`);
//! - **source** (`make`): everything under the source tree this binary was built from
//!   (`build/`, `models/`, `.equimorph/`).
//!
//! An installed binary uses its own files even where the source tree still exists, so a wheel
//! behaves the same on the machine that built it as anywhere else.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Where this binary's files are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// An installed binary: its data directory (`PREFIX/share/equimorph`).
    Installed {
        /// `PREFIX/share/equimorph`.
        share: PathBuf,
    },
    /// A binary built from a source tree.
    Source {
        /// The source tree's root.
        root: PathBuf,
    },
}

/// The data directory of a binary at `exe`, when it is installed (`exe`'s `../share/equimorph`
/// holds `transforms/`).
pub fn installed_share(exe: &Path) -> Option<PathBuf> {
    let share = exe.parent()?.parent()?.join("share/equimorph");
    share.join("transforms").is_dir().then_some(share)
}

/// This binary's layout (found once).
pub fn layout() -> &'static Layout {
    static LAYOUT: OnceLock<Layout> = OnceLock::new();
    LAYOUT.get_or_init(|| {
        std::env::current_exe()
            .ok()
            .and_then(|exe| installed_share(&exe))
            .map(|share| Layout::Installed { share })
            .unwrap_or_else(|| Layout::Source {
                root: PathBuf::from(env!("CARGO_MANIFEST_DIR")),
            })
    })
}

impl Layout {
    /// `installed` under the share directory, or `source` under the source tree.
    fn file(&self, installed: &str, source: &str) -> PathBuf {
        match self {
            Layout::Installed { share } => share.join(installed),
            Layout::Source { root } => root.join(source),
        }
    }

    /// The built-in transforms (`.wasm` components and their `.md` pages).
    pub fn transforms_dir(&self) -> PathBuf {
        self.file("transforms", "build/transforms")
    }

    /// The script-runner component (Python scripts run inside it).
    pub fn script_runner(&self) -> PathBuf {
        self.file(
            "script-runner/runner.wasm",
            "build/script-runner/runner.wasm",
        )
    }

    /// PyTorch's fine-tuning steps (`models/train_torch.py`, `train --backend torch`).
    pub fn torch_train_script(&self) -> PathBuf {
        self.file("models/train_torch.py", "models/train_torch.py")
    }

    /// The exporter of models to ONNX (`models/export.py`).
    pub fn export_script(&self) -> PathBuf {
        self.file("models/export.py", "models/export.py")
    }

    /// The default data directory (models, ONNX Runtime, virtualenvs) when `EQUIMORPH_HOME`
    /// is not set: the user's cache when installed, `.equimorph` in a source tree.
    pub fn default_home(&self) -> PathBuf {
        match self {
            // No home at all: beside the working directory rather than nowhere.
            Layout::Installed { .. } => {
                user_cache_dir().unwrap_or_else(|| PathBuf::from(".equimorph-cache"))
            }
            Layout::Source { root } => root.join(".equimorph"),
        }
    }

    /// The command that installs models and runtimes in this layout, for error messages.
    pub fn setup_command(&self) -> &'static str {
        match self {
            Layout::Installed { .. } => "equimorph setup",
            Layout::Source { .. } => "make setup",
        }
    }

    /// How to install a system package this layout cannot bring (bubblewrap, a JDK).
    pub fn system_install(&self, package: &str) -> String {
        match self {
            Layout::Installed { .. } => format!("sudo apt-get install {package} (Debian, Ubuntu)"),
            Layout::Source { .. } => format!("make setup (it installs {package})"),
        }
    }
}

/// equimorph's data directory (models, ONNX Runtime, virtualenvs): `$EQUIMORPH_HOME`, else
/// [`Layout::default_home`].
pub fn home() -> PathBuf {
    std::env::var_os("EQUIMORPH_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| layout().default_home())
}

/// The Python that has equimorph's Python packages (the model exporter's onnx and numpy,
/// PyTorch for training, CrossHair): `$EQUIMORPH_PYTHON` when set (e.g. an environment with
/// a CUDA build of torch), else the virtualenv's interpreter beside an installed binary, else
/// `python3`; in a source tree, the virtualenv `make setup` made in [`home`].
pub fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("EQUIMORPH_PYTHON").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    match layout() {
        Layout::Installed { share } => share
            .parent()
            .and_then(Path::parent)
            .map(|prefix| prefix.join("bin/python3"))
            .filter(|p| p.is_file())
            .unwrap_or_else(|| PathBuf::from("python3")),
        Layout::Source { .. } => home().join("venv/bin/python"),
    }
}

/// equimorph's user cache (compiled components, LLM replies, and an installed binary's
/// models): `$EQUIMORPH_CACHE`, else `$XDG_CACHE_HOME/equimorph`, else `~/.cache/equimorph`;
/// `None` without any of them.
pub fn user_cache_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|d| !d.is_empty())
            .map(PathBuf::from)
    };
    var("EQUIMORPH_CACHE")
        .or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("equimorph")))
        .or_else(|| var("HOME").map(|h| h.join(".cache/equimorph")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_installed_binary_is_known_by_its_share_directory() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("bin/equimorph");
        assert_eq!(installed_share(&exe), None);
        std::fs::create_dir_all(dir.path().join("share/equimorph/transforms")).unwrap();
        let share = installed_share(&exe).expect("installed");
        let layout = Layout::Installed { share };
        assert_eq!(
            layout.transforms_dir(),
            dir.path().join("share/equimorph/transforms")
        );
        assert!(layout
            .script_runner()
            .ends_with("share/equimorph/script-runner/runner.wasm"));
        assert_eq!(layout.setup_command(), "equimorph setup");
    }

    #[test]
    fn this_test_binary_reads_the_source_tree() {
        let Layout::Source { root } = layout() else {
            panic!("a test binary is not installed");
        };
        assert!(root.join("Cargo.toml").is_file());
        assert!(layout().transforms_dir().ends_with("build/transforms"));
    }
}
