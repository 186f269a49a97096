//! `equimorph score`: the pairwise similarity matrix M (and L = 1 − M) of text files under one
//! detector, with the files the detector's window cut.

use super::exit::ExitStatus;
use super::Printout;
use crate::detector::{Detector, DetectorError};
use thiserror::Error;

/// Why files were not scored.
#[derive(Debug, Error)]
pub enum ScoreError {
    /// A matrix needs two files.
    #[error("give at least two files to compare")]
    TooFew,
    /// The detector failed.
    #[error(transparent)]
    Detector(#[from] DetectorError),
}

/// Scoring files against each other.
#[derive(Debug, Clone)]
pub struct ScoreJob {
    /// The files' names, as the user gave them (in the order of the texts).
    pub names: Vec<String>,
}

/// The matrix and what the detector cut.
#[derive(Debug, Clone)]
pub struct ScoreOutcome {
    /// The detector's name.
    pub detector: String,
    /// The files' names.
    pub names: Vec<String>,
    /// `similarity[i][j]`: M of file i against file j.
    pub similarity: Vec<Vec<f32>>,
    /// Indices of the files longer than the detector's window (each once).
    pub longer: Vec<usize>,
    /// The detector's window in tokens, if it has one.
    pub window: Option<usize>,
    /// Inputs the detector cut, counted each time (once per pair for a cross-encoder).
    pub truncated_inputs: u64,
}

impl ScoreJob {
    /// Scoring `names` (at least two files).
    pub fn new(names: Vec<String>) -> Result<Self, ScoreError> {
        if names.len() < 2 {
            return Err(ScoreError::TooFew);
        }
        Ok(ScoreJob { names })
    }

    /// Scores every text (one per name) against every other with `detector`.
    pub fn run(
        &self,
        texts: &[String],
        detector: &dyn Detector,
    ) -> Result<ScoreOutcome, ScoreError> {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let similarity = refs
            .iter()
            .map(|t| detector.score(t, &refs))
            .collect::<Result<Vec<_>, _>>()?;
        let stats = detector.stats();
        // Files, each once, longer than the window; the detector's own counter counts each
        // time a text was cut, once per pair.
        let longer: Vec<usize> = match detector.window() {
            Some(window) => detector
                .token_counts(&refs)?
                .iter()
                .enumerate()
                .filter(|(_, n)| n.is_some_and(|n| n > window))
                .map(|(i, _)| i)
                .collect(),
            None => Vec::new(),
        };
        Ok(ScoreOutcome {
            detector: detector.name().to_string(),
            names: self.names.clone(),
            similarity,
            longer,
            window: detector.window(),
            truncated_inputs: stats.truncated,
        })
    }
}

impl ScoreOutcome {
    /// Always 0: a matrix was made.
    pub fn status(&self) -> ExitStatus {
        ExitStatus::Ok
    }

    /// The matrix as a table with the files' names and what was truncated, or as JSON
    /// (`{detector, files, similarity, distance, truncated, truncated_files,
    /// truncated_inputs}`).
    pub fn printout(&self, json: bool) -> Printout {
        let mut p = Printout::new();
        if json {
            p.out(serde_json::to_string_pretty(&self.json()).unwrap_or_default());
            return p;
        }
        p.out(format!(
            "detector: {}   M = similarity (L = 1 - M)",
            self.detector
        ));
        const W: usize = 10;
        let mut header = format!("{:>W$}", "");
        for j in 0..self.names.len() {
            header.push_str(&format!("{:>W$}", format!("[{j}]")));
        }
        p.out(header);
        for (i, row) in self.similarity.iter().enumerate() {
            let mut line = format!("{:>W$}", format!("[{i}]"));
            for v in row {
                line.push_str(&format!("{v:>W$.4}"));
            }
            p.out(line);
        }
        for (i, n) in self.names.iter().enumerate() {
            p.out(format!("[{i}] {n}"));
        }
        let window = self.window.unwrap_or_default();
        if !self.longer.is_empty() {
            let list: Vec<String> = self.longer.iter().map(|i| format!("[{i}]")).collect();
            p.out(format!(
                "{} of {} files are longer than the model's window of {window} tokens and were \
                 truncated: {}",
                self.longer.len(),
                self.names.len(),
                list.join(", ")
            ));
        } else if self.truncated_inputs > 0 {
            // Each file fits, but a pair read as one sequence (a cross-encoder) does not.
            p.out(format!(
                "{} pair(s) were truncated to the model's window of {window} tokens (each file \
                 fits; the pair is read as one sequence)",
                self.truncated_inputs
            ));
        }
        p
    }

    /// The JSON form of the matrix.
    fn json(&self) -> serde_json::Value {
        let distance: Vec<Vec<f32>> = self
            .similarity
            .iter()
            .map(|r| r.iter().map(|v| 1.0 - v).collect())
            .collect();
        let truncated_files: Vec<&String> = self
            .longer
            .iter()
            .filter_map(|&i| self.names.get(i))
            .collect();
        serde_json::json!({
            "detector": self.detector, "files": self.names, "similarity": self.similarity,
            "distance": distance,
            "truncated": self.longer.len(),
            "truncated_files": truncated_files,
            "truncated_inputs": self.truncated_inputs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_names_every_file_and_what_the_window_cut() {
        assert!(matches!(
            ScoreJob::new(vec!["a".into()]),
            Err(ScoreError::TooFew)
        ));
        let outcome = ScoreOutcome {
            detector: "jaccard".into(),
            names: vec!["a.py".into(), "b.py".into()],
            similarity: vec![vec![1.0, 0.5], vec![0.5, 1.0]],
            longer: vec![1],
            window: Some(256),
            truncated_inputs: 2,
        };
        let p = outcome.printout(false);
        assert_eq!(p.out[1], format!("{:>10}{:>10}{:>10}", "", "[0]", "[1]"));
        assert_eq!(
            p.out[2],
            format!("{:>10}{:>10}{:>10}", "[0]", "1.0000", "0.5000")
        );
        assert_eq!(p.out[5], "[1] b.py");
        assert!(p.out[6].starts_with("1 of 2 files are longer than the model's window of 256"));
        let json: serde_json::Value = serde_json::from_str(&outcome.printout(true).out[0]).unwrap();
        assert_eq!(json["truncated_files"], serde_json::json!(["b.py"]));
        assert_eq!(json["distance"][0][1], serde_json::json!(0.5));
    }
}
