//! Transform throughput: applications per second of each SPT on a ~100-line program, with one
//! and two threads, plus component load time cold (compile) and warm (disk cache); then script
//! transforms: the runner's load and per-call instantiation cost, and a script next to the Rust
//! component doing a similar rewrite (`for-to-while`), measured side by side in one run.
//! Run with `make bench` (or `cargo bench --bench transforms`). Prints a table; no assertions.

use equimorph::transform::{Limits, LoadedTransform, TransformRuntime, TransformSet};
use rayon::prelude::*;
use std::path::Path;
use std::time::{Duration, Instant};

fn rate(n: usize, d: Duration) -> f64 {
    n as f64 / d.as_secs_f64()
}

/// Applications per second of `t` on `source` with the given pool, over `n` calls.
fn throughput(pool: &rayon::ThreadPool, t: &LoadedTransform, source: &str, n: usize) -> f64 {
    let start = Instant::now();
    pool.install(|| {
        (0..n).into_par_iter().for_each(|i| {
            let _ = t.apply(source, i as u64);
        })
    });
    rate(n, start.elapsed())
}

/// Scripts next to components: runner load, per-call cost, and a like-for-like rewrite.
fn scripts(root: &Path, source: &str, set: &TransformSet, pools: [&rayon::ThreadPool; 2]) {
    let cache = tempfile::tempdir().expect("temp dir");
    let strong = root.join("fixtures/scripts/for-to-while/strong.py");
    // A fresh runtime, the script loaded and applied once: compiles the runner or reads the cache.
    let first_call = || {
        let t = Instant::now();
        let rt = TransformRuntime::new(Limits::default(), Some(cache.path().to_path_buf()))
            .expect("runtime");
        let script = rt.load(&strong).expect("script loads");
        let _ = script.apply("x = 1\n", 0);
        (t.elapsed(), rt, script)
    };
    let (cold, rt, script) = first_call();
    let (warm, _, _) = first_call();
    println!(
        "\nscript runner load + first call: cold (compile) {:.0} ms, warm (disk cache) {:.0} ms",
        cold.as_secs_f64() * 1e3,
        warm.as_secs_f64() * 1e3
    );

    // Per-call cost of the runner itself: a script that only echoes its input with a comment.
    let dir = tempfile::tempdir().expect("temp dir");
    let echo = dir.path().join("echo.py");
    std::fs::write(&echo, "import sys\nprint(sys.stdin.read() + '#')\n").expect("write");
    let echo = rt.load(&echo).expect("echo script");
    let n = 200;
    let start = Instant::now();
    for i in 0..n {
        let _ = echo.apply("x = 1\n", i);
    }
    println!(
        "script runner per call (fresh instance, trivial script): {:.2} ms",
        start.elapsed().as_secs_f64() * 1e3 / n as f64
    );

    let component = set.get("for-to-while").expect("built-in for-to-while");
    let n_script = 200;
    let n_component = 2000;
    println!(
        "{:<34} {:>12} {:>12} {:>10}",
        "for-to-while on program100.py", "1 thread/s", "2 threads/s", "applies?"
    );
    let mut per_thread = Vec::new();
    for (label, t, n) in [
        ("Rust component", component, n_component),
        ("Python script (strong.py)", &script, n_script),
    ] {
        let r1 = throughput(pools[0], t, source, n);
        let r2 = throughput(pools[1], t, source, n);
        let applies = t.apply(source, 0).map(|o| o.is_some()).unwrap_or(false);
        println!("{label:<34} {r1:>12.1} {r2:>12.1} {applies:>10}");
        per_thread.push(r1);
    }
    println!(
        "component / script, 1 thread: {:.0}x",
        per_thread[0] / per_thread[1]
    );
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = root.join("build/transforms");
    let source =
        std::fs::read_to_string(root.join("fixtures/bench/program100.py")).expect("bench program");
    let cache = tempfile::tempdir().expect("temp dir");

    let t = Instant::now();
    let rt = TransformRuntime::new(Limits::default(), Some(cache.path().to_path_buf()))
        .expect("runtime");
    let set =
        TransformSet::load_dir(&rt, &dir).expect("build the transforms first: make transforms");
    let cold = t.elapsed();
    let t = Instant::now();
    let rt2 = TransformRuntime::new(Limits::default(), Some(cache.path().to_path_buf()))
        .expect("runtime");
    let _set2 = TransformSet::load_dir(&rt2, &dir).expect("reload");
    let warm = t.elapsed();
    println!(
        "component load, {} components: cold (compile) {:.1} ms, warm (disk cache) {:.1} ms ({:.2} ms each), ratio {:.1}x",
        set.len(),
        cold.as_secs_f64() * 1e3,
        warm.as_secs_f64() * 1e3,
        warm.as_secs_f64() * 1e3 / set.len() as f64,
        cold.as_secs_f64() / warm.as_secs_f64()
    );

    // Host overhead per call: a guest that does no parsing (fresh store + instance + call).
    let hostile = rt
        .load(&root.join("build/test-transforms/hostile.wasm"))
        .expect("test guest");
    let start = Instant::now();
    for i in 0..2000u64 {
        let _ = hostile.apply("x = 1\n", i);
    }
    println!(
        "host overhead per call (trivial guest): {:.1} us",
        start.elapsed().as_secs_f64() * 1e6 / 2000.0
    );

    let n: usize = std::env::var("EQUIMORPH_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("pool");
    println!(
        "{:<18} {:>12} {:>12} {:>8} {:>10}",
        "transform", "1 thread/s", "2 threads/s", "ratio", "applies?"
    );
    for t in set.iter() {
        let applies = t.apply(&source, 0).map(|o| o.is_some()).unwrap_or(false);
        let mut rates = Vec::new();
        for pool in [&one, &two] {
            let start = Instant::now();
            pool.install(|| {
                (0..n).into_par_iter().for_each(|i| {
                    let _ = t.apply(&source, i as u64);
                })
            });
            rates.push(rate(n, start.elapsed()));
        }
        println!(
            "{:<18} {:>12.0} {:>12.0} {:>7.2}x {:>10}",
            t.name,
            rates[0],
            rates[1],
            rates[1] / rates[0],
            applies
        );
    }

    // The fixture corpus: typical small programs (mean size printed).
    let tasks = equimorph::task::load(&root.join("fixtures/tasks.jsonl"), None).expect("fixtures");
    let lines: usize = tasks.tasks.iter().map(|t| t.source.lines().count()).sum();
    let work: Vec<(&str, usize)> = tasks
        .tasks
        .iter()
        .flat_map(|t| (0..set.len()).map(move |k| (t.source.as_str(), k)))
        .collect();
    let all: Vec<_> = set.iter().collect();
    let mut rates = Vec::new();
    for pool in [&one, &two] {
        let start = Instant::now();
        pool.install(|| {
            (0..4)
                .into_par_iter()
                .flat_map(|_| work.par_iter())
                .for_each(|(src, k)| {
                    let _ = all[*k].apply(src, 1);
                })
        });
        rates.push(rate(work.len() * 4, start.elapsed()));
    }
    println!(
        "all transforms over the {} fixture programs (mean {:.0} lines): {:.0}/s on 1 thread, {:.0}/s on 2 threads ({:.2}x)",
        tasks.tasks.len(),
        lines as f64 / tasks.tasks.len() as f64,
        rates[0],
        rates[1],
        rates[1] / rates[0]
    );
    scripts(root, &source, &set, [&one, &two]);
}
