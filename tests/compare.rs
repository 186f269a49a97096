//! `equimorph compare` over two fixture runs: one row per detector, one column per run, the
//! cells equal to each run's own summary.

mod common;

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
