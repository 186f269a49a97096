//! The run's success threshold on M: fixed, or calibrated on non-clone pairs of the run's
//! originals with the run's detector. One rule for every job: pairs of originals of
//! different problems ([`NON_CLONE_RULE`]); the count and the rule are printed and recorded.

use super::interrupt::InterruptedBeforeStart;
use super::Notices;
use crate::detector::Detector;
use crate::report::calibration::{
    auto_threshold_until, CalibrationError, CalibrationProgram, Threshold, ThresholdSpec,
    NON_CLONE_RULE,
};
use std::sync::atomic::AtomicBool;

/// The threshold used when an `auto` one cannot be calibrated.
pub const FALLBACK_THRESHOLD: f32 = 0.5;

/// Non-clone pairs scored to calibrate an `auto` threshold.
pub const CALIBRATION_PAIRS: usize = 200;

/// Fewest non-clone pairs an `auto` threshold is calibrated on: below this (a run of a few
/// tasks) the quantile means little, so the run falls back to [`FALLBACK_THRESHOLD`] and says so.
pub const MIN_CALIBRATION_PAIRS: usize = 20;

/// Turns `--threshold` into a value: fixed, or calibrated on seeded non-clone pairs of
/// `programs` (the run's originals that pass their tests, with their problems) with
/// `detector`. Progress and warnings go to `notices`. Stops with [`InterruptedBeforeStart`]
/// when `stop` is set during the calibration. A detector that fails on every pair, or too few
/// pairs, give [`FALLBACK_THRESHOLD`] with a source that says why.
pub fn resolve_threshold(
    spec: ThresholdSpec,
    detector: &dyn Detector,
    programs: &[CalibrationProgram<'_>],
    seed: u64,
    stop: Option<&AtomicBool>,
    notices: &dyn Notices,
) -> Result<Threshold, InterruptedBeforeStart> {
    let rate = match spec {
        ThresholdSpec::Fixed(value) => {
            return Ok(Threshold {
                value,
                source: "fixed".into(),
            })
        }
        ThresholdSpec::Auto { rate } => rate,
    };
    notices.note(&format!(
        "calibrating the threshold on up to {CALIBRATION_PAIRS} non-clone pairs: {NON_CLONE_RULE}…"
    ));
    let fallback = |why: String| Threshold {
        value: FALLBACK_THRESHOLD,
        source: format!("fixed {FALLBACK_THRESHOLD}: auto:{rate} {why}"),
    };
    let c = match auto_threshold_until(detector, programs, rate, CALIBRATION_PAIRS, seed, stop) {
        Ok(c) => c,
        Err(CalibrationError::Interrupted { scored, pairs }) => {
            return Err(InterruptedBeforeStart {
                doing: "calibrating the threshold".into(),
                done: format!(
                    "{scored} of {pairs} calibration pairs were scored, no task was started"
                ),
            })
        }
        // A detector that fails on every pair fails on every task too: the run goes on and
        // reports each task's error; the threshold says what happened.
        Err(e) => {
            notices.warn(&format!(
                "--threshold auto could not be calibrated ({e}); using {FALLBACK_THRESHOLD}"
            ));
            return Ok(fallback(format!("could not be calibrated ({e})")));
        }
    };
    if c.failed > 0 {
        notices.warn(&format!(
            "the detector failed on {} of the calibration pairs; they are left out",
            c.failed
        ));
    }
    let left_out = if c.same_problem > 0 {
        format!("; {} same-problem pairs left out as clones", c.same_problem)
    } else {
        String::new()
    };
    if c.pairs < MIN_CALIBRATION_PAIRS {
        let why = format!(
            "only {} non-clone pairs could be scored (originals of {} problems{left_out}), fewer \
             than the {MIN_CALIBRATION_PAIRS} a threshold needs",
            c.pairs, c.problems
        );
        notices.warn(&format!(
            "--threshold auto:{rate} cannot be calibrated: {why}; using the fixed \
             {FALLBACK_THRESHOLD} instead (pass --threshold M to choose one)"
        ));
        return Ok(fallback(format!("was not calibrated ({why})")));
    }
    let source = format!(
        "auto:{rate}: {:.0} % of {} non-clone pairs ({NON_CLONE_RULE}; originals that pass \
         their tests, {} problems{left_out}, seed {seed}) score below it; their M: mean {:.3}, \
         min {:.3}, max {:.3}",
        rate * 100.0,
        c.pairs,
        c.problems,
        c.mean,
        c.min,
        c.max
    );
    notices.note(&format!("threshold M < {:.4}: {source}", c.threshold));
    Ok(Threshold {
        value: c.threshold,
        source,
    })
}
