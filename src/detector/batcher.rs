//! One detector shared by several tasks: their scoring requests are merged into large
//! fixed-shape batches by a dispatcher thread, so the device gets full batches while the
//! callers' CPU work (transforms, oracle) goes on.
//!
//! A request waits at most `max_wait` for others to join it, and a merge stops growing once it
//! fills one batch per device. Batches are fixed-shape
//! ([`super::engine::BatchShapes::Fixed`]), so no result depends on which requests were merged.

use super::engine::{plan_fixed, Engine, Feed};
use super::DetectorError;
use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

type Reply = Result<Vec<Vec<f32>>, String>;

struct Request {
    feeds: Vec<Arc<Feed>>,
    output: String,
    reply: mpsc::Sender<Reply>,
}

#[derive(Default)]
struct Queue {
    pending: Vec<Request>,
    rows: usize,
    first: Option<Instant>,
    closed: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    wake: Condvar,
}

/// The dispatcher of merged requests.
pub struct Batcher {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

/// How merged requests are cut.
#[derive(Debug, Clone)]
pub struct BatcherSettings {
    /// Rows per batch.
    pub batch: usize,
    /// Smaller row counts a batch with few members may have (checked on the device; see
    /// [`super::engine::Engine::checked_row_counts`]).
    pub smaller_rows: Vec<usize>,
    /// The model's window (the longest padded length).
    pub window: usize,
    /// How long a request waits for others before its batch runs anyway.
    pub max_wait: Duration,
}

/// A request handed to the dispatcher, not yet answered.
pub struct Pending(Option<mpsc::Receiver<Reply>>);

impl Pending {
    /// Waits for the rows.
    pub fn wait(self) -> Result<Vec<Vec<f32>>, DetectorError> {
        let Some(rx) = self.0 else {
            return Ok(Vec::new());
        };
        match rx.recv() {
            Ok(Ok(rows)) => Ok(rows),
            Ok(Err(e)) => Err(DetectorError::Inference(e)),
            Err(_) => Err(DetectorError::Inference(
                "the batching thread stopped".into(),
            )),
        }
    }
}

impl Batcher {
    /// Starts the dispatcher over `engine`.
    pub fn start(engine: Arc<Engine>, settings: BatcherSettings) -> Self {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue::default()),
            wake: Condvar::new(),
        });
        let s = shared.clone();
        let thread = std::thread::Builder::new()
            .name("equimorph-batcher".into())
            .spawn(move || dispatch(&s, &engine, settings))
            .ok();
        Batcher { shared, thread }
    }

    /// Rows of `output` for `feeds`, computed in whatever merged batches the dispatcher forms.
    pub fn rows(
        &self,
        feeds: Vec<Arc<Feed>>,
        output: &str,
    ) -> Result<Vec<Vec<f32>>, DetectorError> {
        self.submit(feeds, output)?.wait()
    }

    /// Hands `feeds` to the dispatcher and returns at once (the caller can tokenize the next
    /// part meanwhile).
    pub fn submit(&self, feeds: Vec<Arc<Feed>>, output: &str) -> Result<Pending, DetectorError> {
        if feeds.is_empty() {
            return Ok(Pending(None));
        }
        if self.thread.is_none() {
            return Err(DetectorError::Inference(
                "the batching thread could not be started".into(),
            ));
        }
        let (tx, rx) = mpsc::channel();
        {
            let mut q = self.shared.queue.lock().unwrap_or_else(|p| p.into_inner());
            q.rows += feeds.len();
            q.first.get_or_insert_with(Instant::now);
            q.pending.push(Request {
                feeds,
                output: output.to_string(),
                reply: tx,
            });
        }
        self.shared.wake.notify_all();
        Ok(Pending(Some(rx)))
    }
}

impl Drop for Batcher {
    fn drop(&mut self) {
        self.shared
            .queue
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .closed = true;
        self.shared.wake.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn dispatch(shared: &Shared, engine: &Engine, settings: BatcherSettings) {
    // A merge is full when it fills one batch on every device.
    let full = settings.batch.max(1) * engine.devices().max(1);
    loop {
        let taken = {
            let mut q = shared.queue.lock().unwrap_or_else(|p| p.into_inner());
            loop {
                if q.pending.is_empty() {
                    if q.closed {
                        return;
                    }
                    q = shared.wake.wait(q).unwrap_or_else(|p| p.into_inner());
                    continue;
                }
                let waited = q.first.map_or(Duration::ZERO, |t| t.elapsed());
                if q.rows >= full || waited >= settings.max_wait || q.closed {
                    break;
                }
                q = shared
                    .wake
                    .wait_timeout(q, settings.max_wait - waited)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            }
            q.rows = 0;
            q.first = None;
            std::mem::take(&mut q.pending)
        };
        run_merged(engine, &settings, taken);
    }
}

/// Runs every request of one merge (grouped by the output they read) and answers each.
fn run_merged(engine: &Engine, settings: &BatcherSettings, requests: Vec<Request>) {
    let mut by_output: BTreeMap<String, Vec<Request>> = BTreeMap::new();
    for r in requests {
        by_output.entry(r.output.clone()).or_default().push(r);
    }
    for (output, group) in by_output {
        let feeds: Vec<&Feed> = group
            .iter()
            .flat_map(|r| r.feeds.iter().map(|f| f.as_ref()))
            .collect();
        let lengths: Vec<usize> = feeds.iter().map(|f| f.len()).collect();
        let mut rows = settings.smaller_rows.clone();
        rows.push(settings.batch);
        let batches = plan_fixed(&lengths, &rows, settings.window);
        match engine.run(&feeds, &batches, &output) {
            Ok(mut rows) => {
                // Hand each request its slice, in its own order.
                let mut rest = rows.drain(..);
                for r in group {
                    let mine: Vec<Vec<f32>> = rest.by_ref().take(r.feeds.len()).collect();
                    let _ = r.reply.send(Ok(mine));
                }
            }
            Err(e) => {
                for r in group {
                    let _ = r.reply.send(Err(e.to_string()));
                }
            }
        }
    }
}
