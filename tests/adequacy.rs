//! Test adequacy: mutation scores, grown tests and their keep rules, re-judging a run with
//! stronger tests, the symbolic check, and `augment --min-mutation-score`.

use crate::common;

use equimorph::adequacy::coverage::arcs_of;
use equimorph::adequacy::equivalent::without_trivially_equivalent;
use equimorph::adequacy::grow::{
    grow_group_until, grow_task, growth_leaders, siblings_of, FoundDomain, GrowOptions,
    CONTRADICTS, DISAGREE,
};
use equimorph::adequacy::mutants::{all_mutants, mutants};
use equimorph::adequacy::score::{score_task, MutantOptions};
use equimorph::adequacy::symbolic::{
    strengthened, SymbolicChecker, SymbolicRecord, SymbolicVerdict,
};
use equimorph::oracle::{Oracle, OracleMode, ValidationStatus};
use equimorph::program::Language;
use equimorph::task::{self, Task, TestCase};
use std::time::Duration;

fn adequacy_tasks() -> Vec<Task> {
    let path = common::root().join("fixtures/adequacy/stdin.jsonl");
    task::load(&path, None).expect("fixture loads").tasks
}

/// Writes `tasks` as a task file at `path`.
fn write_tasks(path: &std::path::Path, tasks: &[Task]) {
    let lines: String = tasks
        .iter()
        .map(|t| serde_json::to_string(t).unwrap() + "\n")
        .collect();
    std::fs::write(path, lines).unwrap();
}

/// Two accepted solutions `PROBLEM/0` and `PROBLEM/1` with one shared sample.
fn two_solutions(problem: &str, sample: TestCase, first: &str, second: &str) -> Vec<Task> {
    [first, second]
        .iter()
        .enumerate()
        .map(|(i, source)| {
            let mut t = Task::new(format!("{problem}/{i}"), *source, vec![sample.clone()]);
            t.problem = Some(problem.into());
            t
        })
        .collect()
}

/// The first task, its siblings, and grow options patient enough for a small problem.
fn first_of(tasks: &[Task]) -> (&Task, Vec<&Task>, GrowOptions) {
    let options = GrowOptions {
        patience: 8,
        ..GrowOptions::default()
    };
    (&tasks[0], siblings_of(&tasks[0], tasks), options)
}

/// Asserts that `original` and each of its `siblings` pass every test of `grown`.
fn assert_every_solution_passes(
    oracle: &Oracle,
    grown: &Task,
    original: &Task,
    siblings: &[&Task],
) {
    for s in std::iter::once(original).chain(siblings.iter().copied()) {
        let as_task = Task {
            source: s.source.clone(),
            ..grown.clone()
        };
        assert_eq!(
            oracle.validate(&as_task).status,
            ValidationStatus::Ok,
            "{} fails a grown test",
            s.id
        );
    }
}

fn problem(tasks: &[Task], name: &str) -> Vec<Task> {
    tasks
        .iter()
        .filter(|t| t.problem.as_deref() == Some(name))
        .cloned()
        .collect()
}

#[test]
fn mutants_of_every_fixture_program_parse_differ_and_repeat_for_a_seed() {
    for t in adequacy_tasks() {
        let all = all_mutants(&t.source);
        assert!(!all.is_empty(), "{}: no mutant", t.id);
        for m in &all {
            assert!(
                equimorph::program::validate(&m.source).is_ok(),
                "{}",
                m.edit
            );
            assert_ne!(
                m.source, t.source,
                "{}: the original is its own mutant",
                t.id
            );
        }
        assert_eq!(mutants(&t.source, 5, 3), mutants(&t.source, 5, 3));
    }
}

#[test]
fn grown_tests_reject_the_off_by_one_the_sample_misses_and_no_accepted_solution() {
    let oracle = common::oracle(OracleMode::Fork);
    let tasks = adequacy_tasks();
    let grade = problem(&tasks, "grade");
    let original = &grade[0];
    // `s >= 90` → `s > 90`: the sample (85) cannot tell; 90 can.
    let off_by_one = original.source.replace("s >= 90", "s > 90");
    assert_ne!(off_by_one, original.source);
    let reference = oracle.reference(original);
    assert!(
        oracle
            .check(original, &reference, &off_by_one)
            .unwrap()
            .equivalent,
        "the sample alone lets the off-by-one through"
    );
    let siblings = siblings_of(original, &tasks);
    assert_eq!(siblings.len(), 2);
    let (grown, report) = grow_task(&oracle, original, &siblings, GrowOptions::default());
    assert!(report.added > 0, "{report:?}");
    // The other solutions' mutants the sample misses are targets too, and some are rejected.
    assert!(report.sibling_mutants > 0, "{report:?}");
    assert!(report.sibling_killed > 0 && report.sibling_killed <= report.sibling_mutants);
    assert_eq!(grown.grown_tests(), report.added);
    assert!(grown
        .tests
        .iter()
        .skip(1)
        .all(|t| t.grown && t.output.is_some()));
    let after = report.after.as_ref().unwrap();
    assert!(after.mutation_score > report.before.as_ref().unwrap().mutation_score);
    assert_eq!(grown.mutation_score(), after.mutation_score);
    let reference = oracle.reference(&grown);
    let d = oracle.check(&grown, &reference, &off_by_one).unwrap();
    assert!(!d.equivalent, "a grown test rejects the off-by-one");
    assert!(d.failure.unwrap().grown);
    // No false alarm: the original and every other accepted solution pass the grown tests.
    assert_every_solution_passes(&oracle, &grown, original, &siblings);
    // A mutant retired before it ever runs on a new input is rejected by none: only tests for
    // coverage are grown, and the mutation score stays where the sample left it.
    let retired = GrowOptions {
        retire_after: 0,
        ..GrowOptions::default()
    };
    let (_, none) = grow_task(&oracle, original, &siblings, retired);
    assert_eq!(none.added, none.covering + none.large, "{none:?}");
    assert_eq!(none.sibling_killed, 0);
    assert_eq!(
        none.after.unwrap().mutation_score,
        none.before.unwrap().mutation_score
    );
}

#[test]
fn solutions_of_one_problem_share_one_growth_and_each_passes_its_own_outputs() {
    let oracle = common::oracle(OracleMode::Fork);
    let tasks = adequacy_tasks();
    let grade = problem(&tasks, "grade");
    // Every solution of `grade` has the same sample: the first leads, the others follow. A
    // task of another problem, or with other tests, leads its own growth.
    let mut mixed = grade.clone();
    let mut other_tests = grade[1].clone();
    other_tests.id = "grade/other-tests".into();
    other_tests.tests = vec![TestCase::stdin("72\n", Some("C\n".into()))].into();
    mixed.push(other_tests);
    let leaders = growth_leaders(&mixed, |_| false, true);
    assert_eq!(leaders, vec![None, Some(0), Some(0), None]);
    assert_eq!(growth_leaders(&mixed, |t| t.id == "grade/0", true)[1], None);
    assert_eq!(growth_leaders(&mixed, |_| false, false), vec![None; 4]);

    let leader = &grade[0];
    let siblings = siblings_of(leader, &grade);
    let options = GrowOptions::default();
    let results = grow_group_until(
        &oracle,
        leader,
        &siblings,
        &siblings,
        options,
        &std::sync::atomic::AtomicBool::new(false),
    );
    let ids: Vec<&str> = results.iter().map(|(t, _)| t.id.as_str()).collect();
    assert_eq!(ids, ["grade/0", "grade/1", "grade/2"]);
    let (grown, report) = &results[0];
    assert!(report.added > 0, "{report:?}");
    assert_eq!(report.grown_with, None);
    let inputs = |t: &Task| -> Vec<String> {
        t.tests
            .iter()
            .filter(|c| c.grown)
            .map(|c| c.input.clone())
            .collect()
    };
    for (follower, r) in &results[1..] {
        assert_eq!(r.grown_with.as_deref(), Some("grade/0"));
        assert_eq!(inputs(follower), inputs(grown), "{}", follower.id);
        assert_eq!(r.added, report.added);
        // Its own mutants are scored under its own (grown) tests, and it passes them all.
        let (before, after) = (r.before.as_ref().unwrap(), r.after.as_ref().unwrap());
        assert!(after.mutation_score >= before.mutation_score, "{r:?}");
        assert_eq!(follower.mutation_score(), after.mutation_score);
        assert_eq!(oracle.validate(follower).status, ValidationStatus::Ok);
    }
    // The off-by-one of a follower is rejected by the shared tests.
    let off_by_one = grade[0].source.replace("s >= 90", "s > 90");
    let second = &results[1].0;
    let as_second = Task {
        source: off_by_one,
        ..second.clone()
    };
    assert_ne!(oracle.validate(&as_second).status, ValidationStatus::Ok);
}

#[test]
fn an_input_accepted_solutions_disagree_on_is_discarded() {
    let oracle = common::oracle(OracleMode::Fork);
    // The problem promises n < 10: both solutions are right there, and differ above it.
    let tasks = two_solutions(
        "digit",
        TestCase::stdin("7\n", Some("7\n".into())),
        "n = int(input())\nprint(n % 10)\n",
        "n = int(input())\nprint(n)\n",
    );
    let (a, siblings, options) = first_of(&tasks);
    let (grown, report) = grow_task(&oracle, a, &siblings, options);
    assert!(
        report.discarded.get(DISAGREE).copied().unwrap_or(0) > 0,
        "{report:?}"
    );
    for t in grown.tests.iter().filter(|t| t.grown) {
        let n: i64 = t.input.trim().parse().unwrap();
        assert!(
            (0..10).contains(&n),
            "kept an input outside the constraints: {n}"
        );
    }
}

#[test]
fn a_small_columns_domain_is_probed_on_the_original_and_inputs_draw_over_it() {
    let oracle = common::oracle(OracleMode::Fork);
    // Queries `Y M` until the end; the sample shows months 1 and 2 only. Both solutions fail
    // on a month past 12 (a table, a library call), so the probes find the domain 1..=12.
    let table = "import sys\nN = ['January', 'February', 'March', 'April', 'May', 'June', \
                 'July', 'August', 'September', 'October', 'November', 'December']\n\
                 for line in sys.stdin.read().splitlines():\n    y, m = map(int, line.split())\n\
                 \x20   assert m >= 1\n    print(N[m - 1], y)\n";
    let library = "import calendar, sys\nfor line in sys.stdin:\n    y, m = line.split()\n\
                   \x20   print(calendar.month_name[int(m)] or 1 // 0, int(y))\n";
    let tasks = two_solutions(
        "month",
        TestCase::stdin(
            "2024 2\n2021 1\n2020 2\n",
            Some("February 2024\nJanuary 2021\nFebruary 2020\n".into()),
        ),
        table,
        library,
    );
    let (a, siblings, options) = first_of(&tasks);
    let (grown, report) = grow_task(&oracle, a, &siblings, options);
    assert_eq!(
        report.domains,
        vec![FoundDomain {
            width: 2,
            token: 1,
            lo: 1,
            hi: 12
        }],
        "{report:?}"
    );
    // The grown inputs reach months the sample's 1 and 2 never come near.
    let months: std::collections::BTreeSet<i64> = grown
        .tests
        .iter()
        .filter(|t| t.grown)
        .flat_map(|t| t.input.lines().map(str::to_string).collect::<Vec<_>>())
        .filter_map(|l| l.split_whitespace().nth(1)?.parse().ok())
        .collect();
    assert!(months.iter().any(|&m| m > 6), "{months:?}");
    assert!(months.iter().all(|m| (1..=12).contains(m)), "{months:?}");
    assert_every_solution_passes(&oracle, &grown, a, &siblings);
}

/// Checks that coverage of the leap-year program `leap` (in `language`) reads four paths for
/// 1999, 1996, 1900 and 2000, and the same path twice for 1999 and 1997.
fn leap_paths_are_told_apart(oracle: &equimorph::oracle::Oracle, language: Language, leap: &str) {
    let arcs = |input: &str| {
        let test = TestCase::stdin(input, None);
        arcs_of(oracle, language, leap, &test, Duration::from_secs(20))
            .unwrap_or_else(|| panic!("no coverage read on {input:?}"))
    };
    let paths = ["1999\n", "1996\n", "1900\n", "2000\n"].map(arcs);
    for (i, a) in paths.iter().enumerate() {
        for b in paths.iter().skip(i + 1) {
            assert_ne!(a, b, "two paths read as one");
        }
    }
    assert_eq!(arcs("1997\n"), paths[0], "the same path read twice differs");
}

#[test]
fn coverage_tells_apart_the_branches_of_a_conditional_expression_on_one_line() {
    let oracle = common::oracle(OracleMode::Fork);
    // 1999 fails the first test, 1996 passes through `% 100 != 0`, 1900 and 2000 reach the
    // last one and leave it each way: four paths through one line.
    let leap = "y = int(input())\nprint('YES' if y % 4 == 0 and (y % 100 != 0 or y % 400 == 0) else 'NO')\n";
    leap_paths_are_told_apart(&oracle, Language::Python, leap);
    // The tracer is the program's own: what it prints is what the program prints.
    let run = oracle.run("print(1)\n", "", Duration::from_secs(5));
    assert_eq!(run.stdout, "1\n");
}

#[test]
fn java_coverage_is_read_from_probes_and_tells_the_branches_apart() {
    let oracle = common::oracle(OracleMode::Fork);
    let leap = "import java.util.*;\npublic class Main {\n    public static void main(String[] a) {\n        int y = new Scanner(System.in).nextInt();\n        if (y % 4 != 0) System.out.println(\"NO\");\n        else if (y % 100 != 0) System.out.println(\"YES\");\n        else { if (y % 400 == 0) System.out.println(\"YES\"); else System.out.println(\"NO\"); }\n        System.err.println(\"done\");\n    }\n}\n";
    leap_paths_are_told_apart(&oracle, Language::Java, leap);
    // A program without a branch, or one that does not parse, has no coverage to read.
    let java = TestCase::stdin("1\n", None);
    for source in ["class A {}", "public class Main { void f( }"] {
        assert!(arcs_of(
            &oracle,
            Language::Java,
            source,
            &java,
            Duration::from_secs(5)
        )
        .is_none());
    }
}

#[test]
fn tests_that_reach_new_branches_or_answers_are_kept_when_every_mutant_is_dead() {
    let oracle = common::oracle(OracleMode::Fork);
    // The sample rejects every mutant of the first solution and its sibling, so mutants alone
    // grow nothing; rule 5 keeps inputs that give new answers, with values within the range the
    // sample shows (1..=9) and a count up to the largest a broad input makes (60): a third
    // solution that drops the last element is then rejected.
    let tasks = two_solutions(
        "last",
        TestCase::stdin("4\n3 1 9 2\n", Some("9\n".into())),
        "n = int(input())\nprint(max(map(int, input().split())))\n",
        "input()\nprint(sorted(int(t) for t in input().split())[-1])\n",
    );
    let (a, siblings, options) = first_of(&tasks);
    let (grown, report) = grow_task(&oracle, a, &siblings, options);
    assert!(report.covering > 0, "{report:?}");
    assert!(report.covering <= options.coverage_tests, "{report:?}");
    let kept: Vec<&TestCase> = grown.tests.iter().filter(|t| t.grown).collect();
    assert_eq!(kept.len(), report.added);
    // The large inputs (rule 6) come last: a count of 50 to 400, values still within 1..=9.
    let small = kept.len() - report.large;
    for (i, t) in kept.iter().enumerate() {
        let mut tokens = t
            .input
            .split_whitespace()
            .map(|v| v.parse::<i64>().unwrap());
        let n = tokens.next().unwrap();
        if i < small {
            assert!((1..=60).contains(&n), "a count past 60: {:?}", t.input);
        } else {
            assert!(
                (50..=400).contains(&n),
                "a large input of {n}: {:?}",
                t.input
            );
        }
        for v in tokens {
            assert!(
                (1..=9).contains(&v),
                "a covering test left the range: {:?}",
                t.input
            );
        }
    }
    let drops_last =
        "n = int(input())\nprint(max(list(map(int, input().split()))[:n - 1] or [0]))\n";
    let rejected = kept.iter().any(|t| {
        let run = oracle.run(drops_last, &t.input, Duration::from_secs(5));
        Some(run.stdout.as_str()) != t.output.as_deref()
    });
    assert!(
        rejected,
        "no grown test tells the wrong solution apart: {kept:?}"
    );
    let off = GrowOptions {
        coverage_tests: 0,
        ..options
    };
    let (_, without) = grow_task(&oracle, a, &siblings, off);
    assert_eq!(without.covering, 0);
}

#[test]
fn tests_grow_holdout_judges_the_solutions_it_did_not_grow_from() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("two-problems.jsonl");
    let all = adequacy_tasks();
    let chosen: Vec<Task> = ["grade", "two-sum"]
        .iter()
        .flat_map(|p| problem(&all, p))
        .collect();
    assert_eq!(chosen.len(), 6);
    write_tasks(&tasks, &chosen);
    let grown = dir.path().join("grown.jsonl");
    let report = dir.path().join("report.jsonl");
    let grow = |extra: &[&str]| {
        let mut args = vec![
            "tests",
            "grow",
            tasks.to_str().unwrap(),
            "--out",
            grown.to_str().unwrap(),
            "--report",
            report.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        common::success_stdout(&common::equimorph(&args, None))
    };
    let text = grow(&["--holdout", "1"]);
    assert!(text.contains("grade/2: held out: "), "{text}");
    assert!(text.contains("two-sum/2: held out: "), "{text}");
    assert!(text.contains("held out: 2 solution(s)"), "{text}");
    // The held-out solutions are written unchanged; the others grew.
    let written = task::load(&grown, None).unwrap().tasks;
    for t in &written {
        if t.id.ends_with("/2") {
            assert_eq!(t.grown_tests(), 0, "{} grew", t.id);
        }
    }
    assert!(written.iter().any(|t| t.grown_tests() > 0));
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&report)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let held: Vec<&serde_json::Value> = lines
        .iter()
        .filter(|l| l.get("holdout").is_some())
        .collect();
    assert_eq!(held.len(), 2);
    // The two solutions grown of each problem shared one growth.
    for (id, with) in [("grade/1", "grade/0"), ("two-sum/1", "two-sum/0")] {
        let line = lines.iter().find(|l| l["id"] == id).unwrap();
        assert_eq!(line["grown_with"], with, "{line}");
    }
    for h in held {
        let h = &h["holdout"];
        let (shown, rejected) = (
            h["shown"].as_u64().unwrap(),
            h["rejected"].as_u64().unwrap(),
        );
        assert!(
            rejected <= shown && shown <= h["let_through"].as_u64().unwrap(),
            "{h}"
        );
        assert!(h["grown_tests"].as_u64().unwrap() > 0, "{h}");
        assert_eq!(h["false_alarms"], 0, "{h}");
    }
    // `--per-solution`: each grows on its own.
    grow(&["--per-solution", "--max-tests", "1", "--patience", "1"]);
    let report = std::fs::read_to_string(&report).unwrap();
    assert_eq!(report.lines().count(), 6);
    assert!(!report.contains("grown_with"), "{report}");
}

#[test]
fn mutants_that_compile_to_the_originals_bytecode_are_left_out() {
    let oracle = common::oracle(OracleMode::Fork);
    // `y = 2` follows a return: CPython drops it, so its mutants compile to the same code.
    let source = "def f(x):\n    return x + 1\n    y = 2\nprint(f(1))\n";
    let all = equimorph::adequacy::mutants::all_mutants(source);
    let dead = all
        .iter()
        .filter(|m| m.line == 3 && m.edit.contains("`2` →"))
        .count();
    assert!(dead >= 1, "{all:?}");
    let (kept, dropped) =
        without_trivially_equivalent(&oracle, Language::Python, source, all.clone());
    assert_eq!(dropped, dead, "{kept:?}");
    assert_eq!(kept.len() + dropped, all.len());
    assert!(kept.iter().any(|m| m.line == 2), "live mutants are kept");
}

#[test]
fn java_mutants_that_compile_to_the_originals_class_files_are_left_out() {
    let oracle = common::oracle(OracleMode::Fork);
    // `DEBUG` is a constant false: javac compiles no code for the block it guards, so edits
    // inside it vanish; the edits of line 8 and of the condition itself do not.
    let source = "public class Main {\n    static final boolean DEBUG = false;\n    public static void main(String[] args) {\n        int x = Integer.parseInt(args.length > 0 ? args[0] : \"5\");\n        if (DEBUG) {\n            System.out.println(x * 2 + 1);\n        }\n        System.out.println(x + 1);\n    }\n}\n";
    let all = equimorph::adequacy::mutants::all_mutants_of(Language::Java, source);
    let dead = all.iter().filter(|m| m.line == 6).count();
    assert!(dead >= 3, "{all:?}");
    let (kept, dropped) =
        without_trivially_equivalent(&oracle, Language::Java, source, all.clone());
    assert_eq!(dropped, dead, "{kept:?}");
    assert_eq!(kept.len() + dropped, all.len());
    assert!(kept.iter().any(|m| m.line == 8), "live mutants are kept");
    assert!(kept.iter().all(|m| m.line != 6), "{kept:?}");
    // A mutant that does not compile is never called equivalent.
    let broken = vec![equimorph::adequacy::mutants::Mutant {
        source: source.replace("x + 1);", "x + );"),
        ..all[0].clone()
    }];
    let (kept, dropped) = without_trivially_equivalent(&oracle, Language::Java, source, broken);
    assert_eq!((kept.len(), dropped), (1, 0));
}

#[test]
fn cpp_and_c_mutants_whose_binary_is_the_originals_are_left_out() {
    let oracle = common::oracle(OracleMode::Fork);
    // `DEBUG` is 0: at -O1 gcc compiles no code for the block it guards, so edits inside it
    // vanish from the binary; the edits of the last line do not.
    for (language, source) in [
        (Language::Cpp, "#include <cstdio>\nconst int DEBUG = 0;\nint main() {\n    int x = 5;\n    if (DEBUG) {\n        printf(\"%d\\n\", x * 2 + 1);\n    }\n    printf(\"%d\\n\", x + 1);\n}\n"),
        (Language::C, "#include <stdio.h>\n#define DEBUG 0\nint main(void) {\n    int x = 5;\n    if (DEBUG) {\n        printf(\"%d\\n\", x * 2 + 1);\n    }\n    printf(\"%d\\n\", x + 1);\n    return 0;\n}\n"),
    ] {
        let all = equimorph::adequacy::mutants::all_mutants_of(language, source);
        // `printf(x * 2 + 1, "%d\n")` does not compile as C++ (nor as C with GCC 14): it is
        // kept, as every mutant that does not compile is.
        let swap = |m: &equimorph::adequacy::mutants::Mutant| m.edit.contains(", \"%d");
        let dead = all.iter().filter(|m| m.line == 6 && !swap(m)).count();
        assert!(dead >= 2, "{all:?}");
        let (kept, dropped) = without_trivially_equivalent(&oracle, language, source, all.clone());
        assert_eq!(kept.len() + dropped, all.len());
        assert!(dropped >= dead, "{language:?}: {kept:?}");
        assert!(kept.iter().all(|m| m.line != 6 || swap(m)), "{kept:?}");
        assert!(kept.iter().any(|m| m.line == 8), "live mutants are kept");
        // A mutant that does not compile is never called equivalent.
        let broken = vec![equimorph::adequacy::mutants::Mutant {
            source: source.replace("x + 1);", "x + );"),
            ..all[0].clone()
        }];
        let (kept, dropped) = without_trivially_equivalent(&oracle, language, source, broken);
        assert_eq!((kept.len(), dropped), (1, 0));
    }
}

#[test]
fn a_task_without_literal_asserts_grows_from_its_docstring_examples() {
    let oracle = common::oracle(OracleMode::Fork);
    // The test code has no literal call; the docstring states three, one of them wrongly.
    let src = "def clamp(x, lo, hi):\n    \"\"\"Clamp x.\n\n    >>> clamp(5, 0, 3)\n    3\n    >>> clamp(-2, 0, 3)\n    0\n    clamp(1, 0, 3) ==> 2\n    \"\"\"\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n    return x\n";
    let mut t = Task::new("clamp", src, Vec::new());
    t.test_code = Some(
        "def check(candidate):\n    for a in range(3):\n        assert candidate(a, 0, 9) == a\n\ncheck(clamp)\n"
            .into(),
    );
    t.entry_point = Some("clamp".into());
    let (grown, report) = grow_task(&oracle, &t, &[], GrowOptions::default());
    assert_eq!(report.kind, Some("call"), "{report:?}");
    assert_eq!(report.stated, 2, "{report:?}");
    assert_eq!(report.discarded.get(CONTRADICTS), Some(&1), "{report:?}");
    let calls: Vec<(&str, &str)> = grown
        .tests
        .iter()
        .filter_map(|c| Some((c.call.as_deref()?, c.output.as_deref()?)))
        .collect();
    assert!(
        calls.contains(&("print(repr(clamp(5, 0, 3)))", "3\n")),
        "{calls:?}"
    );
    assert!(
        calls.contains(&("print(repr(clamp(-2, 0, 3)))", "0\n")),
        "{calls:?}"
    );
    assert!(!calls.iter().any(|(c, _)| c.contains("clamp(1, 0, 3)")));
    // The stated calls reject what the range-only test let through (`x > hi` dropped, and
    // more), so the score rises.
    let before = score_task(&oracle, &t, MutantOptions::default(), &[]);
    let b = before.adequacy.unwrap().mutation_score;
    assert!(
        grown.mutation_score() > b,
        "{b:?} → {:?}",
        grown.mutation_score()
    );
}

#[test]
fn call_level_tests_grow_for_function_tasks() {
    let oracle = common::oracle(OracleMode::Fork);
    let mut t = Task::new(
        "clamp",
        "def clamp(x, lo, hi):\n    if x < lo:\n        return lo\n    if x > hi:\n        return hi\n    return x\n",
        Vec::new(),
    );
    t.test_code =
        Some("def check(candidate):\n    assert candidate(5, 0, 10) == 5\n\ncheck(clamp)\n".into());
    t.entry_point = Some("clamp".into());
    let before = score_task(&oracle, &t, MutantOptions::default(), &[]);
    let (grown, report) = grow_task(&oracle, &t, &[], GrowOptions::default());
    assert_eq!(report.kind, Some("call"));
    assert!(report.added > 0);
    let calls: Vec<&str> = grown
        .tests
        .iter()
        .filter_map(|c| c.call.as_deref())
        .collect();
    assert!(calls.iter().all(|c| c.starts_with("print(repr(clamp(")));
    let after = score_task(&oracle, &grown, MutantOptions::default(), &[]);
    let (b, a) = (
        before.adequacy.unwrap().mutation_score,
        after.adequacy.unwrap().mutation_score,
    );
    assert!(
        a.is_some() && a > b,
        "grown call tests raise the score: {b:?} → {a:?}"
    );
    // The measured score after equals the one grow recorded.
    assert_eq!(a, grown.mutation_score());
}

#[test]
fn tests_score_and_grow_on_the_command_line_and_verify_rejudges_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("grade.jsonl");
    let grade = problem(&adequacy_tasks(), "grade");
    write_tasks(&tasks, &grade);
    let scored = dir.path().join("scored.jsonl");
    let out = common::equimorph(
        &[
            "tests",
            "score",
            tasks.to_str().unwrap(),
            "--write",
            scored.to_str().unwrap(),
            "--survivors",
        ],
        None,
    );
    let text = common::success_stdout(&out);
    assert!(text.contains("grade/0: "), "{text}");
    assert!(text.contains("survives: line"), "{text}");
    assert!(text.contains("a lower bound"), "{text}");
    let recorded = task::load(&scored, None).unwrap();
    assert!(recorded.tasks.iter().all(|t| t.mutation_score().is_some()));

    let grown = dir.path().join("grown.jsonl");
    let out = common::equimorph(
        &[
            "tests",
            "grow",
            tasks.to_str().unwrap(),
            "--out",
            grown.to_str().unwrap(),
        ],
        None,
    );
    let text = common::success_stdout(&out);
    assert!(text.contains("test(s) grown for 3 task(s)"), "{text}");
    let grown_set = task::load(&grown, None).unwrap();
    assert_eq!(grown_set.tasks.len(), 3);
    assert!(grown_set.tasks.iter().any(|t| t.grown_tests() > 0));

    // A finished attack run whose winner passes the sample but not the grown tests.
    let run = dir.path().join("run");
    std::fs::create_dir(&run).unwrap();
    let original = &grade[0];
    let mut line = equimorph::report::ResultLine::not_attacked(
        original,
        equimorph::report::Status::Ok,
        String::new(),
    );
    line.reason = None;
    line.best = Some(original.source.replace("s >= 90", "s > 90"));
    std::fs::write(
        run.join("results.jsonl"),
        serde_json::to_string(&line).unwrap() + "\n",
    )
    .unwrap();
    let old = common::equimorph(
        &[
            "verify",
            run.to_str().unwrap(),
            "--tasks",
            tasks.to_str().unwrap(),
        ],
        None,
    );
    let text = common::success_stdout(&old);
    assert!(text.contains("1 of 1 winner(s) still pass"), "{text}");
    let new = common::equimorph(
        &[
            "verify",
            run.to_str().unwrap(),
            "--tasks",
            grown.to_str().unwrap(),
        ],
        None,
    );
    let text = String::from_utf8_lossy(&new.stdout);
    assert_eq!(new.status.code(), Some(1), "{text}");
    assert!(
        text.contains("grade/0 (winner): rejected by grown test"),
        "{text}"
    );
    assert!(text.contains("0 of 1 winner(s) still pass"), "{text}");
    let verdicts: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("verify.json")).unwrap()).unwrap();
    assert_eq!(verdicts["tally"]["rejected_by_grown"], 1);
}

#[test]
fn augment_refuses_tasks_below_the_minimum_mutation_score() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("tasks.jsonl");
    // grade/0's single sample rejects few of its mutants; rotate/0's rejects most.
    let all = adequacy_tasks();
    let picked: Vec<&Task> = all
        .iter()
        .filter(|t| t.id == "grade/0" || t.id == "count-evens/0")
        .collect();
    std::fs::write(
        &tasks,
        picked
            .iter()
            .map(|t| serde_json::to_string(t).unwrap() + "\n")
            .collect::<String>(),
    )
    .unwrap();
    let out_dir = dir.path().join("aug");
    let out = common::equimorph(
        &[
            "augment",
            tasks.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
            "--variants",
            "2",
            "--min-mutation-score",
            "0.6",
            "--quiet",
        ],
        None,
    );
    common::success_stdout(&out);
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(out_dir.join("tasks.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let by_id = |id: &str| lines.iter().find(|l| l["id"] == id).unwrap().clone();
    let grade = by_id("grade/0");
    assert_eq!(grade["status"], "skipped");
    assert!(grade["reason"]
        .as_str()
        .unwrap()
        .contains("below --min-mutation-score 0.6"));
    assert!(grade["tests"]["mutation_score"].as_f64().unwrap() < 0.6);
    let evens = by_id("count-evens/0");
    assert_eq!(evens["status"], "ok");
    assert_eq!(evens["tests"]["tests"], 1);
    let report = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert!(report.contains("Test adequacy:"), "{report}");
    assert!(report.contains("were refused"), "{report}");
}

fn symbolic_checker() -> SymbolicChecker {
    let python = equimorph::adequacy::symbolic::default_crosshair_python();
    SymbolicChecker::new(python, Duration::from_secs(10))
        .expect("CrossHair is installed by scripts/setup-models.sh")
}

#[test]
fn the_symbolic_check_finds_an_untested_difference_and_grows_a_test_from_it() {
    let oracle = common::oracle(OracleMode::Fork);
    let checker = symbolic_checker();
    let mut t = Task::new(
        "absolute",
        "def absolute(x: int) -> int:\n    if x < 0:\n        return -x\n    return x\n",
        Vec::new(),
    );
    t.test_code = Some(
        "def check(candidate):\n    assert candidate(3) == 3\n    assert candidate(-4) == 4\n\ncheck(absolute)\n"
            .into(),
    );
    t.entry_point = Some("absolute".into());
    // Differs only at 7, an input no test uses.
    let candidate =
        "def absolute(x: int) -> int:\n    if x == 7:\n        return 0\n    return x if x >= 0 else -x\n";
    let reference = oracle.reference(&t);
    assert!(oracle.check(&t, &reference, candidate).unwrap().equivalent);
    let SymbolicVerdict::Counterexample { test } = checker.check(&oracle, &t, candidate) else {
        panic!("no counterexample found");
    };
    assert!(test.grown);
    assert!(
        test.call.as_deref().unwrap().contains("absolute(x=7)"),
        "{test:?}"
    );
    let record = SymbolicRecord {
        counterexamples: vec![test],
        ..SymbolicRecord::default()
    };
    let stronger = strengthened(&t, &record);
    assert_eq!(stronger.test_count(), t.test_count() + 1);
    let reference = oracle.reference(&stronger);
    assert!(
        !oracle
            .check(&stronger, &reference, candidate)
            .unwrap()
            .equivalent
    );
    // A candidate that behaves like the original is never rejected.
    let same = "def absolute(x: int) -> int:\n    y = x\n    return y if y >= 0 else -y\n";
    let v = checker.check(&oracle, &t, same);
    assert!(
        !matches!(v, SymbolicVerdict::Counterexample { .. }),
        "{v:?}"
    );
    assert!(matches!(
        checker.check(&oracle, &t, &t.source),
        SymbolicVerdict::NotApplicable { .. }
    ));
}

#[test]
fn attack_with_symbolic_verification_records_the_check_per_task_and_in_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let tasks = dir.path().join("functions.jsonl");
    let mut t = Task::new(
        "sign",
        "def sign(x: int) -> int:\n    if x > 0:\n        return 1\n    elif x < 0:\n        return -1\n    return 0\n",
        Vec::new(),
    );
    t.test_code = Some("assert sign(5) == 1\nassert sign(-2) == -1\nassert sign(0) == 0\n".into());
    t.entry_point = Some("sign".into());
    std::fs::write(&tasks, serde_json::to_string(&t).unwrap() + "\n").unwrap();
    let out = dir.path().join("run");
    let status = common::attack_command(
        &tasks,
        &out,
        "jaccard",
        2,
        &[
            "--threshold",
            "0.5",
            "--verify",
            "symbolic",
            "--symbolic-budget",
            "5",
        ],
    )
    .output()
    .unwrap();
    common::success_stdout(&status);
    let line: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(out.join("results.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(line["symbolic"]["checked"], 1, "{line}");
    // Built-in transforms preserve semantics: nothing to reject.
    assert_eq!(line["symbolic"]["rejected"], 0, "{line}");
    let report = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(report.contains("symbolic check (CrossHair)"), "{report}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["symbolic"]["checked"], 1);
}

#[test]
fn the_score_includes_the_datasets_known_broken_programs() {
    let sample = common::root().join("fixtures/formats/codecontests/sample.parquet");
    let out = common::equimorph(
        &["tests", "score", sample.to_str().unwrap(), "--json"],
        None,
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    let programs = v["broken"]["programs"].as_u64().unwrap();
    let rejected = v["broken"]["rejected"].as_u64().unwrap();
    assert!(programs > 0, "{v}");
    // The sample's incorrect solutions are wrong on its own tests: every one is rejected.
    assert_eq!(rejected, programs, "{v}");
    assert_eq!(v["lower_bound"], true);
    assert!(v["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["adequacy"]["broken"]["programs"].as_u64().unwrap_or(0) > 0));
}

#[test]
fn large_inputs_are_kept_on_the_keep_rules_alone_and_every_solution_passes_them() {
    let oracle = common::oracle(OracleMode::Fork);
    let tasks = adequacy_tasks();
    let prefix = problem(&tasks, "prefix-max");
    let original = &prefix[0];
    let siblings = siblings_of(original, &tasks);
    assert!(!siblings.is_empty());
    let quick = GrowOptions {
        max_tests: 1,
        coverage_tests: 0,
        patience: 1,
        ..GrowOptions::default()
    };
    let (grown, report) = grow_task(&oracle, original, &siblings, quick);
    assert!(
        (1..=quick.large_tests).contains(&report.large),
        "{report:?}"
    );
    // A large input: a count of a few hundred and its values (`5` over five in the sample).
    let large = grown
        .tests
        .iter()
        .filter(|t| t.grown && t.input.split_whitespace().count() > 100)
        .count();
    assert_eq!(large, report.large, "{report:?}");
    // No false alarm: every accepted solution passes them.
    assert_every_solution_passes(&oracle, &grown, original, &siblings);
    let off = GrowOptions {
        large_tests: 0,
        ..quick
    };
    let (small, none) = grow_task(&oracle, original, &siblings, off);
    assert_eq!(none.large, 0, "{none:?}");
    assert!(small
        .tests
        .iter()
        .all(|t| t.input.split_whitespace().count() <= 100));
}
