//! C++ oracle throughput, side by side in one run on all cores: test runs per second of a
//! small program compiled once, and of fresh programs (each compiled, as every new candidate
//! is) with `<iostream>` and with `<bits/stdc++.h>` (through its precompiled header); the
//! compile cost per candidate those give; and the time of validating the C++ fixtures (three
//! builds of each original). Run with `cargo bench --bench cpp_oracle`. Prints a table; no
//! assertions.

use equimorph::oracle::{Oracle, OracleConfig};
use equimorph::program::Language;
use rayon::prelude::*;
use std::path::Path;
use std::time::{Duration, Instant};

const PROGRAM: &str = "#include <iostream>\nint main() {\n    int n;\n    std::cin >> n;\n    long long s = 0;\n    for (int i = 1; i <= n; i++) s += 1LL * i * i;\n    std::cout << s << '\\n';\n}\n";

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let n: usize = std::env::var("EQUIMORPH_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let oracle = Oracle::new(OracleConfig::default()).expect("oracle");
    let jobs = oracle.config().jobs;
    let t = Duration::from_secs(10);
    let bits = PROGRAM.replace("#include <iostream>", "#include <bits/stdc++.h>");
    // Compile the program once, and the precompiled header of the run build.
    oracle.run_in(Language::Cpp, PROGRAM, "3\n", t, 0);
    oracle.run_in(Language::Cpp, &bits, "3\n", t, 0);
    let mut rows = Vec::new();
    let start = Instant::now();
    (0..n).into_par_iter().for_each(|i| {
        let r = oracle.run_in(Language::Cpp, PROGRAM, &format!("{}\n", i % 50), t, 0);
        assert!(r.stdout.ends_with('\n'), "{}", r.stderr_tail);
    });
    rows.push(("program compiled once", n, start.elapsed()));
    let fresh = (n / 10).max(jobs);
    for (name, source) in [
        (
            "a new program each run, <iostream> (compile + run)",
            PROGRAM.to_string(),
        ),
        (
            "a new program each run, <bits/stdc++.h> (compile + run)",
            bits.clone(),
        ),
    ] {
        let start = Instant::now();
        (0..fresh).into_par_iter().for_each(|i| {
            let candidate = format!("{source}// candidate {i} {name}\n");
            let r = oracle.run_in(Language::Cpp, &candidate, "5\n", t, 0);
            assert_eq!(r.stdout, "55\n", "{}", r.stderr_tail);
        });
        rows.push((name, fresh, start.elapsed()));
    }
    let tasks =
        equimorph::task::load(&root.join("fixtures/cpp/tasks.jsonl"), None).expect("fixtures");
    let start = Instant::now();
    let valid = tasks
        .tasks
        .par_iter()
        .filter(|t| oracle.validate(t).status == equimorph::oracle::ValidationStatus::Ok)
        .count();
    let validate = start.elapsed();
    println!(
        "C++ oracle, {jobs} workers ({}):",
        oracle.isolation().launcher
    );
    println!(
        "{:<58} {:>6} {:>9} {:>10}",
        "mode", "runs", "seconds", "runs/s"
    );
    for (name, runs, took) in &rows {
        println!(
            "{:<58} {:>6} {:>9.2} {:>10.1}",
            name,
            runs,
            took.as_secs_f64(),
            *runs as f64 / took.as_secs_f64()
        );
    }
    if let Ok(runner) = oracle.native_runner() {
        let s = runner.stats();
        println!(
            "compiles: {} ({} failed), {:.1} s in all, {:.3} s each on average (wall, {jobs} at once)",
            s.compiles,
            s.errors,
            s.seconds,
            s.seconds / s.compiles.max(1) as f64
        );
    }
    println!(
        "validate {} C++ fixture tasks ({valid} ok; each original built at -O1, -O0 and -O2): {:.2} s",
        tasks.tasks.len(),
        validate.as_secs_f64()
    );
}
