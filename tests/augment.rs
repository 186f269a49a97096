//! `equimorph augment`: every variant behaves like its original under plain python3, variants
//! are distinct, the CodeXGLUE files are consistent, a SIGKILLed run resumes without loss or
//! duplicates, shards merge into the unsharded run, and tasks without tests are refused
//! unless `--unverified`.

use crate::common;

use equimorph::task::Task;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn augment_command(tasks: &Path, out: &Path, extra: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_equimorph"));
    cmd.arg("augment")
        .arg(tasks)
        .arg("--out")
        .arg(out)
        .arg("--quiet")
        .args(extra)
        .env("EQUIMORPH_TRANSFORMS", common::transforms_dir())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

fn augment(tasks: &Path, out: &Path, extra: &[&str]) -> String {
    common::success_stdout(&augment_command(tasks, out, extra).output().unwrap())
}

fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("whole JSON lines"))
        .collect()
}

fn summary(dir: &Path) -> Value {
    let mut v: Value = serde_json::from_str(&common::read(dir.join("summary.json"))).unwrap();
    v.as_object_mut().unwrap().remove("seconds");
    v
}

fn tasks_by_id(path: &Path) -> HashMap<String, Task> {
    equimorph::task::load(path, None)
        .unwrap()
        .tasks
        .into_iter()
        .map(|t| (t.id.clone(), t))
        .collect()
}

#[test]
fn every_variant_passes_its_tests_under_plain_python_and_variants_are_distinct() {
    let (_d, tasks) = common::fixture_subset(10);
    let out = tempfile::tempdir().unwrap();
    let k = 4;
    let stdout = augment(
        &tasks,
        out.path(),
        &["--variants", "4", "--steps", "1..3", "--seed", "3"],
    );
    assert!(stdout.contains("10 tasks augmented"), "{stdout}");
    let by_id = tasks_by_id(&tasks);
    let variants = jsonl(&out.path().join("variants.jsonl"));
    let mut per_task: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for v in &variants {
        let id = v["task_id"].as_str().unwrap();
        let task = &by_id[id];
        let source = v["source"].as_str().unwrap();
        assert_eq!(v["verified"], true);
        assert_ne!(source, task.source, "a variant is not the original");
        let steps = v["transforms"].as_array().unwrap();
        assert!((1..=3).contains(&steps.len()), "{v}");
        assert!(v.get("distance").is_none(), "no detector, no distance");
        assert!(
            per_task
                .entry(id.to_string())
                .or_default()
                .insert(source.to_string()),
            "task {id}: duplicate variant"
        );
        common::assert_behaves_like_original(task, source);
    }
    // The fixtures allow K distinct variants each (many SPTs apply to every one of them).
    assert_eq!(per_task.len(), 10);
    for (id, set) in &per_task {
        assert_eq!(set.len(), k, "task {id}");
    }
    // Variant indices run 0..K within each task.
    for (i, v) in variants.iter().enumerate() {
        assert_eq!(v["variant"].as_u64().unwrap() as usize, i % k);
    }
    let s = summary(out.path());
    assert_eq!(s["variants"], 40);
    assert_eq!(s["verified"], 40);
    assert_eq!(s["short_tasks"], 0);
    assert!(common::read(out.path().join("report.md")).contains("| variants | 40 (40 verified"));
    let html = common::read(out.path().join("report.html"));
    assert!(
        html.contains("<th>variants</th><td>40 (40 verified"),
        "{html}"
    );
    assert_eq!(html.matches("<h3>").count(), 10, "one example per task");

    // The same seed gives the same variants, whatever the thread count.
    let again = tempfile::tempdir().unwrap();
    let o = augment_command(
        &tasks,
        again.path(),
        &["--variants", "4", "--steps", "1..3", "--seed", "3"],
    )
    .env("RAYON_NUM_THREADS", "1")
    .output()
    .unwrap();
    common::success_stdout(&o);
    assert_eq!(jsonl(&again.path().join("variants.jsonl")), variants);
}

#[test]
fn codexglue_files_are_consistent_and_a_detector_scores_the_hardest_variants() {
    let (_d, tasks) = common::fixture_subset(6);
    let out = tempfile::tempdir().unwrap();
    let model = equimorph::detector::model::models_dir().join("tiny-embedding");
    let detector = format!("onnx:{}", model.display());
    augment(
        &tasks,
        out.path(),
        &[
            "--variants",
            "3",
            "--steps",
            "1..2",
            "--format",
            "codexglue",
            "--negatives",
            "2",
            "--detector",
            &detector,
            "--hard",
            "--hard-share",
            "0.67",
            "--beam",
            "2",
        ],
    );
    let by_id = tasks_by_id(&tasks);
    let variants = jsonl(&out.path().join("variants.jsonl"));
    assert_eq!(variants.len(), 18);
    // The --hard search does not score rewrites longer than the detector's window (by default).
    let run: serde_json::Value =
        serde_json::from_str(&common::read(out.path().join("run.json"))).unwrap();
    assert_eq!(run["settings"]["window"], "true", "{run}");
    assert_eq!(run["settings"]["hard share"], "0.67", "{run}");
    // Program text → task: originals and variants.
    let mut owner: HashMap<String, String> = by_id
        .values()
        .map(|t| (t.source.clone(), t.id.clone()))
        .collect();
    for v in &variants {
        let id = v["task_id"].as_str().unwrap();
        let d = v["distance"].as_f64().expect("scored");
        assert!((0.0..=2.0).contains(&d), "{v}");
        assert!(v["clone_type"].is_string());
        common::assert_behaves_like_original(&by_id[id], v["source"].as_str().unwrap());
        owner.insert(v["source"].as_str().unwrap().to_string(), id.to_string());
    }
    let cg = out.path().join("codexglue");
    let data: HashMap<String, String> = jsonl(&cg.join("data.jsonl"))
        .into_iter()
        .map(|l| {
            (
                l["idx"].as_str().unwrap().to_string(),
                l["func"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(data.len(), 6 + 18, "originals and variants");
    let pairs = common::read(cg.join("pairs.txt"));
    let (mut positives, mut negatives) = (0, 0);
    for line in pairs.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 3, "{line}");
        let (a, b) = (&data[f[0]], &data[f[1]]);
        let same = owner[a] == owner[b];
        match f[2] {
            "1" => {
                assert!(same, "{line}: a positive pair of two tasks");
                positives += 1;
            }
            "0" => {
                assert!(!same, "{line}: a negative pair of one task");
                negatives += 1;
            }
            other => panic!("label {other}"),
        }
    }
    // Per task: 3 original–variant and 3 variant–variant pairs; 2 negatives each.
    assert_eq!(positives, 6 * 6);
    assert_eq!(negatives, 2 * positives);
    // The search's pool comes first, most distant first.
    for t in jsonl(&out.path().join("tasks.jsonl")) {
        let pool = t["counts"]["pool"].as_u64().unwrap() as usize;
        assert!(pool > 0, "{t}");
        let d: Vec<f64> = variants
            .iter()
            .filter(|v| v["task_id"] == t["id"])
            .take(pool.min(3))
            .map(|v| v["distance"].as_f64().unwrap())
            .collect();
        assert!(d.windows(2).all(|w| w[0] >= w[1]), "{t}: {d:?}");
    }
    let s = summary(out.path());
    assert_eq!(s["codexglue"], serde_json::json!([24, 108, 72]));
}

fn wait_for_lines(path: &Path, n: usize) {
    let start = Instant::now();
    while jsonl_lines(path) < n {
        assert!(start.elapsed() < Duration::from_secs(120), "no progress");
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn jsonl_lines(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .map(|t| t.matches('\n').count())
        .unwrap_or(0)
}

#[test]
fn a_sigkilled_run_resumes_without_loss_or_duplicates() {
    let tasks = common::root().join("fixtures/tasks.jsonl");
    let args = ["--variants", "3", "--seed", "9"];
    let whole = tempfile::tempdir().unwrap();
    augment(&tasks, whole.path(), &args);

    let out = tempfile::tempdir().unwrap();
    let mut child = augment_command(&tasks, out.path(), &args).spawn().unwrap();
    wait_for_lines(&out.path().join("tasks.jsonl"), 1);
    child.kill().unwrap();
    let _ = child.wait();
    let before = jsonl_lines(&out.path().join("tasks.jsonl"));
    assert!(before < common::fixture_task_count(), "killed mid-run");
    let stderr = String::from_utf8_lossy(
        &augment_command(&tasks, out.path(), &args)
            .output()
            .unwrap()
            .stderr,
    )
    .into_owned();
    assert!(stderr.contains("resuming"), "{stderr}");
    assert_eq!(
        jsonl(&out.path().join("variants.jsonl")),
        jsonl(&whole.path().join("variants.jsonl"))
    );
    assert_eq!(
        common::timeless_lines(out.path().join("tasks.jsonl")),
        common::timeless_lines(whole.path().join("tasks.jsonl"))
    );

    // A kill between the two writes: a task's variants are there, its task line is not, and
    // the next variant line is torn. The rerun drops them and does that task again.
    let torn = tempfile::tempdir().unwrap();
    for f in ["run.json", "variants.jsonl", "tasks.jsonl"] {
        std::fs::copy(whole.path().join(f), torn.path().join(f)).unwrap();
    }
    let tasks_file = torn.path().join("tasks.jsonl");
    let mut lines: Vec<String> = common::read(&tasks_file)
        .lines()
        .map(String::from)
        .collect();
    lines.pop();
    std::fs::write(&tasks_file, lines.join("\n") + "\n").unwrap();
    let mut v = std::fs::OpenOptions::new()
        .append(true)
        .open(torn.path().join("variants.jsonl"))
        .unwrap();
    use std::io::Write;
    v.write_all(b"{\"task_id\":\"half").unwrap();
    drop(v);
    augment(&tasks, torn.path(), &args);
    assert_eq!(
        jsonl(&torn.path().join("variants.jsonl")),
        jsonl(&whole.path().join("variants.jsonl"))
    );
    // Other settings in the same directory are refused.
    let o = augment_command(&tasks, torn.path(), &["--variants", "4", "--seed", "9"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("other settings"));
}

fn merge(out: &Path, shards: &[PathBuf]) -> String {
    let mut args = vec!["merge".to_string(), out.display().to_string()];
    args.extend(shards.iter().map(|p| p.display().to_string()));
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    common::success_stdout(&common::equimorph(&a, None))
}

#[test]
fn shards_merged_equal_the_unsharded_run() {
    let (_d, tasks) = common::fixture_subset(9);
    let args = [
        "--variants",
        "2",
        "--format",
        "codexglue",
        "--seed",
        "4",
        "--split",
        "0.6,0.2,0.2",
    ];
    let root = tempfile::tempdir().unwrap();
    let whole = root.path().join("whole");
    augment(&tasks, &whole, &args);
    let shards: Vec<PathBuf> = (0..3).map(|i| root.path().join(format!("s{i}"))).collect();
    let mut total = 0;
    for (i, dir) in shards.iter().enumerate() {
        let shard = format!("{}/3", i + 1);
        let mut a = args.to_vec();
        a.extend(["--shard", &shard]);
        augment(&tasks, dir, &a);
        total += jsonl_lines(&dir.join("tasks.jsonl"));
    }
    assert_eq!(total, 9, "every task in exactly one shard");
    let merged = root.path().join("merged");
    let stdout = merge(
        &merged,
        &[shards[2].clone(), shards[0].clone(), shards[1].clone()],
    );
    assert!(stdout.contains("9 augmented"), "{stdout}");
    for f in [
        "variants.jsonl",
        "codexglue/data.jsonl",
        "codexglue/pairs.txt",
        "run.json",
    ] {
        assert_eq!(
            common::read(merged.join(f)),
            common::read(whole.join(f)),
            "{f}"
        );
    }
    assert_eq!(
        common::timeless_lines(merged.join("tasks.jsonl")),
        common::timeless_lines(whole.join("tasks.jsonl"))
    );
    assert_eq!(summary(&merged), summary(&whole));
    // The splits partition pairs.txt, and a program (so a task) is in one split only.
    let cg = whole.join("codexglue");
    let mut split_of: HashMap<String, &str> = HashMap::new();
    let mut lines = 0;
    for split in ["train", "valid", "test"] {
        let text = common::read(cg.join(format!("{split}.txt")));
        assert!(!text.is_empty(), "{split} is empty");
        for l in text.lines() {
            lines += 1;
            for idx in l.split('\t').take(2) {
                let s = *split_of.entry(idx.to_string()).or_insert(split);
                assert_eq!(s, split, "program {idx} in {s} and {split}");
            }
        }
    }
    assert_eq!(lines, common::read(cg.join("pairs.txt")).lines().count());
    // A shard given twice does not merge.
    let o = common::equimorph(
        &[
            "merge",
            root.path().join("mixed").to_str().unwrap(),
            shards[0].to_str().unwrap(),
            shards[0].to_str().unwrap(),
        ],
        None,
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("is given twice"));
}

#[test]
fn tasks_without_tests_are_refused_unless_unverified() {
    let dir = tempfile::tempdir().unwrap();
    let with = common::read("fixtures/tasks.jsonl")
        .lines()
        .next()
        .unwrap()
        .to_string();
    let without = r#"{"id": "no-tests", "source": "def double(x):\n    return x * 2\n\nprint(double(21))\n"}"#;
    let wrong =
        r#"{"id": "wrong", "source": "print(1)\n", "tests": [{"input": "", "output": "2\n"}]}"#;
    let both = dir.path().join("both.jsonl");
    std::fs::write(&both, format!("{with}\n{without}\n{wrong}\n")).unwrap();
    let only = dir.path().join("only.jsonl");
    std::fs::write(&only, format!("{without}\n")).unwrap();

    let o = augment_command(&only, &dir.path().join("a"), &[])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--unverified"));

    let out = dir.path().join("b");
    augment(&both, &out, &["--variants", "2"]);
    let lines = jsonl(&out.join("tasks.jsonl"));
    let refused = lines.iter().find(|l| l["id"] == "no-tests").unwrap();
    assert_eq!(refused["status"], "skipped");
    assert!(refused["reason"].as_str().unwrap().contains("no tests"));
    // A task whose original fails its own tests is reported, and the run goes on.
    let failing = lines.iter().find(|l| l["id"] == "wrong").unwrap();
    assert_eq!(failing["status"], "skipped");
    assert!(
        failing["reason"].as_str().unwrap().contains("failing"),
        "{failing}"
    );
    let variants = jsonl(&out.join("variants.jsonl"));
    assert!(variants.iter().all(|v| v["task_id"] != "no-tests"));
    assert!(variants.iter().all(|v| v["verified"] == true));

    let out = dir.path().join("c");
    augment(&both, &out, &["--variants", "2", "--unverified"]);
    let variants = jsonl(&out.join("variants.jsonl"));
    assert_eq!(
        variants.len(),
        6,
        "no test runs, so every task is augmented"
    );
    assert!(variants.iter().all(|v| v["verified"] == false));
    assert!(variants.iter().any(|v| v["task_id"] == "no-tests"));
    let s = summary(&out);
    assert_eq!(s["verified"], 0);
    assert_eq!(s["oracle_pass_rate"], Value::Null, "no oracle ran");

    // Bad arguments get clear errors.
    for (args, says) in [
        (vec!["--steps", "3..1"], "MIN ≤ MAX"),
        (vec!["--steps", "x"], "MIN..MAX"),
        (vec!["--variants", "0"], "at least 1"),
        (vec!["--hard"], "--detector"),
        (vec!["--hard-share", "0.5"], "--hard"),
        (
            vec!["--detector", "jaccard", "--hard", "--hard-share", "0"],
            "not a share",
        ),
    ] {
        let o = augment_command(&both, &dir.path().join("d"), &args)
            .output()
            .unwrap();
        assert!(!o.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
    }
}

/// A CodeNet tree in the real layout: `problems` problems with two accepted Python 3
/// submissions each (each pair solves "print n + k" for its own k), sample tests, metadata,
/// and the identical-problem clusters given.
fn codenet_tree(root: &Path, problems: usize, clusters: &[&[usize]]) {
    let header = "submission_id,problem_id,user_id,date,language,original_language,filename_ext,status,cpu_time,memory,code_size,accuracy\n";
    let mut list = String::from("id,name,dataset,time_limit,memory_limit,rating,tags,complexity\n");
    for p in 0..problems {
        let id = format!("p{p:05}");
        let py = root.join("data").join(&id).join("Python");
        std::fs::create_dir_all(&py).unwrap();
        let mut meta = header.to_string();
        for s in 0..2 {
            let sub = format!("s{:09}", p * 10 + s);
            let source = if s == 0 {
                format!("n = int(input())\nresult = n + {p}\nprint(result)\n")
            } else {
                format!(
                    "def main():\n    value = int(input())\n    print({p} + value)\n\n\nmain()\n"
                )
            };
            std::fs::write(py.join(format!("{sub}.py")), source).unwrap();
            meta +=
                &format!("{sub},{id},u000000001,1,Python,Python (3.8.2),py,Accepted,10,9000,40,\n");
        }
        std::fs::create_dir_all(root.join("metadata")).unwrap();
        std::fs::write(root.join("metadata").join(format!("{id}.csv")), meta).unwrap();
        let io = root.join("derived/input_output/data").join(&id);
        std::fs::create_dir_all(&io).unwrap();
        std::fs::write(io.join("input.txt"), "5\n").unwrap();
        std::fs::write(io.join("output.txt"), format!("{}\n", 5 + p)).unwrap();
        list += &format!("{id},Problem {p},AtCoder,2000,1048576,,,\n");
    }
    std::fs::write(root.join("metadata/problem_list.csv"), list).unwrap();
    let dup = root.join("derived/duplicates");
    std::fs::create_dir_all(&dup).unwrap();
    let lines: Vec<String> = clusters
        .iter()
        .map(|c| {
            c.iter()
                .map(|p| format!("p{p:05}"))
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    std::fs::write(
        dup.join("identical_problem_clusters"),
        lines.join("\n") + "\n",
    )
    .unwrap();
}

#[test]
fn codexglue_split_of_codenet_keeps_each_problem_cluster_whole_and_never_a_negative() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("Project_CodeNet");
    let clusters: &[&[usize]] = &[&[0, 3], &[1, 4, 6], &[2, 7]];
    codenet_tree(&root, 14, clusters);
    let out = dir.path().join("out");
    augment(
        &root,
        &out,
        &[
            "--variants",
            "2",
            "--format",
            "codexglue",
            "--seed",
            "3",
            "--split",
            "0.4,0.3,0.3",
        ],
    );
    // Every program text → the cluster of its problem.
    let cluster_of = |task_id: &str| -> usize {
        let p: usize = task_id[1..6].parse().unwrap();
        clusters
            .iter()
            .position(|c| c.contains(&p))
            .map_or(100 + p, |i| i)
    };
    let mut of_text: HashMap<String, usize> = HashMap::new();
    for t in jsonl(&out.join("tasks.jsonl")) {
        assert_eq!(t["status"], "ok", "{t}");
    }
    let set = equimorph::task::load(&root, None).unwrap();
    assert_eq!(set.tasks.len(), 28);
    for t in &set.tasks {
        of_text.insert(t.source.clone(), cluster_of(&t.id));
    }
    for v in jsonl(&out.join("variants.jsonl")) {
        of_text.insert(
            v["source"].as_str().unwrap().to_string(),
            cluster_of(v["task_id"].as_str().unwrap()),
        );
    }
    let cg = out.join("codexglue");
    let cluster_of_idx: HashMap<String, usize> = jsonl(&cg.join("data.jsonl"))
        .iter()
        .map(|l| {
            (
                l["idx"].as_str().unwrap().to_string(),
                of_text[l["func"].as_str().unwrap()],
            )
        })
        .collect();
    let mut split_of_cluster: HashMap<usize, &str> = HashMap::new();
    let mut negatives = 0;
    for split in ["train", "valid", "test"] {
        for l in common::read(cg.join(format!("{split}.txt"))).lines() {
            let f: Vec<&str> = l.split('\t').collect();
            let (a, b) = (cluster_of_idx[f[0]], cluster_of_idx[f[1]]);
            if f[2] == "0" {
                negatives += 1;
                assert_ne!(a, b, "a negative pair inside one problem cluster: {l}");
            } else {
                assert_eq!(a, b, "a clone pair across problems: {l}");
            }
            for c in [a, b] {
                let s = *split_of_cluster.entry(c).or_insert(split);
                assert_eq!(s, split, "cluster {c} in {s} and {split}");
            }
        }
    }
    assert!(negatives > 0);
    assert!(split_of_cluster.len() >= 4, "{split_of_cluster:?}");
}
