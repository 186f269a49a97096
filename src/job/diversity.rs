//! `equimorph diversity`: the k-step diameter D_k and the leave-one-out diversity Δ_k of a
//! transform set, per program and averaged; optionally while the set grows one transform at a
//! time. The job measures, writes diversity.json/.md/.svg and returns what it found.

use super::{Printout, Progress};
use crate::detector::{Detector, DetectorError};
use crate::search::diversity::{diameter, diversity, DiversityConfig, ProgramDiversity};
use crate::transform::LoadedTransform;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use std::fmt::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// How a growing set takes its transforms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrowOrder {
    /// In the order given.
    Given,
    /// At each step the transform that raises the mean diameter most.
    Greedy,
}

/// Why a diversity measurement stopped.
#[derive(Debug, Error)]
pub enum DiversityError {
    /// `k` or the beam is 0.
    #[error("-k and --beam must be at least 1")]
    ZeroSteps,
    /// No program to measure (after sampling).
    #[error("no task to measure")]
    NoTask,
    /// No transform in the set.
    #[error("no transforms selected")]
    NoTransforms,
    /// The detector failed.
    #[error(transparent)]
    Detector(#[from] DetectorError),
    /// An output could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// A diversity measurement made of resolved parts.
pub struct DiversityJob<'a> {
    /// The programs P: (task id, source).
    pub programs: Vec<(String, String)>,
    /// Keep a seeded sample of this many programs.
    pub sample: Option<usize>,
    /// The transform set.
    pub transforms: Vec<&'a LoadedTransform>,
    /// The detector that measures distances.
    pub detector: &'a dyn Detector,
    /// Steps, beam and seed.
    pub config: DiversityConfig,
    /// Also grow the set, in this order.
    pub grow: Option<GrowOrder>,
    /// Where the three files go.
    pub out: PathBuf,
}

/// One size of a growing set.
#[derive(Debug, Clone)]
pub struct GrowthStep {
    /// Transforms in the set.
    pub size: usize,
    /// The transform added at this size.
    pub added: String,
    /// Mean D_k over the programs.
    pub mean_diameter: f64,
    /// Mean Δ_k over the programs.
    pub mean_diversity: f64,
}

/// What a diversity measurement found (also written to the output directory).
#[derive(Debug, Clone)]
pub struct DiversityOutcome {
    /// The Markdown report (diversity.md).
    pub markdown: String,
    /// Where it was written.
    pub out: PathBuf,
    /// Mean D_k over the programs.
    pub mean_diameter: f64,
    /// Mean Δ_k over the programs.
    pub mean_diversity: f64,
}

impl DiversityOutcome {
    /// The report, then where the files are.
    pub fn printout(&self) -> Printout {
        let mut p = Printout::new();
        p.out(self.markdown.trim_end_matches('\n').to_string());
        p.out(format!(
            "wrote diversity.json, diversity.md and diversity.svg in {}",
            self.out.display()
        ));
        p
    }
}

/// What a negative Δ_k means, added to the report when one is printed.
const NEGATIVE_NOTE: &str = "\nNote: a negative Δ_k means that the set without that \
     transform reached a larger diameter estimate than the whole set. D_k is estimated by a \
     bounded search (--beam programs per step, seeded), so removing a transform can let the \
     search go farther by chance: read a negative Δ_k as sampling noise around 0 (the \
     transform adds nothing measurable here), not as harm. A larger --beam or more programs \
     narrow it.\n";

fn mean(v: impl IntoIterator<Item = f64>) -> f64 {
    let v: Vec<f64> = v.into_iter().collect();
    if v.is_empty() {
        0.0
    } else {
        v.iter().sum::<f64>() / v.len() as f64
    }
}

impl DiversityJob<'_> {
    /// Measures, writes the three files and returns the outcome.
    pub fn run(mut self, progress: &dyn Progress) -> Result<DiversityOutcome, DiversityError> {
        let c = self.config;
        if c.k == 0 || c.beam == 0 {
            return Err(DiversityError::ZeroSteps);
        }
        if let Some(n) = self.sample {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(c.seed);
            self.programs.shuffle(&mut rng);
            self.programs.truncate(n);
            self.programs.sort();
        }
        if self.programs.is_empty() {
            return Err(DiversityError::NoTask);
        }
        if self.transforms.is_empty() {
            return Err(DiversityError::NoTransforms);
        }
        progress.start(self.programs.len() as u64);
        let mut per_program: Vec<(String, ProgramDiversity)> = Vec::new();
        for (id, source) in &self.programs {
            let d = diversity(source, &self.transforms, self.detector, c)?;
            per_program.push((id.clone(), d));
            progress.advance("D_k and leave-one-out Δ_k");
        }
        progress.finish();
        let contributions: Vec<(String, f64)> = self
            .transforms
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let of = |p: &ProgramDiversity| p.contributions.get(i).map_or(0.0, |c| c.1);
                (t.name.clone(), mean(per_program.iter().map(|(_, p)| of(p))))
            })
            .collect();
        let growth = match self.grow {
            Some(order) => self.grow(order, progress)?,
            None => Vec::new(),
        };
        let outcome = DiversityOutcome {
            markdown: String::new(),
            out: self.out.clone(),
            mean_diameter: mean(per_program.iter().map(|(_, p)| p.diameter)),
            mean_diversity: mean(per_program.iter().map(|(_, p)| p.diversity)),
        };
        self.write(outcome, &per_program, contributions, &growth)
    }

    /// The set grown one transform at a time: D_k and Δ_k at each size.
    fn grow(
        &self,
        order: GrowOrder,
        progress: &dyn Progress,
    ) -> Result<Vec<GrowthStep>, DiversityError> {
        let c = self.config;
        let mean_diameter = |s: &[&LoadedTransform]| -> Result<f64, DiversityError> {
            let mut v = Vec::new();
            for (_, source) in &self.programs {
                v.push(diameter(source, s, self.detector, c)?);
            }
            Ok(mean(v))
        };
        let mut chosen: Vec<&LoadedTransform> = Vec::new();
        let mut left = self.transforms.clone();
        let mut growth = Vec::new();
        progress.start(left.len() as u64);
        while !left.is_empty() {
            let pick = match order {
                GrowOrder::Given => 0,
                GrowOrder::Greedy => {
                    let mut best = (0, f64::NEG_INFINITY);
                    for (i, t) in left.iter().enumerate() {
                        let mut s = chosen.clone();
                        s.push(t);
                        let d = mean_diameter(&s)?;
                        if d > best.1 {
                            best = (i, d);
                        }
                    }
                    best.0
                }
            };
            chosen.push(left.remove(pick));
            let (mut ds, mut deltas) = (Vec::new(), Vec::new());
            for (_, source) in &self.programs {
                let p = diversity(source, &chosen, self.detector, c)?;
                ds.push(p.diameter);
                deltas.push(p.diversity);
            }
            growth.push(GrowthStep {
                size: chosen.len(),
                added: chosen.last().map(|t| t.name.clone()).unwrap_or_default(),
                mean_diameter: mean(ds),
                mean_diversity: mean(deltas),
            });
            progress.advance("growing the set");
        }
        progress.finish();
        Ok(growth)
    }

    /// Writes diversity.json, diversity.md and diversity.svg.
    fn write(
        &self,
        mut outcome: DiversityOutcome,
        per_program: &[(String, ProgramDiversity)],
        contributions: Vec<(String, f64)>,
        growth: &[GrowthStep],
    ) -> Result<DiversityOutcome, DiversityError> {
        let c = self.config;
        let (mean_d, mean_delta) = (outcome.mean_diameter, outcome.mean_diversity);
        let json = serde_json::json!({
            "detector": self.detector.name(),
            "k": c.k,
            "beam": c.beam,
            "seed": c.seed,
            "transforms": self.transforms.iter().map(|t| t.name.clone()).collect::<Vec<_>>(),
            "mean_diameter": mean_d,
            "mean_diversity": mean_delta,
            "mean_contributions": contributions,
            "programs": per_program.iter().map(|(id, p)| serde_json::json!({"id": id, "diameter": p.diameter, "diversity": p.diversity, "contributions": p.contributions})).collect::<Vec<_>>(),
            "grow": growth.iter().map(|g| serde_json::json!({"size": g.size, "added": g.added, "mean_diameter": g.mean_diameter, "mean_diversity": g.mean_diversity})).collect::<Vec<_>>(),
        });
        let mut sorted = contributions;
        sorted.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let md = self.markdown(mean_d, mean_delta, per_program, &sorted, growth);
        let svg = plot(growth, &sorted);
        let write = |path: &Path, text: &str| {
            std::fs::write(path, text).map_err(|source| DiversityError::Write {
                path: path.to_path_buf(),
                source,
            })
        };
        std::fs::create_dir_all(&self.out).map_err(|source| DiversityError::Write {
            path: self.out.clone(),
            source,
        })?;
        let json = serde_json::to_string_pretty(&json).unwrap_or_default();
        write(&self.out.join("diversity.json"), &json)?;
        write(&self.out.join("diversity.md"), &md)?;
        write(&self.out.join("diversity.svg"), &svg)?;
        outcome.markdown = md;
        Ok(outcome)
    }

    /// diversity.md: means, contributions (sorted), growth and per-program figures.
    fn markdown(
        &self,
        mean_d: f64,
        mean_delta: f64,
        per_program: &[(String, ProgramDiversity)],
        sorted: &[(String, f64)],
        growth: &[GrowthStep],
    ) -> String {
        let mut md = format!(
            "# Diversity of {} transforms ({}, k = {}, beam {}, {} programs)\n\n\
             Mean k-step diameter D_k = {mean_d:.4}; mean diversity Δ_k = {mean_delta:.4}.\n\n\
             | transform | mean Δ_k(t) (leave-one-out) |\n|---|---|\n",
            self.transforms.len(),
            self.detector.name(),
            self.config.k,
            self.config.beam,
            self.programs.len()
        );
        for (t, v) in sorted {
            let _ = writeln!(md, "| {t} | {v:.4} |");
        }
        if !growth.is_empty() {
            md.push_str(
                "\n## Growing the set\n\n| size | added | mean D_k | mean Δ_k |\n|---|---|---|---|\n",
            );
            for g in growth {
                let _ = writeln!(
                    md,
                    "| {} | {} | {:.4} | {:.4} |",
                    g.size, g.added, g.mean_diameter, g.mean_diversity
                );
            }
        }
        md.push_str("\n## Per program\n\n| task | D_k | Δ_k |\n|---|---|---|\n");
        for (id, p) in per_program {
            let _ = writeln!(md, "| {id} | {:.4} | {:.4} |", p.diameter, p.diversity);
        }
        let negative = sorted.iter().filter(|(_, v)| *v < 0.0).count()
            + growth.iter().filter(|g| g.mean_diversity < 0.0).count()
            + per_program
                .iter()
                .filter(|(_, p)| p.diversity < 0.0)
                .count();
        if negative > 0 {
            md.push_str(NEGATIVE_NOTE);
        }
        md
    }
}

/// D_k and Δ_k against set size when growing, else the contributions as bars.
fn plot(growth: &[GrowthStep], contributions: &[(String, f64)]) -> String {
    let (w, h, pad) = (520.0, 260.0, 40.0);
    let mut o = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"11\">\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\
         <line x1=\"{pad}\" y1=\"{y0}\" x2=\"{x1}\" y2=\"{y0}\" stroke=\"#444\"/><line x1=\"{pad}\" y1=\"{pad}\" x2=\"{pad}\" y2=\"{y0}\" stroke=\"#444\"/>",
        y0 = h - pad,
        x1 = w - 10.0
    );
    if growth.is_empty() {
        let max = contributions.iter().map(|c| c.1).fold(1e-9, f64::max);
        let bh = (h - 2.0 * pad) / contributions.len().max(1) as f64;
        for (i, (t, v)) in contributions.iter().enumerate() {
            let bw = ((w - 200.0) * v.max(0.0) / max).max(0.0);
            let y = pad + i as f64 * bh;
            let _ = write!(
                o,
                "<rect x=\"150\" y=\"{y:.1}\" width=\"{bw:.1}\" height=\"{:.1}\" fill=\"#27ae60\"/><text x=\"146\" y=\"{:.1}\" text-anchor=\"end\">{t}</text>",
                (bh - 1.0).max(1.0),
                y + bh / 2.0 + 4.0
            );
        }
        let _ = write!(
            o,
            "<text x=\"{pad}\" y=\"20\">mean leave-one-out Δ_k per transform</text>"
        );
    } else {
        let max = growth
            .iter()
            .map(|g| g.mean_diameter.max(g.mean_diversity))
            .fold(1e-9, f64::max);
        let n = growth.len().max(2) - 1;
        for (diam, colour, label) in [(true, "#1f6feb", "D_k"), (false, "#c0392b", "Δ_k")] {
            let pts: Vec<String> = growth
                .iter()
                .enumerate()
                .map(|(i, g)| {
                    let v = if diam {
                        g.mean_diameter
                    } else {
                        g.mean_diversity
                    };
                    format!(
                        "{:.1},{:.1}",
                        pad + (w - pad - 10.0) * i as f64 / n as f64,
                        h - pad - (h - 2.0 * pad) * v / max
                    )
                })
                .collect();
            let _ = write!(
                o,
                "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" points=\"{}\"><title>{label}</title></polyline>",
                pts.join(" ")
            );
        }
        let _ = write!(o, "<text x=\"{pad}\" y=\"20\">mean D_k (blue) and Δ_k (red) as transforms are added</text>");
    }
    o + "</svg>\n"
}
