//! What a task's record lines show beyond one line: the values a column holds, a column the
//! records are sorted by, and lines that are permutations. A mutated input that breaks one of
//! these most likely lies outside the problem's constraints, where accepted solutions may
//! disagree (a third one crashes on `K` = 10^18 where the statement says `K ≤ 200`, or on
//! arrivals that the statement promises non-decreasing).

use super::{Parsed, Place, Token};
use std::collections::{BTreeMap, BTreeSet};

/// The record rules of a task's inputs (see the module's doc).
#[derive(Debug, Clone, Default)]
pub(super) struct RecordRules {
    /// The integers each record column holds, widened by half their spread (see [`widened`]).
    ranges: BTreeMap<Place, (i64, i64)>,
    /// Per record width, the columns every run of such records is sorted by (non-decreasing),
    /// seen over four comparisons or more, or three in two runs or more, with at least one
    /// strict rise (three records and two more, each run in order, are so by chance once in
    /// about twelve; a sample's author sorting them is common, and a statement that promises
    /// the order is broken by unsorted ones: `a_i non-decreasing` over arrivals `0 1 10`
    /// and `4 4`).
    sorted: BTreeMap<usize, Vec<usize>>,
    /// Where every line of three integers or more after the first is a permutation (of
    /// `base..base + width`), two of them and one of those unsorted (or one unsorted of four or
    /// more), that base.
    permutation_base: Option<i64>,
    /// Whether the lines of two integers are permutations too (none of them is not): else
    /// they are pairs (queries `l r`, swaps `i j`) beside the permutation, left as they are.
    pairs_permuted: bool,
    /// The values each record column of counts holds (a case's `mode n` over `n` piles),
    /// widened as [`widened`]: a record's own size stays near what the records show (a
    /// solution may be exponential in it: `n ≤ 5` piles), where the number of records grows.
    count_ranges: BTreeMap<Place, (i64, i64)>,
    /// Whether the word that leads each line after the first is a key ([`keyed_lines`]): a
    /// copied line must not repeat it.
    keyed: bool,
}

/// The fewest lines led by a word that one input shows, all their words distinct, for those
/// words to be keys: two or three distinct names are chance (`alice`, `bob`), four and none
/// seen twice in any input is a statement's `all n cells are distinct`.
const FEWEST_KEYS: usize = 4;

/// The lines after the first, outside grids, led by a name (a letter, then letters, digits
/// and `_`: `A10`, `alice`; not a clock `09:00` nor a grid row `S.*`), with that name.
fn named_lines(p: &Parsed) -> Vec<(usize, &str)> {
    let grids = p.grids();
    let is_name = |w: &str| {
        w.chars().next().is_some_and(|c| c.is_alphabetic())
            && w.chars().all(|c| c.is_alphanumeric() || c == '_')
    };
    p.lines
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(l, _)| !grids.iter().any(|g| g.contains(l)))
        .filter_map(|(l, line)| match line.first() {
            Some(Token::Word(w)) if is_name(w) => Some((l, w.as_str())),
            _ => None,
        })
        .collect()
}

/// Whether the names leading the lines after the first ([`named_lines`]) are keys: no name leads two lines of
/// one input nor lines of two inputs, and one input shows [`FEWEST_KEYS`] of them or more
/// (cells `A1 = 5`, `B2 = A1 + 3`; the names of a table). Commands repeat across inputs and
/// so are no keys. A copied line that repeats a key is outside the problem, where accepted
/// solutions part (one keeps the first definition, one the last).
fn keyed_lines(inputs: &[Parsed]) -> bool {
    let mut seen: BTreeSet<&str> = BTreeSet::new();
    let mut most = 0;
    for p in inputs {
        let names = named_lines(p);
        most = most.max(names.len());
        for (_, w) in names {
            if !seen.insert(w) {
                return false;
            }
        }
    }
    most >= FEWEST_KEYS
}

/// The widths of the lines after the first that two lines or more of `p` have: its records.
/// A line whose tokens a first-line count counts is a list, not a record: `1\n2\n3` is a
/// list of one coin and an amount, and the amount's range is no coin's. (Among records, a
/// value equal to the next line's width is most often chance: `2 1` over `2 5`.)
pub(super) fn record_widths(p: &Parsed) -> BTreeSet<usize> {
    let lists: BTreeSet<usize> = p
        .links()
        .into_iter()
        .filter(|l| l.at().0 == 0)
        .filter_map(|l| l.counted_line())
        .collect();
    let mut widths: BTreeMap<usize, usize> = BTreeMap::new();
    for (l, line) in p.lines.iter().enumerate().skip(1) {
        if !lists.contains(&l) {
            *widths.entry(line.len()).or_default() += 1;
        }
    }
    widths
        .into_iter()
        .filter(|&(w, n)| w >= 1 && n >= 2)
        .map(|(w, _)| w)
        .collect()
}

/// The maximal runs (first line, past the last) of consecutive lines after the first with one
/// width, two lines or more long.
fn runs(p: &Parsed) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 1;
    for l in 1..=p.lines.len() {
        let same =
            l < p.lines.len() && p.lines.get(l).map(Vec::len) == p.lines.get(start).map(Vec::len);
        if !same {
            if l - start >= 2 {
                out.push((start, l));
            }
            start = l;
        }
    }
    out
}

/// `lo..=hi` widened by half its spread (at least 1) each way, never below 1 when every value
/// was positive nor below 0 when none was negative: the column's bounds most likely lie near
/// what it shows (`1 ≤ K ≤ 200` over `K` = 5, 9, 11), not at the input's largest number.
fn widened(lo: i64, hi: i64) -> (i64, i64) {
    let half = (hi.saturating_sub(lo) / 2).max(1);
    let low = match lo {
        1.. => 1,
        0 => 0,
        _ => lo.saturating_sub(half),
    };
    (low.min(lo), hi.saturating_add(half))
}

/// Whether `line` holds integers only, a permutation of `base..base + len`.
fn is_permutation(line: &[Token], base: i64) -> bool {
    let mut seen = vec![false; line.len()];
    line.iter().all(|t| match t {
        Token::Int(v) => usize::try_from(v.saturating_sub(base))
            .ok()
            .and_then(|i| seen.get_mut(i))
            .is_some_and(|s| !std::mem::replace(s, true)),
        _ => false,
    })
}

impl RecordRules {
    /// The rules `inputs` show.
    pub(super) fn of(inputs: &[Parsed]) -> RecordRules {
        // (w, k) → Some((lo, hi)) while every value there is an integer not a count.
        let mut ranges: BTreeMap<Place, Option<(i64, i64)>> = BTreeMap::new();
        // (w, k) → the counts seen there (other lines of that width may hold values).
        let mut count_ranges: BTreeMap<Place, Option<(i64, i64)>> = BTreeMap::new();
        // (w, k) → (comparisons, never falls, rises once, runs)
        let mut order: BTreeMap<Place, (usize, bool, bool, usize)> = BTreeMap::new();
        let mut base: Option<Option<i64>> = None;
        // Permutation lines of three numbers or more, and whether one of them is not sorted: a
        // sample's `1 2 3 4 5` alone is most likely an array that happens to be one.
        // One shuffled line of four numbers or more is evidence enough (a hand-written array
        // is rarely exactly `1..=n`; the next permutation of `3 1 4 2`, the cycles of `2 4 1 3`).
        let (mut wide_permutations, mut shuffled, mut long_shuffled) = (0, false, false);
        let mut pairs: Vec<&Vec<Token>> = Vec::new();
        for p in inputs {
            let counts = super::count_places(&p.links());
            let widths = record_widths(p);
            for (l, line) in p.lines.iter().enumerate().skip(1) {
                if widths.contains(&line.len()) {
                    for (k, t) in line.iter().enumerate() {
                        let e = ranges
                            .entry((line.len(), k))
                            .or_insert(Some((i64::MAX, i64::MIN)));
                        *e = match (*e, t) {
                            (Some((lo, hi)), Token::Int(v)) if !counts.contains(&(l, k)) => {
                                Some((lo.min(*v), hi.max(*v)))
                            }
                            _ => None,
                        };
                        if counts.contains(&(l, k)) {
                            let e = count_ranges
                                .entry((line.len(), k))
                                .or_insert(Some((i64::MAX, i64::MIN)));
                            *e = match (*e, t) {
                                (Some((lo, hi)), Token::Int(v)) => Some((lo.min(*v), hi.max(*v))),
                                _ => None,
                            };
                        }
                    }
                }
                let ints = line.len() >= 2 && line.iter().all(|t| matches!(t, Token::Int(_)));
                if ints && line.len() == 2 {
                    pairs.push(line);
                } else if ints {
                    let b = [1, 0].into_iter().find(|&b| is_permutation(line, b));
                    base = match base {
                        None => Some(b),
                        Some(prev) if prev == b => Some(b),
                        Some(_) => Some(None),
                    };
                    if b.is_some() {
                        wide_permutations += 1;
                        let unsorted = line
                            .windows(2)
                            .any(|w| matches!(w, [Token::Int(x), Token::Int(y)] if x > y));
                        shuffled |= unsorted;
                        long_shuffled |= unsorted && line.len() >= 4;
                    }
                }
            }
            for (start, end) in runs(p) {
                let Some(rows) = p.lines.get(start..end) else {
                    continue;
                };
                let width = rows.first().map_or(0, Vec::len);
                for k in 0..width {
                    order.entry((width, k)).or_insert((0, true, false, 0)).3 += 1;
                }
                for pair in rows.windows(2) {
                    let [a, b] = pair else { continue };
                    for (k, (x, y)) in a.iter().zip(b).enumerate() {
                        let e = order.entry((a.len(), k)).or_insert((0, true, false, 0));
                        match (x, y) {
                            (Token::Int(x), Token::Int(y)) => {
                                e.0 += 1;
                                e.1 &= x <= y;
                                e.2 |= x < y;
                            }
                            _ => e.1 = false,
                        }
                    }
                }
                for &(_, k) in counts.iter().filter(|(l, _)| (start..end).contains(l)) {
                    if let Some(e) = order.get_mut(&(width, k)) {
                        e.1 = false;
                    }
                }
            }
        }
        let permutation_base = base
            .flatten()
            .filter(|_| (wide_permutations >= 2 && shuffled) || long_shuffled);
        let mut sorted: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for ((w, k), (comparisons, never_falls, rises, runs)) in order {
            if (comparisons >= 4 || (comparisons >= 3 && runs >= 2)) && never_falls && rises {
                sorted.entry(w).or_default().push(k);
            }
        }
        let widen_all = |ranges: BTreeMap<Place, Option<(i64, i64)>>| {
            ranges
                .into_iter()
                .filter_map(|(place, r)| {
                    r.filter(|(lo, hi)| lo <= hi)
                        .map(|(lo, hi)| (place, widened(lo, hi)))
                })
                .collect()
        };
        RecordRules {
            ranges: widen_all(ranges),
            count_ranges: widen_all(count_ranges),
            sorted,
            permutation_base,
            pairs_permuted: permutation_base
                .is_some_and(|b| pairs.iter().all(|l| is_permutation(l, b))),
            keyed: keyed_lines(inputs),
        }
    }

    /// Where lines are keyed ([`keyed_lines`]), gives each line that repeats an earlier line's
    /// key a new one from `rename` (a few tries; a key no try makes new stays).
    pub(super) fn keep_keys(&self, p: &mut Parsed, mut rename: impl FnMut(&str) -> String) {
        if !self.keyed {
            return;
        }
        let lines: Vec<usize> = named_lines(p).into_iter().map(|(l, _)| l).collect();
        let mut seen: BTreeSet<String> = BTreeSet::new();
        for l in lines {
            let Some(Token::Word(w)) = p.lines.get_mut(l).and_then(|line| line.first_mut()) else {
                continue;
            };
            for _ in 0..20 {
                if !seen.contains(w.as_str()) {
                    break;
                }
                *w = rename(w);
            }
            seen.insert(w.clone());
        }
    }

    /// Sets the range of a record column that holds one (a domain a probe found).
    pub(super) fn set_range(&mut self, column: Place, range: (i64, i64)) {
        if let Some(r) = self.ranges.get_mut(&column) {
            *r = range;
        }
    }

    /// The range a count at token `k` of a record line of `width` tokens stays within, where
    /// the task's records hold counts there.
    pub(super) fn count_range(&self, width: usize, k: usize) -> Option<(i64, i64)> {
        self.count_ranges.get(&(width, k)).copied()
    }

    /// Brings each integer of a record column (on a line after the first, not one of `counts`)
    /// back within the column's widened range.
    pub(super) fn clamp(&self, p: &mut Parsed, counts: &BTreeSet<(usize, usize)>) {
        for (l, line) in p.lines.iter_mut().enumerate().skip(1) {
            let width = line.len();
            for (k, t) in line.iter_mut().enumerate() {
                if let (Some(&(lo, hi)), Token::Int(v)) = (self.ranges.get(&(width, k)), t) {
                    if !counts.contains(&(l, k)) {
                        *v = (*v).clamp(lo, hi);
                    }
                }
            }
        }
    }

    /// Makes each line of two integers or more after the first a permutation again where the
    /// task's lines all are: each value replaced by its rank (ties by place), so that the
    /// mutated pattern (`1 2 5 4 3`) is kept.
    pub(super) fn permute(&self, p: &mut Parsed) {
        let Some(base) = self.permutation_base else {
            return;
        };
        for line in p.lines.iter_mut().skip(1) {
            let wide_enough = |v: &Vec<i64>| v.len() >= 3 || (v.len() == 2 && self.pairs_permuted);
            let Some(values) = super::ints(line).filter(wide_enough) else {
                continue;
            };
            if is_permutation(line, base) {
                continue;
            }
            let mut order: Vec<usize> = (0..values.len()).collect();
            order.sort_by_key(|&i| (values.get(i).copied(), i));
            for (rank, i) in order.into_iter().enumerate() {
                if let Some(t) = line.get_mut(i) {
                    *t = Token::Int(base.saturating_add(rank as i64));
                }
            }
        }
    }

    /// Sorts each run of records (stably, whole lines) by the columns the task's runs of that
    /// width are sorted by; a run holding one of `counts` is left as it is.
    pub(super) fn sort(&self, p: &mut Parsed, counts: &BTreeSet<(usize, usize)>) {
        for (start, end) in runs(p) {
            if counts.iter().any(|&(l, _)| (start..end).contains(&l)) {
                continue;
            }
            let Some(rows) = p.lines.get_mut(start..end) else {
                continue;
            };
            let Some(columns) = rows.first().and_then(|r| self.sorted.get(&r.len())) else {
                continue;
            };
            rows.sort_by_key(|r| {
                columns
                    .iter()
                    .map(|&k| match r.get(k) {
                        Some(Token::Int(v)) => *v,
                        _ => i64::MIN,
                    })
                    .collect::<Vec<i64>>()
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(inputs: &[&str]) -> RecordRules {
        let parsed: Vec<Parsed> = inputs.iter().map(|s| Parsed::of(s)).collect();
        RecordRules::of(&parsed)
    }

    #[test]
    fn keys_seen_distinct_in_four_lines_stay_distinct() {
        let keyed = rules(&[
            "4\nA1 = 5\nB2 = A1 + 3\nA10 = 7\nA2 = 1\n",
            "2\nZ9 = 0\nC3 = Z9\n",
        ]);
        let mut p = Parsed::of("3\nA1 = 5\nA1 = 6\nA1 = 7\n");
        let mut next = 0;
        keyed.keep_keys(&mut p, |w| {
            next += 1;
            format!("{w}{next}")
        });
        let keys: BTreeSet<&str> = named_lines(&p).into_iter().map(|(_, w)| w).collect();
        assert_eq!(keys.len(), 3, "{}", p.render());
        // Three names are chance, and words that lead lines of two inputs are commands.
        for inputs in [
            &["3\nalice 5\nbob 6\ncarol 7\n"][..],
            &["4\npush 1\npop\ntop\nsize\n", "2\npush 2\npop\n"],
        ] {
            let mut p = Parsed::of("2\nx 1\nx 2\n");
            rules(inputs).keep_keys(&mut p, |w| format!("{w}y"));
            assert_eq!(p.render(), "2\nx 1\nx 2\n");
        }
    }

    #[test]
    fn a_column_of_small_values_stays_near_them() {
        let r = rules(&["4\n1 20 5\n10 99 9\n1 1000000000000000000 1\n123 4567 11\n"]);
        // K shows 1..=11: widened to 1..=16; R keeps its huge range.
        assert_eq!(r.ranges.get(&(3, 2)), Some(&(1, 16)));
        let mut p = Parsed::of("2\n0 2 1000000000000000000\n5 7 3\n");
        r.clamp(&mut p, &BTreeSet::new());
        assert_eq!(p.render(), "2\n1 2 16\n5 7 3\n");
    }

    #[test]
    fn records_sorted_by_a_column_are_sorted_again() {
        let r = rules(&["6 2\n0 5\n1 3\n2 4\n2 1\n4 2\n10 1\n"]);
        assert_eq!(r.sorted.get(&2), Some(&vec![0]));
        let mut p = Parsed::of("3 2\n0 5\n10 1\n2 4\n");
        r.sort(&mut p, &BTreeSet::new());
        assert_eq!(p.render(), "3 2\n0 5\n2 4\n10 1\n");
        // Four records in a row are no evidence of an order.
        assert!(rules(&["4\n1 5\n2 4\n3 9\n5 1\n"]).sorted.is_empty());
    }

    #[test]
    fn pairs_beside_a_permutation_are_left_as_they_are() {
        // A permutation, then swaps `i j` of places.
        let r = rules(&["5\n3 1 5 2 4\n2\n1 3\n2 5\n"]);
        assert_eq!((r.permutation_base, r.pairs_permuted), (Some(1), false));
        let mut p = Parsed::of("5\n2 1 5 1 4\n2\n2 3\n3 5\n");
        r.permute(&mut p);
        assert_eq!(p.render(), "5\n3 1 5 2 4\n2\n2 3\n3 5\n");
        // Pairs that are permutations themselves are kept so.
        let r = rules(&["3\n4\n2 4 1 3\n2\n2 1\n3\n3 1 2\n"]);
        assert!(r.pairs_permuted);
    }

    #[test]
    fn permutation_lines_stay_permutations_with_their_pattern() {
        let r = rules(&["4\n3\n3 1 2\n3\n2 3 1\n5\n4 1 3 2 5\n1\n1\n"]);
        assert_eq!(r.permutation_base, Some(1));
        let mut p = Parsed::of("1\n4\n7 2 2 9\n");
        r.permute(&mut p);
        assert_eq!(p.render(), "1\n4\n3 1 2 4\n");
        // One shuffled line of four or more is evidence; one of three, or sorted ones, or lines
        // that are not all permutations are not.
        assert_eq!(rules(&["5\n3 1 4 5 2\n"]).permutation_base, Some(1));
        assert_eq!(rules(&["3\n3 1 2\n"]).permutation_base, None);
        assert_eq!(rules(&["2\n3 1 2\n5 5 1\n"]).permutation_base, None);
        assert_eq!(rules(&["2\n1 2 3\n1 2 3 4\n"]).permutation_base, None);
        assert_eq!(rules(&["2\n3 1 2 4\n5 5 1 2\n"]).permutation_base, None);
    }
}
