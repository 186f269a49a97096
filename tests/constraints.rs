//! Constraints applied before scoring (`--max-growth`, `--window`): they reject what they
//! should, every rejection is counted, and the counts add up.

mod common;

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
    let (_d, tasks) = common::fixture_subset(5);
    let out = tempfile::tempdir().unwrap();
    let mut args = vec!["--beam", "2", "--threshold", "0.5"];
    args.extend_from_slice(extra);
    let o = common::attack_command(&tasks, out.path(), &tiny_spec(), 2, &args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines = results::read(&out.path().join("results.jsonl")).unwrap();
    let summary = serde_json::from_str(&common::read(out.path().join("summary.json"))).unwrap();
    (out, lines, summary)
}

#[test]
fn constraints_reject_before_scoring_and_the_counts_add_up() {
    let (_free_dir, free, free_summary) = run(&[]);
    let (_dir, limited, summary) = run(&["--max-growth", "1.0", "--window"]);
    for l in free.iter().filter(|l| l.status == Status::Ok) {
        assert_eq!(
            l.counts.unique, l.counts.scored,
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
            c.scored + c.rejected_growth + c.rejected_window,
            "{}: every unique candidate is scored or rejected",
            l.id
        );
        growth += c.rejected_growth;
        window += c.rejected_window;
        let g = l.growth.unwrap();
        assert!(g <= 1.0 + 1e-9, "{}: winner grew {g}", l.id);
        if l.truncated == Some(true) {
            // Only an original already longer than the window can be a truncated winner.
            assert!(l.transforms.is_empty(), "{}", l.id);
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
