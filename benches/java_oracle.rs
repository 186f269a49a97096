//! Java oracle throughput, side by side in one run on all cores: test runs per second of a
//! small program in the warm workers (compiled once), of fresh programs (each compiled, as every
//! new candidate is), and of a cold `java` start per run (the design the workers replace); and
//! the time of validating the Java fixtures. Run with `cargo bench --bench java_oracle`.
//! Prints a table; no assertions.

use equimorph::oracle::{Oracle, OracleConfig};
use equimorph::program::Language;
use rayon::prelude::*;
use std::path::Path;
use std::time::{Duration, Instant};

const PROGRAM: &str = "import java.util.*;\npublic class Main {\n    public static void main(String[] args) {\n        Scanner in = new Scanner(System.in);\n        int n = in.nextInt();\n        long s = 0;\n        for (int i = 1; i <= n; i++) s += (long) i * i;\n        System.out.println(s);\n    }\n}\n";

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let n: usize = std::env::var("EQUIMORPH_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let oracle = Oracle::new(OracleConfig::default()).expect("oracle");
    let jobs = oracle.config().jobs;
    let t = Duration::from_secs(10);
    // Start every worker once.
    (0..jobs * 2).into_par_iter().for_each(|_| {
        oracle.run_in(Language::Java, PROGRAM, "3\n", t, 0);
    });
    let mut rows = Vec::new();
    let start = Instant::now();
    (0..n).into_par_iter().for_each(|i| {
        let r = oracle.run_in(Language::Java, PROGRAM, &format!("{}\n", i % 50), t, 0);
        assert!(r.stdout.ends_with('\n'), "{}", r.stderr_tail);
    });
    rows.push(("warm workers, program compiled once", n, start.elapsed()));
    let fresh = n / 4;
    let start = Instant::now();
    (0..fresh).into_par_iter().for_each(|i| {
        let source = format!("{PROGRAM}// candidate {i}\n");
        let r = oracle.run_in(Language::Java, &source, "5\n", t, 0);
        assert_eq!(r.stdout, "55\n", "{}", r.stderr_tail);
    });
    rows.push((
        "warm workers, a new program each run (javac + run)",
        fresh,
        start.elapsed(),
    ));
    // A cold JVM per run, the class compiled beforehand (no sandbox: a lower bound on its cost).
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("Main.java"), PROGRAM).expect("write");
    let ok = std::process::Command::new("javac")
        .arg("Main.java")
        .current_dir(dir.path())
        .status()
        .is_ok_and(|s| s.success());
    if ok {
        let cold = (n / 10).max(jobs);
        let start = Instant::now();
        (0..cold).into_par_iter().for_each(|_| {
            let out = std::process::Command::new("java")
                .args(["-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", "."])
                .arg("Main")
                .current_dir(dir.path())
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .spawn()
                .and_then(|mut c| {
                    use std::io::Write;
                    c.stdin.take().expect("stdin").write_all(b"5\n")?;
                    c.wait_with_output()
                })
                .expect("java runs");
            assert_eq!(String::from_utf8_lossy(&out.stdout), "55\n");
        });
        rows.push((
            "cold `java` per run (precompiled, no sandbox)",
            cold,
            start.elapsed(),
        ));
    }
    let tasks =
        equimorph::task::load(&root.join("fixtures/java/tasks.jsonl"), None).expect("fixtures");
    let start = Instant::now();
    let valid = tasks
        .tasks
        .par_iter()
        .filter(|t| oracle.validate(t).status == equimorph::oracle::ValidationStatus::Ok)
        .count();
    let validate = start.elapsed();
    println!(
        "Java oracle, {jobs} workers ({}):",
        oracle.isolation().launcher
    );
    println!(
        "{:<55} {:>6} {:>9} {:>10}",
        "mode", "runs", "seconds", "runs/s"
    );
    for (name, runs, took) in &rows {
        println!(
            "{:<55} {:>6} {:>9.2} {:>10.1}",
            name,
            runs,
            took.as_secs_f64(),
            *runs as f64 / took.as_secs_f64()
        );
    }
    let runs = tasks
        .tasks
        .iter()
        .map(|t| t.test_count() * 2)
        .sum::<usize>();
    println!(
        "validate {} Java fixture tasks ({valid} ok, {runs} runs, each program compiled once per worker): {:.2} s",
        tasks.tasks.len(),
        validate.as_secs_f64()
    );
}
