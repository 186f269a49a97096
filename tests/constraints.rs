//! Constraints applied before scoring (`--max-growth`, `--window`, on by default): they reject
//! what they should, every rejection is counted, the counts add up, and `--no-window` restores
//! scoring everything.

use crate::common;

use equimorph::report::{results, Status};

fn tiny_spec() -> String {
    let p = equimorph::detector::model::models_dir().join("tiny-embedding");
    assert!(p.is_dir(), "{} missing: run `make setup`", p.display());
    format!("onnx:{}", p.display())
}

fn run(
    extra: &[&str],
) -> (
    tempfile::TempDir,
    Vec<results::ResultLine>,
    serde_json::Value,
) {
    run_for(2, extra)
}

/// Attacks five fixtures for `iterations` with the tiny model: the run directory, its result
/// lines and its summary.
fn run_for(
    iterations: u32,
    extra: &[&str],
) -> (
    tempfile::TempDir,
    Vec<results::ResultLine>,
    serde_json::Value,
) {
    let (_d, tasks) = common::fixture_subset(5);
    let out = tempfile::tempdir().unwrap();
    let mut args = vec!["--beam", "2", "--threshold", "0.5"];
    args.extend_from_slice(extra);
    let o = common::attack_command(&tasks, out.path(), &tiny_spec(), iterations, &args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines = results::read(&out.path().join("results.jsonl")).unwrap();
    let summary = serde_json::from_str(&common::read(out.path().join("summary.json"))).unwrap();
    (out, lines, summary)
}

#[test]
fn constraints_reject_before_scoring_and_the_counts_add_up() {
    // The beam scores every unique candidate that meets the constraints, once per input the
    // detector reads (a candidate it reads as one scored before reuses that score).
    let (_free_dir, free, free_summary) = run(&["--search", "beam", "--no-window"]);
    let (_dir, limited, summary) = run(&["--search", "beam", "--max-growth", "1.0", "--window"]);
    for l in free.iter().filter(|l| l.status == Status::Ok) {
        assert_eq!(
            l.counts.unique,
            l.counts.scored + l.counts.reused,
            "{}: nothing rejected",
            l.id
        );
        assert_eq!(l.counts.rejected_growth + l.counts.rejected_window, 0);
        assert!(l.growth.is_some() && l.truncated.is_some());
    }
    assert_eq!(free_summary["rejected_growth"], 0);
    let ok: Vec<_> = limited.iter().filter(|l| l.status == Status::Ok).collect();
    assert!(!ok.is_empty());
    let (mut growth, mut window) = (0, 0);
    for l in &ok {
        let c = l.counts;
        assert_eq!(
            c.unique,
            c.scored + c.reused + c.rejected_growth + c.rejected_window,
            "{}: every unique candidate is scored or rejected",
            l.id
        );
        growth += c.rejected_growth;
        window += c.rejected_window;
        let g = l.growth.unwrap();
        assert!(g <= 1.0 + 1e-9, "{}: winner grew {g}", l.id);
        if l.truncated == Some(true) {
            // Only where the original is already longer than the window (the rule is waived)
            // can a winner be truncated.
            assert!(l.window_waived, "{}", l.id);
        }
    }
    assert!(
        growth > 0,
        "some SPT (dead-code-insert, try-scaffold…) grows programs"
    );
    assert_eq!(summary["rejected_growth"], growth);
    assert_eq!(summary["rejected_window"], window);
    let bad = common::equimorph(
        &[
            "attack",
            "fixtures/tasks.jsonl",
            "--out",
            "/tmp/x",
            "--max-growth",
            "0",
        ],
        None,
    );
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--max-growth must be a positive"));
}

#[test]
fn the_window_is_on_by_default_and_waived_only_for_originals_longer_than_it() {
    // The tiny model's window is small (it reads 128 tokens), so most fixtures' rewrites, and
    // some originals, are longer than it.
    let window = 128;
    let (_d, tasks) = common::fixture_subset(12);
    let lines_of = |extra: &[&str]| {
        let out = tempfile::tempdir().unwrap();
        let mut args = vec!["--beam", "2", "--threshold", "0.5", "--search", "beam"];
        args.extend_from_slice(extra);
        let o = common::attack_command(&tasks, out.path(), &tiny_spec(), 2, &args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let run: serde_json::Value =
            serde_json::from_str(&common::read(out.path().join("run.json"))).unwrap();
        let report = common::read(out.path().join("report.md"));
        (
            results::read(&out.path().join("results.jsonl")).unwrap(),
            run,
            report,
        )
    };
    let (default, run, report) = lines_of(&[]);
    assert_eq!(run["settings"]["window"], "true", "{run}");
    assert!(report.contains("Constraints: window"), "{report}");
    let ok: Vec<_> = default.iter().filter(|l| l.status == Status::Ok).collect();
    let (mut waived, mut kept) = (0, 0);
    for l in &ok {
        if l.window_waived {
            waived += 1;
            assert_eq!(l.counts.rejected_window, 0, "{}", l.id);
        } else {
            kept += 1;
            assert_eq!(
                l.truncated,
                Some(false),
                "{}: a winner longer than the window",
                l.id
            );
        }
    }
    assert!(
        kept > 0 && waived > 0,
        "kept {kept}, waived {waived}: pick other fixtures"
    );
    assert!(ok.iter().map(|l| l.counts.rejected_window).sum::<u64>() > 0);
    // --no-window: nothing rejected, so some winner is longer than the window again.
    let (free, run, report) = lines_of(&["--no-window"]);
    assert_eq!(run["settings"]["window"], "false");
    assert!(report.contains("Constraints: none"), "{report}");
    let free: Vec<_> = free.iter().filter(|l| l.status == Status::Ok).collect();
    assert!(free
        .iter()
        .all(|l| l.counts.rejected_window == 0 && !l.window_waived));
    assert!(
        free.iter()
            .any(|l| l.truncated == Some(true) && !l.transforms.is_empty()),
        "with --no-window some rewrite outgrows the {window}-token window"
    );
}

#[test]
fn tasks_not_yet_below_the_threshold_search_past_n_and_the_summary_counts_them() {
    // Threshold 0.5 with the tiny model: some fixtures are won within one iteration, others
    // not; `--extend 2` lets only the others go on, to at most 3 iterations.
    let (dir, lines, summary) = run_for(1, &["--extend", "2", "--patience", "5"]);
    let info: serde_json::Value =
        serde_json::from_str(&common::read(dir.path().join("run.json"))).unwrap();
    assert_eq!(info["settings"]["extend"], "2", "{info}");
    let ok: Vec<_> = lines.iter().filter(|l| l.status == Status::Ok).collect();
    let mut extended = 0;
    for l in &ok {
        assert!(l.iterations <= 3, "{}: {} iterations", l.id, l.iterations);
        if l.iterations > 1 {
            extended += 1;
            // It went on because it was not yet won after the first iteration.
            let first = l.best_per_iteration.first().copied().unwrap_or(1.0);
            assert!(first >= 0.5, "{}: won at {first} yet extended", l.id);
        }
    }
    assert!(extended > 0, "no task was extended: pick other fixtures");
    assert_eq!(summary["extended"], extended, "{summary}");
    let report = common::read(dir.path().join("report.md"));
    assert!(
        report.contains("tasks searched past 1 iterations"),
        "{report}"
    );
    // --extend 0: N is the limit.
    let (_dir, lines, _) = run_for(1, &["--extend", "0"]);
    assert!(lines
        .iter()
        .filter(|l| l.status == Status::Ok)
        .all(|l| l.iterations == 1));
}
