//! Inputs made of commands: after a header, each line is a code and its arguments (`1 x` pushes,
//! `2` pops, `4 k` sums the top k), the code fixing how many arguments follow. Such a line with
//! its code edited (`7 -3`) or its tokens shuffled (`2 4` from `4 2`) is no command the problem
//! knows, and solutions that read lines and ones that read tokens part on it; an argument that
//! every command of its code shows positive (`k ≥ 1`) stays positive.

use super::{ints, Index, Link, Parsed, Token};
use rand::Rng;
use std::collections::{BTreeMap, BTreeSet};

/// Largest value read as a command's code.
const MAX_CODE: i64 = 20;

/// One code: its line's width and, per argument, the smallest value seen there.
#[derive(Debug, Clone, PartialEq)]
struct Code {
    width: usize,
    lows: Vec<i64>,
}

/// The commands a task's inputs show.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Commands {
    codes: BTreeMap<i64, Code>,
}

impl Commands {
    /// The commands of `inputs`: where every line after the first of every input is a line
    /// of integers led by a code in `0..=20` that fixes its width, with two codes or more, of
    /// two widths or more, on more lines than there are codes, and no such line a count or
    /// counted by one (cases of a size and its array are no commands).
    pub(super) fn of(inputs: &[Parsed]) -> Option<Commands> {
        let mut codes: BTreeMap<i64, Code> = BTreeMap::new();
        let mut lines = 0;
        for p in inputs {
            let counted = counted_lines(p);
            for (l, line) in p.lines.iter().enumerate().skip(1) {
                if line.is_empty() {
                    continue;
                }
                let values = ints(line)?;
                let (code, args) = values.split_first()?;
                if !(0..=MAX_CODE).contains(code) || counted.contains(&l) {
                    return None;
                }
                let entry = codes.entry(*code).or_insert_with(|| Code {
                    width: line.len(),
                    lows: args.to_vec(),
                });
                if entry.width != line.len() {
                    return None;
                }
                for (low, v) in entry.lows.iter_mut().zip(args) {
                    *low = (*low).min(*v);
                }
                lines += 1;
            }
        }
        let widths: BTreeSet<usize> = codes.values().map(|c| c.width).collect();
        (codes.len() >= 2 && widths.len() >= 2 && lines > codes.len()).then_some(Commands { codes })
    }

    /// Whether every line after the first of `p` is a known code on a line of its width.
    pub(super) fn hold(&self, p: &Parsed) -> bool {
        p.lines
            .iter()
            .skip(1)
            .filter(|l| !l.is_empty())
            .all(|line| {
                ints(line).is_some_and(|v| {
                    v.first()
                        .and_then(|c| self.codes.get(c))
                        .is_some_and(|code| code.width == v.len())
                })
            })
    }

    /// Raises each argument that every command of its code shows at 1 or more (or at 0 or
    /// more) to that floor.
    pub(super) fn keep_floors(&self, p: &mut Parsed) {
        for line in p.lines.iter_mut().skip(1) {
            let Some(Token::Int(c)) = line.first() else {
                continue;
            };
            let Some(code) = self.codes.get(c) else {
                continue;
            };
            for (t, &low) in line.iter_mut().skip(1).zip(&code.lows) {
                if let Token::Int(v) = t {
                    if low >= 0 {
                        *v = (*v).max(low.min(1));
                    }
                }
            }
        }
    }

    /// Each code and its line's width.
    #[cfg(test)]
    pub(super) fn widths(&self) -> BTreeMap<i64, usize> {
        self.codes
            .iter()
            .map(|(c, code)| (*c, code.width))
            .collect()
    }
}

/// The lines of `p` that hold a count, or the tokens a count on the line before counts. A line
/// led by the count of its own tokens (`1 5`) may be a command, and so may one count of the
/// next line's tokens (`1 10` over `3`), which commands make by chance; two are a pattern
/// (cases of a size and its array).
fn counted_lines(p: &Parsed) -> BTreeSet<usize> {
    let links = p.links();
    let next_line = |l: &Link| {
        matches!(
            l,
            Link::TokensOnNext { .. } | Link::LengthOfNext { .. } | Link::GridWidth { .. }
        )
    };
    let patterned = links.iter().filter(|l| next_line(l)).count() >= 2;
    links
        .iter()
        .flat_map(|link| match *link {
            Link::TokensAfter { .. } => Vec::new(),
            l if next_line(&l) && !patterned => Vec::new(),
            l if next_line(&l) => vec![l.at().0, l.at().0 + 1],
            other => vec![other.at().0],
        })
        .collect()
}

/// Queries and updates after a header and an array: record lines of one width led by an
/// operation's code (`2 l r` asks, `1 i x` sets), where the lines before them are no commands
/// ([`Commands`] covers inputs of commands only). A code edited by a mutation (`3 2 5`) is no
/// operation the problem knows: one solution takes it for a query, another for an update.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct OpCodes {
    /// Per line width, the codes its lines are led by in the task's inputs.
    by_width: BTreeMap<usize, Vec<i64>>,
    /// Per width and code, the arguments that index a value of the first line (`l r` of a
    /// query, `i` of an update, not its new value `x`): each code's own, as
    /// [`Parsed::index_columns`] finds them among the lines of that code alone.
    indices: BTreeMap<(usize, i64), BTreeMap<(usize, usize), Index>>,
}

impl OpCodes {
    /// The codes `inputs` show: per width of three tokens or more, lines after the first led
    /// by an integer in `0..=20`, four lines or more, of two or three codes that each lead
    /// half the lines or fewer, and fewer codes than second values (a column of vertices
    /// `1 2 4`, `3 2 2`, … is as varied as the one beside it). `trees`: the task's edge lines
    /// are a tree's, whose first column is a vertex.
    pub(super) fn of(inputs: &[Parsed], trees: bool) -> OpCodes {
        if trees {
            return OpCodes::default();
        }
        // width → (codes, second values, lines)
        let mut seen: BTreeMap<usize, (BTreeSet<i64>, BTreeSet<String>, usize)> = BTreeMap::new();
        let mut invalid: BTreeSet<usize> = BTreeSet::new();
        for p in inputs {
            for line in p.lines.iter().skip(1).filter(|l| l.len() >= 3) {
                let e = seen.entry(line.len()).or_default();
                match line.first() {
                    Some(Token::Int(c)) if (0..=MAX_CODE).contains(c) => {
                        e.0.insert(*c);
                    }
                    _ => {
                        invalid.insert(line.len());
                    }
                }
                if let Some(t) = line.get(1) {
                    e.1.insert(t.render());
                }
                e.2 += 1;
            }
        }
        let by_width = seen
            .into_iter()
            .filter(|(w, (codes, seconds, lines))| {
                !invalid.contains(w)
                    && *lines >= 4
                    && (2..=3).contains(&codes.len())
                    && codes.len() * 2 <= *lines
                    && codes.len() < seconds.len()
            })
            .map(|(w, (codes, _, _))| (w, codes.into_iter().collect::<Vec<i64>>()))
            .collect::<BTreeMap<_, _>>();
        let mut indices = BTreeMap::new();
        for (&w, codes) in &by_width {
            for &c in codes {
                // The first line and this code's lines, each twice: one `1 4 10` is evidence
                // enough that its `4` indexes (records are lines of a width seen twice).
                let own: Vec<Parsed> = inputs
                    .iter()
                    .map(|p| {
                        let mut lines: Vec<Vec<Token>> = p.lines.iter().take(1).cloned().collect();
                        for line in p.lines.iter().skip(1) {
                            if line.len() == w && line.first() == Some(&Token::Int(c)) {
                                lines.push(line.clone());
                                lines.push(line.clone());
                            }
                        }
                        Parsed {
                            lines,
                            ..Parsed::of("")
                        }
                    })
                    .collect();
                let mut found = Parsed::index_columns(&own);
                found.retain(|&(width, k), _| width == w && k > 0);
                indices.insert((w, c), found);
            }
        }
        OpCodes { by_width, indices }
    }

    /// Whether lines of `width` are led by a code.
    pub(super) fn covers(&self, width: usize) -> bool {
        self.by_width.contains_key(&width)
    }

    /// Puts a known code back at the head of each line of a coded width after the first
    /// whose code a mutation changed, except on `values` (lines a count before them counts
    /// the tokens of: an array that a resize gave a coded width).
    pub(super) fn keep(&self, p: &mut Parsed, values: &BTreeSet<usize>, rng: &mut impl Rng) {
        for (l, line) in p.lines.iter_mut().enumerate().skip(1) {
            let Some(codes) = self.by_width.get(&line.len()) else {
                continue;
            };
            if values.contains(&l) {
                continue;
            }
            let known = matches!(line.first(), Some(Token::Int(c)) if codes.contains(c));
            if let (false, Some(first)) = (known, line.first_mut()) {
                if let Some(&c) = codes.get(rng.random_range(0..codes.len().max(1))) {
                    *first = Token::Int(c);
                }
            }
        }
        let header = p.header();
        for (l, line) in p.lines.iter_mut().enumerate().skip(1) {
            let Some(Token::Int(c)) = line.first() else {
                continue;
            };
            let Some(own) = self
                .indices
                .get(&(line.len(), *c))
                .filter(|_| !values.contains(&l))
            else {
                continue;
            };
            let width = line.len();
            for (k, t) in line.iter_mut().enumerate().skip(1) {
                let (Some(ix), Token::Int(v)) = (own.get(&(width, k)), &mut *t) else {
                    continue;
                };
                if let Some((lo, hi)) = header
                    .get(ix.place)
                    .copied()
                    .flatten()
                    .and_then(|h| ix.bounds(h))
                {
                    *v = (*v).clamp(lo, hi);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn codes_of_queries_are_found_and_put_back() {
        let ops = [Parsed::of(
            "5 5\n4 2 7 1 9\n2 1 3\n2 2 5\n1 4 10\n2 3 5\n2 4 4\n",
        )];
        let codes = OpCodes::of(&ops, false);
        assert_eq!(codes.by_width.get(&3), Some(&vec![1, 2]));
        let mut p = Parsed::of("5 6\n4 2 7 1 9\n2 1 3\n9 2 5\n1 4 10\n");
        let mut rng = rand::rngs::StdRng::seed_from_u64(0);
        codes.keep(&mut p, &BTreeSet::new(), &mut rng);
        assert!(
            matches!(p.lines[3][0], Token::Int(1 | 2)),
            "{:?}",
            p.lines[3]
        );
        // Each code's indices stay within the array, and an update's value does not need to.
        let mut p = Parsed::of("4 2\n4 2 7 1\n2 3 9\n1 7 10\n");
        codes.keep(&mut p, &BTreeSet::new(), &mut rng);
        assert_eq!(ints(&p.lines[2]), Some(vec![2, 3, 4]));
        // Counted from 1 (1 seen, 0 never), so the top is an index too.
        assert_eq!(ints(&p.lines[3]), Some(vec![1, 4, 10]));
        // An array of the coded width that a count counts keeps its values.
        let mut p = Parsed::of("3 1\n7 8 9\n2 1 3\n");
        codes.keep(&mut p, &BTreeSet::from([1]), &mut rng);
        assert_eq!(p.lines[1][0], Token::Int(7));
        // Edges of a weighted graph: their first column is as varied as the second; a tree's
        // edges are no operations.
        let graph = [Parsed::of(
            "5 6\n1 2 4\n1 3 1\n3 2 2\n2 4 5\n4 1 1\n3 4 10\n",
        )];
        assert!(OpCodes::of(&graph, false).by_width.is_empty());
        assert!(OpCodes::of(&ops, true).by_width.is_empty());
    }
}
