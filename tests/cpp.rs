//! C and C++ end to end: the compile-once oracle in the sandbox (compile errors, undefined
//! behaviour caught at validation), every C++ transform on every C++ fixture task checked by
//! it, the classic detectors' C++ lines, C++ mutants, the CodeNet C++ layouts, and the jobs on
//! a file mixing C++, Java and Python tasks.

use crate::common;

use equimorph::adequacy::mutants::all_mutants_of;
use equimorph::oracle::{OracleMode, ValidationStatus};
use equimorph::program::Language;
use equimorph::task::{Task, TestCase};
use rayon::prelude::*;

fn cpp_tasks() -> equimorph::task::TaskSet {
    equimorph::task::load(&common::root().join("fixtures/cpp/tasks.jsonl"), None)
        .expect("C++ fixtures load")
}

fn task_in(language: Language, id: &str, source: &str, tests: &[(&str, Option<&str>)]) -> Task {
    Task::new(
        id,
        source,
        tests
            .iter()
            .map(|(i, o)| TestCase::stdin(*i, o.map(String::from)))
            .collect(),
    )
    .in_language(language)
}

const SUM: &str = "#include <bits/stdc++.h>\nusing namespace std;\n\nint main() {\n    int n;\n    cin >> n;\n    long long total = 0;\n    for (int i = 0; i < n; i++) {\n        int x;\n        cin >> x;\n        if (x > 0) total += x;\n    }\n    cout << total << endl;\n    return 0;\n}\n";

#[test]
fn cpp_tasks_load_with_their_language_and_validate() {
    let set = cpp_tasks();
    assert!(set.tasks.len() >= 30, "{} C++ tasks", set.tasks.len());
    assert!(set.tasks.iter().all(|t| t.language == Language::Cpp));
    let oracle = common::oracle(OracleMode::Fork);
    let bad: Vec<String> = set
        .tasks
        .par_iter()
        .map(|t| (t.id.clone(), oracle.validate(t)))
        .filter(|(_, v)| v.status != ValidationStatus::Ok)
        .map(|(id, v)| format!("{id}: {:?}", v.reason))
        .collect();
    assert!(bad.is_empty(), "{bad:?}");
}

#[test]
fn the_native_oracle_judges_compile_errors_and_undefined_behaviour() {
    let oracle = common::oracle(OracleMode::Fork);
    let task = task_in(
        Language::Cpp,
        "sum",
        SUM,
        &[("3\n1 -2 5\n", Some("6\n")), ("2\n-1 -1\n", Some("0\n"))],
    );
    let v = oracle.validate(&task);
    assert_eq!(v.status, ValidationStatus::Ok, "{:?}", v.reason);
    let reference = v.reference.unwrap();
    // An equivalent rewrite, a wrong one, and one that does not compile (never a verdict).
    let same = SUM.replace("total += x;", "total = total + x;");
    assert!(oracle.check(&task, &reference, &same).unwrap().equivalent);
    let wrong = SUM.replace("x > 0", "x >= -1");
    let d = oracle.check(&task, &reference, &wrong).unwrap();
    assert!(!d.equivalent && d.invalid.is_none(), "{d:?}");
    let broken = SUM.replace("long long total", "long long totl");
    let d = oracle.check(&task, &reference, &broken).unwrap();
    assert!(
        d.invalid
            .as_deref()
            .is_some_and(|w| w.contains("totl") || w.contains("total")),
        "{d:?}"
    );
    // An original that does not compile is unparseable, with the compiler's words.
    let bad = task_in(
        Language::Cpp,
        "bad",
        "int main() { return x; }\n",
        &[("", None)],
    );
    let v = oracle.validate(&bad);
    assert_eq!(v.status, ValidationStatus::Unparseable, "{:?}", v.reason);
    assert!(v.reason.unwrap().contains("'x' was not declared"));
    // Signed overflow: `x + 1 > x` for INT_MAX is 0 at -O0 and 1 once optimised, the same on
    // every run of one build, so it is the build check, not a second run, that reports it
    // as unstable (not attacked).
    let ub = task_in(
        Language::C,
        "ub",
        "#include <stdio.h>\nint main(void) {\n    int x;\n    if (scanf(\"%d\", &x) != 1) return 1;\n    int y = x + 1;\n    printf(\"%d\\n\", y > x);\n    return 0;\n}\n",
        &[("2147483647\n", None)],
    );
    let v = oracle.validate(&ub);
    assert_eq!(v.status, ValidationStatus::Flaky, "{:?}", v.reason);
    assert!(v.reason.unwrap().contains("undefined behaviour"));
    // A C program runs under gcc.
    let c = task_in(
        Language::C,
        "max",
        "#include <stdio.h>\nint main(void) {\n    int n, x, best = -1000000;\n    if (scanf(\"%d\", &n) != 1) return 1;\n    while (n--) { scanf(\"%d\", &x); if (x > best) best = x; }\n    printf(\"%d\\n\", best);\n    return 0;\n}\n",
        &[("3\n1 7 5\n", Some("7\n"))],
    );
    assert_eq!(oracle.validate(&c).status, ValidationStatus::Ok);
    let stats = oracle.native_runner().unwrap().stats();
    assert!(stats.compiles >= 4 && stats.errors >= 2, "{stats:?}");
}

/// One seed per (task, transform) pair, seeds 0 and 1 in turn: 34 tasks × 26 transforms is
/// 884 compiled checks (the guest tests already run every site of every C++ fixture natively).
#[test]
fn every_cpp_transform_on_every_cpp_task_is_equivalent() {
    common::assert_every_transform_equivalent(Language::Cpp, &cpp_tasks(), 2, 1, 15, 1);
}

fn c_tasks() -> equimorph::task::TaskSet {
    equimorph::task::load(&common::root().join("fixtures/cpp/c_tasks.jsonl"), None)
        .expect("C fixtures load")
}

/// The C++ transforms that declare C as well are offered C programs, and every output compiles
/// with gcc as C and behaves the same; those that write C++-only syntax are not offered them.
#[test]
fn c_tasks_get_the_c_capable_transforms_and_every_output_is_equivalent_c() {
    let tasks = c_tasks();
    assert!(tasks.tasks.iter().all(|t| t.language == Language::C));
    let set = common::default_set();
    let for_c: Vec<&str> = set
        .iter()
        .filter(|t| t.rewrites(Language::C))
        .map(|t| t.name.as_str())
        .collect();
    for cpp_only in [
        "cpp-stdio",
        "cpp-auto-type",
        "cpp-typedef-using",
        "cpp-std-qualify",
        "cpp-std-unqualify",
        "cpp-block-extract",
    ] {
        assert!(!for_c.contains(&cpp_only), "{cpp_only} writes C++ only");
    }
    assert!(
        set.uncovered_languages(&tasks.tasks).is_empty(),
        "C is covered"
    );
    common::assert_every_transform_equivalent(Language::C, &tasks, 2, 2, 12, 1);
}

#[test]
fn classic_detectors_read_cpp_statements_and_directives() {
    use equimorph::detector::classic::{nicad_lines_as, token_count_as};
    let src = "#include <bits/stdc++.h>\n#define N 10\nusing namespace std;\nint main() { int a[N] = {1, 2}; for (int i = 0; i < N; i++) a[i] += i; // tail\n  cout << a[1] << endl; }\n";
    let lines = nicad_lines_as(Language::Cpp, src);
    assert!(lines.iter().any(|l| l.starts_with("#include")), "{lines:?}");
    // A directive is a line of its own, not glued to the next statement.
    assert!(
        lines
            .iter()
            .all(|l| !(l.contains("#define") && l.contains("using"))),
        "{lines:?}"
    );
    // Reformatting does not change the lines, and comments are no tokens.
    let spread = src
        .replace("{ int a[N]", "{\n    int a[N]")
        .replace("; // tail\n", ";\n");
    assert_eq!(nicad_lines_as(Language::Cpp, &spread), lines);
    assert_eq!(
        token_count_as(Language::Cpp, src),
        token_count_as(Language::Cpp, &spread)
    );
    assert_eq!(Language::detect(src), Language::Cpp);
}

#[test]
fn cpp_mutants_cover_the_operators_and_tests_reject_them() {
    let mutants = all_mutants_of(Language::Cpp, SUM);
    let ops: std::collections::BTreeSet<&str> = mutants.iter().map(|m| m.operator.name()).collect();
    for op in [
        "comparison",
        "arithmetic",
        "constant",
        "negate-condition",
        "drop-statement",
    ] {
        assert!(ops.contains(op), "{op} missing: {ops:?}");
    }
    // A stream's `<<` is no shift to mutate.
    assert!(
        mutants.iter().all(|m| !m.edit.contains("`<<` → `>>`")),
        "{:?}",
        mutants.iter().map(|m| &m.edit).collect::<Vec<_>>()
    );
    let oracle = common::oracle(OracleMode::Fork);
    let task = task_in(
        Language::Cpp,
        "sum",
        SUM,
        &[("3\n1 -2 5\n", Some("6\n")), ("2\n-1 -1\n", Some("0\n"))],
    );
    let reference = oracle.validate(&task).reference.unwrap();
    let rejected = mutants
        .par_iter()
        .filter(|m| {
            let d = oracle.check(&task, &reference, &m.source).unwrap();
            d.invalid.is_none() && !d.equivalent
        })
        .count();
    assert!(
        rejected * 2 >= mutants.len(),
        "{rejected} of {}",
        mutants.len()
    );
}

#[test]
fn codenet_cpp_and_c_submissions_load_when_asked_and_cpp1000_subsets_load_as_cpp() {
    use equimorph::task::{load_with, LoadOptions, TaskFormat};
    let oracle = common::oracle(OracleMode::Fork);
    let full = common::root().join("fixtures/formats/codenet");
    let with = |langs: &[&str]| {
        let options = LoadOptions {
            languages: langs.iter().map(|s| s.to_string()).collect(),
            ..LoadOptions::default()
        };
        load_with(&full, Some(TaskFormat::Codenet), &options).unwrap()
    };
    let cpp = with(&["C++"]);
    let ids: Vec<&str> = cpp.tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["p00001/s009", "p00001/s013"]);
    assert!(cpp.tasks.iter().all(|t| t.language == Language::Cpp));
    let c = with(&["c"]);
    assert_eq!(c.tasks.len(), 1);
    assert_eq!(c.tasks[0].language, Language::C);
    for t in cpp.tasks.iter().chain(&c.tasks) {
        let v = oracle.validate(t);
        assert_eq!(v.status, ValidationStatus::Ok, "{}: {:?}", t.id, v.reason);
    }
    // By default the full dataset loads Python only.
    assert!(with(&[])
        .tasks
        .iter()
        .all(|t| t.language == Language::Python));
    // A C++1000-style subset (only .cpp files) loads as C++ without being asked.
    let subset = common::root().join("fixtures/formats/codenet_cpp1000/Project_CodeNet_C++1000");
    let options = LoadOptions {
        codenet_root: Some(full.clone()),
        ..LoadOptions::default()
    };
    let set = load_with(&subset, Some(TaskFormat::Codenet), &options).unwrap();
    assert_eq!(set.tasks.len(), 2);
    assert!(set.tasks.iter().all(|t| t.language == Language::Cpp));
    assert!(set.tasks.iter().all(|t| !t.tests.is_empty()));
}

fn results(dir: &std::path::Path, file: &str) -> Vec<serde_json::Value> {
    common::read(dir.join(file))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn attack_runs_a_file_mixing_cpp_java_and_python_tasks() {
    let tasks = common::root().join("fixtures/cpp/mixed.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("attack");
    let run = common::attack_command(
        &tasks,
        &out,
        "jaccard",
        3,
        &["--beam", "2", "--threshold", "0.5"],
    )
    .output()
    .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let lines = results(&out, "results.jsonl");
    assert_eq!(lines.len(), 9);
    let set = equimorph::task::load(&tasks, None).unwrap();
    let oracle = common::oracle(OracleMode::Fork);
    for l in &lines {
        let id = l["id"].as_str().unwrap();
        assert_eq!(l["status"], "ok", "{l}");
        let steps: Vec<&str> = l["transforms"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        assert!(!steps.is_empty(), "{id}: no rewrite found");
        let cpp = id.starts_with("cpp/");
        assert!(
            steps.iter().all(|s| s.starts_with("cpp-") == cpp),
            "{id}: {steps:?}"
        );
        if cpp {
            // The winner compiles and behaves like the original on the task's tests.
            let task = set.get(id).cloned().unwrap();
            let reference = oracle.validate(&task).reference.unwrap();
            let best = l["best"].as_str().unwrap();
            let d = oracle.check(&task, &reference, best).unwrap();
            assert!(d.equivalent && d.invalid.is_none(), "{id}: {d:?}");
        }
    }
    assert!(common::read(out.join("report.md")).contains("cpp-"));
}

#[test]
fn poj104_trees_and_jsonl_load_as_untested_c_and_cpp_programs_with_honest_counts() {
    use equimorph::task::{detect_format, load_with, LoadOptions, TaskFormat};
    let tree = common::root().join("fixtures/formats/poj104");
    assert_eq!(detect_format(&tree).unwrap(), TaskFormat::Poj104);
    let set = load_with(&tree, None, &LoadOptions::default()).unwrap();
    assert!(set.tasks.is_empty(), "POJ-104 has no tests");
    let ids: Vec<&str> = set.untested.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "poj104/1/1",
            "poj104/1/2",
            "poj104/1/3",
            "poj104/2/1",
            "poj104/2/2",
            "poj104/3/1"
        ]
    );
    let language = |id: &str| set.untested.iter().find(|t| t.id == id).unwrap().language;
    assert_eq!(language("poj104/1/1"), Language::C);
    assert_eq!(language("poj104/1/3"), Language::C, "void main() is old C");
    assert_eq!(language("poj104/1/2"), Language::Cpp);
    assert_eq!(set.skipped.get("empty program(s)"), Some(&1));
    assert_eq!(set.skipped.get("program(s) not valid UTF-8"), Some(&1));
    let report = set.report();
    assert_eq!((report.untested, report.problems), (6, 3));
    // The JSONL of CodeXGLUE's preprocess.py: the same programs.
    let jsonl = common::root().join("fixtures/formats/poj104.jsonl");
    assert_eq!(detect_format(&jsonl).unwrap(), TaskFormat::Poj104);
    let lines = load_with(&jsonl, None, &LoadOptions::default()).unwrap();
    assert_eq!(lines.untested.len(), 6);
    assert_eq!(lines.untested[3].problem.as_deref(), Some("poj104/2"));
    // calibrate reads its classes as problems: two programs of one class are a clone.
    let o = common::equimorph(
        &[
            "calibrate",
            tree.to_str().unwrap(),
            "--detector",
            "jaccard",
            "--out",
            tempfile::tempdir().unwrap().path().to_str().unwrap(),
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(said.contains("4 clone pairs"), "{said}");
}

/// `tests grow` gives POJ-104 programs (no tests) first tests on which most programs of their
/// class agree, drops the program that disagrees, grows from them, and `attack` then rewrites
/// the seeded programs under those tests.
#[test]
fn poj104_programs_get_tests_their_class_agrees_on_and_are_attacked() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("ProgramData");
    let fixtures = common::root().join("fixtures/formats/poj104/ProgramData");
    for (class, files) in [
        ("1", ["1.txt", "2.txt", "3.txt"].as_slice()),
        ("2", &["1.txt", "2.txt"]),
        ("3", &["1.txt"]),
    ] {
        std::fs::create_dir_all(tree.join(class)).unwrap();
        for f in files {
            std::fs::copy(fixtures.join(class).join(f), tree.join(class).join(f)).unwrap();
        }
    }
    // A wrong solution of class 1 (sum of 1..n): it prints n * n.
    std::fs::write(
        tree.join("1/4.txt"),
        "#include <stdio.h>\nint main() { int n; scanf(\"%d\", &n); printf(\"%d\\n\", n * n); return 0; }\n",
    )
    .unwrap();
    let grown = dir.path().join("grown.jsonl");
    let o = common::equimorph(
        &[
            "tests",
            "grow",
            tree.to_str().unwrap(),
            "--out",
            grown.to_str().unwrap(),
            "--mutants",
            "20",
            "--max-tests",
            "2",
            "--coverage-tests",
            "1",
            "--patience",
            "1",
            "--quiet",
        ],
        None,
    );
    let said = common::success_stdout(&o);
    assert!(
        said.contains("poj104/1: tests seeded for 3 of 4 untested program(s)")
            && said.contains("disagree with the majority: poj104/1/4 ("),
        "{said}"
    );
    assert!(said.contains("poj104/2: tests seeded for 2 of 2"), "{said}");
    assert!(
        said.contains("poj104/3: untested, not seeded: fewer than 2 programs"),
        "{said}"
    );
    assert!(
        said.contains("seeding: 5 of 7 untested program(s) in 3 problem(s)"),
        "{said}"
    );
    let set = equimorph::task::load(&grown, None).unwrap();
    let mut ids: Vec<&str> = set.tasks.iter().map(|t| t.id.as_str()).collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        [
            "poj104/1/1",
            "poj104/1/2",
            "poj104/1/3",
            "poj104/2/1",
            "poj104/2/2"
        ]
    );
    let mut untested: Vec<&str> = set.untested.iter().map(|t| t.id.as_str()).collect();
    untested.sort_unstable();
    assert_eq!(untested, ["poj104/1/4", "poj104/3/1"]);
    // Every seeded test is one the wrong program fails and the right ones pass: its expected
    // output is the class's answer (the sum 1..n), checked here outside equimorph.
    let sum_tests: Vec<&TestCase> = set.get("poj104/1/1").unwrap().tests.iter().collect();
    assert!(sum_tests.len() >= 3, "{sum_tests:?}");
    let first = |t: &TestCase| t.input.split_whitespace().next()?.parse::<i64>().ok();
    for t in &sum_tests {
        let Some(n) = first(t) else { continue };
        let expected = if n > 0 { n * (n + 1) / 2 } else { 0 };
        assert_eq!(
            t.output.as_deref().map(str::trim),
            Some(expected.to_string().as_str()),
            "{t:?}"
        );
    }
    assert!(sum_tests
        .iter()
        .filter_map(|t| first(t))
        .any(|n| n * n != n * (n + 1) / 2));
    // The void main() program (exit status not 0) is seeded and validates like the others.
    let oracle = common::oracle(OracleMode::Fork);
    for t in &set.tasks {
        assert_eq!(oracle.validate(t).status, ValidationStatus::Ok, "{}", t.id);
    }
    let out = dir.path().join("attack");
    let run = common::attack_command(
        &grown,
        &out,
        "jaccard",
        2,
        &["--beam", "2", "--threshold", "0.5"],
    )
    .output()
    .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let lines = results(&out, "results.jsonl");
    assert_eq!(lines.len(), 5);
    for l in &lines {
        let id = l["id"].as_str().unwrap();
        assert_eq!(l["status"], "ok", "{l}");
        let task = set.get(id).cloned().unwrap();
        let reference = oracle.validate(&task).reference.unwrap();
        let d = oracle
            .check(&task, &reference, l["best"].as_str().unwrap())
            .unwrap();
        assert!(d.equivalent && d.invalid.is_none(), "{id}: {d:?}");
    }
}

/// `select` ranks C++ script candidates (`# language: cpp`) on C++ tasks with the real oracle,
/// and `attack` runs the selected script beside a component on C++ tasks.
#[test]
fn select_ranks_cpp_script_candidates_and_attack_uses_the_winner() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = common::root().join("fixtures/cpp/tasks.jsonl");
    let sel = dir.path().join("select");
    let candidates = common::root().join("fixtures/scripts-cpp");
    let printed = common::success_stdout(&common::equimorph(
        &[
            "select",
            candidates.to_str().unwrap(),
            "--tasks",
            tasks.to_str().unwrap(),
            "--out",
            sel.to_str().unwrap(),
            "--detector",
            "jaccard",
            "--limit",
            "8",
            "--quiet",
        ],
        None,
    ));
    assert!(printed.contains("4 candidates in 1 group"), "{printed}");
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(&common::read(sel.join("selection.json"))).unwrap();
    let row = |file: &str| rows.iter().find(|r| r["file"] == file).unwrap().clone();
    let (strong, weak, wrong, never) = (
        row("strong.py"),
        row("weak.py"),
        row("wrong.py"),
        row("never.py"),
    );
    assert_eq!(never["applicable"], 0, "{never}");
    assert!(wrong["broken"].as_u64().unwrap() > 0, "{wrong}");
    assert_eq!(strong["broken"], 0, "{strong}");
    assert_eq!(weak["broken"], 0, "{weak}");
    assert!(
        strong["reward"].as_f64() > weak["reward"].as_f64(),
        "{strong} {weak}"
    );
    assert_eq!(strong["selected"], true, "{rows:?}");
    // The winner, beside a component, on three C++ tasks.
    let three = dir.path().join("three.jsonl");
    let text = common::read(&tasks);
    let lines: Vec<&str> = text.lines().take(3).collect();
    std::fs::write(&three, lines.join("\n") + "\n").unwrap();
    let out = dir.path().join("attack");
    let spec = format!(
        "{},cpp-local-rename",
        sel.join("selected/rename-short.py").display()
    );
    let run = common::attack_command(&three, &out, "jaccard", 2, &["--transforms", &spec])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let results: Vec<serde_json::Value> = results(&out, "results.jsonl");
    assert_eq!(results.len(), 3);
    let used: std::collections::BTreeSet<String> = results
        .iter()
        .flat_map(|l| l["transforms"].as_array().unwrap().clone())
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect();
    assert!(used.contains("rename-short"), "{used:?}");
}

/// `robustness` end to end on a file mixing C++ and C solutions of the same problems: the
/// split keeps each problem on one side, the held-out C and C++ solutions of one problem are
/// the clean clone pairs, and every detector is attacked with the C/C++ set.
#[test]
fn robustness_runs_on_cpp_and_c_solutions_of_shared_problems() {
    let dir = tempfile::tempdir().unwrap();
    let problems = [
        "balanced",
        "caesar",
        "count-primes",
        "digit-sum",
        "gcd-list",
        "leap-year",
        "median",
        "max-subarray",
    ];
    let mut text = String::new();
    for file in ["fixtures/cpp/tasks.jsonl", "fixtures/cpp/c_tasks.jsonl"] {
        for line in common::read(common::root().join(file)).lines() {
            let task: serde_json::Value = serde_json::from_str(line).unwrap();
            if problems.contains(&task["problem"].as_str().unwrap()) {
                text += &format!("{line}\n");
            }
        }
    }
    let tasks = dir.path().join("tasks.jsonl");
    std::fs::write(&tasks, text).unwrap();
    let out = dir.path().join("rq3");
    let model = equimorph::detector::model::models_dir().join("tiny-embedding");
    let spec = format!("onnx:{}", model.display());
    let stdout = common::success_stdout(&common::equimorph(
        &[
            "robustness",
            tasks.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--detector",
            &spec,
            "--set",
            "classic=cpp-local-rename,cpp-for-to-while,cpp-if-else-flip,cpp-global-rename",
            "--train-set",
            "classic",
            "--seeds",
            "1",
            "--test",
            "0.5",
            "--variants",
            "2",
            "--steps",
            "1..2",
            "--epochs",
            "2",
            "--search",
            "beam",
            "--beam",
            "2",
            "--iterations",
            "2",
            "--quiet",
        ],
        None,
    ));
    assert!(stdout.contains("clean ROC AUC base"), "{stdout}");
    let report: serde_json::Value =
        serde_json::from_str(&common::read(out.join("robustness.json"))).unwrap();
    let run = &report["runs"][0];
    let side = |k: &str| -> Vec<String> {
        run["split"][k]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    let problem = |id: &String| id.split('/').nth(1).unwrap().to_string();
    let (train, test) = (side("train"), side("test"));
    assert_eq!(train.len() + test.len(), 16);
    assert!(test.iter().any(|id| id.starts_with("c/")), "{test:?}");
    assert!(test.iter().any(|id| id.starts_with("cpp/")), "{test:?}");
    assert!(train
        .iter()
        .all(|id| !test.iter().any(|t| problem(t) == problem(id))));
    // Each held-out problem has its C and its C++ solution: clone pairs to measure on.
    assert!(run["clean_pairs"][0].as_u64().unwrap() > 0, "{run}");
    assert!(
        run["clean"]["base"].is_object() || run["clean"]["base"].is_number(),
        "{run}"
    );
    let results = report["results"].as_array().unwrap();
    for detector in ["base", "robust-classic"] {
        let row = results
            .iter()
            .find(|r| r["detector"] == detector && r["transform_set"] == "classic")
            .unwrap_or_else(|| panic!("no {detector} row: {results:?}"));
        assert!(row["mean_distance"]["mean"].is_number(), "{row}");
        assert_eq!(row["tasks"], serde_json::json!([test.len()]), "{row}");
    }
}
