//! A client for any OpenAI-compatible chat-completions endpoint, with an on-disk cache of every
//! exchange, retries with backoff, bounded concurrency and a hard request budget.

use rand::Rng;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};
use thiserror::Error;

/// Where and how to reach the model.
#[derive(Debug, Clone)]
pub struct LlmConfig {
    /// Base URL, e.g. `https://api.openai.com/v1`; `/chat/completions` is appended.
    pub base_url: String,
    /// Model name sent with every request.
    pub model: String,
    /// Bearer token (never written anywhere).
    pub api_key: Option<String>,
    /// Timeout of one HTTP request, connection to last byte.
    pub timeout: Duration,
    /// Retries after the first attempt, on 429, 5xx and network errors.
    pub retries: u32,
    /// First backoff delay; doubled each retry, with jitter, capped at `backoff_max`.
    pub backoff: Duration,
    /// Longest delay between attempts (a `Retry-After` above it is capped to it too).
    pub backoff_max: Duration,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// Most HTTP requests this client may send (retries included); cache hits are free.
    pub max_requests: Option<u64>,
    /// Directory of cached exchanges.
    pub cache_dir: PathBuf,
    /// Answer from the cache only; a miss is an error.
    pub offline: bool,
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    /// `system`, `user` or `assistant`.
    pub role: String,
    /// The text.
    pub content: String,
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Message {
            role: "system".into(),
            content: content.into(),
        }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Message {
            role: "user".into(),
            content: content.into(),
        }
    }
}

/// One request: the conversation, the temperature, and which sample of it this is (part of the
/// cache key, so N samples of one prompt are N cache entries).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The conversation.
    pub messages: Vec<Message>,
    /// Sampling temperature.
    pub temperature: f32,
    /// Sample index.
    pub sample: u32,
}

/// Token counts as the endpoint reports them (zero when it does not).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Prompt tokens.
    #[serde(default)]
    pub prompt_tokens: u64,
    /// Completion tokens.
    #[serde(default)]
    pub completion_tokens: u64,
    /// Total tokens.
    #[serde(default)]
    pub total_tokens: u64,
}

impl Usage {
    fn add(&mut self, other: Usage) {
        self.prompt_tokens += other.prompt_tokens;
        self.completion_tokens += other.completion_tokens;
        self.total_tokens += other.total_tokens;
    }
}

/// A model's reply.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Completion {
    /// The assistant message's text.
    pub text: String,
    /// Its token usage.
    pub usage: Usage,
    /// Whether it came from the cache.
    #[serde(skip)]
    pub cached: bool,
}

/// What a client has done so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LlmStats {
    /// HTTP requests sent (retries included).
    pub requests: u64,
    /// Retries among them.
    pub retries: u64,
    /// Answers taken from the cache.
    pub cache_hits: u64,
    /// Completions that failed for good.
    pub failures: u64,
    /// Tokens of the responses received over HTTP (cache hits add nothing).
    pub usage: Usage,
}

/// Why a completion failed.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum LlmError {
    /// `--offline` and the exchange is not in the cache.
    #[error("offline: this request is not in the cache {dir} (run once without --offline)")]
    Offline {
        /// The cache directory.
        dir: String,
    },
    /// The request budget is spent.
    #[error("the request budget of {max} requests (--max-requests) is spent")]
    Budget {
        /// The budget.
        max: u64,
    },
    /// The endpoint answered with an error status (after retries, where it was retryable).
    #[error("the endpoint answered HTTP {status} after {attempts} attempt(s): {message}")]
    Status {
        /// HTTP status.
        status: u16,
        /// Attempts made.
        attempts: u32,
        /// The start of the response body.
        message: String,
    },
    /// The endpoint could not be reached or did not answer in time (after retries).
    #[error("network error after {attempts} attempt(s): {message}")]
    Network {
        /// Attempts made.
        attempts: u32,
        /// What failed.
        message: String,
    },
    /// The response is not a chat completion.
    #[error("the endpoint's response is not a chat completion: {0}")]
    Malformed(String),
    /// The client is misconfigured.
    #[error("{0}")]
    Config(String),
}

/// The client. Cheap to share between threads.
pub struct LlmClient {
    config: LlmConfig,
    agent: ureq::Agent,
    endpoint: String,
    sent: AtomicU64,
    stats: Mutex<LlmStats>,
}

/// What is stored per exchange. The key is not part of it.
#[derive(Serialize, Deserialize)]
struct CacheEntry {
    endpoint: String,
    model: String,
    request: ChatRequest,
    response: Completion,
}

enum Attempt {
    Done(Completion),
    Retry {
        error: LlmError,
        after: Option<Duration>,
    },
    Fail(LlmError),
}

impl LlmClient {
    /// A client for `config`; fails only on an unusable configuration.
    pub fn new(config: LlmConfig) -> Result<Self, LlmError> {
        if !config.offline && config.base_url.trim().is_empty() {
            return Err(LlmError::Config(
                "no endpoint: give --llm-url or set OPENAI_BASE_URL".into(),
            ));
        }
        if config.model.trim().is_empty() {
            return Err(LlmError::Config("no model: give --llm-model".into()));
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(config.timeout))
            .http_status_as_error(false)
            .build()
            .into();
        let endpoint = format!("{}/chat/completions", config.base_url.trim_end_matches('/'));
        Ok(LlmClient {
            config,
            agent,
            endpoint,
            sent: AtomicU64::new(0),
            stats: Mutex::new(LlmStats::default()),
        })
    }

    /// The settings.
    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    /// What the client has done so far.
    pub fn stats(&self) -> LlmStats {
        *self.stats.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn record(&self, f: impl FnOnce(&mut LlmStats)) {
        f(&mut self.stats.lock().unwrap_or_else(|p| p.into_inner()));
    }

    /// The cache file of `request`: a hash of (endpoint, model, messages, temperature, sample).
    pub fn cache_path(&self, request: &ChatRequest) -> PathBuf {
        let key = serde_json::json!({
            "endpoint": self.endpoint,
            "model": self.config.model,
            "messages": request.messages,
            "temperature": request.temperature,
            "sample": request.sample,
        });
        let hash = blake3::hash(key.to_string().as_bytes()).to_hex();
        self.config.cache_dir.join(format!("{}.json", &hash[..32]))
    }

    /// One completion: from the cache, or from the endpoint (then cached).
    pub fn complete(&self, request: &ChatRequest) -> Result<Completion, LlmError> {
        let path = self.cache_path(request);
        if let Some(hit) = read_cache(&path) {
            self.record(|s| s.cache_hits += 1);
            return Ok(hit);
        }
        if self.config.offline {
            self.record(|s| s.failures += 1);
            return Err(LlmError::Offline {
                dir: self.config.cache_dir.display().to_string(),
            });
        }
        let result = self.fetch(request);
        match &result {
            Ok(c) => {
                self.record(|s| s.usage.add(c.usage));
                // A cache that cannot be written costs a rerun, not this answer.
                if let Err(e) = self.write_cache(&path, request, c) {
                    tracing::warn!("cannot write the LLM cache {}: {e}", path.display());
                }
            }
            Err(_) => self.record(|s| s.failures += 1),
        }
        result
    }

    /// Completions of `requests`, in order, at most `concurrency` in flight.
    pub fn complete_all(&self, requests: &[ChatRequest]) -> Vec<Result<Completion, LlmError>> {
        let slots: Vec<Mutex<Option<Result<Completion, LlmError>>>> =
            requests.iter().map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        let workers = self.config.concurrency.clamp(1, requests.len().max(1));
        std::thread::scope(|scope| {
            for _ in 0..workers {
                scope.spawn(|| loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(request) = requests.get(i) else {
                        break;
                    };
                    let result = self.complete(request);
                    *slots[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(result);
                });
            }
        });
        slots
            .into_iter()
            .map(|m| {
                m.into_inner()
                    .unwrap_or_else(|p| p.into_inner())
                    .unwrap_or(Err(LlmError::Config("request was not run".into())))
            })
            .collect()
    }

    fn fetch(&self, request: &ChatRequest) -> Result<Completion, LlmError> {
        let body = serde_json::json!({
            "model": self.config.model,
            "messages": request.messages,
            "temperature": request.temperature,
        })
        .to_string();
        let mut attempt = 0u32;
        loop {
            attempt += 1;
            if let Some(max) = self.config.max_requests {
                if self.sent.fetch_add(1, Ordering::SeqCst) >= max {
                    return Err(LlmError::Budget { max });
                }
            }
            self.record(|s| {
                s.requests += 1;
                if attempt > 1 {
                    s.retries += 1;
                }
            });
            match self.attempt(&body, attempt) {
                Attempt::Done(c) => return Ok(c),
                Attempt::Fail(e) => return Err(e),
                Attempt::Retry { error, after } => {
                    if attempt > self.config.retries {
                        return Err(error);
                    }
                    std::thread::sleep(self.delay(attempt, after));
                }
            }
        }
    }

    /// Exponential backoff with jitter (50–100 % of base·2^(n−1)), or the server's
    /// `Retry-After`; both capped at `backoff_max`.
    fn delay(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let cap = self.config.backoff_max;
        if let Some(d) = retry_after {
            return d.min(cap);
        }
        let exp = self
            .config
            .backoff
            .saturating_mul(1u32 << (attempt - 1).min(16));
        let jitter: f64 = rand::rng().random_range(0.5..=1.0);
        exp.mul_f64(jitter).min(cap)
    }

    fn attempt(&self, body: &str, attempt: u32) -> Attempt {
        let mut req = self
            .agent
            .post(&self.endpoint)
            .header("Content-Type", "application/json");
        if let Some(key) = &self.config.api_key {
            req = req.header("Authorization", &format!("Bearer {key}"));
        }
        let started = Instant::now();
        let response = match req.send(body) {
            Ok(r) => r,
            Err(e) => {
                return Attempt::Retry {
                    error: LlmError::Network {
                        attempts: attempt,
                        message: self.redact(&format!(
                            "{e} (after {:.1} s)",
                            started.elapsed().as_secs_f64()
                        )),
                    },
                    after: None,
                }
            }
        };
        let status = response.status().as_u16();
        let retry_after = retry_after(response.headers());
        let text = match response.into_body().read_to_string() {
            Ok(t) => t,
            Err(e) => {
                return Attempt::Retry {
                    error: LlmError::Network {
                        attempts: attempt,
                        message: self.redact(&e.to_string()),
                    },
                    after: None,
                }
            }
        };
        if status == 200 {
            return match parse_completion(&text) {
                Ok(c) => Attempt::Done(c),
                Err(e) => Attempt::Fail(LlmError::Malformed(self.redact(&e))),
            };
        }
        let error = LlmError::Status {
            status,
            attempts: attempt,
            message: self.redact(&excerpt(&text)),
        };
        if status == 429 || status >= 500 {
            Attempt::Retry {
                error,
                after: retry_after,
            }
        } else {
            Attempt::Fail(error)
        }
    }

    /// `text` with the key replaced, should an endpoint echo it back.
    fn redact(&self, text: &str) -> String {
        match &self.config.api_key {
            Some(k) if !k.is_empty() => text.replace(k.as_str(), "[key]"),
            _ => text.to_string(),
        }
    }

    fn write_cache(
        &self,
        path: &Path,
        request: &ChatRequest,
        response: &Completion,
    ) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.config.cache_dir)?;
        let entry = CacheEntry {
            endpoint: self.endpoint.clone(),
            model: self.config.model.clone(),
            request: request.clone(),
            response: response.clone(),
        };
        let text = serde_json::to_string_pretty(&entry).map_err(std::io::Error::other)?;
        let tmp = tempfile::NamedTempFile::new_in(&self.config.cache_dir)?;
        std::fs::write(tmp.path(), text)?;
        tmp.persist(path).map_err(|e| e.error)?;
        Ok(())
    }
}

/// The server's requested wait: `retry-after-ms` (OpenAI), else `retry-after` in seconds. An
/// HTTP-date `retry-after` is not understood and falls back to the client's own backoff.
fn retry_after(headers: &ureq::http::HeaderMap) -> Option<Duration> {
    let number = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|n| n.is_finite() && *n >= 0.0)
    };
    number("retry-after-ms")
        .map(|ms| Duration::from_secs_f64(ms / 1000.0))
        .or_else(|| number("retry-after").map(Duration::from_secs_f64))
}

fn read_cache(path: &Path) -> Option<Completion> {
    let text = std::fs::read_to_string(path).ok()?;
    let entry: CacheEntry = serde_json::from_str(&text).ok()?;
    Some(Completion {
        cached: true,
        ..entry.response
    })
}

fn excerpt(text: &str) -> String {
    let t = text.trim();
    match t.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None => t.to_string(),
    }
}

/// The assistant text and usage of a chat-completions response body.
fn parse_completion(body: &str) -> Result<Completion, String> {
    #[derive(Deserialize)]
    struct Body {
        choices: Vec<Choice>,
        #[serde(default)]
        usage: Option<Usage>,
    }
    #[derive(Deserialize)]
    struct Choice {
        message: ChoiceMessage,
    }
    #[derive(Deserialize)]
    struct ChoiceMessage {
        #[serde(default)]
        content: Option<String>,
    }
    let parsed: Body = serde_json::from_str(body).map_err(|e| format!("{e}: {}", excerpt(body)))?;
    let text = parsed
        .choices
        .into_iter()
        .next()
        .and_then(|c| c.message.content)
        .ok_or_else(|| format!("no choices[0].message.content in {}", excerpt(body)))?;
    Ok(Completion {
        text,
        usage: parsed.usage.unwrap_or_default(),
        cached: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_completions_with_and_without_usage() {
        let c = parse_completion(
            r#"{"choices":[{"message":{"role":"assistant","content":"hi"}}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}"#,
        )
        .unwrap();
        assert_eq!(c.text, "hi");
        assert_eq!(c.usage.total_tokens, 4);
        let c = parse_completion(r#"{"choices":[{"message":{"content":"x"}}]}"#).unwrap();
        assert_eq!(c.usage, Usage::default());
        assert!(parse_completion(r#"{"choices":[]}"#).is_err());
        assert!(parse_completion("<html>").is_err());
    }

    fn client(retries: u32) -> LlmClient {
        LlmClient::new(LlmConfig {
            base_url: "http://127.0.0.1:9".into(),
            model: "m".into(),
            api_key: Some("sk-secret".into()),
            timeout: Duration::from_secs(1),
            retries,
            backoff: Duration::from_millis(100),
            backoff_max: Duration::from_millis(250),
            concurrency: 2,
            max_requests: None,
            cache_dir: std::env::temp_dir().join("equimorph-llm-unit"),
            offline: false,
        })
        .unwrap()
    }

    #[test]
    fn retry_after_headers() {
        use ureq::http::{HeaderMap, HeaderValue};
        let mut h = HeaderMap::new();
        assert_eq!(retry_after(&h), None);
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("250"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(250)));
        let mut d = HeaderMap::new();
        d.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2026 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&d), None);
    }

    #[test]
    fn backoff_doubles_with_jitter_and_is_capped() {
        let c = client(3);
        for _ in 0..20 {
            let d1 = c.delay(1, None);
            assert!(d1 >= Duration::from_millis(50) && d1 <= Duration::from_millis(100));
            let d2 = c.delay(2, None);
            assert!(d2 >= Duration::from_millis(100) && d2 <= Duration::from_millis(200));
            assert!(c.delay(5, None) <= Duration::from_millis(250));
        }
        assert_eq!(
            c.delay(1, Some(Duration::from_millis(200))),
            Duration::from_millis(200)
        );
        assert_eq!(
            c.delay(1, Some(Duration::from_secs(60))),
            Duration::from_millis(250)
        );
    }

    #[test]
    fn cache_keys_depend_on_sample_and_temperature_and_never_hold_the_key() {
        let c = client(0);
        let r = |t: f32, s: u32| ChatRequest {
            messages: vec![Message::user("hello")],
            temperature: t,
            sample: s,
        };
        assert_ne!(c.cache_path(&r(0.1, 0)), c.cache_path(&r(0.1, 1)));
        assert_ne!(c.cache_path(&r(0.1, 0)), c.cache_path(&r(0.8, 0)));
        assert_eq!(c.cache_path(&r(0.1, 0)), c.cache_path(&r(0.1, 0)));
        assert_eq!(c.redact("Bearer sk-secret"), "Bearer [key]");
    }
}
