//! `equimorph compare` over two fixture runs: one row per detector, one column per run, the
//! cells equal to each run's own summary.

use crate::common;

fn tiny_spec() -> String {
    let p = equimorph::detector::model::models_dir().join("tiny-embedding");
    assert!(p.is_dir(), "{} missing: run `make setup`", p.display());
    format!("onnx:{}", p.display())
}

#[test]
fn compare_two_fixture_runs() {
    let (_d, tasks) = common::fixture_subset(3);
    let root = tempfile::tempdir().unwrap();
    let mut summaries = Vec::new();
    for (name, set) in [
        ("renames", "var-rename"),
        ("renames-and-dead-code", "var-rename,dead-code-insert"),
    ] {
        let out = root.path().join(name);
        let o = common::attack_command(
            &tasks,
            &out,
            &tiny_spec(),
            1,
            &["--beam", "2", "--transforms", set, "--threshold", "0.9"],
        )
        .output()
        .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let s: serde_json::Value =
            serde_json::from_str(&common::read(out.join("summary.json"))).unwrap();
        summaries.push(s);
    }
    let table = root.path().join("table");
    let o = common::equimorph(
        &[
            "compare",
            root.path().join("renames").to_str().unwrap(),
            root.path().join("renames-and-dead-code").to_str().unwrap(),
            "--out",
            table.to_str().unwrap(),
        ],
        None,
    );
    let md = common::success_stdout(&o);
    assert!(
        md.contains("| detector | renames | renames-and-dead-code |"),
        "{md}"
    );
    assert!(md.contains("| tiny-embedding |"), "{md}");
    let csv = common::read(table.join("compare.csv"));
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 2, "{csv}");
    for (row, s) in rows.iter().zip(&summaries) {
        let fields: Vec<&str> = row.split(',').collect();
        let mean: f64 = fields[2].parse().unwrap();
        assert!(
            (mean - s["mean_distance"].as_f64().unwrap()).abs() < 1e-5,
            "{row}"
        );
        let rate: f64 = fields[4].parse().unwrap();
        assert!(
            (rate - s["success_rate"].as_f64().unwrap()).abs() < 1e-5,
            "{row}"
        );
    }
    assert!(common::read(table.join("compare.html")).contains("<th>renames</th>"));
    // By transform set instead of directory name.
    let o = common::equimorph(
        &[
            "compare",
            root.path().join("renames").to_str().unwrap(),
            root.path().join("renames-and-dead-code").to_str().unwrap(),
            "--by",
            "transforms",
            "--out",
            table.to_str().unwrap(),
        ],
        None,
    );
    let md = common::success_stdout(&o);
    assert!(
        md.contains("| var-rename | var-rename+dead-code-insert |")
            || md.contains("| var-rename | dead-code-insert+var-rename |"),
        "{md}"
    );
    // Not a run directory: a clear error.
    let o = common::equimorph(&["compare", root.path().to_str().unwrap()], None);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("neither summary.json nor results.jsonl"));
}

#[test]
fn runs_of_one_directory_name_get_their_own_columns_and_task_sets_are_compared() {
    let root = tempfile::tempdir().unwrap();
    let (_d3, three) = common::fixture_subset(3);
    let (_d2, two) = common::fixture_subset(2);
    let (x, y) = (root.path().join("x/run"), root.path().join("y/run"));
    for (tasks, out) in [(&three, &x), (&two, &y)] {
        let o = common::attack_command(
            tasks,
            out,
            "jaccard",
            1,
            &["--beam", "1", "--threshold", "0.5"],
        )
        .output()
        .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let table = root.path().join("table");
    let (xs, ys, ts) = (
        x.display().to_string(),
        y.display().to_string(),
        table.display().to_string(),
    );
    let o = common::equimorph(&["compare", &xs, &ys, "--out", &ts], None);
    let md = common::success_stdout(&o);
    assert!(md.contains(&format!("| detector | {xs} | {ys} |")), "{md}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("runs cover different task sets") && err.contains("(2 in common)"),
        "{err}"
    );
    let o = common::equimorph(
        &[
            "compare", &xs, &ys, "--label", "three", "--label", "two", "--out", &ts,
        ],
        None,
    );
    assert!(common::success_stdout(&o).contains("| detector | three | two |"));
    let o = common::equimorph(&["compare", &xs, &ys, "--label", "one", "--out", &ts], None);
    assert_eq!(o.status.code(), Some(2));
}
