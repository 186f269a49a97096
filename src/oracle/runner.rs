//! Executing one Python program on one input inside the sandbox, by spawning a fresh
//! interpreter (`spawn`) or by forking a prepared one (`fork`, the default).

use super::sandbox::{command, Launcher, ResourceLimits};
use serde::Serialize;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

const ZYGOTE_SOURCE: &str = include_str!("zygote.py");
/// How much of stderr is kept (its tail).
pub const STDERR_TAIL: usize = 8192;

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitClass {
    /// Exit status 0.
    Success,
    /// A non-zero exit status (an uncaught exception, `sys.exit(n)`).
    Error,
    /// Killed by a signal it raised or received.
    Signal,
    /// Ran past its time limit and was killed.
    Timeout,
    /// Wrote more than the output cap and was killed.
    OutputLimit,
    /// The sandbox itself failed during the run (e.g. the program killed its fork server).
    Crash,
    /// A program that does not compile (Java, C, C++): never a verdict, the candidate is
    /// invalid.
    CompileError,
}

/// The outcome of one run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunResult {
    /// How it ended.
    pub class: ExitClass,
    /// Exit status, when it exited.
    pub code: Option<i32>,
    /// Signal number, when signalled.
    pub signal: Option<i32>,
    /// Standard output (up to the cap), decoded lossily.
    pub stdout: String,
    /// The last [`STDERR_TAIL`] bytes of standard error.
    pub stderr_tail: String,
    /// Wall time.
    pub seconds: f64,
    /// Processes the program left running when it exited (counted by the fork server; 0
    /// under `spawn`, whose PID namespace ends with the program).
    pub left_running: u32,
}

impl RunResult {
    /// A run the sandbox could not make (`message` says why).
    pub(crate) fn crash(message: String, seconds: f64) -> Self {
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
}

/// One execution request.
#[derive(Debug, Clone, Copy)]
pub struct RunRequest<'a> {
    /// The whole program.
    pub source: &'a str,
    /// Its standard input.
    pub stdin: &'a str,
    /// Wall-time limit.
    pub timeout: Duration,
    /// The string-hash seed the program runs under (`PYTHONHASHSEED`; Java ignores it).
    pub hash_seed: u32,
    /// The program's language (which executor runs it).
    pub language: crate::program::Language,
}

/// Interpreter flags of every run: `-s` (no user site directory). Not `-I`: it would ignore
/// `PYTHONHASHSEED`, and the environment is cleared anyway, so `-E` adds nothing.
const PYTHON_FLAGS: &str = "-s";

/// Settings shared by every run.
#[derive(Debug, Clone)]
pub struct RunSettings {
    /// How programs are launched.
    pub launcher: Launcher,
    /// The interpreter.
    pub python: PathBuf,
    /// rlimits.
    pub limits: ResourceLimits,
    /// Bytes of stdout+stderr after which a run is killed.
    pub output_cap: usize,
}

/// A counting semaphore (caps concurrent processes).
pub struct Semaphore {
    free: Mutex<usize>,
    cv: Condvar,
}

impl Semaphore {
    /// `n` permits.
    pub fn new(n: usize) -> Self {
        Semaphore {
            free: Mutex::new(n.max(1)),
            cv: Condvar::new(),
        }
    }

    /// Blocks until a permit is free; released when the guard drops.
    pub fn acquire(&self) -> SemaphoreGuard<'_> {
        let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
        while *free == 0 {
            free = self.cv.wait(free).unwrap_or_else(|p| p.into_inner());
        }
        *free -= 1;
        SemaphoreGuard(self)
    }
}

/// A held permit.
pub struct SemaphoreGuard<'a>(&'a Semaphore);

impl Drop for SemaphoreGuard<'_> {
    fn drop(&mut self) {
        let mut free = self.0.free.lock().unwrap_or_else(|p| p.into_inner());
        *free += 1;
        self.0.cv.notify_one();
    }
}

fn kill_group(pid: i32) {
    if pid > 0 {
        // SAFETY: plain syscalls on a pid we spawned.
        unsafe {
            libc::killpg(pid, libc::SIGKILL);
            libc::kill(pid, libc::SIGKILL);
        }
    }
}

/// Runs `req` in a freshly spawned interpreter.
pub fn run_spawn(settings: &RunSettings, req: RunRequest<'_>) -> RunResult {
    let start = Instant::now();
    match spawn_inner(settings, req, start) {
        Ok(r) => r,
        Err(e) => RunResult::crash(
            format!("could not run the sandbox: {e}"),
            start.elapsed().as_secs_f64(),
        ),
    }
}

fn spawn_inner(
    settings: &RunSettings,
    req: RunRequest<'_>,
    start: Instant,
) -> std::io::Result<RunResult> {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::Builder::new()
        .prefix("equimorph-run-")
        .tempdir()?;
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777))?;
    let prog = dir.path().join("prog.py");
    std::fs::write(&prog, req.source)?;
    std::fs::set_permissions(&prog, std::fs::Permissions::from_mode(0o644))?;
    let seed = req.hash_seed.to_string();
    // By absolute path: under bubblewrap the program's directory is mounted read-only and the
    // program runs elsewhere (see `command`).
    let prog_arg = prog.display().to_string();
    let cmd = command(
        &settings.launcher,
        &settings.python,
        &[PYTHON_FLAGS, &prog_arg],
        Some(dir.path()),
        &[("PYTHONHASHSEED", &seed)],
    );
    supervise(
        cmd,
        &Supervision {
            launcher: &settings.launcher,
            limits: settings.limits,
            output_cap: settings.output_cap,
        },
        req.stdin.as_bytes(),
        req.timeout,
        start,
    )
    .map(|(result, _)| result)
}

/// How [`supervise`] watches a process.
pub(crate) struct Supervision<'a> {
    /// The launcher the command was made for (a bubblewrap set-up failure is a crash).
    pub launcher: &'a Launcher,
    /// rlimits applied in the child.
    pub limits: ResourceLimits,
    /// Bytes of stdout+stderr after which the process is killed.
    pub output_cap: usize,
}

/// Runs `cmd` (made by [`command`]) in its own session under the limits, feeds it `stdin`,
/// kills its process group past `timeout` (counted from `start`) or past the output cap, and
/// classifies how it ended. The stdout bytes come back as they are beside the result (whose
/// `stdout` is their lossy decoding).
pub(crate) fn supervise(
    mut cmd: Command,
    how: &Supervision<'_>,
    input: &[u8],
    timeout: Duration,
    start: Instant,
) -> std::io::Result<(RunResult, Vec<u8>)> {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let limits = how.limits;
    // SAFETY: setsid and setrlimit are async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            libc::setsid();
            limits.apply()
        });
    }
    let mut child = cmd.spawn()?;
    let pid = Arc::new(AtomicI32::new(child.id() as i32));
    let over_cap = Arc::new(AtomicBool::new(false));
    let total = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let cap = how.output_cap;

    let mut stdin = child.stdin.take();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        if let Some(s) = stdin.as_mut() {
            let _ = s.write_all(&input);
        }
        drop(stdin);
    });
    let reader = |mut r: Box<dyn Read + Send>, keep_tail: bool| {
        let (pid, over_cap, total) = (pid.clone(), over_cap.clone(), total.clone());
        std::thread::spawn(move || {
            let mut kept = Vec::new();
            let mut buf = [0u8; 65536];
            loop {
                match r.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        let t = total.fetch_add(n, Ordering::Relaxed) + n;
                        kept.extend_from_slice(&buf[..n]);
                        if keep_tail && kept.len() > STDERR_TAIL {
                            kept.drain(..kept.len() - STDERR_TAIL);
                        }
                        if t > cap {
                            over_cap.store(true, Ordering::Relaxed);
                            kill_group(pid.load(Ordering::Relaxed));
                            kept.truncate(cap);
                            break;
                        }
                    }
                }
            }
            kept
        })
    };
    let out_t = child.stdout.take().map(|s| reader(Box::new(s), false));
    let err_t = child.stderr.take().map(|s| reader(Box::new(s), true));
    let deadline = start + timeout;
    let mut timed_out = false;
    let status = loop {
        if let Some(st) = child.try_wait()? {
            break st;
        }
        if Instant::now() >= deadline {
            timed_out = true;
            kill_group(child.id() as i32);
            break child.wait()?;
        }
        std::thread::sleep(Duration::from_micros(500));
    };
    let seconds = start.elapsed().as_secs_f64();
    // Anything left in the group (plain mode) goes now, so the pipes close.
    kill_group(child.id() as i32);
    let _ = writer.join();
    let stdout = out_t.and_then(|t| t.join().ok()).unwrap_or_default();
    let stderr = err_t.and_then(|t| t.join().ok()).unwrap_or_default();
    use std::os::unix::process::ExitStatusExt;
    let (class, code, signal) = if timed_out {
        (ExitClass::Timeout, None, None)
    } else if over_cap.load(Ordering::Relaxed) {
        (ExitClass::OutputLimit, None, None)
    } else if let Some(c) = status.code() {
        let sandbox_failed = c == 1
            && matches!(how.launcher, Launcher::Bubblewrap { .. })
            && stderr.starts_with(b"bwrap: ");
        (
            if c == 0 {
                ExitClass::Success
            } else if sandbox_failed {
                // bubblewrap itself could not set up the sandbox or start the interpreter.
                ExitClass::Crash
            } else {
                ExitClass::Error
            },
            Some(c),
            None,
        )
    } else {
        (ExitClass::Signal, None, status.signal())
    };
    let result = RunResult {
        class,
        code,
        signal,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr_tail: String::from_utf8_lossy(&stderr).into_owned(),
        seconds,
        left_running: 0,
    };
    Ok((result, stdout))
}

/// A running fork server.
struct Zygote {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
    _work: Option<tempfile::TempDir>,
}

impl Drop for Zygote {
    fn drop(&mut self) {
        kill_group(self.child.id() as i32);
        let _ = self.child.wait();
    }
}

/// Reads exactly `buf.len()` bytes from a worker's stdout, or fails at `deadline` (shared by the
/// fork server and the Java workers, which speak the same framing).
pub(super) fn read_exact_until(
    r: &mut ChildStdout,
    buf: &mut [u8],
    deadline: Instant,
) -> std::io::Result<()> {
    let mut got = 0;
    while got < buf.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the worker did not answer in time",
            ));
        }
        let mut pfd = libc::pollfd {
            fd: r.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let n = unsafe {
            libc::poll(
                &mut pfd,
                1,
                left.as_millis().clamp(1, i32::MAX as u128) as i32,
            )
        };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if n == 0 {
            continue;
        }
        let k = r.read(&mut buf[got..])?;
        if k == 0 {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the worker exited",
            ));
        }
        got += k;
    }
    Ok(())
}

impl Zygote {
    fn start(settings: &RunSettings, hash_seed: u32) -> std::io::Result<Zygote> {
        let (work, work_arg, mode) = match settings.launcher {
            Launcher::Plain => {
                let d = tempfile::Builder::new()
                    .prefix("equimorph-zygote-")
                    .tempdir()?;
                let p = d.path().display().to_string();
                (Some(d), p, "plain")
            }
            Launcher::Bubblewrap { .. } => (None, "/tmp".to_string(), "sandboxed"),
        };
        // Forked children inherit the server's string-hash secret: one server per seed.
        let seed = hash_seed.to_string();
        let mut cmd = command(
            &settings.launcher,
            &settings.python,
            &[PYTHON_FLAGS, "-c", ZYGOTE_SOURCE, &work_arg, mode],
            None,
            &[("PYTHONHASHSEED", &seed)],
        );
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        // SAFETY: setsid is async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                libc::setsid();
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
        let mut z = Zygote {
            child,
            stdin,
            stdout,
            _work: work,
        };
        let ready = z.read_frame(Instant::now() + Duration::from_secs(20))?;
        if !String::from_utf8_lossy(&ready).contains("\"ready\"") {
            return Err(std::io::Error::other("fork server did not start"));
        }
        Ok(z)
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

    fn run(&mut self, settings: &RunSettings, req: RunRequest<'_>) -> std::io::Result<RunResult> {
        let limits: serde_json::Map<String, serde_json::Value> = settings
            .limits
            .pairs()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.into()))
            .collect();
        let header = serde_json::json!({
            "timeout": req.timeout.as_secs_f64(),
            "cap": settings.output_cap,
            "limits": limits,
        });
        self.write_frame(header.to_string().as_bytes())?;
        self.write_frame(req.source.as_bytes())?;
        self.write_frame(req.stdin.as_bytes())?;
        self.stdin.flush()?;
        // The server enforces the timeout itself; this is a safety net against a stuck server.
        let deadline = Instant::now() + req.timeout + Duration::from_secs(10);
        let result: serde_json::Value = serde_json::from_slice(&self.read_frame(deadline)?)
            .map_err(|e| std::io::Error::other(format!("bad fork server reply: {e}")))?;
        let stdout = self.read_frame(deadline)?;
        let stderr = self.read_frame(deadline)?;
        let code = result["code"].as_i64().map(|c| c as i32);
        let class = match result["status"].as_str() {
            Some("exited") if code == Some(0) => ExitClass::Success,
            Some("exited") => ExitClass::Error,
            Some("signaled") => ExitClass::Signal,
            Some("timeout") => ExitClass::Timeout,
            Some("output_limit") => ExitClass::OutputLimit,
            _ => ExitClass::Crash,
        };
        Ok(RunResult {
            class,
            code,
            signal: result["signal"].as_i64().map(|s| s as i32),
            stdout: String::from_utf8_lossy(&stdout).into_owned(),
            stderr_tail: String::from_utf8_lossy(&stderr).into_owned(),
            seconds: result["seconds"].as_f64().unwrap_or(0.0),
            left_running: result["left"]
                .as_u64()
                .map_or(0, |n| n.min(u64::from(u32::MAX)) as u32),
        })
    }
}

/// A pool of fork servers, one per concurrent run, kept apart by string-hash seed.
pub struct ForkPool {
    idle: Mutex<std::collections::HashMap<u32, Vec<Zygote>>>,
    permits: Semaphore,
    settings: RunSettings,
}

impl ForkPool {
    /// A pool of at most `size` servers, started on demand.
    pub fn new(settings: RunSettings, size: usize) -> Self {
        ForkPool {
            idle: Mutex::new(std::collections::HashMap::new()),
            permits: Semaphore::new(size),
            settings,
        }
    }

    /// Starts one server now, to fail early when the fork server cannot run here.
    pub fn warm_up(&self) -> std::io::Result<()> {
        let z = Zygote::start(&self.settings, 0)?;
        self.put(0, z);
        Ok(())
    }

    fn put(&self, seed: u32, z: Zygote) {
        self.idle
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(seed)
            .or_default()
            .push(z);
    }

    /// Runs `req` on an idle server (starting one if needed).
    pub fn run(&self, req: RunRequest<'_>) -> RunResult {
        let _permit = self.permits.acquire();
        let start = Instant::now();
        let zygote = self
            .idle
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_mut(&req.hash_seed)
            .and_then(Vec::pop);
        let mut zygote = match zygote {
            Some(z) => z,
            None => match Zygote::start(&self.settings, req.hash_seed) {
                Ok(z) => z,
                Err(e) => {
                    return RunResult::crash(format!("cannot start the fork server: {e}"), 0.0)
                }
            },
        };
        match zygote.run(&self.settings, req) {
            Ok(r) => {
                self.put(req.hash_seed, zygote);
                r
            }
            // The program killed its server (or the server broke): this run failed; the server
            // is dropped (killed) and a new one starts on the next request.
            Err(e) => RunResult::crash(
                format!("the fork server died during the run: {e}"),
                start.elapsed().as_secs_f64(),
            ),
        }
    }
}

/// Either way of running programs.
pub enum Executor {
    /// Fork a prepared interpreter per run.
    Fork(ForkPool),
    /// Spawn a fresh interpreter per run, at most `permits` at once.
    Spawn {
        /// Shared settings.
        settings: RunSettings,
        /// Concurrency cap.
        permits: Semaphore,
    },
}

impl Executor {
    /// Runs one request.
    pub fn run(&self, req: RunRequest<'_>) -> RunResult {
        match self {
            Executor::Fork(pool) => pool.run(req),
            Executor::Spawn { settings, permits } => {
                let _p = permits.acquire();
                run_spawn(settings, req)
            }
        }
    }
}
