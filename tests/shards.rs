//! `attack --shard I/N` + `merge` gives the unsharded run (timing fields aside).

use crate::common;

use std::path::Path;

fn attack(tasks: &Path, out: &Path, extra: &[&str]) {
    let model = equimorph::detector::model::models_dir().join("tiny-embedding");
    let mut args = vec!["--beam", "2", "--seed", "5"];
    args.extend_from_slice(extra);
    let o = common::attack_command(tasks, out, &format!("onnx:{}", model.display()), 2, &args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A JSON file without the fields that measure time.
fn timeless(p: &Path) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(&common::read(p)).unwrap();
    if let Some(o) = v.as_object_mut() {
        for k in ["seconds", "detector_share", "anytime_seconds"] {
            o.remove(k);
        }
    }
    v
}

fn results(dir: &Path) -> Vec<serde_json::Value> {
    common::timeless_lines(dir.join("results.jsonl"))
}

#[test]
fn shards_merged_equal_the_unsharded_run() {
    let (_d, tasks) = common::fixture_subset(6);
    let root = tempfile::tempdir().unwrap();
    let whole = root.path().join("whole");
    attack(&tasks, &whole, &[]);
    let (s0, s1) = (root.path().join("s0"), root.path().join("s1"));
    attack(&tasks, &s0, &["--shard", "1/2"]);
    attack(&tasks, &s1, &["--shard", "2/2"]);
    let (n0, n1) = (results(&s0).len(), results(&s1).len());
    assert_eq!(n0 + n1, 6, "every task in exactly one shard");
    let merged = root.path().join("merged");
    let args = |out: &Path| {
        vec![
            "merge".to_string(),
            out.display().to_string(),
            s1.display().to_string(),
            s0.display().to_string(),
        ]
    };
    let a = args(&merged);
    let o = common::equimorph(&a.iter().map(String::as_str).collect::<Vec<_>>(), None);
    common::success_stdout(&o);
    assert_eq!(results(&merged), results(&whole), "same lines, same order");
    assert_eq!(
        timeless(&merged.join("summary.json")),
        timeless(&whole.join("summary.json"))
    );
    assert_eq!(
        timeless(&merged.join("run.json")),
        timeless(&whole.join("run.json"))
    );
    // Merging again into the same directory, or a shard with itself, is refused.
    let o = common::equimorph(&a.iter().map(String::as_str).collect::<Vec<_>>(), None);
    assert!(String::from_utf8_lossy(&o.stderr).contains("already holds results"));
    let twice = root.path().join("twice");
    let o = common::equimorph(
        &[
            "merge",
            twice.to_str().unwrap(),
            s0.to_str().unwrap(),
            s0.to_str().unwrap(),
        ],
        None,
    );
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("is given twice"));
    // One shard of two alone is refused, naming the missing one; --partial merges it anyway.
    let alone = root.path().join("alone");
    let o = common::equimorph(
        &["merge", alone.to_str().unwrap(), s0.to_str().unwrap()],
        None,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("shard(s) 2/2 missing") && err.contains("--partial"),
        "{err}"
    );
    let o = common::equimorph(
        &[
            "merge",
            alone.to_str().unwrap(),
            s0.to_str().unwrap(),
            "--partial",
        ],
        None,
    );
    common::success_stdout(&o);
    assert_eq!(results(&alone).len(), n0);
    let bad = common::equimorph(
        &[
            "attack",
            tasks.to_str().unwrap(),
            "--out",
            "/tmp/never",
            "--shard",
            "0/2",
        ],
        None,
    );
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("shards count from 1"));
}
