//! Test helpers shared by the SPT crates (native builds only).
//!
//! [`fixture_tests!`](crate::fixture_tests) generates, for a crate with a `fixtures/` folder of
//! Python programs, snapshot tests of its outputs (seeds 0 and 1), a determinism test (same seed, same bytes;
//! some seeds differ), and a
//! behaviour test that runs every fixture and every output with `python3` and compares stdout
//! and exit status, and the same behaviour test at every candidate site of every fixture in turn
//! (through the crate's `apply_at_site`, which [`declare_transform!`](crate::declare_transform)
//! defines), so that no site is left to the luck of the seeds.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The `.py` files of `dir`, sorted.
pub fn fixture_files(dir: &Path) -> Vec<PathBuf> {
    fixture_files_with(dir, "py")
}

/// The files of `dir` with extension `ext`, sorted.
pub fn fixture_files_with(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == ext));
    files.sort();
    files
}

/// Whether `source` parses as Python.
pub fn parses_as_python(source: &str) -> bool {
    crate::Parsed::new(source).is_ok()
}

/// Whether `source` parses as Java.
pub fn parses_as_java(source: &str) -> bool {
    crate::java::JavaParsed::new(source).is_ok()
}

/// Whether `source` parses as C++.
pub fn parses_as_cpp(source: &str) -> bool {
    crate::cpp::CppParsed::new(source).is_ok()
}

/// What every C++ fixture reads on stdin: integers (one past `int`), a negative, floating
/// values, a character, words and a line, so SPTs that rewrite input statements are checked on
/// real reads. Fixtures that read nothing are unaffected.
pub const CPP_FIXTURE_STDIN: &str =
    "7 -3 3000000000 2.5 x\nword 12 0.125\n4 1 2 3 4\nthe last line\n";

/// Compiles `source` with `g++ -std=gnu++17 -O1` (the oracle's run build) and runs it with
/// [`CPP_FIXTURE_STDIN`] as stdin and a 10 s limit; returns (exit code, stdout, stderr). A compile error is exit code
/// -2 with the compiler's messages as stderr; a run past the limit is -3.
pub fn run_cpp(source: &str) -> (i32, String, String) {
    run_native(source, "g++", &["-std=gnu++17", "-x", "c++"])
}

/// Like [`run_cpp`] for a C program: `gcc -std=gnu11 -O1` (the oracle's C run build).
pub fn run_c(source: &str) -> (i32, String, String) {
    run_native(source, "gcc", &["-std=gnu11", "-x", "c"])
}

/// What one native program did: (exit code, stdout, stderr).
type NativeRun = (i32, String, String);

/// Runs already made in this test binary, by compiler and source. SPT outputs repeat a lot
/// (two seeds at one site, one site's output in two tests), and each compile costs most of a
/// second, so a program is compiled and run once per binary; fixtures are deterministic.
static NATIVE_RUNS: std::sync::LazyLock<
    std::sync::Mutex<std::collections::HashMap<(String, String), NativeRun>>,
> = std::sync::LazyLock::new(Default::default);

fn run_native(source: &str, compiler: &str, language: &[&str]) -> NativeRun {
    let key = (compiler.to_string(), source.to_string());
    let done = NATIVE_RUNS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&key)
        .cloned();
    if let Some(done) = done {
        return done;
    }
    let run = compile_and_run(source, compiler, language);
    NATIVE_RUNS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, run.clone());
    run
}

/// The flags of every native test compile after the language ones (the oracle's run build).
const NATIVE_FLAGS: [&str; 3] = ["-O1", "-pipe", "-w"];

/// The include directory of a precompiled `bits/stdc++.h` for the C++ test compiles, built
/// once per user, compiler version and flags (in the temporary directory, written under a
/// temporary name and renamed, so concurrent test binaries never read half of one). It takes
/// a compile from about 0.8 s to 0.2 s; g++ uses it only where it is valid and otherwise
/// reads the copied header, which is the system's own. `None` when it cannot be built.
fn cpp_pch(language: &[&str]) -> Option<PathBuf> {
    use std::hash::{Hash, Hasher};
    use std::process::Stdio;
    let flags: Vec<&str> = language
        .iter()
        .filter(|f| **f != "-x" && **f != "c++")
        .copied()
        .chain(NATIVE_FLAGS)
        .collect();
    // The system header: the first include directory that has it.
    let probe = Command::new("g++")
        .args(["-std=gnu++17", "-x", "c++", "-E", "-v", "-"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .ok()?;
    let probe = String::from_utf8_lossy(&probe.stderr).into_owned();
    let header = probe
        .lines()
        .skip_while(|l| !l.starts_with("#include <...> search starts here"))
        .skip(1)
        .take_while(|l| l.starts_with(' '))
        .map(|l| Path::new(l.trim()).join("bits/stdc++.h"))
        .find(|p| p.is_file())?;
    let text = std::fs::read(&header).ok()?;
    let version = Command::new("g++").arg("--version").output().ok()?.stdout;
    // A fixed-key hash: the same directory for every test binary of this compiler and flags.
    let mut key = std::hash::DefaultHasher::new();
    (&version, &flags, &text).hash(&mut key);
    // Per user, and never a directory another user made (it could hold any header).
    let uid = owner(Path::new("/proc/self"))?;
    let root = std::env::temp_dir().join(format!("equimorph-sdk-pch-{uid}-{:016x}", key.finish()));
    std::fs::create_dir_all(&root).ok()?;
    if owner(&root)? != uid {
        return None;
    }
    let bits = root.join("bits");
    let gch = bits.join("stdc++.h.gch");
    if gch.is_file() {
        return Some(root);
    }
    std::fs::create_dir_all(&bits).ok()?;
    std::fs::write(bits.join("stdc++.h"), &text).ok()?;
    let tmp = bits.join(format!("stdc++.h.gch.{}", std::process::id()));
    let built = Command::new("g++")
        .args(&flags)
        .args(["-x", "c++-header"])
        .arg(bits.join("stdc++.h"))
        .arg("-o")
        .arg(&tmp)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !built || std::fs::rename(&tmp, &gch).is_err() {
        let _ = std::fs::remove_file(&tmp);
        return None;
    }
    Some(root)
}

/// The user id that owns `path`; none off Unix (the guests' own wasm target builds this module
/// too, and there no precompiled header is made).
fn owner(path: &Path) -> Option<u32> {
    #[cfg(unix)]
    {
        std::fs::metadata(path)
            .ok()
            .map(|m| std::os::unix::fs::MetadataExt::uid(&m))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

static CPP_PCH: std::sync::OnceLock<Option<PathBuf>> = std::sync::OnceLock::new();

fn compile_and_run(source: &str, compiler: &str, language: &[&str]) -> NativeRun {
    use std::io::Write;
    use std::process::Stdio;
    let dir = std::env::temp_dir().join(format!(
        "equimorph-sdk-native-{}-{}",
        std::process::id(),
        unique()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let binary = dir.join("prog");
    let pch = (compiler == "g++" && source.contains("bits/stdc++.h"))
        .then(|| CPP_PCH.get_or_init(|| cpp_pch(language)).as_ref())
        .flatten();
    let mut cc = Command::new(compiler);
    if let Some(root) = pch {
        cc.arg("-I").arg(root);
    }
    let mut cc = cc
        .args(language)
        .args(NATIVE_FLAGS)
        .args(["-", "-lm", "-o"])
        .arg(&binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{compiler} runs (install it: `make setup`): {e}"));
    cc.stdin
        .take()
        .expect("stdin")
        .write_all(source.as_bytes())
        .expect("write the source");
    let compiled = cc.wait_with_output().expect("g++ ends");
    if !compiled.status.success() {
        let _ = std::fs::remove_dir_all(&dir);
        return (
            -2,
            String::new(),
            String::from_utf8_lossy(&compiled.stderr).into_owned(),
        );
    }
    let mut child = Command::new(&binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    if let Some(mut stdin) = child.stdin.take() {
        // A program that exits before reading it all closes the pipe: not an error here.
        let _ = stdin.write_all(CPP_FIXTURE_STDIN.as_bytes());
    }
    let start = std::time::Instant::now();
    let code = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status.code().unwrap_or(-1);
        }
        if start.elapsed() > std::time::Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            break -3;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    let out = child.wait_with_output().expect("output");
    let _ = std::fs::remove_dir_all(&dir);
    (
        code,
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A warm JVM running equimorph's Java worker (the oracle's own, outside any sandbox), shared
/// by the tests of one binary: compiling and running a fixture costs milliseconds, not a JVM
/// start.
struct JavaRunner {
    child: std::process::Child,
}

static JAVA: std::sync::Mutex<Option<JavaRunner>> = std::sync::Mutex::new(None);

fn java_frame_write(w: &mut impl std::io::Write, data: &[u8]) {
    w.write_all(&(data.len() as u32).to_le_bytes())
        .expect("write to the Java worker");
    w.write_all(data).expect("write to the Java worker");
}

fn java_frame_read(r: &mut impl std::io::Read) -> Vec<u8> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len).expect("the Java worker answers");
    let mut buf = vec![0u8; u32::from_le_bytes(len) as usize];
    r.read_exact(&mut buf).expect("the Java worker answers");
    buf
}

/// Compiles and runs a Java program (no stdin) in the shared worker; returns (exit code,
/// stdout, stderr). A compile error is exit code -2 with the compiler's messages as stderr.
pub fn run_java(source: &str) -> (i32, String, String) {
    use std::io::Write;
    use std::process::Stdio;
    let mut slot = JAVA.lock().unwrap_or_else(|p| p.into_inner());
    if slot.is_none() {
        let dir = std::env::temp_dir().join(format!("equimorph-sdk-java-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let file = dir.join("JavaWorker.java");
        std::fs::write(&file, include_str!("../../../src/oracle/JavaWorker.java"))
            .expect("write worker");
        let mut child = Command::new("java")
            .args([
                "-XX:+UseSerialGC",
                "-XX:-UsePerfData",
                "-Djava.security.manager=allow",
                "-Xmx512m",
            ])
            .arg(&file)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("java runs (install a JDK: `make setup`)");
        let ready = java_frame_read(child.stdout.as_mut().expect("stdout"));
        assert!(String::from_utf8_lossy(&ready).contains("ready"));
        // The source launcher compiled the worker in memory before it said ready; the static
        // runner is never dropped, so the directory goes now or never.
        let _ = std::fs::remove_dir_all(&dir);
        *slot = Some(JavaRunner { child });
    }
    let runner = slot.as_mut().expect("worker");
    let stdin = runner.child.stdin.as_mut().expect("stdin");
    java_frame_write(stdin, br#"{"timeout": 10, "cap": 4194304}"#);
    java_frame_write(stdin, source.as_bytes());
    java_frame_write(stdin, b"");
    stdin.flush().expect("flush");
    let stdout = runner.child.stdout.as_mut().expect("stdout");
    let result = String::from_utf8_lossy(&java_frame_read(stdout)).into_owned();
    let out = String::from_utf8_lossy(&java_frame_read(stdout)).into_owned();
    let err = String::from_utf8_lossy(&java_frame_read(stdout)).into_owned();
    if result.contains("\"dirty\":true") {
        // The worker ended itself (a timeout, say): the next run starts a fresh one.
        let _ = runner.child.kill();
        let _ = runner.child.wait();
        *slot = None;
    }
    let code = if result.contains("compile_error") {
        -2
    } else if result.contains("\"timeout\"") {
        -3
    } else {
        result
            .split("\"code\":")
            .nth(1)
            .and_then(|r| r.split([',', '}']).next())
            .and_then(|c| c.trim().parse().ok())
            .unwrap_or(-1)
    };
    (code, out, err)
}

/// Runs `source` with `python3 -I` in a temporary directory; returns (exit code, stdout, stderr).
pub fn run_python(source: &str) -> (i32, String, String) {
    let dir =
        std::env::temp_dir().join(format!("equimorph-sdk-{}-{}", std::process::id(), unique()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("prog.py");
    std::fs::write(&file, source).expect("write program");
    let out = Command::new("python3")
        .arg("-I")
        .arg(&file)
        .current_dir(&dir)
        .env_clear()
        .env("PYTHONHASHSEED", "0")
        .output()
        .expect("python3 runs");
    let _ = std::fs::remove_dir_all(&dir);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// Renders an outcome for a snapshot.
pub fn render(out: &crate::Outcome) -> String {
    match out {
        Ok(Some(s)) => s.clone(),
        Ok(None) => "<not applicable>".to_string(),
        Err(e) => format!("<error: {e}>"),
    }
}

/// Generates the standard tests of an SPT crate (see the module docs).
// `crate::` deliberately names the invoking crate, where apply_at_site is defined.
#[allow(clippy::crate_in_macro_def)]
#[macro_export]
macro_rules! fixture_tests {
    ($apply:path) => {
        $crate::fixture_tests!(@with $apply, "py", $crate::testing::parses_as_python, $crate::testing::run_python);
    };
    (@with $apply:path, $ext:expr, $parses:path, $run:path) => {
        fn __fixtures() -> Vec<(String, String)> {
            let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
            let files = $crate::testing::fixture_files_with(&dir, $ext);
            assert!(!files.is_empty(), "no fixtures in {}", dir.display());
            files
                .into_iter()
                .map(|f| {
                    let stem = f.file_stem().unwrap().to_string_lossy().into_owned();
                    (stem, std::fs::read_to_string(&f).unwrap())
                })
                .collect()
        }

        #[test]
        fn snapshots_of_fixtures() {
            let mut settings = insta::Settings::clone_current();
            settings.set_snapshot_path(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots"));
            settings.set_prepend_module_to_snapshot(false);
            settings.bind(|| {
                for (stem, src) in __fixtures() {
                    for seed in [0u64, 1] {
                        let out = $apply(&src, seed);
                        insta::assert_snapshot!(format!("{stem}-seed{seed}"), $crate::testing::render(&out));
                    }
                }
            });
        }

        #[test]
        fn same_seed_same_bytes_and_outputs_parse() {
            let mut applied = 0;
            let mut differs = false;
            for (stem, src) in __fixtures() {
                let mut seen = std::collections::HashSet::new();
                for seed in 0u64..8 {
                    let a = $apply(&src, seed);
                    let b = $apply(&src, seed);
                    assert_eq!(a, b, "{stem}: seed {seed} is not deterministic");
                    if let Ok(Some(out)) = &a {
                        applied += 1;
                        assert!($parses(out), "{stem} seed {seed}: output does not parse:\n{out}");
                        assert_ne!(out, &src, "{stem}: unchanged output must be reported as not applicable");
                        seen.insert(out.clone());
                    }
                }
                differs |= seen.len() > 1;
            }
            assert!(applied > 0, "the transform applied to no fixture");
            assert!(differs, "different seeds never gave different outputs on any fixture");
        }

        #[test]
        fn every_site_of_every_fixture_behaves_like_it() {
            let mut total = 0usize;
            for (stem, src) in __fixtures() {
                let expected = $run(&src);
                let mut site = 0usize;
                loop {
                    let mut offered = 0usize;
                    for seed in 0u64..2 {
                        let (out, n) = crate::apply_at_site(&src, seed, site);
                        offered = offered.max(n);
                        match out {
                            Ok(Some(out)) => {
                                total += 1;
                                assert!($parses(&out), "{stem} site {site} seed {seed}: output does not parse:\n{out}");
                                let got = $run(&out);
                                assert_eq!(
                                    (got.0, &got.1),
                                    (expected.0, &expected.1),
                                    "{stem} site {site} seed {seed}: behaviour changed.\n--- output program ---\n{out}\n--- stderr ---\n{}",
                                    got.2
                                );
                            }
                            Ok(None) => {}
                            Err(e) => panic!("{stem} site {site} seed {seed}: error {e}"),
                        }
                    }
                    site += 1;
                    if site >= offered {
                        break;
                    }
                }
            }
            assert!(total > 0, "no site of any fixture was rewritten");
        }

        #[test]
        fn outputs_behave_like_fixtures() {
            for (stem, src) in __fixtures() {
                let expected = $run(&src);
                assert_eq!(expected.0, 0, "{stem}: fixture itself fails: {}", expected.2);
                for seed in 0u64..8 {
                    if let Ok(Some(out)) = $apply(&src, seed) {
                        let got = $run(&out);
                        assert_eq!(
                            (got.0, &got.1),
                            (expected.0, &expected.1),
                            "{stem} seed {seed}: behaviour changed.\n--- output program ---\n{out}\n--- stderr ---\n{}",
                            got.2
                        );
                    }
                }
            }
        }
    };
}

/// Generates the standard tests of a Java SPT crate: the same as [`fixture_tests!`] on the
/// crate's `fixtures/*.java` (programs with a `main`, no input), run by [`run_java`]. An output
/// that does not compile fails the behaviour tests (its exit code is -2).
#[macro_export]
macro_rules! java_fixture_tests {
    ($apply:path) => {
        $crate::fixture_tests!(@with $apply, "java", $crate::testing::parses_as_java, $crate::testing::run_java);
    };
}

/// Generates the standard tests of a C++ SPT crate: the same as [`fixture_tests!`] on the
/// crate's `fixtures/*.cpp` (programs with a `main`, no input), compiled and run by
/// [`run_cpp`]. An output that does not compile fails the behaviour tests (exit code -2).
#[macro_export]
macro_rules! cpp_fixture_tests {
    ($apply:path) => {
        $crate::fixture_tests!(@with $apply, "cpp", $crate::testing::parses_as_cpp, $crate::testing::run_cpp);
    };
}

/// Generates the standard tests of a C++ SPT crate on C programs, for crates that declare
/// `languages: "cpp c"`: the same as [`fixture_tests!`] on the crate's `fixtures/*.c`, compiled
/// and run by [`run_c`], so an output that is C++ but not C fails. They go in a module `c` of
/// their own, beside the C++ ones; the `.c` fixtures' stems must differ from the `.cpp` ones
/// (their snapshots share a folder).
#[macro_export]
macro_rules! c_fixture_tests {
    ($apply:path) => {
        mod c {
            use super::*;
            $crate::fixture_tests!(@with $apply, "c", $crate::testing::parses_as_cpp, $crate::testing::run_c);
        }
    };
}

/// Asserts that `apply` declines (`Ok(None)`) every source in `sources` for seeds `0..seeds`.
pub fn assert_declines(apply: fn(&str, u64) -> crate::Outcome, sources: &[&str], seeds: u64) {
    for src in sources {
        for seed in 0..seeds {
            assert_eq!(
                apply(src, seed),
                Ok(None),
                "should decline (seed {seed}):\n{src}"
            );
        }
    }
}
