//! The sandbox every Python run goes through, and detection of the isolation actually in force.
//!
//! Preferred: bubblewrap with user, network, PID, IPC and UTS namespaces, a read-only view of
//! the file system with a private `/tmp`, a cleared environment, its own session, and (when
//! equimorph runs as root) the unprivileged user `nobody`, so that `RLIMIT_NPROC` bounds fork
//! bombs. Without bubblewrap (or where namespaces are refused) programs run as plain
//! subprocesses with rlimits and their own process group, and [`Isolation::warnings`] says so.

use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The uid/gid that sandboxed programs run as when equimorph is root.
pub const NOBODY: u32 = 65534;

/// How programs are launched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Launcher {
    /// bubblewrap; `drop_to` = run as this uid via `setpriv` first (when root).
    Bubblewrap {
        /// The bwrap binary.
        bwrap: PathBuf,
        /// setpriv binary and target uid, when dropping privileges.
        drop_to: Option<(PathBuf, u32)>,
        /// Size of the private `/tmp` (a tmpfs), bytes: a program that fills its temporary
        /// directory hits this bound, not the host's memory or disk.
        tmp_size: u64,
    },
    /// A plain subprocess (no namespaces).
    Plain,
}

/// The isolation in force, as detected by running a probe program at start-up.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Isolation {
    /// `bubblewrap` or `none`.
    pub launcher: String,
    /// The uid programs run as.
    pub uid: Option<u32>,
    /// A connection attempt from inside fails.
    pub network_isolated: bool,
    /// Writes outside the private temporary directory fail.
    pub filesystem_read_only: bool,
    /// Programs run in their own PID namespace (cannot see or signal equimorph).
    pub pid_namespace: bool,
    /// Resource limits applied to every run.
    pub rlimits: Vec<String>,
    /// What is missing, in words. Empty when fully isolated.
    pub warnings: Vec<String>,
}

/// Resource limits for every run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResourceLimits {
    /// Address space, bytes.
    pub address_space: u64,
    /// CPU seconds.
    pub cpu_seconds: u64,
    /// Largest file a program may write, bytes.
    pub file_size: u64,
    /// Processes of the sandbox user (bounds fork bombs when the user is unprivileged).
    pub processes: u64,
    /// Size of the private temporary directory, bytes (with bubblewrap; not an rlimit).
    pub tmp_size: u64,
}

impl Default for ResourceLimits {
    fn default() -> Self {
        ResourceLimits {
            address_space: 1 << 30,
            cpu_seconds: 30,
            file_size: 16 << 20,
            processes: 512,
            tmp_size: 256 << 20,
        }
    }
}

impl ResourceLimits {
    /// As `(name, value)` pairs for the fork server (names it understands).
    pub fn pairs(&self) -> Vec<(&'static str, u64)> {
        vec![
            ("as", self.address_space),
            ("cpu", self.cpu_seconds),
            ("fsize", self.file_size),
            ("core", 0),
            ("nproc", self.processes),
        ]
    }

    /// Human-readable list.
    pub fn describe(&self) -> Vec<String> {
        vec![
            format!("address space {} MiB", self.address_space >> 20),
            format!("cpu {} s", self.cpu_seconds),
            format!("file size {} MiB", self.file_size >> 20),
            "no core dumps".into(),
            format!("processes {}", self.processes),
            format!("temporary directory {} MiB", self.tmp_size >> 20),
        ]
    }

    /// Applies the limits to the calling process (used in `pre_exec`).
    ///
    /// # Safety
    /// Only async-signal-safe calls: meant for the child between fork and exec.
    pub unsafe fn apply(&self) -> std::io::Result<()> {
        let set = |res, v: u64| {
            let lim = libc::rlimit {
                rlim_cur: v as libc::rlim_t,
                rlim_max: v as libc::rlim_t,
            };
            // SAFETY: setrlimit is async-signal-safe and `lim` is a valid pointer.
            if unsafe { libc::setrlimit(res, &lim) } != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        };
        set(libc::RLIMIT_AS, self.address_space)?;
        set(libc::RLIMIT_CPU, self.cpu_seconds)?;
        set(libc::RLIMIT_FSIZE, self.file_size)?;
        set(libc::RLIMIT_CORE, 0)?;
        set(libc::RLIMIT_NPROC, self.processes)?;
        Ok(())
    }
}

fn find_in_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The default interpreter: `/usr/bin/python3` when present (readable by the sandbox user),
/// otherwise `python3` from `PATH`.
pub fn default_python() -> PathBuf {
    let system = Path::new("/usr/bin/python3");
    if system.is_file() {
        system.to_path_buf()
    } else {
        find_in_path("python3").unwrap_or_else(|| PathBuf::from("python3"))
    }
}

/// The working directory of a spawned program under bubblewrap (in the private `/tmp`).
pub const SPAWN_WORKDIR: &str = "/tmp/run";

/// A command that runs `program args…` in the sandbox. `bind` is a host directory holding the
/// program's files: under bubblewrap it is mounted read-only at the same path and the program
/// runs in a fresh directory of the size-bounded private `/tmp` (so what it writes never
/// reaches the host's disk); without bubblewrap it is the working directory.
pub fn command(
    launcher: &Launcher,
    program: &Path,
    args: &[&str],
    bind: Option<&Path>,
    env: &[(&str, &str)],
) -> Command {
    match launcher {
        Launcher::Plain => {
            let mut c = Command::new(program);
            c.args(args).env_clear();
            for (k, v) in env {
                c.env(k, v);
            }
            if let Some(dir) = bind {
                c.current_dir(dir);
            }
            c
        }
        Launcher::Bubblewrap {
            bwrap,
            drop_to,
            tmp_size,
        } => {
            let mut c = match drop_to {
                Some((setpriv, uid)) => {
                    let mut c = Command::new(setpriv);
                    c.args([
                        "--reuid",
                        &uid.to_string(),
                        "--regid",
                        &uid.to_string(),
                        "--clear-groups",
                        "--",
                    ]);
                    c.arg(bwrap);
                    c
                }
                None => Command::new(bwrap),
            };
            c.args([
                "--unshare-user",
                "--unshare-net",
                "--unshare-pid",
                "--unshare-ipc",
                "--unshare-uts",
                "--unshare-cgroup-try",
                "--die-with-parent",
                "--new-session",
                "--ro-bind",
                "/",
                "/",
                "--size",
                &tmp_size.to_string(),
                "--tmpfs",
                "/tmp",
                "--proc",
                "/proc",
                "--dev",
                "/dev",
                "--clearenv",
            ]);
            for (k, v) in env {
                c.args(["--setenv", k, v]);
            }
            if let Some(dir) = bind {
                c.arg("--ro-bind").arg(dir).arg(dir);
                c.args(["--dir", SPAWN_WORKDIR, "--chdir", SPAWN_WORKDIR]);
            } else {
                c.args(["--chdir", "/tmp"]);
            }
            c.arg("--").arg(program).args(args);
            c.env_clear();
            c
        }
    }
}

const PROBE: &str = r#"
import os, socket, json
r = {"uid": os.getuid(), "pid": os.getpid()}
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(0.5)
    s.connect(("192.0.2.1", 9))
    r["net"] = "connected"
except OSError as e:
    r["net"] = type(e).__name__ + ":" + str(e.errno)
home = os.path.expanduser("~") if os.environ.get("HOME") else "/root"
ok = []
for d in ("/", "/var/tmp", home, "/etc"):
    try:
        with open(os.path.join(d, ".equimorph-probe"), "w"):
            pass
        os.unlink(os.path.join(d, ".equimorph-probe"))
        ok.append(d)
    except OSError:
        pass
r["writable"] = ok
print(json.dumps(r))
"#;

/// Runs the probe under `launcher`; `None` when the launcher does not work here.
fn probe(launcher: &Launcher, python: &Path, limits: &ResourceLimits) -> Option<serde_json::Value> {
    let mut cmd = command(launcher, python, &["-I", "-c", PROBE], None, &[]);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let limits = *limits;
    // SAFETY: only setrlimit in the child.
    unsafe {
        use std::os::unix::process::CommandExt;
        cmd.pre_exec(move || limits.apply());
    }
    let out = cmd.output().ok()?;
    if !out.status.success() {
        tracing::debug!(
            "sandbox probe failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.lines().last()?).ok()
}

/// Picks the strongest launcher that works and reports the isolation it gives.
pub fn detect(python: &Path, limits: &ResourceLimits) -> (Launcher, Isolation) {
    let mut candidates = Vec::new();
    if let Some(bwrap) = find_in_path("bwrap") {
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        if root {
            if let Some(setpriv) = find_in_path("setpriv") {
                candidates.push(Launcher::Bubblewrap {
                    bwrap: bwrap.clone(),
                    drop_to: Some((setpriv, NOBODY)),
                    tmp_size: limits.tmp_size,
                });
            }
        }
        candidates.push(Launcher::Bubblewrap {
            bwrap,
            drop_to: None,
            tmp_size: limits.tmp_size,
        });
    }
    for launcher in candidates {
        if let Some(r) = probe(&launcher, python, limits) {
            let uid = r["uid"].as_u64().map(|u| u as u32);
            let network_isolated = r["net"].as_str().is_some_and(|s| s != "connected");
            let filesystem_read_only = r["writable"].as_array().is_some_and(|a| a.is_empty());
            let pid_namespace = r["pid"].as_u64().is_some_and(|p| p < 16);
            let mut warnings = Vec::new();
            if !network_isolated {
                warnings.push("programs can open network connections".into());
            }
            if !filesystem_read_only {
                warnings.push(format!(
                    "programs can write outside their temporary directory: {}",
                    r["writable"]
                ));
            }
            if !pid_namespace {
                warnings.push("programs share the PID namespace".into());
            }
            if matches!(launcher, Launcher::Bubblewrap { drop_to: None, .. })
                && unsafe { libc::geteuid() } == 0
            {
                warnings.push(
                    "programs run as root inside a user namespace: RLIMIT_NPROC does not apply, fork bombs are \
                     bounded only by the timeout (is the interpreter readable by 'nobody'?)"
                        .into(),
                );
            }
            let isolation = Isolation {
                launcher: "bubblewrap".into(),
                uid,
                network_isolated,
                filesystem_read_only,
                pid_namespace,
                rlimits: limits.describe(),
                warnings,
            };
            return (launcher, isolation);
        }
    }
    let isolation = Isolation {
        launcher: "none".into(),
        // SAFETY: getuid has no preconditions.
        uid: Some(unsafe { libc::getuid() }),
        network_isolated: false,
        filesystem_read_only: false,
        pid_namespace: false,
        rlimits: limits.describe(),
        warnings: vec![format!(
            "NO SANDBOX: bubblewrap is missing or namespaces are refused; programs run as plain \
             subprocesses with only rlimits and a process group (install bubblewrap: {})",
            crate::install::layout().system_install("bubblewrap")
        )],
    };
    (Launcher::Plain, isolation)
}
