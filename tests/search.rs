//! The guided search: deterministic on any number of threads, lazy oracle = naive oracle,
//! `max_queries` a hard ceiling for every search, and far fewer queries than the beam where
//! one transform is strong and the rest barely move the detector.

use crate::common;

use equimorph::detector::onnx::OnnxDetector;
use equimorph::oracle::OracleMode;
use equimorph::search::{OracleOrder, SearchConfig, SearchResult, Searcher, Strategy};
use equimorph::task::Task;
use equimorph::transform::{LoadedTransform, TransformSet};

fn tiny_detector() -> OnnxDetector {
    let p = equimorph::detector::model::models_dir().join("tiny-embedding");
    assert!(p.is_dir(), "{} missing: run `make setup`", p.display());
    OnnxDetector::open(&p, common::cpu_options(8)).unwrap()
}

fn guided(seed: u64) -> SearchConfig {
    SearchConfig {
        strategy: Strategy::Guided,
        beam: 3,
        iterations: 6,
        seed,
        per_iteration: Some(6),
        patience: Some(3),
        ..SearchConfig::default()
    }
}

fn search(
    transforms: &[LoadedTransform],
    det: &OnnxDetector,
    task: &Task,
    config: SearchConfig,
) -> SearchResult {
    // A fresh oracle per search: no run benefits from another's cache.
    let oracle = common::oracle(OracleMode::Fork);
    let reference = oracle.validate(task).reference.expect("fixture ok");
    Searcher::new(transforms, det, &oracle, config)
        .run(task, &reference)
        .unwrap()
}

/// `f` run on a rayon pool of `threads` threads.
fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// What must agree between two runs of one search (everything but the timings).
fn outcome(r: &SearchResult) -> impl PartialEq + std::fmt::Debug {
    (
        r.best.clone(),
        r.beams.clone(),
        r.counts,
        r.best_per_iteration.clone(),
        r.scored_per_iteration.clone(),
        r.stopped.clone(),
    )
}

#[test]
fn guided_search_gives_the_same_bytes_on_one_and_two_threads() {
    let transforms: Vec<_> = common::default_set().iter().cloned().collect();
    let det = tiny_detector();
    for task in common::fixture_tasks().tasks.iter().take(4) {
        let runs: Vec<SearchResult> = [1, 2, 2]
            .into_iter()
            .map(|threads| on_threads(threads, || search(&transforms, &det, task, guided(5))))
            .collect();
        assert_eq!(outcome(&runs[0]), outcome(&runs[1]), "{}", task.id);
        assert_eq!(outcome(&runs[1]), outcome(&runs[2]), "{}", task.id);
        // It did search: something scored after the first iteration, and far from everything.
        let r = &runs[0];
        assert!(r.iterations >= 2, "{}: {:?}", task.id, r.stopped);
        assert!(
            r.counts.scored < r.counts.unique,
            "{}: {:?}",
            task.id,
            r.counts
        );
        // A different seed is a different search.
        let other = search(&transforms, &det, task, guided(6));
        assert_ne!(
            outcome(&other),
            outcome(r),
            "{}: the seed changed nothing",
            task.id
        );
    }
}

#[test]
fn guided_lazy_oracle_selects_what_checking_every_candidate_selects() {
    let transforms: Vec<_> = common::default_set().iter().cloned().collect();
    let det = tiny_detector();
    for task in common::fixture_tasks().tasks.iter().skip(4).take(4) {
        let lazy = search(&transforms, &det, task, guided(1));
        let naive = search(
            &transforms,
            &det,
            task,
            SearchConfig {
                oracle_order: OracleOrder::All,
                ..guided(1)
            },
        );
        assert_eq!(lazy.beams, naive.beams, "{}", task.id);
        assert_eq!(lazy.best, naive.best, "{}", task.id);
        assert!(lazy.counts.oracle_checked <= naive.counts.oracle_checked);
    }
}

#[test]
fn max_queries_is_never_exceeded_by_one_query() {
    let transforms: Vec<_> = common::default_set().iter().cloned().collect();
    let det = tiny_detector();
    let task = &common::fixture_tasks().tasks[2];
    for strategy in [
        Strategy::Guided,
        Strategy::Beam,
        Strategy::Greedy,
        Strategy::Random,
    ] {
        for max in [1, 7, 40] {
            let config = SearchConfig {
                strategy,
                beam: 3,
                iterations: 8,
                max_queries: Some(max),
                ..guided(3)
            };
            let r = search(&transforms, &det, task, config);
            assert!(
                r.counts.scored as usize <= max,
                "{strategy:?} scored {} with --max-queries {max}",
                r.counts.scored
            );
            // Beam-like searches spend the whole budget when it binds.
            if strategy != Strategy::Random && max <= 7 {
                assert_eq!(r.counts.scored as usize, max, "{strategy:?}");
                assert_eq!(
                    r.stopped.as_deref(),
                    Some("query budget reached"),
                    "{strategy:?}"
                );
            }
            assert!(r.scored_per_iteration.iter().all(|s| *s as usize <= max));
        }
    }
}

#[test]
fn with_one_strong_transform_among_near_identities_guided_finds_it_with_far_fewer_queries() {
    // One strong transform (a script renaming every local) among eight that only append a
    // comment: valid, new, and barely visible to the detector.
    let dir = tempfile::tempdir().unwrap();
    let strong = common::root().join("fixtures/scripts/rename-locals/strong.py");
    let mut files = vec![strong];
    for k in 0..8 {
        let path = dir.path().join(format!("note-{k}.py"));
        std::fs::write(
            &path,
            format!(
                "# name: note-{k}\n# category: layout\n# description: appends a comment\n\
                 import sys\nsource = sys.stdin.read()\nprint(source.rstrip('\\n') + '\\n# note {k}')\n"
            ),
        )
        .unwrap();
        files.push(path);
    }
    let (rt, _cache) = common::runtime(Default::default());
    let set = TransformSet::load_files(&rt, &files).unwrap();
    let transforms: Vec<_> = set.iter().cloned().collect();
    let det = tiny_detector();
    let task = common::fixture("primes-sieve");
    let config = |strategy| SearchConfig {
        strategy,
        beam: 3,
        iterations: 4,
        seed: 9,
        per_iteration: Some(3),
        ..SearchConfig::default()
    };
    let beam = search(&transforms, &det, &task, config(Strategy::Beam));
    let guided = search(&transforms, &det, &task, config(Strategy::Guided));
    let strong_once = beam.single_step["rename-locals"];
    for r in [&beam, &guided] {
        assert!(
            r.best.steps.iter().any(|s| s.name == "rename-locals"),
            "{:?}",
            r.best.steps
        );
        assert!(
            r.best.similarity <= strong_once,
            "{} > {strong_once}",
            r.best.similarity
        );
    }
    // Every other transform moved the detector less than the strong one, or the fixture is
    // not what it claims.
    for (name, m) in &beam.single_step {
        if name != "rename-locals" {
            assert!(*m > strong_once, "{name}: {m} ≤ {strong_once}");
        }
    }
    assert!(
        guided.counts.scored * 2 <= beam.counts.scored,
        "guided scored {}, beam {}",
        guided.counts.scored,
        beam.counts.scored
    );
}

#[test]
fn a_task_not_yet_below_the_threshold_searches_past_n_and_a_won_one_does_not() {
    let transforms: Vec<_> = common::default_set().iter().cloned().collect();
    let det = tiny_detector();
    let task = &common::fixture_tasks().tasks[0];
    let config = |success_below| SearchConfig {
        iterations: 2,
        patience: Some(50),
        extend: 3,
        success_below,
        ..guided(5)
    };
    // A threshold no program reaches: every improving iteration of the extension is taken.
    let unreached = search(&transforms, &det, task, config(Some(-1.0)));
    assert!(
        unreached.iterations > 2 && unreached.iterations <= 5,
        "{} iterations, stopped: {:?}",
        unreached.iterations,
        unreached.stopped
    );
    // A threshold the original is already below: the task is won, N is the limit.
    let won = search(&transforms, &det, task, config(Some(2.0)));
    assert_eq!(won.iterations, 2, "stopped: {:?}", won.stopped);
    // No threshold: no extension.
    let none = search(&transforms, &det, task, config(None));
    assert_eq!(none.iterations, 2);
    // The extension continues the same search: its first N iterations are the same.
    assert_eq!(
        unreached.best_per_iteration[..2],
        none.best_per_iteration[..],
        "the first iterations differ"
    );
}

#[test]
fn a_cheap_scorer_ranks_while_the_detector_alone_decides_the_best() {
    use equimorph::detector::{Classic, Detector};
    let transforms: Vec<_> = common::default_set().iter().cloned().collect();
    let det = tiny_detector();
    // A real cheap scorer that ranks unlike the detector: token-multiset Jaccard.
    let cheap = Classic::Jaccard;
    let ranked = |task: &Task, threads: usize| {
        on_threads(threads, || {
            let oracle = common::oracle(OracleMode::Fork);
            let reference = oracle.validate(task).reference.expect("fixture ok");
            Searcher::new(&transforms, &det, &oracle, guided(5))
                .with_scorer(Some(&cheap))
                .run(task, &reference)
                .unwrap()
        })
    };
    for task in common::fixture_tasks().tasks.iter().take(3) {
        let plain = search(&transforms, &det, task, guided(5));
        let r = ranked(task, 1);
        assert_eq!(outcome(&r), outcome(&ranked(task, 2)), "{}", task.id);
        assert!(r.iterations >= 2, "{}: {:?}", task.id, r.stopped);
        // After the first iteration the scorer ranks; only contenders reach the detector.
        assert!(r.counts.cheap_scored > 0, "{}: {:?}", task.id, r.counts);
        assert!(
            r.counts.scored < plain.counts.scored,
            "{}: {:?} against {:?}",
            task.id,
            r.counts,
            plain.counts
        );
        // The first iteration (one-step strength) is the detector's in both.
        assert_eq!(r.single_step, plain.single_step, "{}", task.id);
        // The best is the detector's M of the best program, never the scorer's.
        assert!(r.best_per_iteration.iter().all(|m| m.is_finite()));
        // (Scored alone here, in a batch there: the last digits may differ.)
        let exact = det.score(&task.source, &[r.best.text.as_str()]).unwrap()[0];
        assert!(
            (r.best.similarity - exact).abs() < 1e-5,
            "{}: {} against {exact}",
            task.id,
            r.best.similarity
        );
        if r.best.similarity < 1.0 {
            let jaccard = cheap.score(&task.source, &[r.best.text.as_str()]).unwrap()[0];
            assert!(
                (r.best.similarity - jaccard).abs() > 1e-3,
                "{}: the scorer's M",
                task.id
            );
        }
    }
}

#[test]
fn ranked_application_applies_far_fewer_pairs_and_gives_the_same_bytes_on_any_threads() {
    let transforms: Vec<_> = common::default_set().iter().cloned().collect();
    let det = tiny_detector();
    let ranked = SearchConfig {
        ranked_apply: true,
        ..guided(5)
    };
    for task in common::fixture_tasks().tasks.iter().take(3) {
        let runs: Vec<SearchResult> = [1, 2]
            .into_iter()
            .map(|threads| on_threads(threads, || search(&transforms, &det, task, ranked.clone())))
            .collect();
        assert_eq!(outcome(&runs[0]), outcome(&runs[1]), "{}", task.id);
        let all = search(&transforms, &det, task, guided(5));
        let r = &runs[0];
        assert!(r.iterations >= 2, "{}: {:?}", task.id, r.stopped);
        // The first iteration is the same (every transform on the original) ...
        assert_eq!(r.single_step, all.single_step, "{}", task.id);
        // ... after it, each iteration applies only the pairs ranked first: about 3 × 6
        // candidates a iteration, not beam × transforms.
        let per_iteration = |x: &SearchResult| {
            (x.counts.generated - transforms.len() as u64) as f64 / (x.iterations - 1).max(1) as f64
        };
        assert!(
            per_iteration(r) < 0.6 * per_iteration(&all),
            "{}: {:.0} against {:.0} applications a iteration",
            task.id,
            per_iteration(r),
            per_iteration(&all)
        );
        // It still scores after the first iteration.
        assert!(
            r.counts.scored > r.single_step.len() as u64,
            "{}: {:?}",
            task.id,
            r.counts
        );
    }
}

#[test]
fn a_candidate_the_detector_reads_as_one_scored_before_takes_its_score_without_a_query() {
    use equimorph::detector::{Classic, Detector};
    let det = tiny_detector();
    // The tokenizer drops indentation and case: those two texts are one input to the model.
    let keys = det
        .input_keys(&[
            "def f(x):\n    return x\n",
            "def f(x):\n  return X\n",
            "def f(y):\n    return y\n",
        ])
        .unwrap();
    assert!(keys[0].is_some());
    assert_eq!(keys[0], keys[1]);
    assert_ne!(keys[0], keys[2]);
    // A measure that cannot tell gives no keys: every text is scored.
    assert_eq!(
        Classic::Jaccard.input_keys(&["a", "a"]).unwrap(),
        vec![None, None]
    );

    let transforms: Vec<_> = common::default_set().iter().cloned().collect();
    let mut reused = 0;
    for task in common::fixture_tasks().tasks.iter().take(3) {
        let runs: Vec<SearchResult> = [1, 2]
            .into_iter()
            .map(|threads| on_threads(threads, || search(&transforms, &det, task, guided(5))))
            .collect();
        assert_eq!(outcome(&runs[0]), outcome(&runs[1]), "{}", task.id);
        let r = &runs[0];
        reused += r.counts.reused;
        // Re-indenting the original changes nothing the model reads: M = 1, as the original.
        if let Some(m) = r.single_step.get("indent-width") {
            assert_eq!(*m, 1.0, "{}", task.id);
        }
        let exact = det.score(&task.source, &[r.best.text.as_str()]).unwrap()[0];
        assert!((r.best.similarity - exact).abs() < 1e-5, "{}", task.id);
        let oracle = common::oracle(OracleMode::Fork);
        let reference = oracle.validate(task).reference.expect("fixture ok");
        let classic = Searcher::new(&transforms, &Classic::Jaccard, &oracle, guided(5))
            .run(task, &reference)
            .unwrap();
        assert_eq!(classic.counts.reused, 0, "{}", task.id);
    }
    assert!(reused > 0, "no candidate took an earlier score");
}
