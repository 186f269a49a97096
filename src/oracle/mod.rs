//! The equivalence oracle A(x, x'): runs a task's tests on the original and on a candidate in
//! sandboxed subprocesses and compares what they do.
//!
//! - The original's behaviour (stdout, exit class, time) is recorded once per test
//!   ([`Oracle::reference`]).
//! - A candidate is equivalent iff, for every test, its normalised stdout equals the
//!   original's and its exit class is the same; for `test_code`, it must exit 0. The first
//!   failing test ends the check.
//! - Decisions are cached by (task id, candidate hash); runs are capped at `jobs` at once.

mod cache;
pub mod java;
pub mod native;
mod runner;
mod sandbox;

pub use crate::task::compare::{normalize, outputs_equal};
pub use runner::{ExitClass, RunRequest, RunResult};
pub use sandbox::{default_python, Isolation, ResourceLimits};

use crate::program::{Language, ProgramHash};
use crate::task::Task;
use runner::{Executor, ForkPool, RunSettings, Semaphore};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use thiserror::Error;

/// The string-hash seed of reference runs and of every candidate run: a candidate's verdict
/// never depends on which worker ran it.
pub const REFERENCE_HASH_SEED: u32 = 0;
/// The seed of the second reference run of `validate`.
pub const SECOND_HASH_SEED: u32 = 1;

/// How programs are started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OracleMode {
    /// Fork a prepared interpreter (sandboxed fork server) per test: fast.
    Fork,
    /// Spawn a fresh `python3 -I` per test.
    Spawn,
}

/// Oracle settings.
#[derive(Debug, Clone)]
pub struct OracleConfig {
    /// The interpreter.
    pub python: PathBuf,
    /// Fork server or plain spawning.
    pub mode: OracleMode,
    /// Most programs running at once.
    pub jobs: usize,
    /// Candidate timeout = original's time × factor, clamped to [floor, cap].
    pub timeout_factor: f64,
    /// Smallest candidate timeout.
    pub timeout_floor: Duration,
    /// Largest timeout (also the original's own limit).
    pub timeout_cap: Duration,
    /// rlimits of every run.
    pub limits: ResourceLimits,
    /// Bytes of output after which a run is killed.
    pub output_cap: usize,
    /// Opt-in tolerance for float tokens.
    pub float_tolerance: Option<f64>,
    /// Most decisions kept in the cache.
    pub cache_entries: usize,
    /// Most bytes the cached decisions may hold (approximately).
    pub cache_bytes: usize,
    /// The `java` launcher, for Java tasks (started on the first one).
    pub java: PathBuf,
    /// The C++ compiler (`g++`), for C++ tasks.
    pub cxx: PathBuf,
    /// The C compiler (`gcc`), for C tasks.
    pub cc: PathBuf,
}

impl Default for OracleConfig {
    fn default() -> Self {
        OracleConfig {
            python: default_python(),
            mode: OracleMode::Fork,
            jobs: std::thread::available_parallelism().map_or(2, |n| n.get()),
            timeout_factor: 5.0,
            timeout_floor: Duration::from_secs(1),
            timeout_cap: Duration::from_secs(10),
            limits: ResourceLimits::default(),
            output_cap: 8 << 20,
            float_tolerance: None,
            cache_entries: 200_000,
            cache_bytes: 64 << 20,
            java: java::default_java(),
            cxx: native::default_compiler("g++"),
            cc: native::default_compiler("gcc"),
        }
    }
}

/// A fault of equimorph's own machinery during a check (the sandbox or a worker failed to
/// start or died, descriptors or disk ran out): the check has no verdict. Never `A = 0`,
/// never cached.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("the sandbox failed (after one retry on a fresh worker): {reason}")]
pub struct OracleFault {
    /// What failed.
    pub reason: String,
}

/// Why the oracle could not work at all.
#[derive(Debug, Error)]
pub enum OracleError {
    /// The interpreter is missing.
    #[error("Python interpreter {0} not found (pass --python)")]
    NoPython(PathBuf),
    /// The fork server could not start.
    #[error("the fork server cannot start here: {0} (try --oracle-mode spawn)")]
    ForkServer(String),
}

/// The original's behaviour on one test.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReferenceRun {
    /// Its stdout.
    pub stdout: String,
    /// How it ended.
    pub class: ExitClass,
    /// Its wall time.
    pub seconds: f64,
    /// The tail of its standard error (explains a failure of the sandbox).
    #[serde(skip)]
    pub stderr: String,
    /// Processes it left running when it exited.
    #[serde(skip)]
    pub left_running: u32,
    /// Its exit status, when it exited.
    #[serde(skip)]
    pub code: Option<i32>,
    /// The signal that ended it, when one did.
    #[serde(skip)]
    pub signal: Option<i32>,
}

impl ReferenceRun {
    /// How the run ended, in words, with the last line of its stderr when it did not exit 0:
    /// `exit status 1: ZeroDivisionError: division by zero`.
    pub fn ending(&self) -> String {
        let how = match (self.class, self.code, self.signal) {
            (ExitClass::Success, _, _) => return "exit status 0".into(),
            (ExitClass::Signal, _, Some(s)) => format!("killed by signal {s}"),
            (ExitClass::Timeout, _, _) => "timed out".into(),
            (ExitClass::OutputLimit, _, _) => "killed at the output cap".into(),
            (ExitClass::Crash, _, _) => "the sandbox failed".into(),
            (_, Some(c), _) => format!("exit status {c}"),
            (class, _, _) => format!("{class:?}"),
        };
        match last_line(&self.stderr) {
            line if line.is_empty() => format!("{how}, nothing on stderr"),
            line => format!("{how}: {line}"),
        }
    }
}

/// The original's behaviour on every test of a task (test_code counts as one test, last).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reference {
    /// One entry per test.
    pub runs: Vec<ReferenceRun>,
}

/// The first test a candidate failed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TestFailure {
    /// 0-based index of the test (test_code is last).
    pub test: usize,
    /// The test's input (empty for test_code).
    pub input: String,
    /// What the original printed.
    pub expected: String,
    /// What the candidate printed.
    pub got: String,
    /// The original's exit class.
    pub expected_class: ExitClass,
    /// The candidate's exit class.
    pub got_class: ExitClass,
    /// The candidate's stderr tail.
    pub stderr_tail: String,
    /// Set when the candidate made the sandbox fail (twice, the second time on a fresh worker)
    /// while the original, run once more the same way, did not: what the candidate did, in
    /// words. Such a candidate does not behave like its original, so this is a verdict.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_failure: Option<String>,
    /// Set when the candidate behaved like the original but left this many processes running
    /// when it exited, and the original left none (a bounded fork bomb, a daemon).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_running: Option<u32>,
    /// The call of a call-level test (the Python run after the program).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// Whether the test that rejected the candidate was grown by equimorph.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub grown: bool,
}

/// A(x, x') with detail.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Decision {
    /// Whether the candidate behaves like the original on every test.
    pub equivalent: bool,
    /// The first failing test, if any.
    pub failure: Option<TestFailure>,
    /// Tests executed for this decision (0 when cached).
    pub tests_run: usize,
    /// Whether the decision came from the cache.
    pub cached: bool,
    /// Why the candidate is not a program at all (a Java compile error): an invalid
    /// candidate, not a verdict on its behaviour.
    pub invalid: Option<String>,
}

impl Decision {
    /// Whether the candidate was judged not equivalent because it made the sandbox fail (it
    /// killed its test harness, say) where the original did not.
    pub fn broke_sandbox(&self) -> bool {
        self.failure
            .as_ref()
            .is_some_and(|f| f.sandbox_failure.is_some())
    }
}

/// How an original fares on its own tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ValidationStatus {
    /// Passes, deterministically.
    Ok,
    /// Fails its expected outputs or its test_code.
    Failing,
    /// Two runs differ.
    Flaky,
    /// Runs past the time cap.
    Timeout,
    /// Does not parse as Python: there is nothing to transform.
    Unparseable,
    /// The sandbox failed while running it: no verdict (an error of that task).
    Error,
}

/// The verdict on an original, with a reason when not ok.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Validation {
    /// The task id.
    pub id: String,
    /// The verdict.
    pub status: ValidationStatus,
    /// Why, when not ok.
    pub reason: Option<String>,
    /// The recorded reference (from the first run), when ok.
    #[serde(skip)]
    pub reference: Option<Reference>,
}

/// Counters for the search and the report.
#[derive(Debug, Default)]
struct Counters {
    runs: AtomicU64,
    checks: AtomicU64,
    cache_hits: AtomicU64,
    nanos: AtomicU64,
    retries: AtomicU64,
    faults: AtomicU64,
    sandbox_breakers: AtomicU64,
    /// Faulted checks since the last check that reached a verdict.
    faults_in_a_row: AtomicU64,
}

/// After this many faulted checks in a row (none reaching a verdict), the sandbox is taken to
/// be broken: a run should stop rather than fail every task.
pub const BROKEN_AFTER: u64 = 8;

/// A snapshot of the oracle's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct OracleStats {
    /// Program executions.
    pub runs: u64,
    /// Candidate checks decided by running tests.
    pub checks: u64,
    /// Checks answered from the cache.
    pub cache_hits: u64,
    /// Wall time spent in runs (summed over parallel runs).
    pub run_seconds: f64,
    /// Decisions in the cache now.
    pub cache_entries: u64,
    /// Approximate bytes they hold.
    pub cache_bytes: u64,
    /// Runs retried on a fresh worker after the sandbox failed.
    pub retries: u64,
    /// Checks that had no verdict because the sandbox failed twice and so did the original.
    pub faults: u64,
    /// Checks where the candidate made the sandbox fail twice and the original, run once more
    /// the same way, did not: judged not equivalent (the candidate's doing, not a fault).
    #[serde(default)]
    pub sandbox_breakers: u64,
}

/// The oracle.
pub struct Oracle {
    config: OracleConfig,
    isolation: Isolation,
    executor: Executor,
    /// The Java workers, started with the first Java run (`Err`: Java cannot run here).
    java: std::sync::OnceLock<Result<java::JavaPool, String>>,
    /// The C/C++ compile cache and runner, made with the first C or C++ run.
    native: std::sync::OnceLock<Result<native::NativeRunner, String>>,
    launcher: sandbox::Launcher,
    cache: Mutex<cache::DecisionCache>,
    counters: Counters,
}

impl Oracle {
    /// Detects the sandbox and starts the executor.
    pub fn new(config: OracleConfig) -> Result<Self, OracleError> {
        let python_ok = config.python.is_file() || config.python.components().count() == 1;
        if !python_ok {
            return Err(OracleError::NoPython(config.python.clone()));
        }
        let (launcher, isolation) = sandbox::detect(&config.python, &config.limits);
        let settings = RunSettings {
            launcher: launcher.clone(),
            python: config.python.clone(),
            limits: config.limits,
            output_cap: config.output_cap,
        };
        let executor = match config.mode {
            OracleMode::Fork => {
                let pool = ForkPool::new(settings, config.jobs);
                pool.warm_up()
                    .map_err(|e| OracleError::ForkServer(e.to_string()))?;
                Executor::Fork(pool)
            }
            OracleMode::Spawn => Executor::Spawn {
                settings,
                permits: Semaphore::new(config.jobs),
            },
        };
        let cache = cache::DecisionCache::new(config.cache_entries, config.cache_bytes);
        Ok(Oracle {
            config,
            isolation,
            executor,
            java: std::sync::OnceLock::new(),
            native: std::sync::OnceLock::new(),
            launcher,
            cache: Mutex::new(cache),
            counters: Counters::default(),
        })
    }

    /// The isolation in force.
    pub fn isolation(&self) -> &Isolation {
        &self.isolation
    }

    /// The settings.
    pub fn config(&self) -> &OracleConfig {
        &self.config
    }

    /// The limits a program of `language` runs under, in words: Python programs get the
    /// rlimits as they are; a Java program runs in a warm JVM with its own ([`java`]).
    pub fn limits_of(&self, language: Language) -> Vec<String> {
        match language {
            Language::Python => self.isolation.rlimits.clone(),
            Language::Java => java::describe_limits(&self.config.limits),
            Language::Cpp | Language::C => {
                let mut limits = self.isolation.rlimits.clone();
                limits.push(format!(
                    "compiles: {} s, address space {} MiB at least",
                    native::COMPILE_SECONDS,
                    self.config
                        .limits
                        .address_space
                        .max(native::COMPILER_ADDRESS_SPACE)
                        >> 20
                ));
                limits
            }
        }
    }

    /// Runs one program on one input, under the reference hash seed.
    pub fn run(&self, source: &str, stdin: &str, timeout: Duration) -> RunResult {
        self.run_seeded(source, stdin, timeout, REFERENCE_HASH_SEED)
    }

    /// Runs one Python program on one input under string-hash seed `hash_seed`.
    pub fn run_seeded(
        &self,
        source: &str,
        stdin: &str,
        timeout: Duration,
        hash_seed: u32,
    ) -> RunResult {
        self.run_in(Language::Python, source, stdin, timeout, hash_seed)
    }

    /// Runs one program of `language` on one input (Java: compiled once per worker), retried
    /// once on a fresh worker if the sandbox fails.
    pub fn run_in(
        &self,
        language: Language,
        source: &str,
        stdin: &str,
        timeout: Duration,
        hash_seed: u32,
    ) -> RunResult {
        let request = RunRequest {
            source,
            stdin,
            timeout,
            hash_seed,
            language,
        };
        let start = Instant::now();
        let mut r = self.execute(request);
        if r.class == ExitClass::Crash {
            // The sandbox or the worker failed: once more, on a fresh worker (a dead fork
            // server is never reused).
            self.counters.retries.fetch_add(1, Ordering::Relaxed);
            r = self.execute(request);
        }
        self.count_run(start);
        r
    }

    /// One execution without a retry, counted.
    fn run_once(&self, request: RunRequest<'_>) -> RunResult {
        let start = Instant::now();
        let r = self.execute(request);
        self.count_run(start);
        r
    }

    /// Hands a request to the executor of its language.
    fn execute(&self, request: RunRequest<'_>) -> RunResult {
        match request.language {
            Language::Python => self.executor.run(request),
            Language::Java => match self.java_pool() {
                Ok(pool) => pool.run(request.source, request.stdin, request.timeout),
                Err(message) => RunResult::crash(message.clone(), 0.0),
            },
            Language::Cpp | Language::C => match self.native_runner() {
                Ok(runner) => runner.run(
                    request.language,
                    request.source,
                    request.stdin,
                    request.timeout,
                    native::Build::Run,
                ),
                Err(message) => RunResult::crash(message.clone(), 0.0),
            },
        }
    }

    /// The C/C++ runner, made on first use; `Err` says why it cannot work here.
    pub fn native_runner(&self) -> Result<&native::NativeRunner, &String> {
        self.native
            .get_or_init(|| {
                let settings = native::NativeSettings {
                    launcher: self.launcher.clone(),
                    limits: self.config.limits,
                    output_cap: self.config.output_cap,
                    cxx: self.config.cxx.clone(),
                    cc: self.config.cc.clone(),
                    jobs: self.config.jobs,
                };
                native::NativeRunner::new(settings)
                    .map_err(|e| format!("cannot prepare the C/C++ build directory: {e}"))
            })
            .as_ref()
    }

    /// `Err` says why programs of the native `language` cannot be built here (no compiler).
    fn native_ready(&self, language: Language) -> Result<&native::NativeRunner, String> {
        let runner = self.native_runner().map_err(Clone::clone)?;
        if !runner.available(language) {
            let (compiler, package) = match language {
                Language::C => (&self.config.cc, "gcc"),
                _ => (&self.config.cxx, "g++"),
            };
            return Err(format!(
                "{} is not installed ({} not found): install it ({})",
                language.title(),
                compiler.display(),
                crate::install::layout().system_install(package)
            ));
        }
        Ok(runner)
    }

    /// The Java workers, started on first use; `Err` says why Java cannot run here.
    pub fn java_pool(&self) -> Result<&java::JavaPool, &String> {
        self.java
            .get_or_init(|| {
                if !java::java_available(&self.config.java) {
                    return Err(format!(
                        "Java is not installed ({} not found): install a JDK ({}) or pass --java",
                        self.config.java.display(),
                        crate::install::layout().system_install("openjdk-17-jdk-headless")
                    ));
                }
                let settings = java::JavaSettings {
                    launcher: self.launcher.clone(),
                    java: self.config.java.clone(),
                    limits: self.config.limits,
                    output_cap: self.config.output_cap,
                };
                let pool = java::JavaPool::new(settings, self.config.jobs)
                    .map_err(|e| format!("cannot prepare the Java workers: {e}"))?;
                pool.warm_up()
                    .map_err(|e| format!("the Java worker cannot start here: {e}"))?;
                Ok(pool)
            })
            .as_ref()
    }

    /// Counts a run (a retry included) that started at `start`.
    fn count_run(&self, start: Instant) {
        self.counters.runs.fetch_add(1, Ordering::Relaxed);
        self.counters
            .nanos
            .fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
    }

    /// Runs `source` on one test (its stdin, and its call when it has one) under string-hash
    /// seed `hash_seed`, retried once on a fresh worker if the sandbox fails.
    pub fn run_test(
        &self,
        language: Language,
        source: &str,
        test: &crate::task::TestCase,
        timeout: Duration,
        hash_seed: u32,
    ) -> RunResult {
        match &test.call {
            Some(_) => self.run_seeded(&test.program(source), &test.input, timeout, hash_seed),
            None => self.run_in(language, source, &test.input, timeout, hash_seed),
        }
    }

    /// The program to run and the stdin of test `i` of `task` for program text `source`.
    fn test_program<'a>(task: &'a Task, source: &str, i: usize) -> (String, &'a str) {
        if let Some(test) = task.tests.get(i) {
            (test.program(source).into_owned(), test.input.as_str())
        } else {
            let code = task.test_code.as_deref().unwrap_or("");
            (format!("{source}\n\n{code}"), "")
        }
    }

    /// Runs the original once per test with the cap as timeout, under the reference hash seed
    /// (the one candidates run under).
    pub fn reference(&self, task: &Task) -> Reference {
        self.reference_seeded(task, REFERENCE_HASH_SEED)
    }

    fn reference_seeded(&self, task: &Task, hash_seed: u32) -> Reference {
        let runs = (0..task.test_count())
            .map(|i| {
                let (prog, stdin) = Self::test_program(task, &task.source, i);
                let r = self.run_in(task.language, &prog, stdin, self.cap_for(task), hash_seed);
                ReferenceRun {
                    stdout: r.stdout,
                    class: r.class,
                    seconds: r.seconds,
                    stderr: r.stderr_tail,
                    code: r.code,
                    signal: r.signal,
                    left_running: r.left_running,
                }
            })
            .collect();
        Reference { runs }
    }

    /// Runs the original twice and classifies it.
    pub fn validate(&self, task: &Task) -> Validation {
        let verdict = |status, reason: String| Validation {
            id: task.id.clone(),
            status,
            reason: Some(reason),
            reference: None,
        };
        if let Err(e) = crate::program::validate_as(task.language, &task.source) {
            return verdict(
                ValidationStatus::Unparseable,
                format!(
                    "the original does not parse as {}: {e}",
                    task.language.title()
                ),
            );
        }
        if task.language != Language::Python
            && (task.test_code.is_some() || task.tests.iter().any(|t| t.call.is_some()))
        {
            return verdict(
                ValidationStatus::Failing,
                format!(
                    "{} tasks are stdin/stdout programs: test_code and call tests are Python",
                    task.language.title()
                ),
            );
        }
        if task.language == Language::Java {
            if let Err(message) = self.java_pool() {
                return verdict(ValidationStatus::Error, message.clone());
            }
        }
        if task.language.is_native() {
            if let Err(message) = self.native_ready(task.language) {
                return verdict(ValidationStatus::Error, message);
            }
        }
        if task.test_count() == 0 {
            return verdict(ValidationStatus::Failing, "the task has no tests".into());
        }
        let first = self.reference(task);
        for (i, run) in first.runs.iter().enumerate() {
            if run.class == ExitClass::CompileError {
                return verdict(
                    ValidationStatus::Unparseable,
                    format!(
                        "the original does not compile: {}",
                        first_lines(&run.stderr)
                    ),
                );
            }
            if run.class == ExitClass::Timeout {
                return verdict(
                    ValidationStatus::Timeout,
                    format!("test {i} ran past {:?}", self.cap_for(task)),
                );
            }
            if run.class == ExitClass::Crash {
                self.counters.faults.fetch_add(1, Ordering::Relaxed);
                self.counters
                    .faults_in_a_row
                    .fetch_add(1, Ordering::Relaxed);
                return verdict(
                    ValidationStatus::Error,
                    format!(
                        "the sandbox failed on test {i} (after one retry): {}",
                        last_line(&run.stderr)
                    ),
                );
            }
            if run.class == ExitClass::OutputLimit {
                return verdict(
                    ValidationStatus::Failing,
                    format!("test {i}: {}", run.ending()),
                );
            }
            if i < task.tests.len() {
                if let Some(expected) = &task.tests[i].output {
                    if !task
                        .checker
                        .accepts(expected, &run.stdout, self.config.float_tolerance)
                    {
                        return verdict(
                            ValidationStatus::Failing,
                            format!(
                                "test {i}: expected {:?}, got {:?} ({})",
                                clip(expected),
                                clip(&run.stdout),
                                run.ending()
                            ),
                        );
                    }
                }
            } else if run.class != ExitClass::Success {
                let rerun = self.run(
                    &Self::test_program(task, &task.source, i).0,
                    "",
                    self.cap_for(task),
                );
                return verdict(
                    ValidationStatus::Failing,
                    format!(
                        "test_code fails ({:?}): {}",
                        run.class,
                        last_line(&rerun.stderr_tail)
                    ),
                );
            }
        }
        // The second run uses another string-hash seed, so a program whose output depends on
        // the iteration order of a set or dict of strings is always caught as flaky.
        let second = self.reference_seeded(task, SECOND_HASH_SEED);
        for (i, (a, b)) in first.runs.iter().zip(&second.runs).enumerate() {
            if a.class != b.class
                || !outputs_equal(&a.stdout, &b.stdout, self.config.float_tolerance)
            {
                return verdict(
                    ValidationStatus::Flaky,
                    format!(
                        "test {i}: two runs differ ({:?} vs {:?})",
                        clip(&a.stdout),
                        clip(&b.stdout)
                    ),
                );
            }
        }
        if let Some(reason) = self.undefined_behaviour(task, &first) {
            return verdict(ValidationStatus::Flaky, reason);
        }
        self.counters.faults_in_a_row.store(0, Ordering::Relaxed);
        Validation {
            id: task.id.clone(),
            status: ValidationStatus::Ok,
            reason: None,
            reference: Some(first),
        }
    }

    /// For a C or C++ original: why its behaviour depends on how it is compiled (its output
    /// at `-O0` or `-O2` differs from `first`'s, the run build's), which is the mark of
    /// undefined behaviour that any rewrite may change. `None`: stable, or not native.
    fn undefined_behaviour(&self, task: &Task, first: &Reference) -> Option<String> {
        if !task.language.is_native() {
            return None;
        }
        let runner = self.native_runner().ok()?;
        for build in [native::Build::Unoptimised, native::Build::Optimised] {
            for (i, reference) in first.runs.iter().enumerate() {
                let stdin = task.tests.get(i).map_or("", |t| t.input.as_str());
                let start = Instant::now();
                let r = runner.run(
                    task.language,
                    &task.source,
                    stdin,
                    self.cap_for(task),
                    build,
                );
                self.count_run(start);
                if r.class == ExitClass::Crash {
                    continue;
                }
                if r.class != reference.class
                    || !outputs_equal(&reference.stdout, &r.stdout, self.config.float_tolerance)
                {
                    return Some(format!(
                        "test {i}: built with {} it prints {:?} ({:?}), with {} {:?} ({:?}): \
                         its output depends on undefined behaviour",
                        native::Build::Run.flag(),
                        clip(&reference.stdout),
                        reference.class,
                        build.flag(),
                        clip(&r.stdout),
                        r.class
                    ));
                }
            }
        }
        None
    }

    /// The timeout of a candidate of `task` on a test the original ran in `seconds`.
    pub fn candidate_timeout(&self, task: &Task, seconds: f64) -> Duration {
        let t = Duration::from_secs_f64((seconds * self.config.timeout_factor).max(0.0));
        let cap = self.cap_for(task);
        t.clamp(self.config.timeout_floor.min(cap), cap)
    }

    /// The longest a run of `task` may take: the dataset's time limit × [`TIME_LIMIT_SLACK`]
    /// (never below `--timeout-floor`) when the task has one, `--timeout-cap` otherwise.
    pub fn cap_for(&self, task: &Task) -> Duration {
        match task.time_limit_ms {
            Some(ms) => Duration::from_millis(ms)
                .mul_f64(TIME_LIMIT_SLACK)
                .max(self.config.timeout_floor),
            None => self.config.timeout_cap,
        }
    }

    /// A(x, x'): whether `candidate` behaves like the original of `task` (whose behaviour is
    /// `reference`). Cached by (task id, candidate hash). A failure of the sandbox (twice: the
    /// run is retried once on a fresh worker) is an [`OracleFault`], never a verdict.
    pub fn check(
        &self,
        task: &Task,
        reference: &Reference,
        candidate: &str,
    ) -> Result<Decision, OracleFault> {
        // Grown tests are appended to a task, so its test count is part of the key: a decision
        // taken on fewer tests is never reused for more.
        let key = (
            format!("{}#{}", task.id, task.test_count()),
            ProgramHash::of(candidate),
        );
        let hit = self
            .cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key);
        if let Some(d) = hit {
            self.counters.cache_hits.fetch_add(1, Ordering::Relaxed);
            return Ok(Decision {
                cached: true,
                tests_run: 0,
                ..d
            });
        }
        self.counters.checks.fetch_add(1, Ordering::Relaxed);
        let mut decision = Decision {
            equivalent: true,
            failure: None,
            tests_run: 0,
            cached: false,
            invalid: None,
        };
        for (i, expected) in reference.runs.iter().enumerate() {
            let (prog, stdin) = Self::test_program(task, candidate, i);
            let got = self.run_in(
                task.language,
                &prog,
                stdin,
                self.candidate_timeout(task, expected.seconds),
                REFERENCE_HASH_SEED,
            );
            decision.tests_run += 1;
            if got.class == ExitClass::CompileError {
                // Not a verdict: the candidate is not a program. Cached like one (compiling
                // is deterministic).
                decision.equivalent = false;
                decision.invalid = Some(first_lines(&got.stderr_tail));
                break;
            }
            let mut sandbox_failure = None;
            if got.class == ExitClass::Crash {
                // Twice (the run was retried on a fresh worker). Whose doing is it? The
                // original, run once more the same way, tells: if it runs normally, the
                // candidate broke its harness and does not behave like the original.
                match self.original_also_faults(task, i) {
                    Some(original) => {
                        self.counters.faults.fetch_add(1, Ordering::Relaxed);
                        self.counters
                            .faults_in_a_row
                            .fetch_add(1, Ordering::Relaxed);
                        return Err(OracleFault {
                            reason: format!(
                                "test {i}: {} (the original failed the same way: {})",
                                last_line(&got.stderr_tail),
                                last_line(&original)
                            ),
                        });
                    }
                    None => {
                        self.counters
                            .sandbox_breakers
                            .fetch_add(1, Ordering::Relaxed);
                        sandbox_failure = Some(describe_sandbox_failure(&got.stderr_tail));
                    }
                }
            }
            // Processes outliving the program are behaviour too: what they print after it
            // exits is lost only by timing.
            let left_behind = got.left_running > 0 && expected.left_running == 0;
            let same = got.class == expected.class
                && !left_behind
                && (i >= task.tests.len()
                    || outputs_equal(&expected.stdout, &got.stdout, self.config.float_tolerance));
            if !same {
                decision.equivalent = false;
                // Excerpts only: a failing decision is kept in the cache, and outputs can be
                // megabytes long.
                decision.failure = Some(TestFailure {
                    test: i,
                    input: excerpt(stdin),
                    expected: excerpt(&expected.stdout),
                    got: excerpt(&got.stdout),
                    expected_class: expected.class,
                    got_class: got.class,
                    stderr_tail: excerpt(&got.stderr_tail),
                    sandbox_failure,
                    left_running: left_behind.then_some(got.left_running),
                    call: task.tests.get(i).and_then(|t| t.call.clone()),
                    grown: task.tests.get(i).is_some_and(|t| t.grown),
                });
                break;
            }
        }
        self.counters.faults_in_a_row.store(0, Ordering::Relaxed);
        self.cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key, decision.clone());
        Ok(decision)
    }

    /// Runs the original on test `i` once more, on whatever worker is free (never the one
    /// that just died) and without a retry: `None` when it runs without a sandbox failure,
    /// otherwise the failure's message. Called after a candidate made the sandbox fail twice,
    /// to tell the candidate's doing from the machinery's.
    fn original_also_faults(&self, task: &Task, i: usize) -> Option<String> {
        let (prog, stdin) = Self::test_program(task, &task.source, i);
        let r = self.run_once(RunRequest {
            source: &prog,
            stdin,
            timeout: self.cap_for(task),
            hash_seed: REFERENCE_HASH_SEED,
            language: task.language,
        });
        (r.class == ExitClass::Crash).then_some(r.stderr_tail)
    }

    /// Whether the last [`BROKEN_AFTER`] checks all failed for the sandbox's own reasons.
    pub fn broken(&self) -> bool {
        self.counters.faults_in_a_row.load(Ordering::Relaxed) >= BROKEN_AFTER
    }

    /// The counters so far.
    pub fn stats(&self) -> OracleStats {
        let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        OracleStats {
            runs: self.counters.runs.load(Ordering::Relaxed),
            checks: self.counters.checks.load(Ordering::Relaxed),
            cache_hits: self.counters.cache_hits.load(Ordering::Relaxed),
            run_seconds: self.counters.nanos.load(Ordering::Relaxed) as f64 / 1e9,
            cache_entries: cache.len() as u64,
            cache_bytes: cache.bytes() as u64,
            retries: self.counters.retries.load(Ordering::Relaxed),
            faults: self.counters.faults.load(Ordering::Relaxed),
            sandbox_breakers: self.counters.sandbox_breakers.load(Ordering::Relaxed),
        }
    }
}

/// A shared oracle.
pub type SharedOracle = Arc<Oracle>;

/// How many times a dataset's per-test time limit a run may take here: the limit was set for
/// the judge's machine and language mix (CodeContests and CodeNet limits also bind C++), and
/// an accepted Python solution near it on the judge can run slower on a busy, sandboxed host.
pub const TIME_LIMIT_SLACK: f64 = 2.0;

/// Longest excerpt of a test's input or output kept in a decision, in characters.
pub const EXCERPT_CHARS: usize = 2000;

/// The first [`EXCERPT_CHARS`] characters of `s`, with a note of how much was cut.
fn excerpt(s: &str) -> String {
    match s.char_indices().nth(EXCERPT_CHARS) {
        None => s.to_string(),
        Some((i, _)) => format!("{}… [{} more bytes]", &s[..i], s.len() - i),
    }
}

/// What a candidate that made the sandbox fail did, in words, from the failure's message.
fn describe_sandbox_failure(message: &str) -> String {
    let what = last_line(message);
    if what.contains("fork server died") {
        format!("the candidate killed its test harness ({what}); the original, run again the same way, did not")
    } else {
        format!("the candidate made the sandbox fail: {what}; the original, run again the same way, did not")
    }
}

fn clip(s: &str) -> String {
    if s.chars().count() > 200 {
        format!("{}…", s.chars().take(200).collect::<String>())
    } else {
        s.to_string()
    }
}

/// The last non-blank line of `s`, trimmed (what a traceback says went wrong).
/// The first lines of a compiler's messages (enough to say what is wrong).
fn first_lines(s: &str) -> String {
    let lines: Vec<&str> = s.lines().take(3).collect();
    clip(&lines.join(" | "))
}

pub(crate) fn last_line(s: &str) -> String {
    s.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string()
}
