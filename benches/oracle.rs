//! Oracle throughput: trivial test executions per second, spawn vs fork server, side by side
//! in one run on all cores; and the time of validating the fixtures in both modes.
//! Run with `cargo bench --bench oracle`. Prints a table; no assertions.

use equimorph::oracle::{Oracle, OracleConfig, OracleMode};
use rayon::prelude::*;
use std::path::Path;
use std::time::{Duration, Instant};

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let n: usize = std::env::var("EQUIMORPH_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let tasks = equimorph::task::load(&root.join("fixtures/tasks.jsonl"), None).expect("fixtures");
    let mut rows = Vec::new();
    for mode in [OracleMode::Spawn, OracleMode::Fork] {
        let oracle = Oracle::new(OracleConfig {
            mode,
            ..OracleConfig::default()
        })
        .expect("oracle");
        let jobs = oracle.config().jobs;
        // Warm every worker once.
        (0..jobs * 2).into_par_iter().for_each(|_| {
            oracle.run("pass\n", "", Duration::from_secs(5));
        });
        let start = Instant::now();
        (0..n).into_par_iter().for_each(|i| {
            let r = oracle.run(
                "print(input())\n",
                &format!("{i}\n"),
                Duration::from_secs(5),
            );
            assert_eq!(r.stdout, format!("{i}\n"));
        });
        let per_sec = n as f64 / start.elapsed().as_secs_f64();
        let start = Instant::now();
        let ok = tasks
            .tasks
            .par_iter()
            .filter(|t| oracle.validate(t).status == equimorph::oracle::ValidationStatus::Ok)
            .count();
        let validate = start.elapsed().as_secs_f64();
        println!(
            "{mode:?}: {per_sec:.0} trivial test executions/s ({jobs} workers); validate fixtures: {ok}/{} ok in {validate:.2} s",
            tasks.tasks.len()
        );
        rows.push((per_sec, validate));
    }
    println!(
        "fork vs spawn: {:.1}x executions/s, {:.1}x faster validate",
        rows[1].0 / rows[0].0,
        rows[0].1 / rows[1].1
    );
}
