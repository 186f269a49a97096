//! Reading counts: which token of an input counts what (the next line's tokens, the lines
//! after it, a word's length, a grid's rows, cases), as one input's layout shows it. The
//! model ([`super::InputModel::links_of`]) settles these readings against every input of the
//! task.

use super::*;

/// A count in an input and what it counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Link {
    /// Token `tok` of `line` is the number of tokens on the next line.
    TokensOnNext { line: usize, tok: usize },
    /// Token `tok` of `line` is the number of tokens on the line after the next, whose tokens
    /// another token of `line` counts (`n m` over n greeds, then m cookie sizes).
    TokensOnSecond { line: usize, tok: usize },
    /// Token `tok` of `line` is the number of lines after it.
    LinesAfter { line: usize, tok: usize },
    /// Token `tok` of `line` is the number of lines after the next one, whose tokens another
    /// token of `line` counts (`n q` over n values, then q queries).
    QueriesAfter { line: usize, tok: usize },
    /// Token `tok` of `line` is the length of the next line's only word.
    LengthOfNext { line: usize, tok: usize },
    /// Token `tok` of `line` is the width of the grid that starts on the next line.
    GridWidth { line: usize, tok: usize },
    /// The first token of `line` is the number of tokens after it on the line (`3 10H 5C 9D`).
    TokensAfter { line: usize, tok: usize },
    /// Token `tok` of `line` is the number of cases after it, each `per` lines long (`3` over
    /// three pairs of a count line and its numbers).
    Cases { line: usize, tok: usize, per: usize },
    /// Token `tok` of `line` is the number of rows of the grid that starts on the next line,
    /// with lines after the grid (`3 4` over three rows, then moves).
    GridRows { line: usize, tok: usize },
    /// Token `tok` of `line` is the number of tokens on each of the `rows` lines after it (a
    /// matrix's width: `3 2` over three rows of two numbers); resized with every row of that
    /// width that follows it then (a resize of the row count may have added rows).
    Width {
        line: usize,
        tok: usize,
        rows: usize,
    },
    /// Token `tok` of `line` is the number of rows after it whose width token `width_tok` of
    /// `line` gives, with lines after the rows (`2 3` over two rows of three, then `k`).
    Rows {
        line: usize,
        tok: usize,
        width_tok: usize,
    },
    /// Token `tok` of `line` is the number of lines after it but the last `tail` (`q` over q
    /// values, then the modulus), as every input of the task shows ([`tail_counts`]).
    LinesBefore {
        line: usize,
        tok: usize,
        tail: usize,
        shape: TailShape,
    },
}

/// How the lines a [`Link::LinesBefore`] counts are resized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum TailShape {
    /// Lines of any width: they are dropped or copied.
    Lines,
    /// `n` rows of `n` (a square matrix before its exponent): rows and widths together.
    Square,
    /// `n` rows of `n` at one size only: a square, or records as wide as their count by
    /// chance. The count stays.
    Unsure,
}

/// What a [`Link`] counts, without where it is: a base's reading of a first-line count is
/// compared with the task's by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum LinkKind {
    TokensOnNext,
    TokensOnSecond,
    LinesAfter,
    QueriesAfter,
    LengthOfNext,
    GridWidth,
    TokensAfter,
    Cases,
    GridRows,
    Width,
    Rows,
    LinesBefore,
}

impl LinkKind {
    /// Whether [`Parsed::read_as`] reads a count as this kind.
    pub(super) fn readable(self) -> bool {
        matches!(
            self,
            LinkKind::TokensOnNext
                | LinkKind::TokensOnSecond
                | LinkKind::LinesAfter
                | LinkKind::LengthOfNext
                | LinkKind::QueriesAfter
                | LinkKind::Width
                | LinkKind::Rows
                | LinkKind::Cases
        )
    }
}

impl Link {
    pub(super) fn kind(self) -> LinkKind {
        match self {
            Link::TokensOnNext { .. } => LinkKind::TokensOnNext,
            Link::TokensOnSecond { .. } => LinkKind::TokensOnSecond,
            Link::LinesAfter { .. } => LinkKind::LinesAfter,
            Link::QueriesAfter { .. } => LinkKind::QueriesAfter,
            Link::LengthOfNext { .. } => LinkKind::LengthOfNext,
            Link::GridWidth { .. } => LinkKind::GridWidth,
            Link::TokensAfter { .. } => LinkKind::TokensAfter,
            Link::Cases { .. } => LinkKind::Cases,
            Link::GridRows { .. } => LinkKind::GridRows,
            Link::Width { .. } => LinkKind::Width,
            Link::Rows { .. } => LinkKind::Rows,
            Link::LinesBefore { .. } => LinkKind::LinesBefore,
        }
    }

    pub(super) fn at(self) -> (usize, usize) {
        match self {
            Link::TokensOnNext { line, tok }
            | Link::TokensOnSecond { line, tok }
            | Link::LinesAfter { line, tok }
            | Link::QueriesAfter { line, tok }
            | Link::LengthOfNext { line, tok }
            | Link::GridWidth { line, tok }
            | Link::TokensAfter { line, tok }
            | Link::Cases { line, tok, .. }
            | Link::GridRows { line, tok }
            | Link::Width { line, tok, .. }
            | Link::Rows { line, tok, .. }
            | Link::LinesBefore { line, tok, .. } => (line, tok),
        }
    }

    /// The line whose tokens, all of them, this count counts (the next line, or the one after
    /// it for a header's second list); `None` for counts of anything else.
    pub(super) fn counted_line(self) -> Option<usize> {
        match self {
            Link::TokensOnNext { line, .. } => Some(line + 1),
            Link::TokensOnSecond { line, .. } => Some(line + 2),
            _ => None,
        }
    }
}

impl Parsed {
    /// The number of lines of each case when the lines after `line` split into `n` cases of
    /// one layout (two lines or more each): the cases' first lines are of one shape (numbers
    /// and words at the same places, one number at least), and the lines at each place of a
    /// case are all numbers or all words.
    pub(super) fn cases_after(&self, line: usize, n: usize) -> Option<usize> {
        let after = self.lines.len().checked_sub(line + 1)?;
        if n < 2 || after % n != 0 || after / n < 2 {
            return None;
        }
        let per = after / n;
        let cases: Vec<&[Vec<Token>]> = self.lines.get(line + 1..)?.chunks(per).collect();
        let numbers = |l: &Vec<Token>| l.iter().all(|t| matches!(t, Token::Int(_)));
        let first = cases.first()?;
        // Heads of one shape that holds a number: `3 4`, or a mode and a size (`normal 3`).
        let shape = |l: &Vec<Token>| -> Vec<bool> {
            l.iter().map(|t| matches!(t, Token::Int(_))).collect()
        };
        let head_shape = first.first().map(shape)?;
        let heads_agree = head_shape.contains(&true)
            && cases
                .iter()
                .all(|c| c.first().map(shape).as_ref() == Some(&head_shape));
        let places_agree = (1..per).all(|j| {
            let kind = first.get(j).map(numbers);
            cases.iter().all(|c| c.get(j).map(numbers) == kind)
        });
        (heads_agree && places_agree).then_some(per)
    }

    /// How many lines after `line` in a row have `n` tokens each.
    pub(super) fn rows_of_width(&self, line: usize, n: usize) -> usize {
        self.lines
            .iter()
            .skip(line + 1)
            .take_while(|r| r.len() == n)
            .count()
    }

    /// Token `tok` of `line` read as a count of `kind`, when what follows it fits that reading
    /// (only the kinds a first line's count is read as: tokens of the next line, lines after
    /// it, rows' width, rows with lines after them, cases; a lone case is all the lines after
    /// it).
    pub(super) fn read_as(&self, kind: LinkKind, line: usize, tok: usize) -> Option<Link> {
        let n = match self.lines.get(line)?.get(tok)? {
            Token::Int(v) => usize::try_from(*v).ok().filter(|&n| n >= 1)?,
            _ => return None,
        };
        let after = self.lines.len() - line - 1;
        match kind {
            LinkKind::TokensOnNext => {
                (self.lines.get(line + 1)?.len() == n).then_some(Link::TokensOnNext { line, tok })
            }
            LinkKind::TokensOnSecond => {
                (self.lines.get(line + 2)?.len() == n).then_some(Link::TokensOnSecond { line, tok })
            }
            LinkKind::LinesAfter => (after == n).then_some(Link::LinesAfter { line, tok }),
            // The next line's only token, a word or a string of digits, of length n.
            LinkKind::LengthOfNext => match self.lines.get(line + 1).map(Vec::as_slice) {
                Some([t @ (Token::Word(_) | Token::Int(0..))])
                    if t.render().chars().count() == n =>
                {
                    Some(Link::LengthOfNext { line, tok })
                }
                _ => None,
            },
            LinkKind::QueriesAfter => (after == n + 1).then_some(Link::QueriesAfter { line, tok }),
            // Rows to the end, or as many as another token of the line says (`1 60` over one
            // row of sixty, then the operations).
            LinkKind::Width => {
                let rows = self.rows_of_width(line, n);
                let to_end = line + 1 + rows == self.lines.len();
                (rows >= 1 && (to_end || self.other_token_is(line, tok, rows)))
                    .then_some(Link::Width { line, tok, rows })
            }
            // Rows of the width another token of the line gives, with lines after them.
            LinkKind::Rows => {
                let line_ints = ints(self.lines.get(line)?)?;
                let width_tok = line_ints.iter().enumerate().position(|(j, &w)| {
                    j != tok
                        && usize::try_from(w)
                            .is_ok_and(|w| w >= 1 && self.rows_of_width(line, w) == n)
                })?;
                (line + 1 + n < self.lines.len()).then_some(Link::Rows {
                    line,
                    tok,
                    width_tok,
                })
            }
            LinkKind::Cases => {
                let per = match n {
                    1 => Some(after).filter(|&a| a >= 2),
                    _ => self.cases_after(line, n),
                }?;
                Some(Link::Cases { line, tok, per })
            }
            _ => None,
        }
    }

    /// Whether a token of `line` other than `tok` is the integer `n`.
    pub(super) fn other_token_is(&self, line: usize, tok: usize, n: usize) -> bool {
        self.lines.get(line).is_some_and(|l| {
            l.iter().enumerate().any(|(j, t)| {
                j != tok && matches!(t, Token::Int(v) if usize::try_from(*v) == Ok(n))
            })
        })
    }

    /// Whether the lines after `line` are `n` rows of `n` numbers each (a square matrix).
    pub(super) fn square_after(&self, line: usize, n: usize) -> bool {
        let rows = self.lines.get(line + 1..).unwrap_or_default();
        rows.len() == n
            && rows.iter().all(|r| {
                r.len() == n
                    && r.iter()
                        .all(|t| matches!(t, Token::Int(_) | Token::Float(..)))
            })
    }

    /// The counts found in this input.
    pub(super) fn links(&self) -> Vec<Link> {
        let grids = self.grids();
        let mut out = Vec::new();
        // Lines led by the count of what follows them (`5 2 2 1 2 3`): with two of them, a
        // `1 7` among them is one too.
        let leading = self
            .lines
            .iter()
            .filter(|line| led_by_count(line) && line.len() >= 3)
            .count();
        // Widths of lines (after the first) that some line of does not start with the count of
        // what follows it: lines of such a width are records (`2 1 3` among `1 4 10`: a code
        // and two values), and a first value equal to their length is no count.
        let unled = unled_widths(self);
        // The rows of a matrix whose width a header gives hold values, not counts (`9 4 4 8`
        // over a row of four is no count of it).
        let mut matrix_rows = 0..0;
        let commands = self
            .lines
            .iter()
            .skip(1)
            .filter(|l| leads_with_word(l))
            .count()
            >= 2;
        for (l, line) in self.lines.iter().enumerate() {
            if matrix_rows.contains(&l) {
                continue;
            }
            // A line the line before counts the tokens of holds values, not counts: `4` over
            // `3 1 4 1`, `5 3` over `3 -1 4 2 5` (no header of a width 2 over rows of two).
            // Two tokens are too few to tell (`2` over a case's `n m`): only no count-led line.
            let counted = l > 0 && out.iter().any(|x: &Link| x.counted_line() == Some(l));
            if counted && line.len() >= 3 {
                continue;
            }
            // Among commands led by their words (`push 3`, `flip 2 4`, `get 2`), an argument
            // counts nothing: not the next command's tokens, a word's length or the lines left.
            // (A case's head, `misere 2` over `1 1`, is followed by its numbers.)
            let next_is_command = self
                .lines
                .get(l + 1)
                .is_none_or(|nx| matches!(nx.first(), Some(Token::Word(_))));
            if l >= 1 && commands && leads_with_word(line) && next_is_command {
                continue;
            }
            for (k, t) in line.iter().enumerate() {
                let Token::Int(n) = t else { continue };
                let Ok(n) = usize::try_from(*n) else { continue };
                if n == 0 {
                    continue;
                }
                // A line that starts with the count of what follows on it: `2 AS KD`
                // (`1 x` only before a word, or on a line of its own: `1 5` is more often
                // two numbers).
                let rest_words = line.iter().skip(1).any(|t| matches!(t, Token::Word(_)));
                if k == 0
                    && !counted
                    && line.len() == n + 1
                    && !unled.contains(&line.len())
                    && (n >= 2 || rest_words || leading >= 2 || self.lone_list_of_one(l))
                {
                    // What follows on the line is what it counts, not counts.
                    out.push(Link::TokensAfter { line: l, tok: k });
                    break;
                }
                // `n q` over n values (or a string of n): q counts no rows as wide (`3 3`
                // over two lists), and no string's length.
                let values_counted = out.iter().any(|x| {
                    matches!(x, Link::TokensOnNext { line, tok } | Link::LengthOfNext { line, tok }
                        if *line == l && *tok != k)
                });
                // A grid on the next line: its rows or its width.
                if let Some(g) = grids.iter().find(|g| g.start == l + 1) {
                    let width = self.rows(g).first().map(|r| r.chars().count());
                    if g.len() == n && g.end < self.lines.len() {
                        out.push(Link::GridRows { line: l, tok: k });
                        continue;
                    }
                    // A lone count of every line after it, some beyond the grid, counts the
                    // lines: six words of which four are as long as the count (`6` over
                    // `listen`, …, `google`, `cat`, `act`).
                    let counts_lines = line.len() == 1
                        && self.lines.len() - l - 1 == n
                        && g.end < self.lines.len();
                    if width == Some(n) && g.len() != n && !counts_lines {
                        out.push(Link::GridWidth { line: l, tok: k });
                        continue;
                    }
                }
                // The width of the rows after a header (`3 2` over rows of two numbers): not
                // its first number (rows come first: `2 5` over two pairs counts the pairs);
                // the rows run to the end of the input or their number is on the header too.
                // A line of the rows' own width after the first is one of them (`2 1 3` over
                // `2 2 5`, `1 4 10`: records), unless it also counts them.
                if k >= 1 && n >= 2 && !values_counted {
                    let rows = self.rows_of_width(l, n);
                    let to_end = l + 1 + rows == self.lines.len();
                    let counts_rows = |j: usize, t: &Token| {
                        matches!(t, Token::Int(r) if usize::try_from(*r) == Ok(rows)) && j != k
                    };
                    let counted = line
                        .iter()
                        .any(|t| matches!(t, Token::Int(r) if usize::try_from(*r) == Ok(rows)));
                    // Within a run of records as wide (`2 3 5` after `1 2 1`, over two more
                    // edges), a `2` equal to the rows left is chance, not their count.
                    let a_row = (line.len() == n && self.in_record_run(l))
                        || (l >= 1
                            && line.len() == n
                            && !line.iter().enumerate().any(|(j, t)| counts_rows(j, t)));
                    if rows >= 2 && (to_end || counted) && !a_row {
                        matrix_rows = l + 1..l + 1 + rows;
                        out.push(Link::Width {
                            line: l,
                            tok: k,
                            rows,
                        });
                        // The header's value that counts the rows, where lines follow them
                        // (to the end, the rows are the lines a count counts).
                        let rows_count = line.iter().enumerate().find_map(|(j, t)| {
                            (counts_rows(j, t) && !out.iter().any(|x| x.at() == (l, j)))
                                .then_some(j)
                        });
                        if let (false, Some(j)) = (to_end, rows_count) {
                            out.push(Link::Rows {
                                line: l,
                                tok: j,
                                width_tok: k,
                            });
                        }
                        continue;
                    }
                }
                if k == 0 && line.len() == 1 {
                    if let Some(per) = self.cases_after(l, n) {
                        out.push(Link::Cases {
                            line: l,
                            tok: k,
                            per,
                        });
                        continue;
                    }
                }
                let after = self.lines.len() - l - 1;
                let next = self.lines.get(l + 1);
                // A count that fits both the next line's tokens and the lines after it counts
                // the lines when those are alike (rows of a matrix, records), else the tokens
                // (`5` over `4 1 4 3 2`, then other cases).
                let rows_alike = self.lines.get(l + 1..).is_some_and(|rest| {
                    rest.iter().all(|r| Some(r.len()) == next.map(Vec::len))
                        || rest.iter().all(|r| led_by_count(r))
                });
                let tokens_fit = n >= 2
                    && next.is_some_and(|nx| {
                        nx.len() == n && nx.windows(2).all(|w| same_type(&w[0], &w[1]))
                    });
                // A count of 1 is taken as one only on a short line: "1\n5" is most often one
                // case or one element; if it is not, the keep rules drop what resizing makes.
                let short = line.len() <= 2;
                // A lone `1` over a last line of one token, after counts of the next line's
                // tokens (`3` over `3 1 2`, …, `1` over `1`): one more of those, not one line.
                let like_before = n == 1
                    && out.iter().any(|x| {
                        matches!(x, Link::TokensOnNext { line, .. }
                            if self.lines.get(*line).is_some_and(|c| c.len() == 1))
                    });
                // `n q` over n values, then q lines: q counts the lines after the values.
                if short && k >= 1 && values_counted && n + 1 == after {
                    out.push(Link::QueriesAfter { line: l, tok: k });
                    continue;
                }
                // `n m` over n values, then a line of m values of one type: a second list.
                let second = self
                    .lines
                    .get(l + 2)
                    .filter(|s| s.len() == n && s.windows(2).all(|w| same_type(&w[0], &w[1])));
                if short && k >= 1 && n >= 2 && values_counted && second.is_some() {
                    out.push(Link::TokensOnSecond { line: l, tok: k });
                    continue;
                }
                // `5 4` over a lone `3` and four records of three: the vertex count equals
                // the lines after by chance; a parameter line is no record of the others'.
                let lone_then_records = line.len() >= 2 && self.lone_then_records(l);
                if short
                    && n == after
                    && (n >= 2 || line.len() == 1)
                    && (rows_alike || !tokens_fit)
                    && !like_before
                    && !lone_then_records
                {
                    out.push(Link::LinesAfter { line: l, tok: k });
                    // Rows of one length that no count leads (a matrix) hold values, as do
                    // lines of one integer each (`4` over `1`, `9`, `10`, `36`: the `1` counts
                    // no token of the next line).
                    let rows = self.lines.get(l + 1..).unwrap_or_default();
                    let width = next.map_or(0, Vec::len);
                    let integers = rows.iter().all(|r| matches!(r.as_slice(), [Token::Int(_)]));
                    if (width >= 2 || integers)
                        && rows.iter().all(|r| r.len() == width)
                        && !rows.iter().all(|r| led_by_count(r))
                    {
                        matrix_rows = l + 1..self.lines.len();
                    }
                } else if next.is_some_and(|nx| {
                    // A `1` beside another value over one word is no count of words (`1 1`, a
                    // start cell, over the moves `RRDDLLUU`).
                    let one_word = matches!(nx.as_slice(), [Token::Word(_)]);
                    nx.len() == n && (n >= 2 || (short && !(line.len() >= 2 && one_word)))
                }) && !self.counts_next_by_chance(l, k, n)
                {
                    out.push(Link::TokensOnNext { line: l, tok: k });
                } else if let Some([Token::Word(w)]) = next.map(Vec::as_slice) {
                    if w.chars().count() == n {
                        if grids.iter().any(|g| g.start == l + 1) {
                            out.push(Link::GridWidth { line: l, tok: k });
                        } else {
                            out.push(Link::LengthOfNext { line: l, tok: k });
                        }
                    }
                } else if let Some([Token::Int(v)]) = next.map(Vec::as_slice) {
                    // A string of digits as long as the count (`5 5` over `10110`): a bit
                    // string, not a number (three digits or more: `2` over `10` is chance).
                    if n >= 3 && *v >= 0 && v.to_string().len() == n {
                        out.push(Link::LengthOfNext { line: l, tok: k });
                    }
                }
            }
        }
        if let Some(tok) = self.header_of_records(&out) {
            out.retain(|l| l.at().0 == 0 && !matches!(l, Link::TokensAfter { .. }));
            out.push(Link::LinesAfter { line: 0, tok });
        }
        out
    }

    /// Whether `link` is a first-line `1` over a single line of a single token, which reads
    /// as a count of lines and as a count of tokens alike.
    pub(super) fn one_over_one(&self, link: Link) -> bool {
        let (line, tok) = link.at();
        line == 0
            && matches!(link, Link::LinesAfter { .. } | Link::TokensOnNext { .. })
            && matches!(
                self.lines.first().and_then(|f| f.get(tok)),
                Some(Token::Int(1))
            )
            && self.lines.len() == 2
            && self.lines.get(1).map(Vec::len) == Some(1)
    }

    /// Whether line `l` is a record among records: two integers or more, with words and
    /// integers in the same places as on the lines before and after it, neither of them the
    /// first line. A value after its first equal to the next line's width (`2 3 5` over
    /// `4 5 3`, `q 1 3` over `r 2 1`) counts nothing. (A case's head such as `misere 2` over
    /// `1 1` holds a word where the line after it does not, and a count leads its line.)
    pub(super) fn in_record_run(&self, l: usize) -> bool {
        // Per token: whether it is an integer. A record may hold names (`q 1 3` between
        // `p 0 5` and `r 2 1`), in the same places on each line.
        let shape = |i: usize| {
            self.lines
                .get(i)
                .filter(|line| line.iter().filter(|t| matches!(t, Token::Int(_))).count() >= 2)
                .map(|line| {
                    line.iter()
                        .map(|t| matches!(t, Token::Int(_)))
                        .collect::<Vec<_>>()
                })
        };
        l >= 2 && shape(l).is_some() && shape(l - 1) == shape(l) && shape(l + 1) == shape(l)
    }

    /// Whether the lines after line `l` are one integer, then two records or more of one
    /// width of at least two, to the end.
    pub(super) fn lone_then_records(&self, l: usize) -> bool {
        let Some([first, records @ ..]) = self.lines.get(l + 1..) else {
            return false;
        };
        let width = records.first().map_or(0, Vec::len);
        matches!(first.as_slice(), [Token::Int(_)])
            && records.len() >= 2
            && width >= 2
            && records.iter().all(|r| r.len() == width)
    }

    /// Whether token `k` (an integer `n`) of line `l` equals the next line's width by chance:
    /// the next line is a run of records as wide ([`Parsed::lone_over_records`]), `l` is a
    /// record among records, or the next line leads with its own count
    /// ([`Parsed::lone_list_of_one`]).
    fn counts_next_by_chance(&self, l: usize, k: usize, n: usize) -> bool {
        self.lone_over_records(l, n)
            || (k >= 1 && self.in_record_run(l))
            || self.lone_list_of_one(l + 1)
    }

    /// Whether line `l` (after the first) is `1 x` between lines of other widths, with lines
    /// after it: a list of one led by its count (`1 0`, the accepting states, between `s t`
    /// and the transitions `0 a 1`). Read as two values, an edit to `0 1` or `2 1` makes an
    /// input that solutions reading `c` values and ones reading the rest of the line part on,
    /// and no statement allows. A `1 5` in a run of pairs, or last, or under a lone `2`, is
    /// two values.
    pub(super) fn lone_list_of_one(&self, l: usize) -> bool {
        let width = |i: usize| self.lines.get(i).map(Vec::len);
        l >= 1
            && matches!(
                self.lines.get(l).map(Vec::as_slice),
                Some([Token::Int(1), Token::Int(_)])
            )
            && (l == 1 || width(l - 1) != Some(2))
            && width(l + 1).is_some_and(|w| w >= 1 && w != 2)
            // A lone `2` before it counts its two values (`n` = 2 over `1 -2`, then `k`).
            && !matches!(
                self.lines.get(l - 1).map(Vec::as_slice),
                Some([Token::Int(2)])
            )
    }

    /// Whether line `l` (after the first) is one integer `n` ≥ 2 over two lines or more that
    /// are all `n` wide to the end: a threshold of 3 over edges `u v w` equals their width by
    /// chance, and a count of the next line's tokens would leave the other records behind.
    pub(super) fn lone_over_records(&self, l: usize, n: usize) -> bool {
        l >= 1
            && n >= 2
            && self.lines.get(l).map(Vec::len) == Some(1)
            && self
                .lines
                .get(l + 1..)
                .is_some_and(|rest| rest.len() >= 2 && rest.iter().all(|r| r.len() == n))
    }

    /// The token of a first line of three or four integers (`S T N`) that counts the records
    /// after it, where `links` read nothing on that line that counts lines: the records are
    /// two lines or more of one width (two or more integers, not all led by their own count)
    /// to the end, and exactly one token equals their number. `2 10 5` over five arrivals `a d` is no
    /// `2` counting `10 5` (and then a `1 3` counting the three lines after it by chance).
    pub(super) fn header_of_records(&self, links: &[Link]) -> Option<usize> {
        let (first, rows) = self.lines.split_first()?;
        let width = rows.first().map_or(0, Vec::len);
        let records = rows.len() >= 2
            && width >= 2
            && !rows.iter().all(|r| led_by_count(r))
            && rows.iter().all(|r| r.len() == width && ints(r).is_some());
        let counts_lines = links.iter().any(|l| {
            l.at().0 == 0
                && !matches!(
                    l,
                    Link::TokensAfter { .. }
                        | Link::TokensOnNext { .. }
                        | Link::TokensOnSecond { .. }
                )
        });
        let header = ints(first).filter(|h| (3..=4).contains(&h.len()));
        let (true, false, Some(header)) = (records, counts_lines, header) else {
            return None;
        };
        let mut counting = (0..header.len()).filter(|&j| {
            header
                .get(j)
                .is_some_and(|&v| usize::try_from(v) == Ok(rows.len()))
        });
        match (counting.next(), counting.next()) {
            (Some(tok), None) => Some(tok),
            _ => None,
        }
    }
}

/// The (line, token) places of `links`' counts.
pub(super) fn count_places(links: &[Link]) -> BTreeSet<(usize, usize)> {
    links.iter().map(|l| l.at()).collect()
}

/// The places of `p`'s counts, less a record line's count of the next line when that line is
/// of its own width: records of one width count each other by chance (`2 4` over `1 5`).
pub(super) fn record_count_places(p: &Parsed) -> BTreeSet<Place> {
    let mut links = p.links();
    links.retain(|l| match *l {
        Link::TokensOnNext { line, .. } if line >= 1 => {
            p.lines.get(line).map(Vec::len) != p.lines.get(line + 1).map(Vec::len)
        }
        _ => true,
    });
    count_places(&links)
}

/// The list a count counts: its first value's place (the next line's first token, or the
/// token after a count that leads its line).
pub(super) fn counted_list(link: &Link) -> Option<Place> {
    match *link {
        Link::TokensAfter { line, .. } => Some((line, 1)),
        other => other.counted_line().map(|l| (l, 0)),
    }
}

/// A first-line token (of a first line of one token: a lone count) that in two inputs or more
/// equals the lines after it but the same last 1 to [`MAX_TAIL`]: `3` over three values, then
/// a modulus, beside `2` over two, then the modulus. Without it the count is read as a value,
/// and an edit leaves it counting lines that are not there. Where an input reads it as the
/// count of the next line's tokens, only if every input's counted lines are as wide as their
/// count (a square before its exponent; records of three under a `3` by chance): a square where
/// two sizes show it, else [`TailShape::Unsure`]. Another reading, or one value only of
/// lines of any width, is no such count.
pub(super) fn tail_counts(
    inputs: &[Parsed],
    kinds: &BTreeMap<usize, BTreeSet<LinkKind>>,
) -> BTreeMap<usize, (usize, TailShape)> {
    let next_tokens = match kinds.get(&0) {
        None => false,
        Some(k) if k.iter().all(|&k| k == LinkKind::TokensOnNext) => true,
        Some(_) => return BTreeMap::new(),
    };
    if inputs.len() < 2 {
        return BTreeMap::new();
    }
    let mut tails = BTreeSet::new();
    let mut values = BTreeSet::new();
    let mut square = true;
    for p in inputs {
        let Some([Token::Int(v)]) = p.lines.first().map(Vec::as_slice) else {
            return BTreeMap::new();
        };
        let Ok(n) = usize::try_from(*v) else {
            return BTreeMap::new();
        };
        match p.lines.len().checked_sub(n + 1) {
            Some(t @ 1..=MAX_TAIL) if n >= 1 => {
                tails.insert(t);
                values.insert(n);
                square &= p
                    .lines
                    .get(1..=n)
                    .is_some_and(|rows| rows.iter().all(|r| r.len() == n));
            }
            _ => return BTreeMap::new(),
        }
    }
    let shape = match (next_tokens || square, values.len()) {
        (true, 2..) if square => TailShape::Square,
        (true, _) if square => TailShape::Unsure,
        (false, 2..) => TailShape::Lines,
        _ => return BTreeMap::new(),
    };
    match (tails.first(), tails.len()) {
        (Some(&t), 1) => BTreeMap::from([(0, (t, shape))]),
        _ => BTreeMap::new(),
    }
}

impl InputModel {
    /// The counts of `p`, read as the task's inputs read them where `p` allows it.
    pub(super) fn links_of(&self, p: &Parsed) -> Vec<Link> {
        let mut links = p.links();
        self.settle_first_line(p, &mut links);
        // A count of the lines but a tail, as the task shows, where the base fits it: what
        // the lines it counts seemed to count is chance (`3` over `4`, `10`, then `7`).
        let lines = p.lines.len();
        let tails: Vec<Link> = self
            .tail_counts
            .iter()
            .filter(|&(&tok, &(tail, _))| {
                matches!(p.lines.first().and_then(|f| f.get(tok)),
                    Some(Token::Int(v)) if usize::try_from(*v).is_ok_and(|n| n >= 1 && n + tail + 1 == lines))
            })
            .map(|(&tok, &(tail, shape))| Link::LinesBefore {
                line: 0,
                tok,
                tail,
                shape,
            })
            .collect();
        if !tails.is_empty() {
            links.retain(|l| {
                matches!(l, Link::TokensAfter { .. })
                    || (l.at().0 == 0 && !tails.iter().any(|t| t.at() == l.at()))
            });
            links.extend(tails);
        }
        links.retain(|l| !self.chance_counts.contains(&l.at()));
        // A record line counting a next line of its own width (`2 10` over `0 2`), where no
        // input of the task has a count on a line of that width after its first.
        links.retain(|l| match *l {
            Link::TokensOnNext { line, .. } if line >= 1 => {
                let width = p.lines.get(line).map_or(0, Vec::len);
                width < 2
                    || p.lines.get(line + 1).map(Vec::len) != Some(width)
                    || self.counting_widths.contains(&width)
            }
            Link::TokensAfter { line, .. } => p
                .lines
                .get(line)
                .is_none_or(|l| !self.unled_widths.contains(&l.len())),
            _ => true,
        });
        links
    }

    /// Reads a base's first line as the task's inputs read theirs. Where two tokens each count
    /// the next line's tokens (`8 8` over eight numbers: `n` and a `K` equal to it by chance),
    /// keeps only the one the task shows: resizing by `K` would leave `n` behind (`7 8` over
    /// eight numbers). A count read as another kind than the task shows at its place is read
    /// as the shown one where it fits (`3 2` over two edges counts their lines, not their width).
    pub(super) fn settle_first_line(&self, p: &Parsed, links: &mut Vec<Link>) {
        let shown = |l: &Link| {
            self.first_line_kinds
                .get(&l.at().1)
                .is_some_and(|kinds| kinds.contains(&l.kind()))
        };
        links.retain(|l| {
            let (line, tok) = l.at();
            line > 0
                || self.first_line_kinds.contains_key(&tok)
                || !self.first_line_values.contains(&tok)
        });
        let counts_next = |l: &Link| matches!(l, Link::TokensOnNext { line: 0, .. });
        if links.iter().filter(|l| counts_next(l)).count() >= 2
            && links.iter().any(|l| counts_next(l) && shown(l))
        {
            links.retain(|l| !counts_next(l) || shown(l));
        }
        for link in links.iter_mut().filter(|l| l.at().0 == 0) {
            let Some(kinds) = self.first_line_kinds.get(&link.at().1) else {
                continue;
            };
            if kinds.contains(&link.kind()) {
                continue;
            }
            let (line, tok) = link.at();
            if let Some(as_shown) = kinds.iter().find_map(|&k| p.read_as(k, line, tok)) {
                *link = as_shown;
            }
        }
        // The next line's width counted twice, by its count and as a matrix's: the other
        // count is the second list's where it fits (`2 2` over `4 4`, `4 4` read as the
        // task's two lists), else none.
        if links
            .iter()
            .any(|l| matches!(l, Link::TokensOnNext { line: 0, .. }))
        {
            for link in links.iter_mut() {
                if let Link::Width { line: 0, tok, .. } = *link {
                    let second = self
                        .first_line_kinds
                        .get(&tok)
                        .is_some_and(|k| k.contains(&LinkKind::TokensOnSecond));
                    if let Some(as_second) = p
                        .read_as(LinkKind::TokensOnSecond, 0, tok)
                        .filter(|_| second)
                    {
                        *link = as_second;
                    }
                }
            }
            links.retain(|l| !matches!(l, Link::Width { line: 0, .. }));
        }
        // A first-line count of the task's that this base reads as nothing, where it fits
        // the kind shown (`1 60` over one row, then operations: the `1` counts rows).
        let first = p.lines.first().map_or(0, Vec::len);
        for (&tok, kinds) in self.first_line_kinds.range(..first) {
            if links.iter().any(|l| l.at() == (0, tok)) {
                continue;
            }
            if let Some(link) = kinds.iter().find_map(|&k| p.read_as(k, 0, tok)) {
                links.push(link);
            }
        }
    }
}
