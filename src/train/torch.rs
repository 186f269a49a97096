//! `--mode full --backend torch`: the fine-tuning of [`super::full`] with its training steps run
//! by PyTorch (`models/train_torch.py`) in equimorph's Python, on a CUDA GPU when torch sees
//! one. These machines have no CUDA compiler, so a candle-CUDA build cannot be made; PyTorch
//! ships its kernels ready-built and is already in the Python that setup makes.
//!
//! equimorph tokenizes the programs and draws every epoch's batches with the candle backend's
//! generator, so both backends train on the same batches with the same loss, optimiser and
//! early stopping; the script reads them from a job file and reports each epoch as a JSON line.

use super::full::{
    copy_sources, create_dir, epoch_batches, err, pair_rng, tokenizer, weights_of, FineTuned,
    FineTuning,
};
use super::head::valid_batches;
use super::{EpochLog, TrainError};
use serde::{Deserialize, Serialize};
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// What the script is given.
#[derive(Serialize)]
struct Job<'a> {
    source: &'a Path,
    out: PathBuf,
    /// Token ids of every program: the training groups' first, then the validation groups'.
    programs: Vec<Vec<u32>>,
    /// Per epoch, its batches of [anchor, positive] program indices.
    train: Vec<Vec<Vec<[usize; 2]>>>,
    valid: Vec<Vec<[usize; 2]>>,
    lr: f32,
    decay: f32,
    scale: f32,
    patience: usize,
    seed: u64,
    threads: usize,
    device: &'static str,
}

/// One line the script prints.
#[derive(Debug, Deserialize, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Event {
    /// The base weights' validation figures, before any step.
    Base {
        valid_loss: Option<f64>,
        valid_margin: Option<f64>,
        device: String,
    },
    /// An epoch finished.
    Epoch(EpochLog),
    /// Training finished; the kept weights are written.
    Done { best_epoch: usize, device: String },
}

/// Whether `python` has what the script needs (PyTorch and safetensors).
pub fn available(python: &Path) -> bool {
    std::process::Command::new(python)
        .args(["-c", "import torch, safetensors.torch"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Each group's programs as indices into one flat list starting at `first`.
fn indexed(groups: &[Vec<String>], first: usize) -> Vec<usize> {
    let mut starts = Vec::with_capacity(groups.len());
    let mut next = first;
    for g in groups {
        starts.push(next);
        next += g.len();
    }
    starts
}

/// Batches of (group, anchor, positive) as flat [anchor, positive] indices.
fn flat(batches: &[Vec<(usize, usize, usize)>], starts: &[usize]) -> Vec<Vec<[usize; 2]>> {
    batches
        .iter()
        .map(|b| {
            b.iter()
                .filter_map(|&(g, a, p)| starts.get(g).map(|s| [s + a, s + p]))
                .collect()
        })
        .collect()
}

/// Fine-tunes as [`super::full::finetune`] does, with PyTorch run as `python script JOB`.
/// Stops with [`TrainError::Interrupted`] (the script killed) once `stop` is set.
pub fn finetune(
    python: &Path,
    script: &Path,
    job: &FineTuning<'_>,
    stop: &AtomicBool,
    mut each: impl FnMut(&EpochLog),
) -> Result<FineTuned, TrainError> {
    let (src, train, valid, cfg, out_src) = (job.src, job.train, job.valid, job.cfg, job.out_src);
    weights_of(src)?;
    let tok = tokenizer(src, job.max_length)?;
    let texts: Vec<&str> = train
        .iter()
        .chain(valid)
        .flat_map(|g| g.iter().map(String::as_str))
        .collect();
    let programs = tok
        .encode_batch(texts, true)
        .map_err(err)?
        .iter()
        .map(|e| e.get_ids().to_vec())
        .collect();
    let train_starts = indexed(train, 0);
    let valid_starts = indexed(valid, train.iter().map(Vec::len).sum());
    let mut rng = pair_rng(cfg);
    let epochs = (0..cfg.epochs)
        .map(|_| flat(&epoch_batches(train, &mut rng, cfg), &train_starts))
        .collect();
    create_dir(out_src)?;
    let script_job = Job {
        source: src,
        out: out_src.join("model.safetensors"),
        programs,
        train: epochs,
        valid: flat(&valid_batches(valid, cfg), &valid_starts),
        lr: cfg.lr,
        decay: cfg.decay,
        scale: cfg.scale,
        patience: cfg.patience,
        seed: cfg.seed,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        device: "auto",
    };
    let job_path = out_src.join("torch-job.json");
    let bytes = serde_json::to_vec(&script_job).map_err(err)?;
    std::fs::write(&job_path, bytes).map_err(|e| TrainError::Io {
        path: job_path.clone(),
        message: e.to_string(),
    })?;
    let result = run(python, script, &job_path, stop, &mut each);
    // The job file is only the script's input: never left behind, whatever happened.
    let _ = std::fs::remove_file(&job_path);
    let (base, epochs, done) = result?;
    copy_sources(src, out_src)?;
    let (base_valid_loss, base_valid_margin) = base;
    let (best_epoch, device) = done;
    Ok(FineTuned {
        epochs,
        best_epoch,
        base_valid_loss,
        base_valid_margin,
        device,
    })
}

type Finished = ((Option<f64>, Option<f64>), Vec<EpochLog>, (usize, String));

/// Runs the script, passing each epoch to `each` as it ends.
fn run(
    python: &Path,
    script: &Path,
    job: &Path,
    stop: &AtomicBool,
    each: &mut impl FnMut(&EpochLog),
) -> Result<Finished, TrainError> {
    let started = || {
        format!(
            "cannot run {} {} (PyTorch's backend needs equimorph's Python, made by setup)",
            python.display(),
            script.display()
        )
    };
    let mut child = std::process::Command::new(python)
        .arg(script)
        .arg(job)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| TrainError::Data(format!("{}: {e}", started())))?;
    let (tx, rx) = mpsc::channel::<String>();
    let stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        if let Some(out) = stdout {
            for line in std::io::BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        }
    });
    let stderr = child.stderr.take();
    let errors = std::thread::spawn(move || {
        let mut text = String::new();
        if let Some(mut e) = stderr {
            let _ = e.read_to_string(&mut text);
        }
        text
    });
    let (mut base, mut epochs, mut done) = (None, Vec::new(), None);
    let mut bad_line = None;
    loop {
        if stop.load(Ordering::Relaxed) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(TrainError::Interrupted);
        }
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(line) => match serde_json::from_str::<Event>(&line) {
                Ok(Event::Base {
                    valid_loss,
                    valid_margin,
                    ..
                }) => base = Some((valid_loss, valid_margin)),
                Ok(Event::Epoch(e)) => {
                    each(&e);
                    epochs.push(e);
                }
                Ok(Event::Done { best_epoch, device }) => done = Some((best_epoch, device)),
                Err(e) => {
                    bad_line.get_or_insert(format!("{line:.200} ({e})"));
                }
            },
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    let _ = reader.join();
    let status = child
        .wait()
        .map_err(|e| TrainError::Data(format!("{}: {e}", started())))?;
    let stderr = errors.join().unwrap_or_default();
    if stop.load(Ordering::Relaxed) {
        return Err(TrainError::Interrupted);
    }
    let tail = stderr_tail(&stderr);
    if !status.success() {
        return Err(TrainError::Data(format!(
            "{} failed ({status}): {tail}",
            script.display()
        )));
    }
    match (base, done) {
        (Some(base), Some(done)) if done.0 <= epochs.len() => Ok((base, epochs, done)),
        _ => Err(TrainError::Data(format!(
            "{} ended without reporting its result{}{}",
            script.display(),
            bad_line.map_or(String::new(), |l| format!("; it printed {l}")),
            if tail.is_empty() {
                String::new()
            } else {
                format!("; stderr: {tail}")
            }
        ))),
    }
}

/// The last lines of the script's stderr (where a Python traceback ends with its error).
fn stderr_tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(3)..].join(" | ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_index_one_flat_list_of_training_then_validation_programs() {
        let g = |n: usize| vec![String::new(); n];
        let train = vec![g(2), g(3)];
        let valid = vec![g(2)];
        let ts = indexed(&train, 0);
        let vs = indexed(&valid, 5);
        assert_eq!(ts, vec![0, 2]);
        assert_eq!(vs, vec![5]);
        let b = flat(&[vec![(1, 2, 0), (0, 0, 1)]], &ts);
        assert_eq!(b, vec![vec![[4, 2], [0, 1]]]);
        assert_eq!(flat(&[vec![(0, 1, 0)]], &vs), vec![vec![[6, 5]]]);
    }

    #[test]
    fn the_script_lines_read_as_events() {
        let base: Event = serde_json::from_str(
            r#"{"base": {"valid_loss": 1.5, "valid_margin": null, "device": "cpu"}}"#,
        )
        .unwrap();
        assert_eq!(
            base,
            Event::Base {
                valid_loss: Some(1.5),
                valid_margin: None,
                device: "cpu".into()
            }
        );
        let e: Event = serde_json::from_str(
            r#"{"epoch": {"epoch": 2, "train_loss": 0.5, "valid_loss": 0.4, "valid_margin": 0.1}}"#,
        )
        .unwrap();
        assert!(matches!(e, Event::Epoch(EpochLog { epoch: 2, .. })));
        let d: Event = serde_json::from_str(
            r#"{"done": {"best_epoch": 1, "device": "cuda:0", "seconds": 3.0}}"#,
        )
        .unwrap();
        assert_eq!(
            d,
            Event::Done {
                best_epoch: 1,
                device: "cuda:0".into()
            }
        );
        assert_eq!(stderr_tail("a\n\nb\nc\nd\n"), "b | c | d");
    }
}
