//! Typed settings that several jobs share, with the rules that resolve them (defaults,
//! validation, what a run records): the command line converts its option groups into these,
//! so a rule such as "8 sequences per batch on the CPU" is written once.

use crate::detector::engine::BatchShapes;
use crate::detector::onnx::Precision;
use crate::detector::{
    has_gpu_graph, model_path, parse_devices, Detector, DetectorError, DetectorOptions, Device,
};
use crate::run::RunSettings;

/// A detector as a job names it: its spec, and how and where it runs.
#[derive(Debug, Clone)]
pub struct DetectorSettings {
    /// minilm, minilm-int8, onnx:PATH, jaccard, sourcerercc or nicad.
    pub spec: String,
    /// cpu, cuda, cuda:N or cuda:N,M,….
    pub device: String,
    /// ONNX Runtime intra-op threads (default: the core count).
    pub threads: Option<usize>,
    /// Sequences per inference call (default: by device and batch layout).
    pub batch_size: Option<usize>,
    /// Which graph runs.
    pub precision: Precision,
    /// Batch layout (default: by device and graph).
    pub shapes: Option<BatchShapes>,
}

impl DetectorSettings {
    /// `spec` on `device` with every other setting at its default.
    pub fn on(spec: impl Into<String>, device: impl Into<String>) -> Self {
        DetectorSettings {
            spec: spec.into(),
            device: device.into(),
            threads: None,
            batch_size: None,
            precision: Precision::Auto,
            shapes: None,
        }
    }

    /// The options the detector is built with.
    pub fn options(&self) -> Result<DetectorOptions, DetectorError> {
        let devices = parse_devices(&self.device)
            .map_err(|e| DetectorError::Device(format!("--device {e}")))?;
        let gpu = devices.iter().any(|d| matches!(d, Device::Cuda(_)));
        let mut options = DetectorOptions {
            devices,
            batch_size: 1,
            precision: self.precision,
            shapes: self.shapes,
            ..DetectorOptions::default()
        };
        if let Some(t) = self.threads {
            options.threads = t.max(1);
        }
        // Measured on an H100: fixed-shape batches are fastest at 32 rows (full batches, so
        // little filler), exact ones at 128; on CPU 8 beats 32 and halves peak memory.
        let fixed = options.batch_shapes(has_gpu_graph(&self.spec)) == BatchShapes::Fixed;
        options.batch_size = self
            .batch_size
            .unwrap_or(match (gpu, fixed) {
                (false, _) => 8,
                (true, true) => 32,
                (true, false) => 128,
            })
            .max(1);
        Ok(options)
    }

    /// Records, for a model detector, what changes its scores: the graph (precision) and the
    /// batch layout (a resumed run must score as the first part did).
    pub fn record(&self, settings: &mut RunSettings) -> Result<(), DetectorError> {
        if model_path(&self.spec).is_some() {
            let o = self.options()?;
            let fused = has_gpu_graph(&self.spec);
            // The graph that runs, not the flag: auto means fp16 on CUDA, fp32 on CPU.
            let graph = match self.precision {
                Precision::Fp16 => "fp16",
                Precision::Auto if o.on_gpu() && fused => "fp16",
                _ => "fp32",
            };
            settings.set("precision", graph).set(
                "batch shapes",
                format!("{:?}", o.batch_shapes(fused)).to_lowercase(),
            );
        }
        Ok(())
    }

    /// Builds the detector.
    pub fn open(&self) -> Result<Box<dyn Detector>, DetectorError> {
        crate::detector::open(&self.spec, self.options()?)
    }
}
