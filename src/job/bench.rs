//! `equimorph bench-detector`: sequences/s of a model detector as equimorph drives it, by
//! precision, batch layout and batch size, with the split of time between tokenization,
//! session runs and copies, and agreement between configurations. Each configuration's line
//! is handed to the caller as soon as it is measured.

use super::settings::DetectorSettings;
use crate::detector::bench::{
    agreement, candidate_stream, composition_independent, stream_pace, throughput, tokenizer_pace,
};
use crate::detector::engine::BatchShapes;
use crate::detector::onnx::{OnnxDetector, OnnxOptions, Precision};
use crate::detector::{model_path, DetectorError};
use crate::task::TaskError;
use std::path::PathBuf;
use thiserror::Error;

/// Why a benchmark stopped.
#[derive(Debug, Error)]
pub enum BenchError {
    /// The detector is a classic one.
    #[error(
        "--detector must name a model (minilm, onnx:PATH): the classic detectors have no batches"
    )]
    NotAModel,
    /// The programs could not be read.
    #[error("cannot read programs from {path}: {source}")]
    Input {
        /// The task file.
        path: PathBuf,
        /// Why.
        source: TaskError,
    },
    /// The task file holds no program.
    #[error("{} holds no program", .0.display())]
    NoProgram(PathBuf),
    /// The detector failed.
    #[error(transparent)]
    Detector(#[from] DetectorError),
}

/// A detector benchmark.
#[derive(Debug, Clone)]
pub struct BenchJob {
    /// The model and the device (precision, layout and batch size vary per configuration).
    pub detector: DetectorSettings,
    /// The programs to score (a task file).
    pub input: PathBuf,
    /// Copies of the programs scored per round.
    pub repeat: usize,
    /// Batch sizes measured.
    pub batch_sizes: Vec<usize>,
    /// Precisions measured.
    pub precisions: Vec<Precision>,
    /// Layouts measured (empty: the device's default).
    pub shapes: Vec<BatchShapes>,
    /// Callers scoring at once.
    pub clients: usize,
    /// Rounds per configuration.
    pub rounds: usize,
    /// Also compare every configuration with the fp32 graph on the CPU.
    pub compare_cpu: bool,
    /// One JSON object per line instead of text.
    pub json: bool,
}

impl BenchJob {
    /// Measures every configuration, handing each result line to `emit` as it is measured.
    pub fn run(&self, emit: &mut dyn FnMut(String)) -> Result<(), BenchError> {
        let path = model_path(&self.detector.spec).ok_or(BenchError::NotAModel)?;
        let programs = self.programs()?;
        let texts: Vec<&str> = programs.iter().map(String::as_str).collect();
        let reference = if self.compare_cpu {
            let cpu = DetectorSettings {
                device: "cpu".into(),
                precision: Precision::Fp32,
                ..self.detector.clone()
            };
            let det = OnnxDetector::open(&path, cpu.options()?)?;
            Some(det.vectors(&texts)?)
        } else {
            None
        };
        let shapes: Vec<Option<BatchShapes>> = if self.shapes.is_empty() {
            vec![None]
        } else {
            self.shapes.iter().copied().map(Some).collect()
        };
        let mut first: Option<Vec<Vec<f32>>> = None;
        let mut tokenizer_done = false;
        for &precision in &self.precisions {
            for &shape in &shapes {
                for &batch in &self.batch_sizes {
                    let this = DetectorSettings {
                        batch_size: Some(batch),
                        precision,
                        shapes: shape,
                        ..self.detector.clone()
                    };
                    let det = OnnxDetector::open(&path, this.options()?)?;
                    det.vectors(&texts[..texts.len().min(batch.max(4))])?;
                    if !tokenizer_done {
                        tokenizer_done = true;
                        let (par, one) = tokenizer_pace(&det, &texts)?;
                        // A search's stream, tokenized whole and from lines.
                        let stream = candidate_stream(&texts, 30);
                        let stream: Vec<&str> = stream.iter().map(String::as_str).collect();
                        let whole = OnnxDetector::open(
                            &path,
                            OnnxOptions {
                                line_tokens: false,
                                ..this.options()?
                            },
                        )?;
                        let whole_pace = stream_pace(&whole, &stream, 10)?;
                        let lines_pace = det
                            .line_counts()
                            .map(|_| stream_pace(&det, &stream, 10))
                            .transpose()?;
                        emit(if self.json {
                            serde_json::json!({"tokenizer_texts_per_s": {"parallel": par, "one_by_one": one,
                                "stream_whole": whole_pace, "stream_lines": lines_pace}}).to_string()
                        } else {
                            let lines = lines_pace.map_or(
                                "this tokenizer does not allow line reuse".to_string(),
                                |l| format!("{l:.0} texts/s from lines"),
                            );
                            format!(
                                "tokenizer alone: {par:.0} texts/s in parallel, {one:.0} texts/s one by one; \
                                 a search's stream ({} texts, 10 a call): {whole_pace:.0} texts/s whole, {lines}",
                                stream.len()
                            )
                        });
                    }
                    let (t, vectors) = throughput(&det, &texts, self.rounds, self.clients, 100)?;
                    let independent = composition_independent(&det, &texts[..texts.len().min(64)])?;
                    let vs_cpu = reference.as_ref().map(|r| agreement(r, &vectors));
                    let vs_first = first.as_ref().map(|f| agreement(f, &vectors));
                    if first.is_none() {
                        first = Some(vectors);
                    }
                    let layout = format!("{:?}", det.batch_shapes()).to_lowercase();
                    if self.json {
                        let label = serde_json::json!({
                            "detector": self.detector.spec, "device": self.detector.device,
                            "graph": det.graph(),
                            "precision": format!("{precision:?}").to_lowercase(),
                            "shapes": layout, "batch": batch, "clients": self.clients,
                            "fixed_rows": det.fixed_rows(),
                        });
                        emit(
                            serde_json::json!({"config": label, "throughput": t,
                            "composition_independent": independent,
                            "vs_cpu_fp32": vs_cpu, "vs_first_config": vs_first})
                            .to_string(),
                        );
                    } else {
                        let rows = match det.fixed_rows() {
                            [] => String::new(),
                            r => format!(" (rows {r:?})"),
                        };
                        emit(format!(
                            "{} {:>5}{rows} batch {:>4}: {:>8.1} sequences/s, {:>9.0} tokens/s; tokenize {:>4.1} %, run {:>5.1} %, copy {:>4.1} %; \
                             filler rows {:.2}/seq; same vector in any company: {}{}",
                            det.graph(),
                            layout,
                            batch,
                            t.sequences_per_s,
                            t.tokens_per_s,
                            100.0 * t.tokenize_share,
                            100.0 * t.run_share,
                            100.0 * t.copy_share,
                            t.filler_per_sequence,
                            if independent { "yes" } else { "no" },
                            vs_cpu.map_or(String::new(), |a| format!(
                                "; vs CPU fp32: min cosine {:.6}, max |ΔM| {:.1e}",
                                a.min_cosine, a.max_abs_diff_m
                            )),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The programs, `repeat` times over; each copy is made distinct (a comment), so none
    /// comes from the token cache.
    fn programs(&self) -> Result<Vec<String>, BenchError> {
        let set = crate::task::load(&self.input, None).map_err(|source| BenchError::Input {
            path: self.input.clone(),
            source,
        })?;
        let mut programs: Vec<String> = Vec::new();
        for k in 0..self.repeat.max(1) {
            programs.extend(set.tasks.iter().map(|t| {
                if k == 0 {
                    t.source.clone()
                } else {
                    format!("{}\n# copy {k}\n", t.source)
                }
            }));
        }
        if programs.is_empty() {
            return Err(BenchError::NoProgram(self.input.clone()));
        }
        Ok(programs)
    }
}
