//! Inputs of `T` cases whose lengths vary: a first line holding only `T`, then `T` cases, each
//! a header line of integers, a fixed number of lines (none or one), and as many lines as one
//! token of its header says (`3` over cases of `n m` and `m` edges). Read as one input, a
//! case's lines index nothing of the first line (which holds only `T`), so an edge's ends were
//! edited within the range the whole input shows: vertex 0 in a graph counted from 1, where
//! accepted solutions part. Here each case is edited and judged as an input of its own, by a
//! model of the task's cases, where its ends index its own `n`; cases are added, dropped and
//! copied with `T` kept equal to their number.
//!
//! Cases of one length are read so too where each counts two lines or more (`2` over two cases
//! of `3 3` and three edges: the same vertex 0 came of reading them as one input); other cases
//! of one length are [`super::Link::Cases`]'s, read within the whole input.

use super::{InputModel, MAX_COUNT};
use rand::Rng;
use std::collections::BTreeSet;
use std::ops::Range;

/// Where a case's length is written: its header has `width` integers, token `tok` of which
/// counts the lines after the `pre` lines that follow the header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Layout {
    width: usize,
    tok: usize,
    pre: usize,
}

/// The integers of `line`, when it holds only integers.
fn ints(line: &str) -> Option<Vec<i64>> {
    line.split_whitespace().map(|t| t.parse().ok()).collect()
}

impl Layout {
    /// The lines (past the first) of each case of `lines`, when they split into exactly the
    /// first line's count of cases of this layout.
    fn split(&self, lines: &[&str]) -> Option<Vec<Range<usize>>> {
        let t = match ints(lines.first()?)?.as_slice() {
            [t] => usize::try_from(*t)
                .ok()
                .filter(|&t| t >= 1 && t < lines.len())?,
            _ => return None,
        };
        let mut out = Vec::with_capacity(t);
        let mut at = 1;
        for _ in 0..t {
            let end = self.case_end(lines, at)?;
            out.push(at..end);
            at = end;
        }
        (at == lines.len()).then_some(out)
    }

    /// Past the last line of the case whose header is line `at` of `lines`.
    fn case_end(&self, lines: &[&str], at: usize) -> Option<usize> {
        let header = ints(lines.get(at)?)?;
        if header.len() != self.width {
            return None;
        }
        let n = usize::try_from(*header.get(self.tok)?).ok()?;
        let end = at.checked_add(1 + self.pre)?.checked_add(n)?;
        (end <= lines.len()).then_some(end)
    }

    /// Whether `case` is one whole case of this layout.
    fn is_case(&self, case: &str) -> bool {
        let lines: Vec<&str> = case.lines().collect();
        self.case_end(&lines, 0) == Some(lines.len())
    }

    /// Whether every counted line of `case` holds as many tokens as the case counts lines (the
    /// rows of a square matrix of side `n`).
    fn is_square(&self, lines: &[&str], case: &Range<usize>) -> bool {
        let body = lines
            .get(case.start + 1 + self.pre..case.end)
            .unwrap_or_default();
        !body.is_empty()
            && body
                .iter()
                .all(|l| l.split_whitespace().count() == body.len())
    }

    /// The widths of the counted lines of `case` (after its header and its `pre` lines).
    fn body_widths(&self, lines: &[&str], case: &Range<usize>) -> BTreeSet<usize> {
        lines
            .get(case.start + 1 + self.pre..case.end)
            .unwrap_or_default()
            .iter()
            .map(|l| l.split_whitespace().count())
            .collect()
    }
}

/// The text of `lines`, each ended by a newline.
fn text(lines: &[&str]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The cases of a task's inputs (see the module's doc) and the model of their own inputs.
#[derive(Debug, Clone)]
pub(super) struct Cases {
    layout: Layout,
    /// Tokens on each counted line: one width, or (`None`) as many as the case counts lines
    /// (a square matrix of side `n`): the evidence that they are cases.
    line_width: Option<usize>,
    model: Box<InputModel>,
}

impl Cases {
    /// The cases every one of `inputs` splits into, with the evidence that they are cases:
    /// more than one in some input, of two lengths or more, their counted lines of one width.
    pub(super) fn of(inputs: &[&str]) -> Option<Cases> {
        let all: Vec<Vec<&str>> = inputs.iter().map(|i| i.lines().collect()).collect();
        let width = ints(all.first()?.get(1)?)?.len();
        // No line between a header and what it counts is the simpler reading, tried first for
        // every token: `3 3` over edges, then `4 3`, splits as well into cases of `n` plus a
        // line (`3 3` and `4 3` as headers' bodies) by chance.
        for pre in 0..=1 {
            for tok in 0..width {
                let layout = Layout { width, tok, pre };
                let Some(splits) = all
                    .iter()
                    .map(|lines| layout.split(lines))
                    .collect::<Option<Vec<_>>>()
                else {
                    continue;
                };
                let many = splits.iter().any(|s| s.len() >= 2);
                let lengths: BTreeSet<usize> = splits.iter().flatten().map(Range::len).collect();
                let widths: BTreeSet<usize> = all
                    .iter()
                    .zip(&splits)
                    .flat_map(|(lines, s)| s.iter().flat_map(|c| layout.body_widths(lines, c)))
                    .collect();
                // Cases of one length are read here too where each counts two lines or more
                // (`3 3` over three edges): a count of 0 or 1 lines matches by chance.
                let counted = lengths
                    .first()
                    .is_some_and(|&shortest| shortest >= 1 + pre + 2);
                // Counted lines of two widths are cases where each case is a square matrix
                // (`2` over `2` and two rows of two, `3` and three rows of three).
                let square = widths.len() > 1
                    && all
                        .iter()
                        .zip(&splits)
                        .all(|(lines, s)| s.iter().all(|c| layout.is_square(lines, c)));
                if !many || (lengths.len() < 2 && !counted) || (widths.len() > 1 && !square) {
                    continue;
                }
                let line_width = match square {
                    true => None,
                    false => match widths.first() {
                        Some(&w) => Some(w),
                        None => continue,
                    },
                };
                let cases: Vec<String> = all
                    .iter()
                    .zip(&splits)
                    .flat_map(|(lines, s)| {
                        s.iter()
                            .map(|c| text(lines.get(c.clone()).unwrap_or_default()))
                    })
                    .collect();
                let model = InputModel::of(cases.iter().map(String::as_str));
                return Some(Cases {
                    layout,
                    line_width,
                    model: Box::new(model),
                });
            }
        }
        None
    }

    /// The cases of `input`, as texts, when it splits into them (else it is read as a whole).
    pub(super) fn cases_of(&self, input: &str) -> Option<Vec<String>> {
        let lines: Vec<&str> = input.lines().collect();
        let splits = self.layout.split(&lines)?;
        Some(
            splits
                .into_iter()
                .map(|c| text(lines.get(c).unwrap_or_default()))
                .collect(),
        )
    }

    /// `case` edited by the cases' model, when an edit keeps it one case whose counted lines
    /// keep their width (an edit that reads a counted line as something else is dropped).
    fn edit(&self, case: &str, rng: &mut impl Rng) -> Option<String> {
        (0..4).find_map(|_| self.model.mutate(case, rng).filter(|c| self.fits(c)))
    }

    /// Whether `case` is one case whose counted lines are of the task's width (or the rows of
    /// its square matrix).
    fn fits(&self, case: &str) -> bool {
        let lines: Vec<&str> = case.lines().collect();
        let all = 0..lines.len();
        self.layout.is_case(case)
            && match self.line_width {
                Some(width) => self
                    .layout
                    .body_widths(&lines, &all)
                    .iter()
                    .all(|&w| w == width),
                None => self.layout.is_square(&lines, &all),
            }
    }

    /// A large input of cases, as a judge's large tests are: half the time many cases
    /// (between half of `cap` and all of it), each an edit of one of `cases`; else one to
    /// three cases, each made large by the cases' model ([`InputModel::enlarge`] at `cap`).
    /// `None` where no case could be made large, or the input would pass 64 KiB.
    pub(super) fn enlarge(
        &self,
        cases: &[String],
        cap: usize,
        rng: &mut impl Rng,
    ) -> Option<String> {
        if cases.is_empty() {
            return None;
        }
        let made: Vec<String> = if rng.random_bool(0.5) {
            let t = rng.random_range(cap / 2..=cap).max(2);
            (0..t)
                .map(|_| {
                    let c = &cases[rng.random_range(0..cases.len())];
                    self.edit(c, rng).unwrap_or_else(|| c.clone())
                })
                .collect()
        } else {
            (0..rng.random_range(1..=3))
                .filter_map(|_| {
                    let c = &cases[rng.random_range(0..cases.len())];
                    self.model.enlarge(c, cap, rng).filter(|c| self.fits(c))
                })
                .collect()
        };
        if made.is_empty() {
            return None;
        }
        let out = format!("{}\n{}", made.len(), made.concat());
        (out.len() <= super::MAX_LARGE_INPUT).then_some(out)
    }

    /// A new input made from `base`, whose cases ([`Cases::cases_of`]) are `cases`, by one to
    /// three edits of its cases, or, one time in five, by many cases, each an edit of one of
    /// `base`'s.
    pub(super) fn mutate(
        &self,
        base: &str,
        mut cases: Vec<String>,
        rng: &mut impl Rng,
    ) -> Option<String> {
        if cases.is_empty() {
            return None;
        }
        if rng.random_ratio(1, 5) {
            let t = rng.random_range(cases.len().max(2)..=MAX_COUNT / 3);
            cases = (0..t)
                .map(|_| {
                    let c = &cases[rng.random_range(0..cases.len())];
                    self.edit(c, rng).unwrap_or_else(|| c.clone())
                })
                .collect();
        } else {
            for _ in 0..rng.random_range(1..=3) {
                let i = rng.random_range(0..cases.len());
                match rng.random_range(0..10) {
                    0..=5 => {
                        if let Some(c) = self.edit(&cases[i], rng) {
                            cases[i] = c;
                        }
                    }
                    6..=7 if cases.len() < MAX_COUNT => {
                        let c = cases[i].clone();
                        let copy = match rng.random_bool(0.5) {
                            true => self.edit(&c, rng).unwrap_or(c),
                            false => c,
                        };
                        cases.insert(rng.random_range(0..=cases.len()), copy);
                    }
                    _ if cases.len() >= 2 => {
                        cases.remove(i);
                    }
                    _ => {}
                }
            }
        }
        let mut out = format!("{}\n{}", cases.len(), cases.concat());
        if !base.ends_with('\n') {
            out.pop();
        }
        (out != base).then_some(out)
    }

    /// Whether an input's `cases` are a typical count and each lies within what the task's
    /// cases show ([`InputModel::within_observed`]).
    pub(super) fn within_observed(&self, cases: &[String]) -> bool {
        cases.len() <= MAX_COUNT && cases.iter().all(|c| self.model.within_observed(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    const GRAPHS: &str = "3\n3 2\n1 2\n2 3\n3 3\n1 2\n2 3\n3 1\n4 0\n";

    #[test]
    fn cases_of_varying_length_are_found_by_the_count_their_header_holds() {
        let c = Cases::of(&[GRAPHS]).expect("cases");
        assert_eq!(
            c.layout,
            Layout {
                width: 2,
                tok: 1,
                pre: 0
            }
        );
        assert_eq!(
            c.cases_of(GRAPHS).unwrap(),
            ["3 2\n1 2\n2 3\n", "3 3\n1 2\n2 3\n3 1\n", "4 0\n"]
        );
        // Cases of one length are the whole input's `Cases` link; one case shows no layout;
        // a count that does not end the input where its cases do is no case count.
        assert!(Cases::of(&["2\n3\n1 2 3\n2\n5 6\n"]).is_none());
        assert!(Cases::of(&["1\n3 2\n1 2\n2 3\n"]).is_none());
        assert!(Cases::of(&["3\n3 2\n1 2\n2 3\n3 3\n1 2\n2 3\n3 1\n4 0\n9\n"]).is_none());
    }

    #[test]
    fn a_large_input_of_cases_holds_many_cases_or_a_few_large_ones() {
        let c = Cases::of(&[GRAPHS]).expect("cases");
        let cases = c.cases_of(GRAPHS).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let (mut many, mut large) = (0, 0);
        for _ in 0..40 {
            let Some(new) = c.enlarge(&cases, 200, &mut rng) else {
                continue;
            };
            // Still `T` cases, each of the task's layout.
            let made = c.cases_of(&new).expect("still cases");
            assert!(made.iter().all(|case| c.fits(case)), "{new:?}");
            many += usize::from(made.len() >= 100);
            large += usize::from(made.len() <= 3 && made.iter().any(|x| x.lines().count() > 50));
            assert!(new.len() <= crate::adequacy::inputs::MAX_LARGE_INPUT);
        }
        assert!(many > 0 && large > 0, "{many} {large}");
    }

    #[test]
    fn each_case_is_edited_within_its_own_header() {
        let c = Cases::of(&[GRAPHS]).expect("cases");
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let (mut made, mut counts, mut new_n) = (0, BTreeSet::new(), false);
        for _ in 0..300 {
            let Some(new) = c.mutate(GRAPHS, c.cases_of(GRAPHS).unwrap(), &mut rng) else {
                continue;
            };
            made += 1;
            let cases = c.cases_of(&new).expect("still cases");
            counts.insert(cases.len());
            for case in cases {
                let rows: Vec<Vec<i64>> = case.lines().map(|l| ints(l).unwrap()).collect();
                let n = rows[0][0];
                // A header's size stays positive (`4 0` copied onto itself is no `0 0`).
                assert!(n >= 1, "{new}");
                new_n |= !(3..=4).contains(&n);
                for e in &rows[1..] {
                    assert!(e.iter().all(|v| (1..=n).contains(v)), "{new}");
                }
            }
        }
        assert!(made > 200, "{made}");
        assert!(counts.len() >= 4 && new_n, "{counts:?} {new_n}");
    }

    #[test]
    fn cases_of_one_length_that_count_their_lines_are_edited_each_on_its_own() {
        // Two cases of `n m` over three edges: read as one input, vertex 0 (the smallest
        // value the input's range reaches) came of an edit, where 1-based solutions part.
        let both = "2\n3 3\n1 2\n2 3\n3 1\n4 3\n1 2\n2 3\n3 4\n";
        let c = Cases::of(&[both]).expect("cases");
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let mut made = 0;
        for _ in 0..300 {
            let Some(new) = c.mutate(both, c.cases_of(both).unwrap(), &mut rng) else {
                continue;
            };
            made += 1;
            for case in c.cases_of(&new).expect("still cases") {
                let rows: Vec<Vec<i64>> = case.lines().map(|l| ints(l).unwrap()).collect();
                let n = rows[0][0];
                for e in &rows[1..] {
                    assert!(e.iter().all(|v| (1..=n).contains(v)), "{new}");
                }
            }
        }
        assert!(made > 200, "{made}");
        // A count of one line matches by chance: no layout.
        assert!(Cases::of(&["2\n1 5\n7\n1 6\n8\n"]).is_none());
    }

    /// Cases whose header counts the next line's tokens (`n`) and then lines (`q`): an array
    /// of `n`, then `q` queries `l r` with `1 ≤ l ≤ r ≤ n`.
    const QUERIES: &str = "3\n3 2\n5 1 4\n1 2\n2 3\n4 1\n2 7 1 8\n1 4\n3 3\n9 4 2\n1 1\n2 2\n3 3\n";

    #[test]
    fn cases_that_count_an_arrays_tokens_and_then_lines_are_edited_whole() {
        let c = Cases::of(&[QUERIES]).expect("cases");
        assert_eq!(
            c.layout,
            Layout {
                width: 2,
                tok: 1,
                pre: 1
            }
        );
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let (mut made, mut new_n) = (0, false);
        for _ in 0..300 {
            let Some(new) = c.mutate(QUERIES, c.cases_of(QUERIES).unwrap(), &mut rng) else {
                continue;
            };
            made += 1;
            for case in c.cases_of(&new).expect("still cases") {
                let rows: Vec<Vec<i64>> = case.lines().map(|l| ints(l).unwrap()).collect();
                let (n, q) = (rows[0][0], rows[0][1]);
                new_n |= !(3..=4).contains(&n);
                // The array holds `n` values and each query its own case's indices.
                assert_eq!(rows[1].len() as i64, n, "{new}");
                assert_eq!(rows.len() as i64 - 2, q, "{new}");
                for e in &rows[2..] {
                    assert!(e.iter().all(|v| (1..=n).contains(v)), "{new}");
                }
            }
        }
        assert!(made > 200 && new_n, "{made} {new_n}");
    }
}
