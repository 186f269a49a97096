//! Dataset loading: CodeContests' Hugging Face parquet at 100,000 solutions, and whether the
//! streaming reader's memory grows with the file. Run with `cargo bench --bench datasets`
//! (`EQUIMORPH_BENCH_PROBLEMS` problems × 50 Python 3 solutions; default 2,000 = 100,000).
//! Each measurement runs in a fresh child process, so its peak memory is its own. Prints a
//! table; no assertions.

#[path = "../tests/support/codecontests_parquet.rs"]
mod codecontests_parquet;

use std::path::Path;
use std::time::Instant;

const PER_PROBLEM: usize = 50;
const CHILD: &str = "EQUIMORPH_BENCH_DATASETS_CHILD";

/// Peak resident memory of this process so far, in MiB (Linux reports KiB).
fn peak_rss_mib() -> f64 {
    // SAFETY: an all-zero rusage is a valid value, and getrusage only fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    usage.ru_maxrss as f64 / 1024.0
}

/// In a child: reads `path` in `mode` and prints "solutions seconds peak_mib broken".
fn measure(mode: &str, path: &Path) {
    let start = Instant::now();
    let (n, broken) = if mode == "stream" {
        let mut n = 0usize;
        let rest = equimorph::task::stream_parquet(path, &[], |t| {
            n += 1;
            std::hint::black_box(t);
        })
        .expect("loads");
        (n, rest.broken.len())
    } else {
        let set = equimorph::task::load(path, None).expect("loads");
        (set.tasks.len(), set.broken.len())
    };
    println!(
        "{n} {} {} {broken}",
        start.elapsed().as_secs_f64(),
        peak_rss_mib()
    );
}

fn main() {
    if let Ok(spec) = std::env::var(CHILD) {
        let (mode, path) = spec.split_once(':').expect("mode:path");
        measure(mode, Path::new(path));
        return;
    }
    let problems: usize = std::env::var("EQUIMORPH_BENCH_PROBLEMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let dir = tempfile::tempdir().expect("temporary directory");
    let small = dir.path().join("small.parquet");
    let large = dir.path().join("large.parquet");
    let t = Instant::now();
    let rows = |n| codecontests_parquet::synthetic_rows(n, PER_PROBLEM);
    codecontests_parquet::write(&small, rows(problems / 10), 64);
    codecontests_parquet::write(&large, rows(problems), 64);
    let mib = |p: &Path| std::fs::metadata(p).map_or(0.0, |m| m.len() as f64 / 1048576.0);
    eprintln!(
        "wrote {:.1} MiB and {:.1} MiB of parquet in {:.1}s",
        mib(&small),
        mib(&large),
        t.elapsed().as_secs_f64()
    );
    let exe = std::env::current_exe().expect("own path");
    println!(
        "{:<10} {:>10} {:>9} {:>8} {:>12} {:>13} {:>8}",
        "reader", "solutions", "file MiB", "seconds", "solutions/s", "peak RSS MiB", "broken"
    );
    for (mode, path) in [
        ("stream", &small),
        ("stream", &large),
        ("load", &small),
        ("load", &large),
    ] {
        let out = std::process::Command::new(&exe)
            .env(CHILD, format!("{mode}:{}", path.display()))
            .output()
            .expect("child runs");
        let text = String::from_utf8_lossy(&out.stdout);
        let f: Vec<f64> = text
            .split_whitespace()
            .filter_map(|x| x.parse().ok())
            .collect();
        let [n, s, rss, broken] = f[..] else {
            eprintln!(
                "{mode} {}: {text} {}",
                path.display(),
                String::from_utf8_lossy(&out.stderr)
            );
            continue;
        };
        println!(
            "{mode:<10} {n:>10} {:>9.1} {s:>8.2} {:>12.0} {rss:>13.1} {broken:>8}",
            mib(path),
            n / s
        );
    }
    println!("stream: tasks are handed on and dropped (memory should not grow with the file); load: every task kept.");
}
