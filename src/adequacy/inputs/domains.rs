//! Value domains of small integer columns, found by running the original on probes: a
//! column the task's inputs show small (`Y M` with `M` = 1 and 2, bases `10 2`) most often
//! has a domain the statement states (`1 ≤ M ≤ 12`, bases 2 to 36) and the sample never
//! reaches. Edits stay near the values seen, so months 4 to 12 were never tried; a probe
//! finds where the original stops running normally (month 13: an index past a table of
//! names), and inputs are then drawn over the whole domain.
//!
//! A domain is set only where the probes find an edge within [`PROBE_SPAN`] of the values
//! seen: a column the original reads for any value (a weight, a length) has no edge there
//! and keeps its rules. The keep rules still check every input the domain gives (the other
//! accepted solutions must agree on it).

use super::{Parsed, Place, Token};
use rand::Rng;
use std::collections::BTreeMap;

/// The largest value a column may show to be probed: months, bases, digits, small sizes.
pub const SMALL_TOP: i64 = 64;

/// How far past the values seen the probes look for an edge.
pub const PROBE_SPAN: i64 = 64;

/// The most columns one task's inputs are probed in (each costs up to about a dozen runs).
pub const MOST_PROBED: usize = 4;

/// What the task's inputs show in one column, while its candidates are gathered.
#[derive(Debug, Clone, Default)]
pub(super) struct ColumnSeen {
    /// The lowest and highest integer seen.
    range: Option<(i64, i64)>,
    /// A token that is no integer, or a count, was seen in the column.
    mixed: bool,
    /// The first input (its index) and place the column was seen at.
    pub(super) base: Option<(usize, Place)>,
}

impl ColumnSeen {
    /// Adds a token of the column: `value` is its integer, `None` for a word or a count.
    pub(super) fn add(&mut self, value: Option<i64>, at: (usize, Place)) {
        match value {
            Some(v) => {
                let (lo, hi) = self.range.unwrap_or((v, v));
                self.range = Some((lo.min(v), hi.max(v)));
                self.base.get_or_insert(at);
            }
            None => self.mixed = true,
        }
    }

    /// Whether the column holds only integers from 0 to [`SMALL_TOP`].
    pub(super) fn small(&self) -> bool {
        !self.mixed
            && self
                .range
                .is_some_and(|(lo, hi)| lo >= 0 && hi <= SMALL_TOP)
    }

    pub(super) fn range(&self) -> Option<(i64, i64)> {
        self.range
    }
}

/// One column to probe: an input of the task and the place in it whose value is set.
#[derive(Debug, Clone)]
pub struct DomainProbe {
    /// The column: (tokens on the line, token).
    column: Place,
    /// The lowest and highest value the task's inputs show in the column.
    seen: (i64, i64),
    base: Parsed,
    /// (line, token) of the value set in `base`.
    at: Place,
}

impl DomainProbe {
    pub(super) fn new(column: Place, seen: (i64, i64), base: Parsed, at: Place) -> DomainProbe {
        DomainProbe {
            column,
            seen,
            base,
            at,
        }
    }

    /// The column probed: (tokens on the line, token).
    pub fn column(&self) -> Place {
        self.column
    }

    /// The base input with the probed value set to `v`.
    pub fn input(&self, v: i64) -> String {
        let mut p = self.base.clone();
        if let Some(t) = p.token_mut(self.at) {
            *t = Token::Int(v);
        }
        p.render()
    }

    /// The column's domain, where the probes find its upper edge: `ok(v)` says whether the
    /// original runs normally with the value `v` (`None`: no answer, a timeout). The values
    /// seen are taken as valid; past them the probes step 1, 2, 4, … up to `PROBE_SPAN` (64),
    /// then halve the gap between the last valid value and the first invalid one. Below, an
    /// edge is looked for the same way down to 0 (a domain of non-negative values seen stays
    /// non-negative, and one of positive values stays positive). `None` where no upper edge is found or a probe gets no answer.
    pub fn search(&self, mut ok: impl FnMut(i64) -> Option<bool>) -> Option<(i64, i64)> {
        let (lo, hi) = self.seen;
        let top = edge(hi, 1, hi.saturating_add(PROBE_SPAN), &mut ok)?;
        let bottom = edge(lo, -1, 0, &mut ok).unwrap_or(0.min(lo));
        // A column seen positive stays so: an original that runs on `k` = 0 tolerates it, and
        // `1 ≤ k` is the commonest bound (a window of 0 made a false alarm on kit 31).
        let bottom = if lo >= 1 { bottom.max(1) } else { bottom };
        Some((bottom, top))
    }
}

/// The last valid value from `from` (valid) towards `limit` in direction `dir`: `None`
/// where every probe up to `limit` is valid or one gets no answer.
fn edge(from: i64, dir: i64, limit: i64, ok: &mut impl FnMut(i64) -> Option<bool>) -> Option<i64> {
    let beyond = |v: i64| if dir > 0 { v > limit } else { v < limit };
    let (mut good, mut bad) = (from, None);
    let mut step = 1i64;
    while bad.is_none() {
        // A step past the limit probes the limit itself, once.
        let mut v = from.saturating_add(dir.saturating_mul(step));
        if beyond(v) {
            if good == limit {
                return None;
            }
            v = limit;
        }
        match ok(v)? {
            true => good = v,
            false => bad = Some(v),
        }
        step = step.saturating_mul(2);
    }
    let mut bad = bad?;
    while (bad - good).abs() > 1 {
        let mid = good + (bad - good) / 2;
        match ok(mid)? {
            true => good = mid,
            false => bad = mid,
        }
    }
    Some(good)
}

/// The domains found, per column: (tokens on the line, token) → (lowest, highest).
#[derive(Debug, Clone, Default)]
pub(super) struct Domains {
    columns: BTreeMap<Place, (i64, i64)>,
}

impl Domains {
    pub(super) fn set(&mut self, column: Place, domain: (i64, i64)) {
        self.columns.insert(column, domain);
    }

    pub(super) fn is_empty(&self) -> bool {
        self.columns.is_empty()
    }

    /// Brings each value of a column with a domain (on the lines from `first` on, not one of
    /// `counts`) into it, drawn anew where it lies outside; and, half the time, draws one of
    /// them anew over the whole domain (a sample's months 1 and 2 reach December only so).
    pub(super) fn apply(
        &self,
        p: &mut Parsed,
        first: usize,
        counts: &std::collections::BTreeSet<Place>,
        rng: &mut impl Rng,
    ) {
        let mut sites: Vec<(Place, (i64, i64))> = Vec::new();
        for (l, line) in p.lines.iter_mut().enumerate().skip(first) {
            let width = line.len();
            for (k, t) in line.iter_mut().enumerate() {
                let (Some(&(lo, hi)), Token::Int(v)) = (self.columns.get(&(width, k)), t) else {
                    continue;
                };
                if counts.contains(&(l, k)) || lo > hi {
                    continue;
                }
                if !(lo..=hi).contains(v) {
                    *v = rng.random_range(lo..=hi);
                }
                sites.push(((l, k), (lo, hi)));
            }
        }
        if sites.is_empty() || !rng.random_bool(0.5) {
            return;
        }
        let (at, (lo, hi)) = sites[rng.random_range(0..sites.len())];
        if let Some(t) = p.token_mut(at) {
            *t = Token::Int(rng.random_range(lo..=hi));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn probe(seen: (i64, i64)) -> DomainProbe {
        DomainProbe::new((2, 1), seen, Parsed::of("2024 2\n"), (0, 1))
    }

    #[test]
    fn the_edge_of_a_domain_is_found_past_the_values_seen() {
        let mut runs = Vec::new();
        let found = probe((1, 2)).search(|v| {
            runs.push(v);
            Some((1..=12).contains(&v))
        });
        assert_eq!(found, Some((1, 12)));
        // Steps 1, 2, 4, 8, 16 up, then halving, then down to 0: about a dozen runs.
        assert!(runs.len() <= 12, "{runs:?}");
        assert_eq!(
            probe((10, 10)).search(|v| Some((2..=36).contains(&v))),
            Some((2, 36))
        );
        assert_eq!(probe((3, 3)).input(7), "2024 7\n");
    }

    #[test]
    fn no_edge_within_reach_or_no_answer_sets_no_domain() {
        assert_eq!(probe((1, 5)).search(|v| Some(v >= 0)), None);
        assert_eq!(probe((1, 5)).search(|v| (v < 9).then_some(true)), None);
        // Valid all the way down: the domain starts at 0 where a 0 is seen, else at 1.
        assert_eq!(probe((0, 5)).search(|v| Some(v <= 20)), Some((0, 20)));
        assert_eq!(probe((2, 5)).search(|v| Some(v <= 20)), Some((1, 20)));
    }

    #[test]
    fn values_outside_a_domain_are_drawn_within_it() {
        let mut d = Domains::default();
        d.set((2, 1), (1, 12));
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut months = std::collections::BTreeSet::new();
        for _ in 0..200 {
            let mut p = Parsed::of("2024 2\n2021 40\n1 0\n");
            d.apply(&mut p, 0, &Default::default(), &mut rng);
            for line in &p.lines {
                let Some(Token::Int(m)) = line.get(1) else {
                    panic!("{}", p.render())
                };
                assert!((1..=12).contains(m), "{}", p.render());
                months.insert(*m);
            }
        }
        assert_eq!(months.len(), 12, "{months:?}");
    }
}
