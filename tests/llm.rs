//! The LLM steps against a real HTTP server on 127.0.0.1 that speaks the chat-completions
//! protocol and answers from a script: designs (JSON, labelled lines, fenced, malformed,
//! duplicate), implementations with and without fences and a reply that is not code, a 429 with
//! Retry-After, a 500 and a stalled connection. The whole `autospt` pipeline runs, retries and
//! the budget work, the key is sent but written nowhere, and an offline rerun reproduces every
//! file.

use crate::common;

use serde_json::Value;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const KEY: &str = "sk-test-7f3a9c51e2";

/// A scripted failure the server answers with instead of a completion.
#[derive(Clone, Copy, Debug)]
enum Fault {
    TooMany { retry_after_s: u64 },
    ServerError,
    Stall(Duration),
}

/// What the server saw of one request.
#[derive(Clone, Debug)]
struct Seen {
    at: Instant,
    authorization: Option<String>,
    kind: &'static str,
    answered: u16,
}

#[derive(Default)]
struct Script {
    faults: VecDeque<Fault>,
    always: Option<Fault>,
    designs: VecDeque<String>,
    implementations: HashMap<String, usize>,
    seen: Vec<Seen>,
}

struct TestServer {
    url: String,
    server: Arc<tiny_http::Server>,
    script: Arc<Mutex<Script>>,
    thread: Option<JoinHandle<()>>,
}

impl TestServer {
    fn start(script: Script) -> TestServer {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("bind 127.0.0.1"));
        let port = server.server_addr().to_ip().expect("an IP address").port();
        let script = Arc::new(Mutex::new(script));
        let (s, sc) = (server.clone(), script.clone());
        let thread = std::thread::spawn(move || {
            for request in s.incoming_requests() {
                let sc = sc.clone();
                // One thread per request, so a stalled answer holds up nothing else.
                std::thread::spawn(move || answer(request, &sc));
            }
        });
        TestServer {
            url: format!("http://127.0.0.1:{port}/v1"),
            server,
            script,
            thread: Some(thread),
        }
    }

    fn seen(&self) -> Vec<Seen> {
        self.script.lock().unwrap().seen.clone()
    }

    fn stop(mut self) {
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            t.join().unwrap();
        }
    }
}

fn fixture_script(group: &str, file: &str) -> String {
    common::read(format!("fixtures/scripts/{group}/{file}"))
}

/// The design names the script hands out, and the fixture group implementing each.
const DESIGNED: [(&str, &str); 3] = [
    ("loop-iterator", "for-to-while"),
    ("negated-branches", "if-else-swap"),
    ("local-renaming", "rename-locals"),
];

fn design_replies() -> VecDeque<String> {
    VecDeque::from(vec![
        r#"{"name": "loop-iterator", "category": "control-flow", "description": "Rewrite every for loop without an else clause as a while True loop that takes items from an explicit iterator with next() and a sentinel, assigning the loop target exactly as for does."}"#.to_string(),
        "I like turtles.".to_string(),
        r#"{"name": "loop-iterator", "description": "Another loop rewrite that turns for loops into while loops somehow."}"#.to_string(),
        "**Name:** negated-branches\n**Description:** Negate the condition of every if statement and conditional expression with `not` and swap the two branches, adding `pass` where a branch is missing.".to_string(),
        "Here is my proposal:\n```json\n{\"name\": \"local-renaming\", \"category\": \"naming\", \"description\": \"Rename every local variable of every function (not the parameters) to a fresh name, skipping functions with nested scopes or introspection.\"}\n```".to_string(),
    ])
}

fn implementation(design: &str, k: usize) -> String {
    let group = DESIGNED
        .iter()
        .find(|(d, _)| *d == design)
        .map_or("for-to-while", |(_, g)| g);
    match k {
        0 => format!(
            "Here is the implementation:\n```python\n{}```\n",
            fixture_script(group, "strong.py")
        ),
        1 => fixture_script(group, "weak.py"),
        2 => "I'm sorry, but I can't help with rewriting programs in that way.".to_string(),
        _ => format!("```python\n{}```", fixture_script(group, "wrong.py")),
    }
}

fn answer(mut request: tiny_http::Request, script: &Mutex<Script>) {
    let mut body = String::new();
    let _ = request.as_reader().read_to_string(&mut body);
    let authorization = request
        .headers()
        .iter()
        .find(|h| h.field.equiv("Authorization"))
        .map(|h| h.value.as_str().to_string());
    let parsed: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let prompt = parsed["messages"][0]["content"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let kind = if prompt.contains("Transformations designed so far") {
        "design"
    } else {
        "implement"
    };
    let (fault, reply) = {
        let mut s = script.lock().unwrap();
        let fault = s.faults.pop_front().or(s.always);
        let reply = if fault.is_some() {
            String::new()
        } else if kind == "design" {
            let n = s.seen.len();
            s.designs.pop_front().unwrap_or_else(|| {
                format!(r#"{{"name": "extra-{n}", "description": "An extra transformation number {n} that the script invents when it runs out of designs."}}"#)
            })
        } else {
            let design = prompt
                .lines()
                .find_map(|l| l.strip_prefix("Transformation: "))
                .unwrap_or("unknown")
                .to_string();
            let k = s.implementations.entry(design.clone()).or_default();
            let reply = implementation(&design, *k);
            *k += 1;
            reply
        };
        let answered = match fault {
            Some(Fault::TooMany { .. }) => 429,
            Some(Fault::ServerError) => 500,
            _ => 200,
        };
        s.seen.push(Seen {
            at: Instant::now(),
            authorization,
            kind,
            answered,
        });
        (fault, reply)
    };
    let header = |k: &str, v: &str| tiny_http::Header::from_bytes(k, v).unwrap();
    let response = match fault {
        Some(Fault::TooMany { retry_after_s }) => {
            tiny_http::Response::from_string(r#"{"error": {"message": "rate limited"}}"#)
                .with_status_code(429)
                .with_header(header("Retry-After", &retry_after_s.to_string()))
        }
        Some(Fault::ServerError) => {
            tiny_http::Response::from_string("upstream exploded").with_status_code(500)
        }
        Some(Fault::Stall(d)) => {
            std::thread::sleep(d);
            tiny_http::Response::from_string("{}").with_status_code(200)
        }
        None => {
            let completion = serde_json::json!({
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": prompt.len() / 4, "completion_tokens": reply.len() / 4,
                          "total_tokens": prompt.len() / 4 + reply.len() / 4},
            });
            tiny_http::Response::from_string(completion.to_string())
                .with_header(header("Content-Type", "application/json"))
        }
    };
    let _ = request.respond(response);
}

/// The names in a designs.jsonl, in order.
fn design_names(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let d: Value = serde_json::from_str(l).unwrap();
            d["name"].as_str().unwrap().to_string()
        })
        .collect()
}

fn ok(out: &std::process::Output) -> String {
    common::success_stdout(out)
}

/// Every file under `dir`, relative path → bytes.
fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.insert(
                    p.strip_prefix(root).unwrap().to_path_buf(),
                    std::fs::read(&p).unwrap(),
                );
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// `results.jsonl` without the fields that hold wall-clock times.
fn results_without_times(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            v.as_object_mut().unwrap().remove("seconds");
            v
        })
        .collect()
}

fn autospt(
    url: &str,
    tasks: &Path,
    out: &Path,
    cache: &Path,
    count: &str,
    extra: &[&str],
) -> std::process::Output {
    let validation = common::root().join("fixtures/tasks.jsonl");
    let mut args = vec![
        "autospt",
        "--tasks",
        tasks.to_str().unwrap(),
        "--validation",
        validation.to_str().unwrap(),
        "--limit",
        "12",
        "--count",
        count,
        "--samples",
        "4",
        "--out",
        out.to_str().unwrap(),
        "--llm-url",
        url,
        "--llm-model",
        "test-model",
        "--llm-timeout",
        "1",
        "--llm-cache",
        cache.to_str().unwrap(),
        "--detector",
        "jaccard",
        "--beam",
        "2",
        "--iterations",
        "2",
        "--quiet",
    ];
    args.extend_from_slice(extra);
    common::equimorph_env(&args, &[("OPENAI_API_KEY", KEY)])
}

#[test]
fn autospt_runs_the_whole_pipeline_and_an_offline_rerun_reproduces_every_file() {
    let server = TestServer::start(Script {
        faults: VecDeque::from(vec![
            Fault::TooMany { retry_after_s: 1 },
            Fault::ServerError,
            Fault::Stall(Duration::from_secs(3)),
        ]),
        designs: design_replies(),
        ..Script::default()
    });
    let work = tempfile::tempdir().unwrap();
    let (_tasks_dir, tasks) = common::fixture_subset(8);
    let out = work.path().join("run");
    let cache = work.path().join("cache");
    let printed = ok(&autospt(&server.url, &tasks, &out, &cache, "3", &[]));
    assert!(printed.contains("report: "), "{printed}");

    // Step 1: three designs, the malformed reply and the duplicate retried.
    let names = design_names(&out.join("designs.jsonl"));
    assert_eq!(names, DESIGNED.map(|(d, _)| d).to_vec());
    let designs: Vec<Value> = common::read(out.join("designs.jsonl"))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        designs[1]["description"]
            .as_str()
            .unwrap()
            .split(' ')
            .next(),
        Some("Negate")
    );

    // Step 2: per design, three candidates written (fenced or not) and one reply recorded as
    // not Python; every candidate carries its design's header.
    let records: Vec<Value> = std::fs::read_to_string(out.join("candidates/implement.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(records.len(), 12);
    for (design, _) in DESIGNED {
        let of = |status: &str| {
            records
                .iter()
                .filter(|r| r["design"] == design && r["status"] == status)
                .count()
        };
        assert_eq!((of("written"), of("not_python")), (3, 1), "{design}");
        for r in records
            .iter()
            .filter(|r| r["design"] == design && r["status"] == "written")
        {
            let text =
                std::fs::read_to_string(out.join("candidates").join(r["file"].as_str().unwrap()))
                    .unwrap();
            assert!(text.starts_with(&format!("# name: {design}\n")), "{text}");
        }
    }

    // Step 3 and 4: the selected set is what the attack used.
    let selection: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(out.join("selection/selection.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(selection.len(), 9);
    let mut winners: Vec<String> = selection
        .iter()
        .filter(|r| r["selected"] == true)
        .map(|r| r["group"].as_str().unwrap().to_string())
        .collect();
    winners.sort();
    assert!(!winners.is_empty());
    let run: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("attack/run.json")).unwrap())
            .unwrap();
    let used: Vec<String> = run["transforms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(used, winners);
    let results = results_without_times(&out.join("attack/results.jsonl"));
    assert_eq!(results.len(), 8);

    // Retries: the 429 was honoured (Retry-After 1 s), the 500 and the stall retried; every
    // request carried the key.
    let seen = server.seen();
    assert_eq!(seen.iter().filter(|s| s.kind == "design").count(), 3 + 5);
    assert_eq!(seen.iter().filter(|s| s.kind == "implement").count(), 12);
    assert_eq!((seen[0].answered, seen[1].answered), (429, 500));
    assert!(
        seen[1].at.duration_since(seen[0].at) >= Duration::from_millis(950),
        "Retry-After not honoured"
    );
    assert!(
        seen[3].at.duration_since(seen[2].at) >= Duration::from_millis(950),
        "the stalled request was not given up after its 1 s timeout"
    );
    for s in &seen {
        assert_eq!(
            s.authorization.as_deref(),
            Some(format!("Bearer {KEY}").as_str())
        );
    }
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("autospt.json")).unwrap()).unwrap();
    let design_stage = &state["stages"]["1-design"]["llm"];
    assert_eq!(design_stage["requests"], 8);
    assert_eq!(design_stage["retries"], 3);
    assert!(design_stage["usage"]["completion_tokens"].as_u64().unwrap() > 0);
    assert_eq!(state["stages"]["2-implement"]["llm"]["requests"], 12);
    let report = std::fs::read_to_string(out.join("autospt.md")).unwrap();
    assert!(
        report.contains("| 1-design | 3 designs: loop-iterator"),
        "{report}"
    );
    assert!(report.contains("In all: 20 LLM requests"), "{report}");

    // The key is in no file: outputs and cache.
    for dir in [&out, &cache] {
        for (path, bytes) in tree(dir) {
            assert!(
                !String::from_utf8_lossy(&bytes).contains(KEY),
                "the key leaked into {}",
                path.display()
            );
        }
    }

    // A rerun of a finished run skips every stage.
    let again = ok(&autospt(&server.url, &tasks, &out, &cache, "3", &[]));
    assert_eq!(again.matches("already done, skipped").count(), 4, "{again}");

    // Steps 3 and 4 recorded the settings `select` and `attack` record for the same
    // arguments: either command resumes autospt's directory (and autospt theirs).
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let validation = s(&common::root().join("fixtures/tasks.jsonl"));
    let (candidates, selection) = (s(&out.join("candidates")), s(&out.join("selection")));
    let o = common::equimorph(
        &[
            "select",
            &candidates,
            "--tasks",
            &validation,
            "--out",
            &selection,
            "--limit",
            "12",
            "--detector",
            "jaccard",
            "--quiet",
        ],
        None,
    );
    ok(&o);
    let selected = s(&out.join("selection/selected"));
    let o = common::equimorph(
        &[
            "attack",
            tasks.to_str().unwrap(),
            "--out",
            &s(&out.join("attack")),
            "--search",
            "beam",
            "--beam",
            "2",
            "--iterations",
            "2",
            "--transforms",
            &selected,
            "--detector",
            "jaccard",
            "--quiet",
        ],
        None,
    );
    ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("resuming: 8 tasks already in"), "{err}");
    assert!(err.contains("0 to go"), "{err}");
    let url = server.url.clone();
    server.stop();

    // Offline, with the server gone, into a fresh directory: the same files (attack results
    // compared without their wall-clock times; pairs.jsonl is appended in completion order).
    let out2 = work.path().join("offline");
    ok(&autospt(&url, &tasks, &out2, &cache, "3", &["--offline"]));
    let read = |p: PathBuf| std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    for file in [
        "designs.jsonl",
        "selection/selection.json",
        "selection/selection.md",
        "selection/selection.html",
        "attack/run.json",
    ] {
        assert_eq!(
            read(out.join(file)),
            read(out2.join(file)),
            "{file} differs"
        );
    }
    for dir in ["candidates", "selection/selected"] {
        assert_eq!(tree(&out.join(dir)), tree(&out2.join(dir)), "{dir} differs");
    }
    assert_eq!(
        results_without_times(&out.join("attack/results.jsonl")),
        results_without_times(&out2.join("attack/results.jsonl"))
    );
    let state2: Value =
        serde_json::from_str(&std::fs::read_to_string(out2.join("autospt.json")).unwrap()).unwrap();
    for stage in ["1-design", "2-implement"] {
        assert_eq!(state2["stages"][stage]["llm"]["requests"], 0, "{stage}");
    }
    assert_eq!(state2["stages"]["1-design"]["llm"]["cache_hits"], 5);
    assert_eq!(state2["stages"]["2-implement"]["llm"]["cache_hits"], 12);

    // Offline, a request that is not in the cache is a clear error.
    let miss = autospt(
        &url,
        &tasks,
        &work.path().join("more"),
        &cache,
        "4",
        &["--offline"],
    );
    assert!(!miss.status.success());
    let err = String::from_utf8_lossy(&miss.stderr);
    assert!(
        err.contains("not in the cache") && err.contains("3 of 4 designs"),
        "{err}"
    );
}

fn design_cmd(url: &str, work: &Path, extra: &[&str]) -> std::process::Output {
    let tasks = common::root().join("fixtures/tasks.jsonl");
    let out = work.join("designs.jsonl");
    let cache = work.join("cache");
    let mut args = vec![
        "design",
        "--tasks",
        tasks.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--llm-url",
        url,
        "--llm-model",
        "test-model",
        "--llm-timeout",
        "2",
        "--llm-cache",
        cache.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    common::equimorph_env(&args, &[("OPENAI_API_KEY", KEY)])
}

#[test]
fn the_budget_caps_requests_and_exhausted_retries_are_clear_errors() {
    let server = TestServer::start(Script {
        always: Some(Fault::ServerError),
        ..Script::default()
    });
    let work = tempfile::tempdir().unwrap();
    // Budget: 3 requests, however many retries are allowed.
    let o = design_cmd(
        &server.url,
        work.path(),
        &["--count", "2", "--max-requests", "3", "--llm-retries", "10"],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("request budget of 3 requests"), "{err}");
    assert_eq!(server.seen().len(), 3);
    // Retries exhausted: the status, the attempts and the body, never the key.
    let o = design_cmd(
        &server.url,
        work.path(),
        &["--count", "1", "--llm-retries", "1"],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("HTTP 500 after 2 attempt(s): upstream exploded"),
        "{err}"
    );
    assert!(!err.contains(KEY));
    assert_eq!(server.seen().len(), 5);
    server.stop();
    // No endpoint at all.
    let o = common::equimorph_env(
        &[
            "design",
            "--tasks",
            "x.jsonl",
            "--out",
            "y",
            "--llm-model",
            "m",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("no endpoint: give --llm-url or set OPENAI_BASE_URL"));
}

#[test]
fn implement_writes_the_select_layout_and_uses_the_base_url_from_the_environment() {
    let server = TestServer::start(Script::default());
    let work = tempfile::tempdir().unwrap();
    let designs = work.path().join("designs.jsonl");
    std::fs::write(
        &designs,
        "{\"name\": \"loop-iterator\", \"description\": \"for loops become while loops over an explicit iterator\"}\n",
    )
    .unwrap();
    let out = work.path().join("cands");
    let cache = work.path().join("cache");
    let url = server.url.clone();
    let o = common::equimorph_env(
        &[
            "implement",
            designs.to_str().unwrap(),
            "--samples",
            "5",
            "--out",
            out.to_str().unwrap(),
            "--llm-model",
            "test-model",
            "--llm-cache",
            cache.to_str().unwrap(),
            "--llm-concurrency",
            "3",
        ],
        &[("OPENAI_API_KEY", KEY), ("OPENAI_BASE_URL", &url)],
    );
    let printed = ok(&o);
    assert!(printed.contains("4 candidates written"), "{printed}");
    assert!(printed.contains("1 replies not Python"), "{printed}");
    let files: Vec<String> = std::fs::read_dir(out.join("loop-iterator"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(files.len(), 4);
    assert!(files.iter().all(|f| f.ends_with(".py")));
    // `select` reads the layout as it is.
    let sel = work.path().join("sel");
    let tasks = common::root().join("fixtures/tasks.jsonl");
    let o = common::equimorph(
        &[
            "select",
            out.to_str().unwrap(),
            "--tasks",
            tasks.to_str().unwrap(),
            "--out",
            sel.to_str().unwrap(),
            "--detector",
            "jaccard",
            "--limit",
            "6",
            "--quiet",
        ],
        None,
    );
    let printed = ok(&o);
    assert!(printed.contains("4 candidates in 1 group"), "{printed}");
    server.stop();
}

#[test]
fn designs_in_the_papers_own_format_parse_and_refused_replies_are_kept_whole() {
    let paper = |name: &str, what: &str| {
        format!(
            "Here is a new transformation.\n\n- **Transformation Name:** {name}\n- **Description:** {what}\n"
        )
    };
    let server = TestServer::start(Script {
        designs: VecDeque::from(vec![
            paper(
                "Guard Clauses",
                "Turn an if/else whose branches both return into an early return and the rest.",
            ),
            "I would rather talk about turtles, at length, than design anything today.".to_string(),
            paper(
                "Loop Iterator",
                "Rewrite every for loop as a while loop over an explicit iterator and next().",
            ),
            format!(
                "### Transformation Name: tuple-swap\n### Description: Replace a temporary-variable \
                 swap of two names by a tuple assignment that swaps them at once."
            ),
        ]),
        ..Script::default()
    });
    let work = tempfile::tempdir().unwrap();
    let o = design_cmd(&server.url, work.path(), &["--count", "3"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let names = design_names(&work.path().join("designs.jsonl"));
    assert_eq!(names, ["guard-clauses", "loop-iterator", "tuple-swap"]);
    // The refused reply is recorded whole, with why.
    let rejected = common::read(work.path().join("designs.rejected.jsonl"));
    let line: Value = serde_json::from_str(rejected.lines().next().unwrap()).unwrap();
    assert!(
        line["reason"].as_str().unwrap().starts_with("malformed"),
        "{line}"
    );
    assert_eq!(
        line["reply"],
        "I would rather talk about turtles, at length, than design anything today."
    );
    server.stop();
}
