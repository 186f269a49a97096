//! Defences as detectors: `canon:SPEC` and `smooth:K:SPEC` score rewrites by their own SPTs at
//! least as the bare detector does, and the attack against them runs, resumes and reports
//! their query cost.

use crate::common;

use equimorph::detector::canon::CanonDetector;
use equimorph::detector::smooth::SmoothDetector;
use equimorph::detector::{self, Detector};
use equimorph::language::Language;
use serde_json::Value;

fn tiny_spec() -> String {
    let p = detector::model::models_dir().join("tiny-embedding");
    assert!(p.is_dir(), "{} missing: run `make setup`", p.display());
    format!("onnx:{}", p.display())
}

fn tiny() -> Box<dyn Detector> {
    detector::open(&tiny_spec(), common::cpu_options(8)).unwrap()
}

/// Rewrites of every fixture by `names` (seeds 0 and 1) that change its text.
fn rewrites(language: Language, names: &[&str]) -> Vec<(String, String, String)> {
    let set = common::default_set();
    let mut out = Vec::new();
    let file = match language {
        Language::Python => "fixtures/tasks.jsonl",
        Language::Java => "fixtures/java/tasks.jsonl",
        Language::Cpp | Language::C => "fixtures/cpp/tasks.jsonl",
    };
    let tasks = equimorph::task::load(&common::root().join(file), None).unwrap();
    for task in tasks.tasks {
        for name in names {
            let t = set.get(name).unwrap();
            for seed in 0..2 {
                if let Ok(Some(text)) = t.apply(&task.source, seed) {
                    if text != task.source {
                        out.push((name.to_string(), task.source.clone(), text));
                    }
                }
            }
        }
    }
    out
}

#[test]
fn canon_scores_a_rewrite_by_an_spt_it_undoes_as_the_original() {
    let canon = CanonDetector::new(tiny());
    let bare = tiny();
    let cases = [
        (
            Language::Python,
            &[
                "var-rename",
                "param-alias",
                "docstring-reencode",
                "comment-edit",
                "indent-width",
                "string-reencode",
                "def-rename",
                "try-scaffold",
                "dead-code-insert",
                "redundant-parens",
                "operand-swap",
                "callable-object",
                "bool-restructure",
                "state-machine",
                "state-pack",
                "if-else-flip",
                "line-join",
                "constant-hoist",
                "nested-function",
                "call-indirection",
                "import-alias",
                "generator-chain",
                "while-to-for",
            ][..],
        ),
        (
            Language::Java,
            &[
                "java-local-rename",
                "java-member-rename",
                "java-comment-edit",
                "java-string-escape",
                "java-literal-unfold",
            ][..],
        ),
    ];
    for (language, names) in cases {
        let all = rewrites(language, names);
        assert!(all.len() >= 20, "{language:?}: only {} rewrites", all.len());
        let mut kept = Vec::new();
        for (name, original, text) in &all {
            let m = canon.score(original, &[text.as_str()]).unwrap()[0];
            let b = bare.score(original, &[text.as_str()]).unwrap()[0];
            assert!(
                m >= b - 1e-4,
                "{name}: canon {m} < bare {b}\n{original}\n---\n{text}"
            );
            if m < 1.0 {
                if std::env::var_os("CANON_DEBUG").is_some() {
                    let (a, b) = equimorph::detector::canon::canonical_pair(original, text);
                    eprintln!("=== {name}\n{a}\n---\n{b}");
                }
                kept.push(name.as_str());
            }
        }
        eprintln!("{language:?}: not undone: {kept:?}");
        // Renames, aliases, comments, layout, literal spellings and no-op scaffolding are
        // undone outright, all but a few.
        assert!(
            kept.len() * 20 <= all.len(),
            "{language:?}: {} of {} rewrites not undone: {kept:?}",
            kept.len(),
            all.len()
        );
    }
}

#[test]
fn smooth_scores_rewrites_by_its_own_spts_no_lower_than_the_bare_detector_on_average() {
    let transforms: Vec<_> = common::default_set().iter().cloned().collect();
    let smooth = SmoothDetector::new(tiny(), 4, transforms);
    let bare = tiny();
    let all = rewrites(
        Language::Python,
        &["var-rename", "dead-code-insert", "for-to-while"],
    );
    assert!(all.len() >= 20, "only {} rewrites", all.len());
    let (mut s, mut b) = (0f64, 0f64);
    for (_, original, text) in &all {
        s += f64::from(smooth.score(original, &[text.as_str()]).unwrap()[0]);
        b += f64::from(bare.score(original, &[text.as_str()]).unwrap()[0]);
    }
    assert!(s >= b, "smooth {s} < bare {b} over {} rewrites", all.len());
    // Perturbations are seeded and cached: the same pair scores the same again, and each
    // pair costs K sequences of the wrapped model.
    let (_, original, text) = &all[0];
    let before = smooth.stats().sequences;
    let again = smooth.score(original, &[text.as_str()]).unwrap();
    assert_eq!(
        again,
        smooth.score(original, &[text.as_str()]).unwrap(),
        "not deterministic"
    );
    assert!(smooth.stats().sequences > before);
}

#[test]
fn defence_specs_are_checked() {
    assert_eq!(
        detector::defended("canon", "minilm").unwrap(),
        "canon:minilm"
    );
    assert_eq!(
        detector::defended("smooth:4", "minilm").unwrap(),
        "smooth:4:minilm"
    );
    for bad in ["smooth:0", "smooth", "vote:3"] {
        assert!(detector::defended(bad, "minilm").is_err(), "{bad}");
    }
    assert_eq!(detector::inner_spec("smooth:4:canon:minilm"), "minilm");
    assert_eq!(
        detector::model_path("canon:minilm"),
        detector::model_path("minilm")
    );
    let e = detector::open("smooth:99:jaccard", common::cpu_options(8))
        .err()
        .unwrap();
    assert!(e.to_string().contains("K from 1 to 64"), "{e}");
}

#[test]
fn the_attack_on_a_defended_detector_runs_resumes_and_reports_its_cost() {
    let (dir, tasks) = common::fixture_subset(3);
    let tiny = tiny_spec();
    for spec in [format!("canon:{tiny}"), format!("smooth:2:{tiny}")] {
        let out = dir.path().join(spec.split(':').next().unwrap());
        let run = || {
            common::attack_command(&tasks, &out, &spec, 2, &["--search", "beam", "--beam", "2"])
                .output()
                .unwrap()
        };
        let first = run();
        let stdout = common::success_stdout(&first);
        let sequences: u64 = stdout
            .split("detector: ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("no detector cost in {stdout}"));
        assert!(sequences > 0, "{stdout}");
        let summary: Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap())
                .unwrap();
        assert!(
            summary["run"]["detector"]
                .as_str()
                .is_some_and(|d| d.starts_with(spec.split(':').next().unwrap())),
            "{}",
            summary["run"]
        );
        // A second run resumes: nothing is attacked again, the figures stay.
        let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
        common::success_stdout(&run());
        assert_eq!(
            std::fs::read_to_string(out.join("results.jsonl")).unwrap(),
            results
        );
    }
}
