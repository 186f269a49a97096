//! The guided search's model of which candidates pay: a discounted UCB bandit over the gain
//! (parent's M − child's M) each transform has shown on this task, plus a correction for the
//! size of each candidate's edit (a child that moved further from the original in tokens than
//! its transform's children usually do is expected to gain more, by a slope fitted on the
//! task's own scored children; never negative).
//!
//! Gains are not stationary: a renaming pays once and then has little left to rename, a
//! rewrite that enables another makes that one pay later. So old observations fade (each
//! iteration multiplies the evidence by [`DECAY`]) and the exploration bonus grows back for a
//! transform that has not been tried for a while. A transform never seen to produce a scored
//! candidate is ranked as if it were the best one plus a bonus, so everything gets tried once.

use super::Child;
use std::cmp::Ordering;

/// How much of a transform's evidence survives one iteration.
pub const DECAY: f64 = 0.5;
/// Weight of the exploration bonus (in units of M: one-step gains are 0.001–0.3, most of them
/// below 0.05; a larger weight spent the queries on rarely tried transforms).
pub const EXPLORE: f64 = 0.01;

/// Observed gains per transform, discounted over iterations.
#[derive(Debug, Clone)]
pub struct Bandit {
    sum: Vec<f64>,
    weight: Vec<f64>,
    /// Per arm: the discounted sum of the edit sizes of its scored children.
    edit: Vec<f64>,
    /// Within-arm co-variation of gain and edit size: Σ (g − ḡ)(e − ē) and Σ (e − ē)².
    sxy: f64,
    sxx: f64,
    /// Per arm: whether it has made a new candidate that met the limits in this task.
    made: Vec<bool>,
}

impl Bandit {
    /// A bandit over `arms` transforms with no evidence yet.
    pub fn new(arms: usize) -> Self {
        Bandit {
            sum: vec![0.0; arms],
            weight: vec![0.0; arms],
            edit: vec![0.0; arms],
            sxy: 0.0,
            sxx: 0.0,
            made: vec![false; arms],
        }
    }

    /// Notes that `arm` made a new candidate that met the limits.
    pub fn made(&mut self, arm: usize) {
        if let Some(m) = self.made.get_mut(arm) {
            *m = true;
        }
    }

    /// Whether `arm` has not yet made a new candidate that met the limits in this task (it
    /// does not apply to these programs, or only repeats them).
    pub fn barren(&self, arm: usize) -> bool {
        !self.made.get(arm).copied().unwrap_or(false)
    }

    /// Fades the evidence so far (once per iteration, before its observations).
    pub fn decay(&mut self) {
        for ((s, w), e) in self
            .sum
            .iter_mut()
            .zip(&mut self.weight)
            .zip(&mut self.edit)
        {
            *s *= DECAY;
            *w *= DECAY;
            *e *= DECAY;
        }
    }

    /// Records that `arm` moved M down by `gain` (negative when the child is more similar)
    /// with an edit of size `edit` (how much further from the original in tokens the child
    /// is than its parent).
    pub fn observe(&mut self, arm: usize, gain: f32, edit: f64) {
        if arm >= self.sum.len() || !gain.is_finite() {
            return;
        }
        let g = f64::from(gain);
        if let Some(mean) = self.mean(arm) {
            let e_mean = self.edit[arm] / self.weight[arm];
            self.sxy += (g - mean) * (edit - e_mean);
            self.sxx += (edit - e_mean).powi(2);
        }
        self.sum[arm] += g;
        self.weight[arm] += 1.0;
        self.edit[arm] += edit;
    }

    /// How much a child's gain rises with its edit size beyond its transform's usual edit.
    fn slope(&self) -> f64 {
        if self.sxx > 1e-9 {
            (self.sxy / self.sxx).max(0.0)
        } else {
            0.0
        }
    }

    fn mean(&self, arm: usize) -> Option<f64> {
        let w = self.weight[arm];
        (w > 1e-9).then(|| self.sum[arm] / w)
    }

    /// The optimistic expected gain of `arm` (mean plus an exploration bonus).
    pub fn expected_gain(&self, arm: usize) -> f64 {
        let total: f64 = self.weight.iter().sum();
        let bonus = |w: f64| EXPLORE * ((1.0 + total).ln() / w).sqrt();
        match self.mean(arm) {
            Some(mean) => mean + bonus(self.weight[arm]),
            None => {
                let best = (0..self.sum.len())
                    .filter_map(|a| self.mean(a))
                    .fold(0.0, f64::max);
                best + 2.0 * EXPLORE
            }
        }
    }

    /// The `k` children with the lowest predicted M (their parent's M minus their transform's
    /// expected gain, plus the slope times how much larger their edit is than their
    /// transform's mean), most promising first; ties go to content hash, so the
    /// choice does not depend on the order the children came in.
    pub(crate) fn most_promising(
        &self,
        children: Vec<Child>,
        parents: &[f32],
        k: usize,
    ) -> Vec<Child> {
        let gains: Vec<f64> = (0..self.sum.len()).map(|a| self.expected_gain(a)).collect();
        let slope = self.slope();
        let mut ranked: Vec<(f64, Child)> = children
            .into_iter()
            .map(|c| {
                let edit = c.edit;
                let parent = parents.get(c.parent).copied().unwrap_or(1.0);
                let arm = c.transform;
                let mut gain = gains.get(arm).copied().unwrap_or(0.0);
                if self.weight.get(arm).is_some_and(|w| *w > 1e-9) {
                    gain += slope * (edit - self.edit[arm] / self.weight[arm]);
                }
                (f64::from(parent) - gain, c)
            })
            .collect();
        ranked.sort_by(|(pa, a), (pb, b)| {
            pa.partial_cmp(pb)
                .unwrap_or(Ordering::Equal)
                .then_with(|| a.node.hash.cmp(&b.node.hash))
        });
        ranked.truncate(k);
        ranked.into_iter().map(|(_, c)| c).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transform_that_paid_ranks_above_one_that_did_not() {
        let mut b = Bandit::new(3);
        b.decay();
        for _ in 0..3 {
            b.observe(0, 0.2, 0.1);
            b.observe(1, 0.001, 0.1);
        }
        b.observe(2, 0.0, 0.1);
        assert!(b.expected_gain(0) > b.expected_gain(1));
        // Less evidence, a larger bonus: arm 2 (one try) beats arm 1 (three tries) at equal means.
        assert!(b.expected_gain(2) > b.expected_gain(1) - 0.001);
    }

    #[test]
    fn an_untried_transform_is_optimistic_and_old_evidence_fades() {
        let mut b = Bandit::new(2);
        b.observe(0, 0.1, 0.1);
        assert!(b.expected_gain(1) > b.expected_gain(0));
        let before = b.expected_gain(0);
        b.decay();
        b.decay();
        // Same mean, less weight: a larger bonus, so it is tried again.
        assert!(b.expected_gain(0) > before);
    }
}
