//! One `design` + `implement` round with K = 20 designs and N = 20 implementations each
//! (20 sequential + 400 parallel requests) against a chat-completions server on 127.0.0.1,
//! with no model latency (equimorph's own overhead per request) and with a simulated latency,
//! at several concurrencies. Run with `cargo bench --bench llm`. Prints a table; no assertions.

use equimorph::llm::{LlmClient, LlmConfig, DESIGN_PROMPT, IMPLEMENT_PROMPT};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A server that answers every design prompt with a new design and every implementation
/// prompt with a small script, after `latency`.
fn serve(latency: Duration) -> (String, Arc<tiny_http::Server>) {
    let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("bind"));
    let port = server.server_addr().to_ip().expect("ip").port();
    let s = server.clone();
    let counter = Arc::new(AtomicU64::new(0));
    std::thread::spawn(move || {
        for mut request in s.incoming_requests() {
            let n = counter.fetch_add(1, Ordering::SeqCst);
            std::thread::spawn(move || {
                let mut body = String::new();
                let _ = std::io::Read::read_to_string(request.as_reader(), &mut body);
                std::thread::sleep(latency);
                let content = if body.contains("Transformations designed so far") {
                    format!(
                        r#"{{"name": "design-{n}", "description": "Transformation {n} rewrites programs using the words a{n} b{n} c{n} d{n} e{n} f{n}."}}"#
                    )
                } else {
                    "```python\nimport sys\nprint(sys.stdin.read() + '# touched')\n```".to_string()
                };
                let reply = serde_json::json!({
                    "choices": [{"message": {"role": "assistant", "content": content}}],
                    "usage": {"prompt_tokens": body.len() / 4, "completion_tokens": 20, "total_tokens": body.len() / 4 + 20},
                });
                let _ = request.respond(tiny_http::Response::from_string(reply.to_string()));
            });
        }
    });
    (format!("http://127.0.0.1:{port}/v1"), server)
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tasks = equimorph::task::load(&root.join("fixtures/tasks.jsonl"), None).expect("tasks");
    println!(
        "{:>10} {:>12} {:>14} {:>16} {:>14}",
        "latency", "concurrency", "design 20 (s)", "implement 400 (s)", "requests/s"
    );
    for latency_ms in [0u64, 200] {
        let (url, server) = serve(Duration::from_millis(latency_ms));
        for concurrency in [1usize, 4, 16] {
            if latency_ms == 200 && concurrency == 1 {
                continue; // 400 × 0.2 s one at a time: 80 s of waiting shows nothing new.
            }
            let cache = tempfile::tempdir().expect("temp dir");
            let out = tempfile::tempdir().expect("temp dir");
            let client = LlmClient::new(LlmConfig {
                base_url: url.clone(),
                model: "bench".into(),
                api_key: Some("sk-bench".into()),
                timeout: Duration::from_secs(30),
                retries: 0,
                backoff: Duration::from_millis(100),
                backoff_max: Duration::from_secs(1),
                concurrency,
                max_requests: None,
                cache_dir: cache.path().to_path_buf(),
                offline: false,
            })
            .expect("client");
            let t = Instant::now();
            let run = equimorph::llm::design(
                &client,
                DESIGN_PROMPT,
                &tasks.tasks,
                20,
                0,
                0.1,
                Vec::new(),
            );
            let design_s = t.elapsed().as_secs_f64();
            assert_eq!(run.designs.len(), 20, "{:?}", run.error);
            let t = Instant::now();
            let records = equimorph::llm::implement(
                &client,
                IMPLEMENT_PROMPT,
                &run.designs,
                20,
                0.8,
                out.path(),
            )
            .expect("implement");
            let implement_s = t.elapsed().as_secs_f64();
            assert_eq!(records.len(), 400);
            println!(
                "{:>8}ms {:>12} {:>14.2} {:>16.2} {:>14.0}",
                latency_ms,
                concurrency,
                design_s,
                implement_s,
                400.0 / implement_s
            );
        }
        server.unblock();
    }
}
