//! `equimorph diversity` on two script transforms, one of them the identity: D_k and the
//! leave-one-out Δ_k equal what we compute by hand from the detector's own scores.

use crate::common;

fn score(a: &str, b: &str) -> f64 {
    let dir = tempfile::tempdir().unwrap();
    let (pa, pb) = (dir.path().join("a.py"), dir.path().join("b.py"));
    std::fs::write(&pa, a).unwrap();
    std::fs::write(&pb, b).unwrap();
    let o = common::equimorph(
        &[
            "score",
            "--json",
            "--detector",
            "jaccard",
            pa.to_str().unwrap(),
            pb.to_str().unwrap(),
        ],
        None,
    );
    let v: serde_json::Value = serde_json::from_str(&common::success_stdout(&o)).unwrap();
    v["distance"][0][1].as_f64().unwrap()
}

#[test]
fn identity_adds_nothing_and_the_only_mover_adds_the_whole_diameter() {
    let dir = tempfile::tempdir().unwrap();
    let identity = dir.path().join("identity.py");
    std::fs::write(
        &identity,
        "import sys\nsys.stdout.write(sys.stdin.read())\n",
    )
    .unwrap();
    let add = dir.path().join("add_pass.py");
    std::fs::write(
        &add,
        "import sys\nsys.stdout.write(sys.stdin.read() + \"pass\\n\")\n",
    )
    .unwrap();
    let source = "def f(x):\n    return x + 1\n";
    std::fs::write(
        dir.path().join("tasks.jsonl"),
        serde_json::json!({"id": "t", "source": source, "entry_point": "f",
                           "test_code": "assert f(1) == 2\n"})
        .to_string()
            + "\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let transforms = format!("{},{}", add.display(), identity.display());
    let o = common::equimorph(
        &[
            "diversity",
            dir.path().join("tasks.jsonl").to_str().unwrap(),
            "-k",
            "2",
            "--grow",
            "given",
            "--detector",
            "jaccard",
            "--transforms",
            &transforms,
            "--out",
            out.to_str().unwrap(),
        ],
        None,
    );
    common::success_stdout(&o);
    // By hand: reachable in ≤ 2 steps are P, P+pass, P+pass+pass; the diameter is the largest
    // of their three pairwise distances.
    let (p1, p2) = (format!("{source}pass\n"), format!("{source}pass\npass\n"));
    let d = score(source, &p1)
        .max(score(source, &p2))
        .max(score(&p1, &p2));
    assert!(d > 0.0);
    let v: serde_json::Value =
        serde_json::from_str(&common::read(out.join("diversity.json"))).unwrap();
    let close = |x: &serde_json::Value, y: f64| (x.as_f64().unwrap() - y).abs() < 1e-6;
    assert!(close(&v["mean_diameter"], d), "{v}");
    let contributions = &v["mean_contributions"];
    assert_eq!(contributions[0][0], "add-pass");
    assert!(close(&contributions[0][1], d), "the only mover adds D: {v}");
    assert_eq!(contributions[1][0], "identity");
    assert!(
        close(&contributions[1][1], 0.0),
        "the identity adds nothing: {v}"
    );
    assert!(close(&v["mean_diversity"], d / 2.0));
    // Growing: D is reached with the first transform, the identity keeps it.
    let grow = v["grow"].as_array().unwrap();
    assert_eq!(grow.len(), 2);
    assert!(close(&grow[0]["mean_diameter"], d) && close(&grow[1]["mean_diameter"], d));
    assert!(common::read(out.join("diversity.svg")).starts_with("<svg"));
    assert!(common::read(out.join("diversity.md")).contains("| identity | 0.0000 |"));
}
