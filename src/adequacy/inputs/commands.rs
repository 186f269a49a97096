//! Inputs made of commands: after a header, each line is a code and its arguments (`1 x` pushes,
//! `2` pops, `4 k` sums the top k), the code fixing how many arguments follow. Such a line with
//! its code edited (`7 -3`) or its tokens shuffled (`2 4` from `4 2`) is no command the problem
//! knows, and solutions that read lines and ones that read tokens part on it; an argument that
//! every command of its code shows positive (`k ≥ 1`) stays positive.

use super::{ints, Link, Parsed, Token};
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
