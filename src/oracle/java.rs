//! Running Java programs: a pool of warm JVMs ([`JavaPool`]), each a `JavaWorker` (the Java
//! counterpart of the Python fork server) inside the same sandbox as Python runs.
//!
//! Why warm workers: a cold `java` costs ~0.3 s and `javac` ~0.6 s on these machines, which
//! would cap a 2-core machine at a few test runs per second. A worker compiles each program once
//! in memory with the JDK's compiler (kept by source text) and runs every test in a fresh class
//! loader, so a small program's test costs a few milliseconds. A worker whose run timed out,
//! overran the output cap or left a thread running ends itself after answering and is replaced.
//!
//! Limits differ from Python runs in one respect: a JVM reserves far more address space than it
//! uses, so `RLIMIT_AS` is not applied; the heap is bounded by `-Xmx` (the address-space limit's
//! value) instead. CPU time is bounded per run by the wall-time limit (the worker is killed and
//! replaced when a run overruns), file size and core dumps by rlimits as for Python, and
//! processes too, with more headroom: `RLIMIT_NPROC` counts threads of the sandbox user across
//! every sandbox, and a JVM needs about fifteen of its own (so at least 4096 for Java workers,
//! whose JVMs are started with as few threads as they allow).

use super::runner::{read_exact_until, ExitClass, RunResult, Semaphore};
use super::sandbox::{command, Launcher, ResourceLimits};
use crate::program::ProgramHash;
use std::collections::VecDeque;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const WORKER_SOURCE: &str = include_str!("JavaWorker.java");
/// Programs a worker remembers having compiled (its own cache holds 64).
const REMEMBERED: usize = 48;
/// The process (thread) limit of a Java worker's user, at least.
const JVM_PROCESSES: u64 = 4096;

/// A Java worker's heap (`-Xmx`) in MiB: the address-space limit's value (at least 64 MiB),
/// since a JVM reserves far more address space than it uses.
fn heap_mib(limits: &ResourceLimits) -> u64 {
    (limits.address_space >> 20).max(64)
}

/// A Java worker's process (thread) limit: the configured one, with headroom for the JVM's
/// own threads.
fn process_limit(limits: &ResourceLimits) -> u64 {
    limits.processes.max(JVM_PROCESSES)
}

/// The limits a Java program runs under, in words (what [`ResourceLimits::describe`] is for
/// Python runs): the heap instead of an address-space limit, each run's wall-time limit
/// instead of a CPU rlimit (the worker is replaced when a run overruns), and the process
/// limit with the JVM's headroom.
pub fn describe_limits(limits: &ResourceLimits) -> Vec<String> {
    vec![
        format!(
            "heap (-Xmx) {} MiB, no address-space limit",
            heap_mib(limits)
        ),
        "cpu: each run's wall-time limit (no cpu rlimit)".into(),
        format!("file size {} MiB", limits.file_size >> 20),
        "no core dumps".into(),
        format!("processes (threads) {}", process_limit(limits)),
        format!("temporary directory {} MiB", limits.tmp_size >> 20),
    ]
}

/// The `java` launcher: `/usr/bin/java` when present, otherwise `java` from `PATH`.
pub fn default_java() -> PathBuf {
    let system = Path::new("/usr/bin/java");
    if system.is_file() {
        return system.to_path_buf();
    }
    std::env::var_os("PATH")
        .and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("java"))
                .find(|p| p.is_file())
        })
        .unwrap_or_else(|| PathBuf::from("java"))
}

/// Whether `java` can be started at all (a cheap check before the first Java task).
pub fn java_available(java: &Path) -> bool {
    java.is_file()
        || std::process::Command::new(java)
            .arg("-version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
}

/// Settings of the Java workers.
#[derive(Debug, Clone)]
pub struct JavaSettings {
    /// How workers are launched (the oracle's sandbox).
    pub launcher: Launcher,
    /// The `java` launcher.
    pub java: PathBuf,
    /// rlimits (address space becomes `-Xmx`).
    pub limits: ResourceLimits,
    /// Bytes of stdout+stderr after which a run ends.
    pub output_cap: usize,
}

struct Worker {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    compiled: VecDeque<ProgramHash>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        // SAFETY: plain syscalls on a process group we created.
        unsafe {
            libc::killpg(self.child.id() as i32, libc::SIGKILL);
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Worker {
    fn start(settings: &JavaSettings, dir: &Path) -> std::io::Result<Worker> {
        let source = dir.join("JavaWorker.java");
        let heap = format!("-Xmx{}m", heap_mib(&settings.limits));
        let source_arg = source.display().to_string();
        // Inside bubblewrap the worker has a pid namespace of its own: every other process it
        // sees there was started by a program, and retiring the worker ends them all.
        let pid_namespace = format!(
            "-Dequimorph.pidns={}",
            matches!(settings.launcher, Launcher::Bubblewrap { .. })
        );
        let args = [
            pid_namespace.as_str(),
            "-XX:+UseSerialGC",
            "-XX:-UsePerfData",
            "-XX:TieredStopAtLevel=1",
            "-XX:CICompilerCount=1",
            "-Xshare:auto",
            "-Djava.security.manager=allow",
            "-Dfile.encoding=UTF-8",
            "-Duser.language=en",
            "-Duser.country=US",
            "-Duser.timezone=UTC",
            &heap,
            source_arg.as_str(),
        ];
        let mut cmd = command(&settings.launcher, &settings.java, &args, Some(dir), &[]);
        // The JVM's own messages (not the programs': their stderr is captured per run) go to a
        // log the host reads when a worker fails to start.
        // In the pool's directory, so that it goes with it however the process ends.
        let log = tempfile::NamedTempFile::new_in(dir)?;
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(log.reopen()?));
        let limits = settings.limits;
        // SAFETY: setsid and setrlimit are async-signal-safe.
        unsafe {
            cmd.pre_exec(move || {
                libc::setsid();
                let set = |res, v: u64| {
                    let lim = libc::rlimit {
                        rlim_cur: v as libc::rlim_t,
                        rlim_max: v as libc::rlim_t,
                    };
                    libc::setrlimit(res, &lim);
                };
                set(libc::RLIMIT_FSIZE, limits.file_size);
                set(libc::RLIMIT_CORE, 0);
                // RLIMIT_NPROC counts threads, per user, across every sandbox: a JVM needs about
                // fifteen of its own, so concurrent workers get more headroom than Python runs.
                set(libc::RLIMIT_NPROC, process_limit(&limits));
                Ok(())
            });
        }
        let mut child = cmd.spawn()?;
        let stdin = child
            .stdin
            .take()
            .ok_or_else(|| std::io::Error::other("no stdin"))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| std::io::Error::other("no stdout"))?;
        let mut w = Worker {
            child,
            stdin,
            stdout,
            compiled: VecDeque::new(),
        };
        let ready = w
            .read_frame(Instant::now() + Duration::from_secs(60))
            .and_then(|r| {
                if String::from_utf8_lossy(&r).contains("\"ready\"") {
                    Ok(())
                } else {
                    Err(std::io::Error::other("it did not say it was ready"))
                }
            });
        if let Err(e) = ready {
            let said = std::fs::read_to_string(log.path()).unwrap_or_default();
            let tail: Vec<&str> = said.lines().rev().take(3).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            return Err(std::io::Error::other(format!(
                "{e}{}",
                if tail.is_empty() {
                    String::new()
                } else {
                    format!(" (java said: {})", tail.join(" | "))
                }
            )));
        }
        Ok(w)
    }

    fn write_frame(&mut self, data: &[u8]) -> std::io::Result<()> {
        self.stdin.write_all(&(data.len() as u32).to_le_bytes())?;
        self.stdin.write_all(data)
    }

    fn read_frame(&mut self, deadline: Instant) -> std::io::Result<Vec<u8>> {
        let mut len = [0u8; 4];
        read_exact_until(&mut self.stdout, &mut len, deadline)?;
        let mut buf = vec![0u8; u32::from_le_bytes(len) as usize];
        read_exact_until(&mut self.stdout, &mut buf, deadline)?;
        Ok(buf)
    }

    /// One run; `Ok((result, reusable))`.
    fn run(
        &mut self,
        cap: usize,
        source: &str,
        stdin: &str,
        timeout: Duration,
    ) -> std::io::Result<(RunResult, bool)> {
        let header = serde_json::json!({ "timeout": timeout.as_secs_f64(), "cap": cap });
        self.write_frame(header.to_string().as_bytes())?;
        self.write_frame(source.as_bytes())?;
        self.write_frame(stdin.as_bytes())?;
        self.stdin.flush()?;
        // The worker enforces the timeout; compiling comes first and may take seconds.
        let deadline = Instant::now() + timeout + Duration::from_secs(30);
        let result: serde_json::Value = serde_json::from_slice(&self.read_frame(deadline)?)
            .map_err(|e| std::io::Error::other(format!("bad Java worker reply: {e}")))?;
        let stdout = self.read_frame(deadline)?;
        let stderr = self.read_frame(deadline)?;
        let code = result["code"].as_i64().map(|c| c as i32);
        let class = match result["status"].as_str() {
            Some("exited") if code == Some(0) => ExitClass::Success,
            Some("exited") => ExitClass::Error,
            Some("timeout") => ExitClass::Timeout,
            Some("output_limit") => ExitClass::OutputLimit,
            Some("compile_error") => ExitClass::CompileError,
            _ => ExitClass::Crash,
        };
        let dirty = result["dirty"].as_bool().unwrap_or(true);
        let hash = ProgramHash::of(source);
        if !self.compiled.contains(&hash) {
            self.compiled.push_back(hash);
            if self.compiled.len() > REMEMBERED {
                self.compiled.pop_front();
            }
        }
        Ok((
            RunResult {
                class,
                code: if class == ExitClass::CompileError {
                    None
                } else {
                    code
                },
                signal: None,
                stdout: String::from_utf8_lossy(&stdout).into_owned(),
                stderr_tail: String::from_utf8_lossy(&stderr).into_owned(),
                seconds: result["seconds"].as_f64().unwrap_or(0.0),
                left_running: 0,
            },
            !dirty,
        ))
    }
}

/// A pool of warm Java workers, one per concurrent run, started on demand. A run goes to an
/// idle worker that has already compiled the program when there is one.
pub struct JavaPool {
    idle: Mutex<Vec<Worker>>,
    permits: Semaphore,
    settings: JavaSettings,
    dir: tempfile::TempDir,
    /// Removes `dir` if this process ends without dropping the pool (declared after `dir`:
    /// a dropped pool removes it first).
    _reaper: Option<Reaper>,
}

/// Removes a directory when this process ends, however it ends (SIGINT or SIGTERM with their
/// default action, `_exit` from a second interrupt, a crash): a small helper process, in a
/// session of its own and deaf to the interrupt signals, waits for its standard input to
/// close, which the kernel does when this process dies, then removes the directory. Dropping
/// the reaper closes its input too and waits for it.
struct Reaper {
    child: Child,
}

impl Reaper {
    /// Starts a reaper of `dir`; `None` when no shell can be started (the directory is then
    /// removed only when the pool is dropped).
    fn start(dir: &Path) -> Option<Reaper> {
        let mut cmd = std::process::Command::new("/bin/sh");
        cmd.args([
            "-c",
            "trap '' INT TERM HUP QUIT; cat >/dev/null; rm -rf -- \"$1\"",
            "equimorph-java-reaper",
        ])
        .arg(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
        // SAFETY: setsid is async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                libc::setsid();
                Ok(())
            });
        }
        cmd.spawn().ok().map(|child| Reaper { child })
    }
}

impl Drop for Reaper {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

impl JavaPool {
    /// A pool of at most `size` workers.
    pub fn new(settings: JavaSettings, size: usize) -> std::io::Result<Self> {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::Builder::new()
            .prefix("equimorph-java-")
            .tempdir()?;
        // Readable by the sandbox's unprivileged user.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))?;
        let file = dir.path().join("JavaWorker.java");
        std::fs::write(&file, WORKER_SOURCE)?;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644))?;
        let reaper = Reaper::start(dir.path());
        Ok(JavaPool {
            idle: Mutex::new(Vec::new()),
            permits: Semaphore::new(size),
            settings,
            dir,
            _reaper: reaper,
        })
    }

    /// Starts one worker now, to fail early when Java cannot run here.
    pub fn warm_up(&self) -> std::io::Result<()> {
        let w = Worker::start(&self.settings, self.dir.path())?;
        self.idle.lock().unwrap_or_else(|p| p.into_inner()).push(w);
        Ok(())
    }

    /// Compiles (once per worker) and runs `source` on `stdin`.
    pub fn run(&self, source: &str, stdin: &str, timeout: Duration) -> RunResult {
        let _permit = self.permits.acquire();
        let start = Instant::now();
        let hash = ProgramHash::of(source);
        let worker = {
            let mut idle = self.idle.lock().unwrap_or_else(|p| p.into_inner());
            let at = idle
                .iter()
                .position(|w| w.compiled.contains(&hash))
                .or_else(|| idle.len().checked_sub(1));
            at.map(|i| idle.swap_remove(i))
        };
        let mut worker = match worker {
            Some(w) => w,
            None => match Worker::start(&self.settings, self.dir.path()) {
                Ok(w) => w,
                Err(e) => {
                    return crash(format!("cannot start the Java worker: {e}"), 0.0);
                }
            },
        };
        match worker.run(self.settings.output_cap, source, stdin, timeout) {
            Ok((r, reusable)) => {
                if reusable {
                    self.idle
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push(worker);
                }
                r
            }
            Err(e) => crash(
                format!("the Java worker died during the run: {e}"),
                start.elapsed().as_secs_f64(),
            ),
        }
    }
}

fn crash(message: String, seconds: f64) -> RunResult {
    RunResult {
        class: ExitClass::Crash,
        code: None,
        signal: None,
        stdout: String::new(),
        stderr_tail: message,
        seconds,
        left_running: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_limits_say_the_heap_and_the_jvms_thread_headroom() {
        let limits = ResourceLimits {
            address_space: 16 << 20,
            ..ResourceLimits::default()
        };
        let words = describe_limits(&limits);
        // Never below 64 MiB of heap, never fewer than the JVM's threads need.
        assert!(words[0].starts_with("heap (-Xmx) 64 MiB"), "{words:?}");
        assert!(words.contains(&format!("processes (threads) {JVM_PROCESSES}")));
        assert!(!words.iter().any(|w| w.starts_with("address space")));
    }
}
