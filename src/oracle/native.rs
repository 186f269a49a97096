//! Running C and C++ programs: each distinct program is compiled once per build profile
//! ([`Build`]) inside the same sandbox as every run, and its binary runs per test.
//!
//! Why a cache: a C++ compile costs a few hundred milliseconds (far more with
//! `bits/stdc++.h`), a run of the binary a millisecond or two. The cache is keyed by the
//! source's hash, the language and the build, and bounded ([`KEPT_BINARIES`]): an evicted
//! binary is compiled again when asked for.
//!
//! The compiler runs under bubblewrap with the file system read-only, like a program: it reads
//! the source on stdin, writes its binary into the sandbox's private `/tmp`, and the binary
//! comes back on stdout. Nothing a hostile source makes the compiler do reaches the host's
//! disk. A compile error (or a compile past [`COMPILE_SECONDS`]) is
//! [`ExitClass::CompileError`]: an invalid candidate, never a verdict.
//!
//! Undefined behaviour is this family's trap: a program whose output depends on it may
//! change under any rewrite. Candidates and originals are compiled with the same flags
//! ([`Build::Run`]), and validation also runs the original built at `-O0` and at `-O2` (see
//! [`super::Oracle::validate`]), so such a program is reported as unstable, not attacked.

mod pch;

use super::runner::{supervise, ExitClass, RunResult, Semaphore, Supervision};
use super::sandbox::{command, Launcher, ResourceLimits};
use crate::language::Language;
use crate::program::ProgramHash;
use lru::LruCache;
use std::num::NonZeroUsize;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Binaries kept on disk at once (least recently used go first).
pub const KEPT_BINARIES: usize = 512;
/// The longest a compile may take, seconds.
pub const COMPILE_SECONDS: u64 = 60;
/// The largest binary a compile may produce, bytes.
const MAX_BINARY: usize = 64 << 20;
/// Address space a compiler gets at least (cc1plus reading `bits/stdc++.h` needs more than
/// most programs).
pub const COMPILER_ADDRESS_SPACE: u64 = 4 << 30;

/// How a program is compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Build {
    /// The build every test run uses, for originals and candidates alike (`-O1`).
    Run,
    /// Unoptimised (`-O0`), for the undefined-behaviour check of validation.
    Unoptimised,
    /// Optimised (`-O2`), for the undefined-behaviour check of validation.
    Optimised,
}

impl Build {
    /// The optimisation flag.
    pub fn flag(self) -> &'static str {
        match self {
            Build::Run => "-O1",
            Build::Unoptimised => "-O0",
            Build::Optimised => "-O2",
        }
    }
}

/// The code-generation flags of `language` and `build` (what a precompiled header must be
/// built with too).
pub fn code_flags(language: Language, build: Build) -> [&'static str; 4] {
    let standard = match language {
        Language::C => "-std=gnu11",
        _ => "-std=gnu++17",
    };
    // Warnings are noise here: a candidate is judged by its tests.
    [standard, build.flag(), "-pipe", "-w"]
}

/// The compiler command of `language` with `build`'s flags, reading the source on stdin
/// (`-x c++ -`); the output file is added by the compile script.
pub fn compiler_args(language: Language, build: Build) -> Vec<&'static str> {
    let dialect = match language {
        Language::C => "c",
        _ => "c++",
    };
    let mut args = code_flags(language, build).to_vec();
    args.extend(["-x", dialect, "-", "-lm"]);
    args
}

/// Settings of the native runner.
#[derive(Debug, Clone)]
pub struct NativeSettings {
    /// How programs and compilers are launched (the oracle's sandbox).
    pub launcher: Launcher,
    /// rlimits of runs (compiles get more address space, see [`COMPILER_ADDRESS_SPACE`]).
    pub limits: ResourceLimits,
    /// Bytes of stdout+stderr after which a run ends.
    pub output_cap: usize,
    /// The C++ compiler (`g++`).
    pub cxx: PathBuf,
    /// The C compiler (`gcc`).
    pub cc: PathBuf,
    /// Runs and compiles at once.
    pub jobs: usize,
}

/// A compiled program, or why it is none (the compiler's diagnostics).
type Built = Result<PathBuf, String>;

/// Binaries by (language, source, build); a slot is filled once, by the first caller.
type BuildCache = LruCache<(Language, ProgramHash, Build), Arc<OnceLock<Built>>>;

/// Compiles programs once and runs their binaries.
pub struct NativeRunner {
    settings: NativeSettings,
    /// Where binaries live (readable by the sandbox user).
    dir: tempfile::TempDir,
    builds: Mutex<BuildCache>,
    permits: Semaphore,
    compiles: AtomicU64,
    compile_nanos: AtomicU64,
    compile_errors: AtomicU64,
    /// Per build: the include directory of a precompiled `bits/stdc++.h` for C++, made on
    /// the first program that includes it (`None`: it could not be built here).
    pch: [OnceLock<Option<PathBuf>>; 3],
}

/// What the native runner has spent on compiles.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CompileStats {
    /// Compiles run (cache misses), failed ones included.
    pub compiles: u64,
    /// Compiles that failed (compile errors and compiles past the limit).
    pub errors: u64,
    /// Wall seconds spent compiling.
    pub seconds: f64,
}

/// The compiler `name` (`g++`, `gcc`): `/usr/bin/NAME` when present, else from `PATH`.
pub fn default_compiler(name: &str) -> PathBuf {
    let system = Path::new("/usr/bin").join(name);
    if system.is_file() {
        return system;
    }
    std::env::var_os("PATH")
        .and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(name))
                .find(|p| p.is_file())
        })
        .unwrap_or_else(|| PathBuf::from(name))
}

/// Whether `compiler` can be started at all.
pub fn compiler_available(compiler: &Path) -> bool {
    compiler.is_file()
        || std::process::Command::new(compiler)
            .arg("--version")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
}

impl NativeRunner {
    /// A runner with an empty cache. Fails only when its directory cannot be made.
    pub fn new(settings: NativeSettings) -> std::io::Result<Self> {
        let dir = tempfile::Builder::new()
            .prefix("equimorph-native-")
            .tempdir()?;
        // The sandbox user (nobody) reads and runs the binaries.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755))?;
        let kept = NonZeroUsize::new(KEPT_BINARIES).unwrap_or(NonZeroUsize::MIN);
        Ok(NativeRunner {
            permits: Semaphore::new(settings.jobs.max(1)),
            settings,
            dir,
            builds: Mutex::new(LruCache::new(kept)),
            compiles: AtomicU64::new(0),
            compile_nanos: AtomicU64::new(0),
            compile_errors: AtomicU64::new(0),
            pch: Default::default(),
        })
    }

    /// The compiler of `language`.
    fn compiler(&self, language: Language) -> &Path {
        match language {
            Language::C => &self.settings.cc,
            _ => &self.settings.cxx,
        }
    }

    /// Whether the compiler of `language` is installed (checked before the first task).
    pub fn available(&self, language: Language) -> bool {
        compiler_available(self.compiler(language))
    }

    /// What compiles have cost so far.
    pub fn stats(&self) -> CompileStats {
        CompileStats {
            compiles: self.compiles.load(Ordering::Relaxed),
            errors: self.compile_errors.load(Ordering::Relaxed),
            seconds: self.compile_nanos.load(Ordering::Relaxed) as f64 / 1e9,
        }
    }

    /// Runs `source` (built as `build`) on `stdin`. A program that does not compile gives
    /// [`ExitClass::CompileError`] with the compiler's diagnostics as its stderr.
    pub fn run(
        &self,
        language: Language,
        source: &str,
        stdin: &str,
        timeout: Duration,
        build: Build,
    ) -> RunResult {
        let binary = match self.binary(language, source, build) {
            Ok(path) => path,
            Err(result) => return result,
        };
        let _permit = self.permits.acquire();
        let start = Instant::now();
        let cmd = command(
            &self.settings.launcher,
            &binary,
            &[],
            Some(self.dir.path()),
            &[],
        );
        let how = Supervision {
            launcher: &self.settings.launcher,
            limits: self.settings.limits,
            output_cap: self.settings.output_cap,
        };
        match supervise(cmd, &how, stdin.as_bytes(), timeout, start) {
            Ok((result, _)) => result,
            Err(e) => RunResult::crash(
                format!("could not run the sandbox: {e}"),
                start.elapsed().as_secs_f64(),
            ),
        }
    }

    /// The bytes of `source`'s binary built as `build` (compiled on first use, then from the
    /// cache): two programs whose binaries are byte for byte the same behave the same on every
    /// input. `None`: it does not compile, or the sandbox failed.
    pub fn binary_bytes(&self, language: Language, source: &str, build: Build) -> Option<Vec<u8>> {
        let path = self.binary(language, source, build).ok()?;
        std::fs::read(path).ok()
    }

    /// The binary of `source`, compiled on first use. `Err`: the run's result instead (a
    /// compile error, or a crash of the sandbox, which is not cached).
    fn binary(&self, language: Language, source: &str, build: Build) -> Result<PathBuf, RunResult> {
        let key = (language, ProgramHash::of(source), build);
        let slot = {
            let mut builds = self.builds.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(slot) = builds.get(&key) {
                slot.clone()
            } else {
                let slot = Arc::new(OnceLock::new());
                if let Some((_, evicted)) = builds.push(key, slot.clone()) {
                    // The binary of the least recently used program goes (a run that holds
                    // it open keeps it until it ends).
                    if let Some(Ok(path)) = evicted.get() {
                        let _ = std::fs::remove_file(path);
                    }
                }
                slot
            }
        };
        let mut crash = None;
        let built = slot.get_or_init(|| match self.compile(language, source, build, &key.1) {
            Ok(built) => built,
            Err(result) => {
                crash = Some(result);
                Err(String::new())
            }
        });
        if let Some(result) = crash {
            // Not a verdict on the program: forget the slot so the next call compiles again.
            let mut builds = self.builds.lock().unwrap_or_else(|p| p.into_inner());
            builds.pop(&key);
            return Err(result);
        }
        match built {
            Ok(path) if path.is_file() => Ok(path.clone()),
            Ok(_) => {
                // Evicted meanwhile by another thread: compile again, outside the cache.
                match self.compile(language, source, build, &key.1) {
                    Ok(Ok(path)) => Ok(path),
                    Ok(Err(diagnostics)) => Err(compile_error(diagnostics)),
                    Err(result) => Err(result),
                }
            }
            // Another caller's compile crashed the sandbox while this one waited on it.
            Err(diagnostics) if diagnostics.is_empty() => Err(RunResult::crash(
                "the compiler's sandbox failed".into(),
                0.0,
            )),
            Err(diagnostics) => Err(compile_error(diagnostics.clone())),
        }
    }

    /// Compiles `source` in the sandbox. `Ok(Err(_))`: it does not compile (diagnostics);
    /// `Err(_)`: the sandbox failed.
    fn compile(
        &self,
        language: Language,
        source: &str,
        build: Build,
        hash: &ProgramHash,
    ) -> Result<Built, RunResult> {
        if let Some(why) = refused_include(source) {
            self.compile_errors.fetch_add(1, Ordering::Relaxed);
            return Ok(Err(why));
        }
        let _permit = self.permits.acquire();
        let start = Instant::now();
        // The binary is written in the sandbox's private /tmp and comes back on stdout.
        let script = "d=$(mktemp -d) || exit 97; \"$@\" -o \"$d/a.out\" && cat \"$d/a.out\"; \
                      s=$?; rm -rf \"$d\"; exit $s";
        let compiler = self.compiler(language).display().to_string();
        let mut args = vec!["-c", script, "sh", compiler.as_str()];
        // The precompiled `bits/stdc++.h` (see [`pch`]), first on the include path and
        // mounted read-only into the sandbox.
        let pch = (language == Language::Cpp && source.contains("bits/stdc++.h"))
            .then(|| {
                self.pch[build as usize]
                    .get_or_init(|| pch::prepare(&self.settings.cxx, &code_flags(language, build)))
                    .as_ref()
            })
            .flatten();
        let include = pch.map(|root| format!("-I{}", root.display()));
        args.extend(include.as_deref());
        args.extend(compiler_args(language, build));
        let cmd = command(
            &self.settings.launcher,
            Path::new("/bin/sh"),
            &args,
            pch.map(PathBuf::as_path),
            &[("PATH", "/usr/local/bin:/usr/bin:/bin")],
        );
        let limits = ResourceLimits {
            address_space: self
                .settings
                .limits
                .address_space
                .max(COMPILER_ADDRESS_SPACE),
            cpu_seconds: self.settings.limits.cpu_seconds.max(COMPILE_SECONDS),
            file_size: self.settings.limits.file_size.max(MAX_BINARY as u64),
            ..self.settings.limits
        };
        let how = Supervision {
            launcher: &self.settings.launcher,
            limits,
            output_cap: MAX_BINARY,
        };
        let timeout = Duration::from_secs(COMPILE_SECONDS);
        let outcome = supervise(cmd, &how, source.as_bytes(), timeout, start);
        self.compiles.fetch_add(1, Ordering::Relaxed);
        self.compile_nanos
            .fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        let (result, binary) = outcome.map_err(|e| {
            RunResult::crash(
                format!("could not run the compiler's sandbox: {e}"),
                start.elapsed().as_secs_f64(),
            )
        })?;
        let failed = |why: String| {
            self.compile_errors.fetch_add(1, Ordering::Relaxed);
            Ok(Err(why))
        };
        match result.class {
            ExitClass::Success if !binary.is_empty() => {
                let path =
                    self.dir
                        .path()
                        .join(format!("{}-{}", &hash.to_hex()[..24], build.flag()));
                let written = std::fs::write(&path, &binary).and_then(|()| {
                    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))
                });
                match written {
                    Ok(()) => Ok(Ok(path)),
                    Err(e) => Err(RunResult::crash(
                        format!("cannot keep the compiled binary: {e}"),
                        start.elapsed().as_secs_f64(),
                    )),
                }
            }
            ExitClass::Crash => Err(result),
            ExitClass::Timeout => failed(format!("the compile ran past {COMPILE_SECONDS} s")),
            ExitClass::OutputLimit => failed(format!(
                "the binary is larger than {} MiB",
                MAX_BINARY >> 20
            )),
            _ if result.code == Some(97) => Err(RunResult::crash(
                "the compiler's sandbox has no temporary directory".into(),
                start.elapsed().as_secs_f64(),
            )),
            _ if out_of_processes(&result.stderr_tail) => Err(RunResult::crash(
                format!(
                    "the compiler could not start a process (the machine is out of them): {}",
                    result.stderr_tail.trim()
                ),
                start.elapsed().as_secs_f64(),
            )),
            _ => failed(if result.stderr_tail.trim().is_empty() {
                format!(
                    "the compiler failed ({:?}, code {:?})",
                    result.class, result.code
                )
            } else {
                result.stderr_tail
            }),
        }
    }
}

/// Why `source` is refused before any compile: an `#include` that names an absolute path, a
/// parent directory or a macro (`#include "/dev/zero"` would keep the compiler reading until
/// its time limit), or an assembler `.incbin`. Contest programs include headers by name.
fn refused_include(source: &str) -> Option<String> {
    if source.contains(".incbin") {
        return Some("the program embeds a file with `.incbin`: refused".into());
    }
    for line in source.lines() {
        let t = line.trim_start();
        let Some(rest) = t.strip_prefix('#') else {
            continue;
        };
        let Some(arg) = rest.trim_start().strip_prefix("include") else {
            continue;
        };
        let arg = arg.trim();
        let name = arg
            .strip_prefix('<')
            .and_then(|a| a.split('>').next())
            .or_else(|| arg.strip_prefix('"').and_then(|a| a.split('"').next()));
        let plain = name.is_some_and(|n| !n.starts_with('/') && !n.contains(".."));
        if !plain {
            return Some(format!(
                "`{}`: only headers named by a relative path are included",
                t.trim_end()
            ));
        }
    }
    None
}

/// Whether a failed compile's diagnostics say the compiler driver could not start one of its
/// own processes (`g++: fatal error: cannot execute 'cc1plus': vfork: Resource temporarily
/// unavailable`): the machine's process or thread limit under load, which no program causes,
/// so it is a fault of the check (retried), never an invalid candidate.
///
/// Only a line the driver or the launcher writes counts (it starts with `g++:`, `gcc-12:`,
/// `collect2:` or `bwrap:`): a diagnostic that quotes the program's own text starts with its
/// file name or a line number, so no program can pass its compile error off as a fault.
fn out_of_processes(diagnostics: &str) -> bool {
    diagnostics.lines().any(|l| {
        let head = l.split(':').next().unwrap_or_default();
        // The driver names itself as invoked (`g++-12`, `/usr/bin/gcc`).
        let name = head.rsplit('/').next().unwrap_or_default();
        let tool = !head.contains(' ')
            && ["g++", "gcc", "c++", "cc", "collect2", "bwrap"]
                .iter()
                .any(|t| name.starts_with(t));
        tool && l.contains("Resource temporarily unavailable")
    })
}

/// The result of a run whose program does not compile.
fn compile_error(diagnostics: String) -> RunResult {
    RunResult {
        class: ExitClass::CompileError,
        code: None,
        signal: None,
        stdout: String::new(),
        stderr_tail: diagnostics,
        seconds: 0.0,
        left_running: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compiler_out_of_processes_is_a_fault_not_a_diagnostic() {
        assert!(out_of_processes(
            "g++: fatal error: cannot execute '/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus': \
             vfork: Resource temporarily unavailable\ncompilation terminated.\n"
        ));
        assert!(out_of_processes(
            "bwrap: Creating new namespace failed: Resource temporarily unavailable\n"
        ));
        assert!(!out_of_processes(
            "a.cpp:3:5: error: 'foo' was not declared in this scope\n"
        ));
        // A program's own text quoted in a diagnostic is not the driver failing.
        assert!(!out_of_processes(
            "<stdin>:1:1: error: g++: vfork: Resource temporarily unavailable\n\
             \x20   1 | g++: fatal error: vfork: Resource temporarily unavailable\n"
        ));
    }

    #[test]
    fn includes_by_absolute_path_parent_directory_or_macro_are_refused() {
        assert_eq!(
            refused_include("#include <bits/stdc++.h>\n#include\"a.h\"\nint main(){}"),
            None
        );
        assert_eq!(refused_include("  #  include <cstdio>\n"), None);
        for bad in [
            "#include \"/dev/zero\"\n",
            "#include </dev/stdin>\n",
            "#include \"../../../dev/zero\"\n",
            "#define F \"/dev/zero\"\n#include F\n",
            "asm(\".incbin \\\"/dev/zero\\\"\");\n",
        ] {
            assert!(refused_include(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn builds_differ_only_in_their_optimisation_flag() {
        let run = compiler_args(Language::Cpp, Build::Run);
        let opt = compiler_args(Language::Cpp, Build::Optimised);
        assert_eq!(run.len(), opt.len());
        assert!(run.contains(&"-O1") && opt.contains(&"-O2"));
        assert!(compiler_args(Language::C, Build::Run).contains(&"-std=gnu11"));
    }
}
