//! Java end to end: the Java oracle (warm JVM workers in the sandbox), every Java transform on
//! every Java fixture task checked by it, old WIT components loading as Python, language on
//! tasks and transforms, and the jobs (attack, augment, select) on Java and mixed task files.

use crate::common;

use equimorph::oracle::{ExitClass, OracleMode, ValidationStatus};
use equimorph::program::Language;
use equimorph::task::{Task, TestCase};
use rayon::prelude::*;
use std::time::Duration;

fn java_tasks() -> equimorph::task::TaskSet {
    equimorph::task::load(&common::root().join("fixtures/java/tasks.jsonl"), None)
        .expect("Java fixtures load")
}

fn java_task(id: &str, source: &str, tests: &[(&str, Option<&str>)]) -> Task {
    Task::new(
        id,
        source,
        tests
            .iter()
            .map(|(i, o)| TestCase::stdin(*i, o.map(String::from)))
            .collect(),
    )
    .in_language(Language::Java)
}

const ECHO_SUM: &str = "import java.util.*;\npublic class Main {\n    static int runs = 0;\n    public static void main(String[] args) {\n        Scanner in = new Scanner(System.in);\n        int a = in.nextInt(), b = in.nextInt();\n        runs++;\n        System.out.println((a + b) + \" \" + runs);\n    }\n}\n";

#[test]
fn java_tasks_load_with_their_language_and_validate() {
    let set = java_tasks();
    assert!(set.tasks.len() >= 30, "{} Java tasks", set.tasks.len());
    assert!(set.tasks.iter().all(|t| t.language == Language::Java));
    let oracle = common::oracle(OracleMode::Fork);
    let bad: Vec<String> = set
        .tasks
        .par_iter()
        .map(|t| (t.id.clone(), oracle.validate(t)))
        .filter(|(_, v)| v.status != ValidationStatus::Ok)
        .map(|(id, v)| format!("{id}: {:?}", v.reason))
        .collect();
    assert!(bad.is_empty(), "{bad:?}");
    // A Python task file says nothing about language: Python.
    assert!(common::fixture_tasks()
        .tasks
        .iter()
        .all(|t| t.language == Language::Python));
}

#[test]
fn the_java_oracle_judges_runs_exits_and_compile_errors() {
    let oracle = common::oracle(OracleMode::Fork);
    let task = java_task(
        "sum",
        ECHO_SUM,
        &[("1 2\n", Some("3 1\n")), ("5 5\n", None)],
    );
    let v = oracle.validate(&task);
    assert_eq!(v.status, ValidationStatus::Ok, "{:?}", v.reason);
    let reference = v.reference.unwrap();
    // Every run loads the classes afresh: the static counter starts at 0 each time.
    assert!(reference.runs.iter().all(|r| r.stdout.ends_with(" 1\n")));
    let same = ECHO_SUM.replace("(a + b)", "(b + a)");
    assert!(oracle.check(&task, &reference, &same).unwrap().equivalent);
    let differs = ECHO_SUM.replace("(a + b)", "(a * b)");
    let d = oracle.check(&task, &reference, &differs).unwrap();
    assert!(!d.equivalent && d.invalid.is_none(), "{d:?}");
    // Parses (tree-sitter) but does not compile: invalid, not a verdict.
    let broken = ECHO_SUM.replace("int a = in.nextInt()", "int a = \"x\"");
    let d = oracle.check(&task, &reference, &broken).unwrap();
    assert!(!d.equivalent);
    assert!(
        d.invalid.as_deref().is_some_and(|m| m.contains("error")),
        "{d:?}"
    );
    // System.exit is the run's exit status, and output after it is never seen.
    let exits = "public class Main { public static void main(String[] a) { System.out.println(\"x\"); try { System.exit(3); } catch (SecurityException e) { System.out.println(\"caught\"); } } }";
    let r = oracle.run_in(Language::Java, exits, "", Duration::from_secs(5), 0);
    assert_eq!(
        (r.class, r.code, r.stdout.as_str()),
        (ExitClass::Error, Some(3), "x\n")
    );
    // An uncaught exception is exit status 1 with java's message.
    let throws = "public class Main { public static void main(String[] a) { int[] x = new int[1]; x[2] = 1; } }";
    let r = oracle.run_in(Language::Java, throws, "", Duration::from_secs(5), 0);
    assert_eq!((r.class, r.code), (ExitClass::Error, Some(1)));
    assert!(
        r.stderr_tail.contains("ArrayIndexOutOfBoundsException"),
        "{}",
        r.stderr_tail
    );
    // A run past its limit is a timeout, and the next run gets a healthy worker.
    let spins = "public class Main { public static void main(String[] a) { while (true) { } } }";
    let r = oracle.run_in(Language::Java, spins, "", Duration::from_millis(800), 0);
    assert_eq!(r.class, ExitClass::Timeout);
    let r = oracle.run_in(Language::Java, ECHO_SUM, "2 2\n", Duration::from_secs(5), 0);
    assert_eq!((r.class, r.stdout.as_str()), (ExitClass::Success, "4 1\n"));
}

#[test]
fn java_programs_run_in_the_sandbox() {
    let oracle = common::oracle(OracleMode::Fork);
    if oracle.isolation().launcher != "bubblewrap" {
        eprintln!("bubblewrap is not available here: isolation not asserted");
        return;
    }
    let probe = r#"import java.nio.file.*;
public class Main {
    public static void main(String[] args) {
        try { new java.net.Socket("192.0.2.1", 9); System.out.println("net open"); }
        catch (Exception e) { System.out.println("net closed"); }
        try { Files.writeString(Path.of(System.getProperty("user.home"), "equimorph-java-escape"), "x"); System.out.println("home writable"); }
        catch (Exception e) { System.out.println("home read-only"); }
        System.out.println("env " + new java.util.TreeSet<>(System.getenv().keySet()));
    }
}
"#;
    let r = oracle.run_in(Language::Java, probe, "", Duration::from_secs(10), 0);
    assert_eq!(r.class, ExitClass::Success, "{}", r.stderr_tail);
    // The environment is cleared (bubblewrap sets only PWD).
    assert_eq!(r.stdout, "net closed\nhome read-only\nenv [PWD]\n");
}

/// Every Java transform at seeds 0..4 on every Java fixture task, each output checked by the
/// oracle: none may compile and behave differently (broken), and none may fail to compile.
#[test]
fn every_java_transform_on_every_java_task_is_equivalent() {
    common::assert_every_transform_equivalent(Language::Java, &java_tasks(), 4, 4, 12, 1);
}

#[test]
fn transforms_declare_their_language_and_old_components_load_as_python() {
    let (rt, _cache) = common::runtime(equimorph::transform::Limits::default());
    // `hostile` is built against WIT 0.1.0 (no `language` in `info`).
    let old = rt
        .load(&common::test_transforms_dir().join("hostile.wasm"))
        .expect("a 0.1.0 component loads");
    assert_eq!(old.language, Language::Python);
    assert!(old.apply("x = 1\n", 0).unwrap().is_some());
    let java = common::default_set().get("java-local-rename").unwrap();
    assert_eq!(java.language, Language::Java);
    let out = common::equimorph(&["transforms", "list", "--json"], None);
    let rows: Vec<serde_json::Value> = serde_json::from_str(&common::success_stdout(&out)).unwrap();
    assert!(rows
        .iter()
        .any(|r| r["name"] == "java-switch-to-if" && r["language"] == "java"));
    assert!(rows
        .iter()
        .any(|r| r["name"] == "var-rename" && r["language"] == "python"));
    let text = common::success_stdout(&common::equimorph(&["transforms", "list"], None));
    assert!(text.lines().next().unwrap().contains("LANGUAGE"), "{text}");
    // `apply` knows a .java file, and refuses a transform of the other language.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("Main.java");
    std::fs::write(&file, ECHO_SUM).unwrap();
    let out = common::equimorph(
        &[
            "apply",
            "--transform",
            "java-while-to-for,java-local-rename",
            "--seed",
            "3",
            file.to_str().unwrap(),
        ],
        None,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = common::equimorph(
        &["apply", "--transform", "var-rename", file.to_str().unwrap()],
        None,
    );
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("rewrites python programs"));
}

#[test]
fn codenet_java_submissions_load_as_java_tasks() {
    use equimorph::task::{load_with, LoadOptions, TaskFormat};
    let oracle = common::oracle(OracleMode::Fork);
    // The full dataset: data/<problem>/Java/, kept when --language names Java, with metadata
    // statuses and the problem's sample test.
    let full = common::root().join("fixtures/formats/codenet");
    let options = LoadOptions {
        languages: vec!["java".into()],
        ..LoadOptions::default()
    };
    let set = load_with(&full, Some(TaskFormat::Codenet), &options).unwrap();
    let ids: Vec<&str> = set.tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["p00001/s010"]);
    assert_eq!(set.tasks[0].language, Language::Java);
    assert_eq!(
        set.broken.len(),
        1,
        "the Wrong Answer submission is kept aside"
    );
    let v = oracle.validate(&set.tasks[0]);
    assert_eq!(v.status, ValidationStatus::Ok, "{:?}", v.reason);
    // By default the full dataset loads Python only.
    let default = load_with(&full, Some(TaskFormat::Codenet), &LoadOptions::default()).unwrap();
    assert!(default.tasks.iter().all(|t| t.language == Language::Python));
    // A Java250-style subset (only .java files) loads as Java without being asked; its tests
    // come from the full dataset.
    let subset = common::root().join("fixtures/formats/codenet_java250/Project_CodeNet_Java250");
    let options = LoadOptions {
        codenet_root: Some(full.clone()),
        ..LoadOptions::default()
    };
    let set = load_with(&subset, Some(TaskFormat::Codenet), &options).unwrap();
    assert_eq!(set.tasks.len(), 2);
    assert!(set.tasks.iter().all(|t| t.language == Language::Java));
    for t in &set.tasks {
        assert_eq!(oracle.validate(t).status, ValidationStatus::Ok, "{}", t.id);
    }
}

fn results(dir: &std::path::Path, file: &str) -> Vec<serde_json::Value> {
    common::read(dir.join(file))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn attack_and_augment_run_a_mixed_python_and_java_task_file() {
    let tasks = common::root().join("fixtures/java/mixed.jsonl");
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
    assert_eq!(lines.len(), 6);
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
        let java = id.starts_with("java/");
        assert!(
            steps.iter().all(|s| s.starts_with("java-") == java),
            "{id}: {steps:?}"
        );
        if java {
            // The winner is a Java program that the oracle accepted: it behaves like the
            // original on the task's tests.
            let task = equimorph::task::load(&tasks, None)
                .unwrap()
                .get(id)
                .cloned()
                .unwrap();
            let oracle = common::oracle(OracleMode::Fork);
            let reference = oracle.validate(&task).reference.unwrap();
            let best = l["best"].as_str().unwrap();
            assert!(oracle.check(&task, &reference, best).unwrap().equivalent);
        }
    }
    assert!(common::read(out.join("report.md")).contains("java-"));
    // augment, CodeXGLUE layout: variants of each task in its own language, and negatives never
    // pair a Java program with a Python one.
    let aug = dir.path().join("augment");
    let o = common::equimorph(
        &[
            "augment",
            tasks.to_str().unwrap(),
            "--out",
            aug.to_str().unwrap(),
            "--variants",
            "2",
            "--format",
            "codexglue",
            "--quiet",
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let variants = results(&aug, "variants.jsonl");
    assert!(variants.len() >= 10, "{} variants", variants.len());
    for v in &variants {
        let java = v["task_id"].as_str().unwrap().starts_with("java/");
        let source = v["source"].as_str().unwrap();
        assert_eq!(source.contains("public static void main"), java, "{v}");
    }
    let data = results(&aug.join("codexglue"), "data.jsonl");
    let is_java: Vec<bool> = data
        .iter()
        .map(|d| d["func"].as_str().unwrap().contains("static void main"))
        .collect();
    let pairs = common::read(aug.join("codexglue/pairs.txt"));
    let mut negatives = 0;
    for line in pairs.lines() {
        let f: Vec<usize> = line.split('\t').map(|x| x.parse().unwrap()).collect();
        if f[2] == 0 {
            negatives += 1;
            assert_eq!(
                is_java[f[0]], is_java[f[1]],
                "a cross-language negative: {line}"
            );
        }
    }
    assert!(negatives > 0);
}

#[test]
fn select_ranks_java_script_transforms() {
    let dir = tempfile::tempdir().unwrap();
    let group = dir.path().join("candidates/rename-scanner");
    std::fs::create_dir_all(&group).unwrap();
    std::fs::write(
        group.join("good.py"),
        "# language: java\n# category: naming\n# description: renames the Scanner local `in` to `reader`\nimport re, sys\nsrc = sys.stdin.read()\nif re.search(r'\\breader\\b', src) or not re.search(r'\\bScanner in\\b', src):\n    print(src, end='')\nelse:\n    print(re.sub(r'(?<![.\\w\"])in(?![\\w\"])', 'reader', src), end='')\n",
    )
    .unwrap();
    std::fs::write(
        group.join("sloppy.py"),
        "# language: java\n# category: naming\n# description: renames carelessly\nimport sys\nsrc = sys.stdin.read()\nprint(src.replace('in.', 'rd.'), end='')\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let o = common::equimorph(
        &[
            "select",
            dir.path().join("candidates").to_str().unwrap(),
            "--tasks",
            "fixtures/java/tasks.jsonl",
            "--out",
            out.to_str().unwrap(),
            "--detector",
            "jaccard",
            "--quiet",
        ],
        None,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let sel: serde_json::Value =
        serde_json::from_str(&common::read(out.join("selection.json"))).unwrap();
    let text = sel.to_string();
    assert!(text.contains("good.py"), "{text}");
    // The winner is the group's transform, as a script that still says it is for Java.
    let winner = common::read(out.join("selected/rename-scanner.py"));
    assert!(
        winner.contains("reader") && winner.contains("# language: java"),
        "{winner}"
    );
    // The sloppy script's outputs do not compile: invalid, never counted as broken.
    let md = common::read(out.join("selection.md"));
    let row = md.lines().find(|l| l.starts_with("| sloppy.py")).unwrap();
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    assert_eq!(cells[4], "0", "broken: {row}");
    assert_ne!(cells[5], "0", "invalid: {row}");
}

/// CodeContests keeps Python 3 solutions by default and Java ones when asked: each Java
/// solution is a Java task that validates (whatever its class is called), its incorrect Java
/// solutions are known-broken programs, and a language equimorph does not run is refused.
#[test]
fn codecontests_java_solutions_load_as_java_tasks_when_asked() {
    use equimorph::task::{load_with, LoadOptions, TaskFormat};
    let path = common::root().join("fixtures/formats/codecontests_java.jsonl");
    let with = |langs: &[&str]| {
        let options = LoadOptions {
            languages: langs.iter().map(|s| s.to_string()).collect(),
            ..LoadOptions::default()
        };
        load_with(&path, Some(TaskFormat::Codecontests), &options)
    };
    let default = with(&[]).unwrap();
    assert_eq!(default.tasks.len(), 1);
    assert_eq!(default.tasks[0].language, Language::Python);
    let java = with(&["java"]).unwrap();
    let ids: Vec<&str> = java.tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["codeforces/largest/0", "codeforces/largest/3"]);
    assert!(java.tasks.iter().all(|t| t.language == Language::Java));
    assert_eq!(java.broken.len(), 1);
    let both = with(&["python,java"]).unwrap();
    assert_eq!(both.tasks.len(), 3);
    assert_eq!(both.broken.len(), 2);
    let cpp = with(&["cpp"]).unwrap();
    let ids: Vec<&str> = cpp.tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["codeforces/largest/2"]);
    assert_eq!(cpp.tasks[0].language, Language::Cpp);
    let e = with(&["rust"]).unwrap_err().to_string();
    assert!(e.contains("rust") && e.contains("cpp"), "{e}");
    let oracle = common::oracle(OracleMode::Fork);
    let v = oracle.validate(&cpp.tasks[0]);
    assert_eq!(v.status, ValidationStatus::Ok, "{:?}", v.reason);
    for t in &java.tasks {
        let v = oracle.validate(t);
        assert_eq!(v.status, ValidationStatus::Ok, "{}: {:?}", t.id, v.reason);
        // The incorrect solution fails the tests the accepted ones pass.
        let d = oracle
            .check(t, v.reference.as_ref().unwrap(), &java.broken[0].source)
            .unwrap();
        assert!(!d.equivalent && d.invalid.is_none(), "{d:?}");
    }
}
