//! New stdin inputs made from a task's existing ones, the way CodeContests' generated tests were
//! made: whitespace-separated tokens are read as integers, decimals or words and mutated by
//! type (integers within the observed range, words over the observed alphabet), and counts are
//! kept consistent with what follows them (a count of the next line's tokens, of the lines
//! after it, or of the next word's length is changed together with what it counts). Words made
//! of fields (`e4`, `23:45`, `2024-01-05`) are edited field by field ([`super::fields`]).
//!
//! Nothing here knows a problem's constraints: a new input may be outside them. The keep rules
//! of [`super::grow`] (the original runs normally and deterministically, other accepted
//! solutions agree) are what make a kept input trustworthy.

mod cases;
mod commands;
mod domains;
mod graphs;
mod links;
mod records;

use super::cards::Deck;
use super::fields::{shape_of, Shapes};
use super::grids;
use super::numerals;
pub use domains::DomainProbe;
use links::{
    count_places, counted_list, record_count_places, tail_counts, Link, LinkKind, TailShape,
};
use rand::Rng;
use std::collections::{BTreeMap, BTreeSet};

/// `v` rounded toward 0 to a multiple of a random power of ten below it (`1937` → `1900`).
fn round_down(v: i64, rng: &mut impl Rng) -> i64 {
    let digits = v.unsigned_abs().checked_ilog10().unwrap_or(0);
    if digits == 0 {
        return v;
    }
    let unit = 10i64.pow(rng.random_range(1..=digits));
    v / unit * unit
}

/// How often a header's parameter ([`InputModel::is_parameter`]) is scaled up rather than
/// edited within the range the inputs show.
const SCALE_CHANCE: f64 = 0.15;

/// How often an edit of a value goes to a header's parameter where the input has one and more
/// than four values in all (else each value is as likely as any other).
const PARAMETER_PICK_CHANCE: f64 = 0.2;

/// The largest value [`scaled_up`] makes: small enough that a solution linear or quadratic
/// in it stays quick, large enough that sums and counts pass a modulus such as 10⁹+7.
const SCALE_TOP: i64 = 20_000;

/// How often a lone value ([`InputModel::is_lone_value`]) that is scaled up is also given
/// the other sign: an offset of days or minutes, a shift, a number of steps may run
/// backwards, where every sample runs forwards. A statement that forbids it is told by the keep rules only where the
/// accepted solutions disagree on it, so the chance stays low.
const FLIP_CHANCE: f64 = 0.25;

/// `v` times 10, 100 or 1,000, never above [`SCALE_TOP`] (`v` itself where even ×10 is):
/// a sample shows a target sum of 5 or an exponent of 5, where a modulus, an overflow or a
/// cut-off only shows at thousands; the keep rules drop what runs past the deadline.
fn scaled_up(v: i64, rng: &mut impl Rng) -> i64 {
    let options: Vec<i64> = [10, 100, 1000]
        .into_iter()
        .filter_map(|f| v.checked_mul(f))
        .filter(|n| (1..=SCALE_TOP).contains(n))
        .collect();
    if options.is_empty() {
        return v;
    }
    options[rng.random_range(0..options.len())]
}

/// The largest magnitude an edit gives a first-line value that counts nothing, where the
/// task's inputs show at most `top` there: what [`scaled_up`] reaches. A header's size or
/// parameter is bounded by the statement at its own scale (`N ≤ 10⁵` beside `M ≤ 10⁹`): a
/// draw from the range of the whole input (`256402290 7` from `10 1000000007`) leaves the
/// problem, and a solution that shortcuts it (`N ≥ M`: 0) agrees with another that does
/// while a third computes `N!` past any deadline.
fn header_cap(top: i64) -> i64 {
    top.saturating_mul(1000).max(SCALE_TOP)
}

/// Two indices into an input: (line, token), or (tokens on a record line, token) for a
/// record column.
pub type Place = (usize, usize);

/// Whether two tokens are of the same kind (integer, decimal, word).
fn same_type(a: &Token, b: &Token) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// One whitespace-separated token.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    Int(i64),
    /// A decimal with the number of digits after its point.
    Float(f64, usize),
    Word(String),
}

impl Token {
    fn parse(s: &str) -> Token {
        if let Ok(v) = s.parse::<i64>() {
            // "007" keeps its zeros as a word: it may be an identifier, not a number.
            if !(s.len() > 1 && (s.starts_with('0') || s.starts_with("-0"))) {
                return Token::Int(v);
            }
        }
        if let Some((_, frac)) = s.split_once('.') {
            if let Ok(v) = s.parse::<f64>() {
                if v.is_finite() && frac.chars().all(|c| c.is_ascii_digit()) {
                    return Token::Float(v, frac.len());
                }
            }
        }
        Token::Word(s.to_string())
    }

    fn render(&self) -> String {
        match self {
            Token::Int(v) => v.to_string(),
            Token::Float(v, d) => format!("{v:.d$}", d = *d),
            Token::Word(w) => w.clone(),
        }
    }
}

/// The integers of `line`, when it holds nothing else.
fn ints(line: &[Token]) -> Option<Vec<i64>> {
    line.iter()
        .map(|t| match t {
            Token::Int(v) => Some(*v),
            _ => None,
        })
        .collect()
}

/// An input split into lines of tokens.
#[derive(Debug, Clone)]
struct Parsed {
    lines: Vec<Vec<Token>>,
    trailing_newline: bool,
}

impl Parsed {
    fn of(input: &str) -> Parsed {
        let lines = input
            .lines()
            .map(|l| l.split_whitespace().map(Token::parse).collect())
            .collect();
        let mut p = Parsed {
            lines,
            trailing_newline: input.ends_with('\n'),
        };
        // A grid's rows are words, even a row of digits (`1101`).
        for g in p.grids() {
            for line in p.lines.get_mut(g).into_iter().flatten() {
                for t in line.iter_mut() {
                    *t = Token::Word(t.render());
                }
            }
        }
        p
    }

    /// The grids of this input: runs of two lines or more, each one token of one width (two
    /// characters or more, a word among them), unless every row has one field shape.
    fn grids(&self) -> Vec<std::ops::Range<usize>> {
        let width = |l: &Vec<Token>| match l.as_slice() {
            [t] => Some(t.render().chars().count()).filter(|&w| w >= 2),
            _ => None,
        };
        // The word classes that lead a line with arguments after them (see `commands`
        // below), found once: per run of rows, it made reading a long input quadratic.
        let leading_classes: BTreeSet<usize> = self
            .lines
            .iter()
            .filter(|l| l.len() >= 2)
            .filter_map(|l| match l.first() {
                Some(Token::Word(w)) => Some(word_class(w)),
                _ => None,
            })
            .collect();
        let mut out = Vec::new();
        let mut start = 0;
        while start < self.lines.len() {
            let Some(w) = self.lines.get(start).and_then(width) else {
                start += 1;
                continue;
            };
            let mut end = start + 1;
            while self.lines.get(end).and_then(width) == Some(w) {
                end += 1;
            }
            let rows = self.rows(&(start..end));
            let words = self
                .lines
                .get(start..end)
                .into_iter()
                .flatten()
                .any(|l| matches!(l.as_slice(), [Token::Word(_)]));
            // Rows of one field shape (`23:50` over `00:10`) are a list of values, not a grid;
            // a number's sign is part of the number (`(-2,3)` over `(4,-1)`).
            let shapes: BTreeSet<Option<String>> = rows
                .iter()
                .map(|r| shape_of(r).map(|s| s.replace("'- d", "d")))
                .collect();
            let one_shape = shapes.len() == 1 && shapes.iter().all(Option::is_some);
            // Commands among records (`max` and `pop` between `push 3` lines): a line
            // elsewhere led by a word of the rows' class, with arguments after it.
            let commands = rows
                .first()
                .is_some_and(|r| leading_classes.contains(&word_class(r)));
            if end - start >= 2 && words && !one_shape && !commands {
                out.push(start..end);
            }
            start = end;
        }
        out
    }

    /// Adds this input's pairs of integers on record lines (after the first, see
    /// [`pair_places`]) to `seen`: per (tokens on the line, `k`, `j`), how many lines have
    /// one and whether token `k` was never above, and always below, token `j`.
    fn add_pairs(&self, seen: &mut PairStats) {
        let counts = count_places(&self.links());
        // The first line is a header (`n m` over edges), not a record.
        for (l, line) in self.lines.iter().enumerate().skip(1) {
            for (k, j) in pair_places(line.len()) {
                if counts.contains(&(l, k)) || counts.contains(&(l, j)) {
                    continue;
                }
                let (Some(a), Some(b)) = (line.get(k), line.get(j)) else {
                    continue;
                };
                let Some(ord) = order_of(a, b) else {
                    continue;
                };
                let e = seen.entry((line.len(), k, j)).or_insert((0, true, true));
                e.0 += 1;
                e.1 &= ord.is_le();
                e.2 &= ord.is_lt();
            }
        }
    }

    /// The ordered pairs of this input's records (see [`ordered_pairs`]).
    #[cfg(test)]
    fn orders(&self) -> BTreeMap<PairPlace, bool> {
        let mut seen = PairStats::new();
        self.add_pairs(&mut seen);
        ordered_pairs(seen)
    }

    /// Token `at.1` of line `at.0`.
    fn token_mut(&mut self, at: (usize, usize)) -> Option<&mut Token> {
        self.lines.get_mut(at.0)?.get_mut(at.1)
    }

    /// The first line's tokens, as integers where they are.
    fn header(&self) -> Vec<Option<i64>> {
        let first = self.lines.first().map(Vec::as_slice).unwrap_or_default();
        first
            .iter()
            .map(|t| match t {
                Token::Int(h) => Some(*h),
                _ => None,
            })
            .collect()
    }

    /// The record columns (tokens on the line, `k`: lines after the first, two or more with
    /// that many tokens) whose integers lie within `0..=H` of one integer `H` of the first line
    /// in every input that has them; the first such place of the first line is the one kept.
    ///
    /// Where the top is seen is pooled over the columns of one width that index one value:
    /// the two ends of an edge or of a range are one kind of value, and a sample that shows
    /// vertex `n` only as a head does not bar it as a tail. Columns that show 1 and never 0
    /// count from 1, so their top is a vertex too (`1 ≤ u, v ≤ n`, though the sample's edges
    /// never reach vertex `n`). A 0 is each column's own: a column that never shows one may
    /// be a positive amount beside a 0-based one (arrival `a` and duration `d ≥ 1` under a
    /// closing time), and a 0-based graph's edges that never end at 0 are still edges.
    fn index_columns(inputs: &[Parsed]) -> BTreeMap<(usize, usize), Index> {
        // (width, k, place) → (holds everywhere, zero seen, top seen, one seen)
        let mut seen: BTreeMap<(usize, usize, usize), [bool; 4]> = BTreeMap::new();
        // (width, k) → (values, counts among them)
        let mut counted: BTreeMap<(usize, usize), (usize, usize)> = BTreeMap::new();
        for p in inputs {
            let header: Vec<(usize, i64)> = p
                .header()
                .into_iter()
                .enumerate()
                .filter_map(|(j, h)| Some((j, h?)))
                .collect();
            let widths = records::record_widths(p);
            let counts = record_count_places(p);
            let lists: BTreeSet<usize> =
                p.links().iter().filter_map(|l| l.counted_line()).collect();
            for (l, line) in p.lines.iter().enumerate().skip(1) {
                if !widths.contains(&line.len()) {
                    // A lone line of a record width that is no counted list shows what its
                    // columns are not: `2023 5` under `1` is a month, no index into the `1`
                    // (the other input's `2024 1`, `2000 1` under `2` fit both).
                    if !lists.contains(&l) {
                        for (k, t) in line.iter().enumerate() {
                            let Token::Int(v) = t else { continue };
                            for &(j, h) in &header {
                                if !(0..=h).contains(v) {
                                    seen.entry((line.len(), k, j))
                                        .or_insert([true, false, false, false])[0] = false;
                                }
                            }
                        }
                    }
                    continue;
                }
                for (k, t) in line.iter().enumerate() {
                    let Token::Int(v) = t else { continue };
                    let e = counted.entry((line.len(), k)).or_default();
                    e.0 += 1;
                    e.1 += usize::from(counts.contains(&(l, k)));
                    for &(j, h) in &header {
                        let e = seen
                            .entry((line.len(), k, j))
                            .or_insert([true, false, false, false]);
                        e[0] &= (0..=h).contains(v);
                        e[1] |= *v == 0;
                        e[2] |= *v == h;
                        e[3] |= *v == 1;
                    }
                }
            }
        }
        // A column of counts is no index, though its values lie under `T` (a case's `normal
        // 3` over three piles): two counts or more, half its values or more (a query's `2`
        // counting the next query's two tokens is chance).
        let counts_column = |w: usize, k: usize| {
            counted
                .get(&(w, k))
                .is_some_and(|&(values, counts)| counts >= 2 && counts * 2 >= values)
        };
        // (width, k) → (place, zero, top, one), the first place that holds.
        let mut columns: BTreeMap<(usize, usize), (usize, bool, bool, bool)> = BTreeMap::new();
        for ((w, k, place), [holds, zero, top, one]) in seen {
            if holds && !counts_column(w, k) {
                columns.entry((w, k)).or_insert((place, zero, top, one));
            }
        }
        // (width, place) → (zero, top, one) over its columns.
        let mut pooled: BTreeMap<(usize, usize), (bool, bool, bool)> = BTreeMap::new();
        for (&(w, _), &(place, zero, top, one)) in &columns {
            let e = pooled.entry((w, place)).or_default();
            e.0 |= zero;
            e.1 |= top;
            e.2 |= one;
        }
        columns
            .into_iter()
            .map(|((w, k), (place, own_zero, ..))| {
                let (zero, top, one) = pooled.get(&(w, place)).copied().unwrap_or_default();
                let top = top || (one && !zero);
                let zero = own_zero;
                ((w, k), Index { place, zero, top })
            })
            .collect()
    }

    /// Brings each integer of an index column back within the value it indexes on this
    /// input's first line (which a resize may have changed), on every line after the first
    /// of the column's width. A list that a resize gives that width is clamped too: its values
    /// stay valid, only less varied (telling it from records by the counts was wrong as often).
    fn keep_indices(&mut self, indices: &BTreeMap<(usize, usize), Index>) {
        self.each_index_value(indices, |v, (lo, hi)| *v = (*v).clamp(lo, hi));
    }

    /// Calls `f` on every integer of an index column (on the lines after the first, by their
    /// width) with the bounds the value it indexes on this input's first line allows, where
    /// that value is an integer that allows any.
    fn each_index_value(
        &mut self,
        indices: &BTreeMap<(usize, usize), Index>,
        mut f: impl FnMut(&mut i64, (i64, i64)),
    ) {
        if indices.is_empty() {
            return;
        }
        let header = self.header();
        for line in self.lines.iter_mut().skip(1) {
            let width = line.len();
            for (k, t) in line.iter_mut().enumerate() {
                let (Some(ix), Token::Int(v)) = (indices.get(&(width, k)), &mut *t) else {
                    continue;
                };
                if let Some(bounds) = header
                    .get(ix.place)
                    .copied()
                    .flatten()
                    .and_then(|h| ix.bounds(h))
                {
                    f(v, bounds);
                }
            }
        }
    }

    /// Whether every integer of an index column lies within the value it indexes (see
    /// [`Parsed::keep_indices`]): an order put back after the clamp may have undone it.
    fn within_indices(&self, indices: &BTreeMap<(usize, usize), Index>) -> bool {
        let header = self.header();
        self.lines.iter().skip(1).all(|line| {
            line.iter().enumerate().all(|(k, t)| {
                let (Some(ix), Token::Int(v)) = (indices.get(&(line.len(), k)), t) else {
                    return true;
                };
                match header.get(ix.place).copied() {
                    Some(Some(h)) => ix.bounds(h).is_none_or(|(lo, hi)| (lo..=hi).contains(v)),
                    _ => true,
                }
            })
        })
    }

    /// The places (line, token) of `p` that hold an index column's integer.
    fn index_places(&self, indices: &BTreeMap<(usize, usize), Index>) -> Vec<Place> {
        let mut out = Vec::new();
        for (l, line) in self.lines.iter().enumerate().skip(1) {
            for k in 0..line.len() {
                if indices.contains_key(&(line.len(), k)) {
                    out.push((l, k));
                }
            }
        }
        out
    }

    /// Redraws every integer of an index column over all the value it indexes on this input's
    /// first line allows (see [`Parsed::keep_indices`]).
    fn redraw_indices(&mut self, indices: &BTreeMap<(usize, usize), Index>, rng: &mut impl Rng) {
        self.each_index_value(indices, |v, (lo, hi)| *v = rng.random_range(lo..=hi));
    }

    /// Puts each ordered pair of `orders` back in order where a mutation reversed it (the
    /// two values swap places), and parts a strictly ordered pair a mutation made equal;
    /// never a pair holding one of `counts` (a count leads its line: `1 7`).
    fn keep_order(&mut self, orders: &BTreeMap<PairPlace, bool>, counts: &BTreeSet<Place>) {
        for (l, line) in self.lines.iter_mut().enumerate().skip(1) {
            order_pairs(line, orders, |k| counts.contains(&(l, k)));
        }
    }

    /// Puts the pairs of a one-line input in the order `orders` says the task's one-line
    /// inputs keep ([`one_line_orders`]).
    fn keep_line_order(&mut self, orders: &BTreeMap<PairPlace, bool>) {
        if let [line] = self.lines.as_mut_slice() {
            order_pairs(line, orders, |_| false);
        }
    }

    /// Whether a pair that `orders` says is strictly ordered, and that holds none of
    /// `counts`, is not.
    fn breaks_strict_order(
        &self,
        orders: &BTreeMap<PairPlace, bool>,
        counts: &BTreeSet<Place>,
    ) -> bool {
        self.lines.iter().enumerate().skip(1).any(|(l, line)| {
            pair_places(line.len()).any(|(k, j)| {
                !counts.contains(&(l, k))
                    && !counts.contains(&(l, j))
                    && orders.get(&(line.len(), k, j)) == Some(&true)
                    && matches!((line.get(k), line.get(j)),
                        (Some(a), Some(b)) if order_of(a, b).is_some_and(|o| o.is_ge()))
            })
        })
    }

    /// The grid that `line` belongs to.
    fn grid_of(&self, line: usize) -> Option<std::ops::Range<usize>> {
        self.grids().into_iter().find(|g| g.contains(&line))
    }

    /// The rows of grid `g`, as text.
    fn rows(&self, g: &std::ops::Range<usize>) -> Vec<String> {
        self.lines
            .get(g.clone())
            .into_iter()
            .flatten()
            .map(|l| l.iter().map(Token::render).collect())
            .collect()
    }

    /// Replaces the lines of grid `g` by `rows`, one word each.
    fn set_rows(&mut self, g: std::ops::Range<usize>, rows: Vec<String>) {
        if g.end <= self.lines.len() {
            let new = rows.into_iter().map(|r| vec![Token::Word(r)]);
            self.lines.splice(g, new);
        }
    }

    fn render(&self) -> String {
        let mut s = self
            .lines
            .iter()
            .map(|l| l.iter().map(Token::render).collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
            .join("\n");
        if self.trailing_newline {
            s.push('\n');
        }
        s
    }
}

/// What the existing inputs show: integer range, word alphabets and lengths.
#[derive(Debug, Clone)]
pub struct InputModel {
    /// Largest count a resize gives: [`MAX_COUNT`], or a large input's cap
    /// ([`InputModel::enlarge`]).
    cap: usize,
    int_lo: i64,
    int_hi: i64,
    /// Characters seen in words, per class (lower, upper, digit, other).
    alphabets: [Vec<char>; 4],
    len_lo: usize,
    len_hi: usize,
    /// The words seen.
    words: BTreeSet<String>,
    /// The words made of fields, by shape.
    shapes: Shapes,
    /// The largest numeral seen, when the words are Roman numerals ([`numerals::are_numerals`]).
    numerals: Option<u32>,
    /// The deck, when the words are playing cards ([`Deck::of`]).
    cards: Option<Deck>,
    /// The places on an input's first line that hold a positive integer in every input: a
    /// header's sizes and counts (`N Q`), which stay positive when edited.
    positive_header: BTreeSet<usize>,
    /// Counted lists (their first value's place) that hold only positive integers in every
    /// input, where another counted list shows a 0 or less ([`positive_lists`]).
    positive_lists: BTreeSet<Place>,
    /// Where every input has the same layout, the places whose integer differs between
    /// inputs ([`varying_places`]): no count, whatever it equals in one input.
    chance_counts: BTreeSet<Place>,
    /// Where every input has the same layout, the line widths ([`varying_places`]'), and the
    /// integers each place of it holds ([`place_ranges`]).
    layout: Option<Vec<usize>>,
    place_ranges: PlaceRanges,
    /// First-line tokens that count the lines after them but a tail of fixed length
    /// ([`tail_counts`]), with that length.
    tail_counts: BTreeMap<usize, (usize, TailShape)>,
    /// Counted lists (their first value's place) that are sets ([`distinct_lists`]).
    distinct_lists: BTreeSet<Place>,
    /// The characters of the grids seen.
    grid_chars: BTreeSet<char>,
    /// For plain words of one class and length of which two or more are seen (cards `AS`,
    /// `KD`, `7H`): the characters seen at each position.
    positions: BTreeMap<(usize, usize), Vec<BTreeSet<char>>>,
    /// For each plain word: the words its columns hold.
    columns: BTreeMap<String, Column>,
    /// For each word that leads a line: the kinds of the tokens after it on its lines
    /// ([`after_lead`]); a command's arguments are of its own kinds (`E aab`, `D a2b1`).
    leads: BTreeMap<String, BTreeSet<Vec<Option<usize>>>>,
    /// Record columns that index into a header value (see [`Parsed::index_columns`]).
    indices: BTreeMap<(usize, usize), Index>,
    /// The integer pairs of the inputs' records ([`pair_places`]), pooled with a base's own when it is
    /// mutated: a grown base with one record still keeps the order the task's inputs show.
    pairs: PairStats,
    /// Where every input is one line: its pairs ordered in every input ([`one_line_orders`]).
    line_orders: BTreeMap<PairPlace, bool>,
    /// The fingerprints of the inputs the model was made from (their pairs are counted once).
    seen_inputs: BTreeSet<u64>,
    /// What the records show beyond one line: column ranges, sorted columns, permutations.
    records: records::RecordRules,
    /// Per word class (lower, upper): whether its words are free text ([`free_text_classes`]).
    free_text: [bool; 2],
    /// Where the lines after the first are commands (`1 5`, `3`, `4 2`), their codes.
    commands: Option<commands::Commands>,
    /// Where queries and updates follow an array, their codes.
    op_codes: commands::OpCodes,
    /// What the inputs' edge lists show: trees, graphs without loops or repeated edges.
    graphs: graphs::GraphRules,
    /// Per token of the first line, what it counts in the inputs (a grown base is read the
    /// same way where it fits: `1\n1` counts one token, not one line, when the task's `3` counts
    /// the three tokens after it).
    first_line_kinds: BTreeMap<usize, BTreeSet<LinkKind>>,
    /// The token counts of the lines after the first that count the next line's tokens
    /// (`n k` over n numbers in each case); a line of another width does not count a next
    /// line of its own width (`2 10` over `0 2` are two records).
    counting_widths: BTreeSet<usize>,
    /// Tokens of the first line that hold a value of 2 or more in some input of the task and
    /// count nothing in any (`e` of `K e` over K rows): a grown base's count there is one by
    /// chance (`2 2` over rows of two is no width 2).
    first_line_values: BTreeSet<usize>,
    /// Widths of lines that some input of the task shows not led by a count (see
    /// [`unled_widths`]): a grown base's line of such a width is a record wherever it is led.
    unled_widths: BTreeSet<usize>,
    /// Per token of the first line, the largest magnitude of an integer there in any input:
    /// a header value is edited up to [`header_cap`] of it (see [`InputModel::mutate`]).
    header_tops: BTreeMap<usize, i64>,
    /// Tokens of the first line that count the lines after it, each of as many numbers, in
    /// every input where they count lines, at two sizes or more: a square matrix's side,
    /// resized in rows and columns together (`2` over `1 2`, `3 4`; `3` over three rows of
    /// three).
    square_sides: BTreeSet<usize>,
    /// Tokens of the first line that count the lines after it, each of as many numbers, at
    /// one size only (`2 5` over `1 1`, `1 0`): a square matrix's side and a count of records
    /// as wide as it by chance read the same. A base of that shape keeps the count: resizing
    /// rows alone breaks a square, and resizing both breaks records.
    unsure_sides: BTreeSet<usize>,
    /// Where every input is cases of varying length, their layout and model: inputs that
    /// split into them are edited case by case.
    cases: Option<cases::Cases>,
    /// Whether no input holds a count (nor a grid, nor cases) and the inputs' numbers of
    /// lines differ: lines until the end of the input (ballots, log events, queries `Y M`),
    /// which are copied and dropped ([`InputModel::resize_open`]).
    open_ended: bool,
    /// The domains of small columns that probes of the original found
    /// ([`InputModel::domain_probes`], [`InputModel::set_domain`]).
    domains: domains::Domains,
}

/// A record column whose integers lie within a value of the first line in every input: an
/// index or a range's end (`1 l r x` under `n q`, an edge `u v` under `n m`), which past
/// that value is outside the problem (two solutions may agree on it and a third reject it).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Index {
    /// The place on the first line of the value it indexes.
    place: usize,
    /// Whether a 0 was seen (0-based), and whether the value itself was (1-based): an
    /// unseen end is left out, so that either way of counting stays within.
    zero: bool,
    top: bool,
}

impl Index {
    /// The values the column may hold where the value it indexes is `h`: from 0 or 1 as seen,
    /// up to `h` (an unseen top is left out, unless that leaves nothing: `n` = 1).
    fn bounds(&self, h: i64) -> Option<(i64, i64)> {
        let lo = if self.zero { 0 } else { 1 };
        let hi = if self.top || h.saturating_sub(1) < lo {
            h
        } else {
            h - 1
        };
        (lo <= hi).then_some((lo, hi))
    }
}

/// The words that share a column with a word in the task's inputs: token `k` of the lines
/// with as many tokens as its own (`alice deposit 100` over `bob withdraw 50`).
#[derive(Debug, Clone, Default)]
struct Column {
    mates: BTreeSet<String>,
    /// A word repeats in one of these columns: a closed set (commands, a few names).
    closed: bool,
}

impl Parsed {
    /// Adds the columns of this input's plain words to `columns` (`plain` says which words
    /// are plain: not made of fields, not numerals).
    fn add_columns(&self, plain: impl Fn(&str) -> bool, columns: &mut BTreeMap<String, Column>) {
        let mut by_column: BTreeMap<(usize, usize), Vec<&String>> = BTreeMap::new();
        for line in &self.lines {
            for (k, t) in line.iter().enumerate() {
                if let Token::Word(w) = t {
                    if plain(w) {
                        by_column.entry((line.len(), k)).or_default().push(w);
                    }
                }
            }
        }
        for words in by_column.values() {
            let distinct: BTreeSet<&String> = words.iter().copied().collect();
            let closed = distinct.len() < words.len();
            for w in &distinct {
                let c = columns.entry((*w).clone()).or_default();
                c.mates.extend(distinct.iter().map(|x| (*x).clone()));
                c.closed |= closed;
            }
        }
    }
}

/// Two tokens of a record line: (tokens on the line, `k`, `j`), `k < j`.
type PairPlace = (usize, usize, usize);

/// Per pair of a record line's tokens: lines seen with integers at `k` and `j`, whether token
/// `k` was never above token `j`, and whether it was always below.
type PairStats = BTreeMap<PairPlace, (usize, bool, bool)>;

/// The pairs of tokens of a line of `width` whose order a record may keep: neighbours (`l r`),
/// and on a line of two halves of two numbers or more the same place in each half (the
/// corners of a rectangle `x1 y1 x2 y2`, with `x1 < x2` and `y1 < y2`).
fn pair_places(width: usize) -> impl Iterator<Item = (usize, usize)> {
    let half = if width >= 4 && width.is_multiple_of(2) {
        width / 2
    } else {
        0
    };
    (0..width.saturating_sub(1))
        .map(|k| (k, k + 1))
        .chain((0..half).map(move |k| (k, k + half)))
}

/// A fingerprint of an input's text, to tell whether a base is one of a model's inputs.
fn fingerprint(input: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    // SipHash with fixed keys: the same on every run.
    let mut h = std::hash::DefaultHasher::new();
    input.hash(&mut h);
    h.finish()
}

/// The ordered pairs of `seen`: two lines or more with that many tokens and token `k` never
/// above token `j` (an interval `l r`, a query's range, a rectangle's corners), with whether it
/// is always below (`l < r` in every record: an empty interval is most likely outside the
/// constraints).
fn ordered_pairs(seen: PairStats) -> BTreeMap<PairPlace, bool> {
    seen.into_iter()
        .filter(|(_, (lines, ordered, _))| *lines >= 2 && *ordered)
        .map(|(key, (_, _, strict))| (key, strict))
        .collect()
}

/// Puts each pair of `line` that `orders` holds (by the line's width) in order, swapping a
/// pair that is not, and making a strictly ordered pair's equal values differ; tokens
/// `counted` says are counts are left alone.
fn order_pairs(
    line: &mut [Token],
    orders: &BTreeMap<PairPlace, bool>,
    counted: impl Fn(usize) -> bool,
) {
    for (k, j) in pair_places(line.len()) {
        let Some(&strict) = orders.get(&(line.len(), k, j)) else {
            continue;
        };
        if counted(k) || counted(j) {
            continue;
        }
        let (Some(a), Some(b)) = (line.get(k), line.get(j)) else {
            continue;
        };
        if order_of(a, b).is_some_and(std::cmp::Ordering::is_gt) {
            line.swap(k, j);
        }
        if let (true, Some(Token::Int(a))) = (strict, line.get(k).cloned()) {
            if let Some(Token::Int(b)) = line.get_mut(j) {
                if a == *b {
                    *b = b.saturating_add(1);
                }
            }
        }
    }
}

/// Where every input is one line, of one width, and two inputs or more: the pairs of it that
/// are ordered in every input (see [`ordered_pairs`]): `L R` shown as `1 10` and `27 27` is a
/// range, and `10 1` is outside it. (Records after a first line are [`Parsed::add_pairs`]'.)
fn one_line_orders(inputs: &[Parsed]) -> BTreeMap<PairPlace, bool> {
    let width = match inputs.first().map(|p| p.lines.as_slice()) {
        Some([line]) if line.len() >= 2 => line.len(),
        _ => return BTreeMap::new(),
    };
    let one_line = |p: &Parsed| matches!(p.lines.as_slice(), [line] if line.len() == width);
    if inputs.len() < 2 || !inputs.iter().all(one_line) {
        return BTreeMap::new();
    }
    let mut seen = PairStats::new();
    for line in inputs.iter().filter_map(|p| p.lines.first()) {
        for (k, j) in pair_places(width) {
            let (Some(a), Some(b)) = (line.get(k), line.get(j)) else {
                continue;
            };
            let Some(ord) = order_of(a, b) else {
                continue;
            };
            let e = seen.entry((width, k, j)).or_insert((0, true, true));
            e.0 += 1;
            e.1 &= ord.is_le();
            e.2 &= ord.is_lt();
        }
    }
    // Every input must show the pair: one without integers there is no evidence.
    seen.retain(|_, (lines, _, _)| *lines == inputs.len());
    ordered_pairs(seen)
}

/// Whether `line` starts with a word and holds something after it (`flip 2 4`, `get 2`).
fn leads_with_word(line: &[Token]) -> bool {
    line.len() >= 2 && matches!(line.first(), Some(Token::Word(_)))
}

/// Whether `line` starts with the count of the tokens after it (`2 AS KD`).
fn led_by_count(line: &[Token]) -> bool {
    matches!(line.first(), Some(Token::Int(n))
        if usize::try_from(*n).is_ok_and(|n| n + 1 == line.len()))
}

/// The widths (two tokens or more) of the lines after the first of `p` that are not all led by
/// the count of what follows them (see [`Parsed::links`]).
fn unled_widths(p: &Parsed) -> BTreeSet<usize> {
    p.lines
        .iter()
        .skip(1)
        .filter(|line| line.len() >= 2 && !led_by_count(line))
        .map(Vec::len)
        .collect()
}

/// The words of `line`, in order.
fn words_of(line: &[Token]) -> Vec<&str> {
    line.iter()
        .filter_map(|t| match t {
            Token::Word(w) => Some(w.as_str()),
            _ => None,
        })
        .collect()
}

/// The kinds of the tokens after a line's first: a word's class, `None` for a number.
fn after_lead(line: &[Token]) -> Vec<Option<usize>> {
    line.iter()
        .skip(1)
        .map(|t| match t {
            Token::Word(w) => Some(word_class(w)),
            _ => None,
        })
        .collect()
}

/// The class of a word, for its alphabet.
fn word_class(w: &str) -> usize {
    if w.chars().all(|c| c.is_ascii_lowercase()) {
        0
    } else if w.chars().all(|c| c.is_ascii_uppercase()) {
        1
    } else if w.chars().all(|c| c.is_ascii_digit()) {
        2
    } else {
        3
    }
}

/// How `a` compares with `b` where both are integers, or both words of one shape made of number
/// fields only (`09:00` and `10:30`, dates), compared field by field: a record's pair of times
/// (a meeting's start and end) is ordered as a pair of integers is. `None`: not comparable.
fn order_of(a: &Token, b: &Token) -> Option<std::cmp::Ordering> {
    fn key(t: &Token) -> Option<(Option<String>, Vec<i64>)> {
        match t {
            Token::Int(v) => Some((None, vec![*v])),
            Token::Word(w) => {
                let shape = shape_of(w)?;
                let numeric = shape.split(' ').all(|p| p == "d" || p.starts_with('\''));
                let fields: Option<Vec<i64>> = w
                    .split(|c: char| !c.is_ascii_digit())
                    .filter(|f| !f.is_empty())
                    .map(|f| f.parse().ok())
                    .collect();
                numeric.then_some((Some(shape), fields?))
            }
            Token::Float(..) => None,
        }
    }
    let (ka, kb) = (key(a)?, key(b)?);
    (ka.0 == kb.0).then(|| ka.1.cmp(&kb.1))
}

/// Per word class (lower, upper): whether the task's words of that class read as free text, the
/// strings a problem is about (`listen`, `dbxac`) rather than a closed set of keywords. They do
/// when every line that holds one holds no number (a command or a name beside its value is a
/// keyword: `deposit 100`, `alice 3`) and no word of the class is on two lines of one input
/// (commands repeat line after line: `pop` … `pop`), and each is plain (no numeral of a task of
/// numerals, no card, no word made of fields).
fn free_text_classes(inputs: &[Parsed], plain: impl Fn(&str) -> bool) -> [bool; 2] {
    let mut free = [true; 2];
    let mut seen = [false; 2];
    for p in inputs {
        let mut line_of: BTreeMap<&str, usize> = BTreeMap::new();
        for (l, line) in p.lines.iter().enumerate() {
            let numbers = line.iter().any(|t| !matches!(t, Token::Word(_)));
            for w in words_of(line) {
                let class = word_class(w);
                let (Some(f), Some(s)) = (free.get_mut(class), seen.get_mut(class)) else {
                    continue;
                };
                *s = true;
                let repeated = *line_of.entry(w).or_insert(l) != l;
                if numbers || repeated || !plain(w) {
                    *f = false;
                }
            }
        }
    }
    [free[0] && seen[0], free[1] && seen[1]]
}

/// The integers of the counted list at `at` (to the end of its line), or `None` if a token
/// there is no integer.
fn list_values(p: &Parsed, at: Place) -> Option<Vec<i64>> {
    ints(p.lines.get(at.0)?.get(at.1..)?)
}

/// Every counted list of `inputs` that holds integers only: its place and its values.
fn integer_lists(inputs: &[Parsed]) -> impl Iterator<Item = (Place, Vec<i64>)> + '_ {
    inputs.iter().flat_map(|p| {
        p.links()
            .iter()
            .filter_map(counted_list)
            .filter_map(|at| Some((at, list_values(p, at)?)))
            .collect::<Vec<_>>()
    })
}

/// Counted lists (their first value's place) whose values are distinct in every input, where
/// that is unlikely by chance: drawn uniformly from the range the place shows, the inputs'
/// lists would all be distinct with a chance under [`DISTINCT_CHANCE`] (eight distinct values
/// within -1..=10, and six within -2..=4: a set, not an array). A solution may read them as
/// a set and another as a list, and they part on a duplicate that the statement rules out.
fn distinct_lists(inputs: &[Parsed]) -> BTreeSet<Place> {
    // place → (all distinct so far, the lists' lengths, lowest and highest value)
    let mut seen: BTreeMap<Place, (bool, Vec<usize>, i64, i64)> = BTreeMap::new();
    for (at, values) in integer_lists(inputs) {
        let e = seen
            .entry(at)
            .or_insert((true, Vec::new(), i64::MAX, i64::MIN));
        let unique: BTreeSet<i64> = values.iter().copied().collect();
        e.0 &= unique.len() == values.len();
        e.1.push(values.len());
        e.2 = values.iter().copied().fold(e.2, i64::min);
        e.3 = values.iter().copied().fold(e.3, i64::max);
    }
    seen.into_iter()
        .filter(|(_, (distinct, lengths, lo, hi))| {
            let range = hi.saturating_sub(*lo).saturating_add(1) as f64;
            let by_chance: f64 = lengths
                .iter()
                .flat_map(|&n| (1..n).map(move |i| (1.0 - i as f64 / range).max(0.0)))
                .product();
            *distinct && by_chance < DISTINCT_CHANCE
        })
        .map(|(at, _)| at)
        .collect()
}

/// Where two inputs or more all have the same number of lines, each as wide in every input
/// (a fixed layout: `a`, `b`, `k` one per line), the places whose integer is not the same in
/// all: what such a value would count is the same in every input, so it counts nothing.
fn varying_places(inputs: &[Parsed]) -> BTreeSet<Place> {
    let (Some(first), Some(_)) = (inputs.first(), fixed_layout(inputs)) else {
        return BTreeSet::new();
    };
    let rest = inputs.get(1..).unwrap_or_default();
    let mut out = BTreeSet::new();
    for (l, line) in first.lines.iter().enumerate() {
        for (k, t) in line.iter().enumerate() {
            let differs = rest
                .iter()
                .any(|p| p.lines.get(l).and_then(|x| x.get(k)) != Some(t));
            if matches!(t, Token::Int(_)) && differs {
                out.insert((l, k));
            }
        }
    }
    out
}

/// Where two inputs or more all have one layout (as [`varying_places`]), its line widths
/// and, per place where every input holds an integer, the lowest and highest: a value of such
/// a place is drawn near its own (`k ≤ 18` shown as 3 to 5, beside `b` = 222), not from the
/// whole input's range.
fn place_ranges(inputs: &[Parsed]) -> (Option<Vec<usize>>, PlaceRanges) {
    let (Some(first), Some(layout)) = (inputs.first(), fixed_layout(inputs)) else {
        return (None, BTreeMap::new());
    };
    let mut ranges = BTreeMap::new();
    for (l, line) in first.lines.iter().enumerate() {
        for k in 0..line.len() {
            let values: Option<Vec<i64>> = inputs
                .iter()
                .map(|p| match p.lines.get(l).and_then(|x| x.get(k)) {
                    Some(Token::Int(v)) => Some(*v),
                    _ => None,
                })
                .collect();
            if let Some(values) = values {
                let lo = values.iter().copied().min().unwrap_or(0);
                let hi = values.iter().copied().max().unwrap_or(0);
                ranges.insert((l, k), (lo, hi));
            }
        }
    }
    (Some(layout), ranges)
}

/// Where two inputs or more all have the same number of lines, each as wide in every input,
/// those widths.
fn fixed_layout(inputs: &[Parsed]) -> Option<Vec<usize>> {
    let widths = |p: &Parsed| p.lines.iter().map(Vec::len).collect::<Vec<_>>();
    let (first, rest) = inputs.split_first()?;
    let layout = widths(first);
    (!rest.is_empty() && rest.iter().all(|p| widths(p) == layout)).then_some(layout)
}

/// The longest tail a count of lines is read to leave ([`tail_counts`]).
const MAX_TAIL: usize = 2;

/// Per place of a fixed layout, the lowest and highest integer seen there ([`place_ranges`]).
type PlaceRanges = BTreeMap<Place, (i64, i64)>;

/// The chance below which lists seen distinct are taken to be sets ([`distinct_lists`]).
const DISTINCT_CHANCE: f64 = 0.05;

/// Replaces each repeated value of `values` (after its first) by the nearest integer above it
/// that the list does not hold, so the list stays a set near the values it had.
fn make_distinct(values: &mut [Token]) {
    let mut held: BTreeSet<i64> = BTreeSet::new();
    let firsts: Vec<bool> = values
        .iter()
        .map(|t| match t {
            Token::Int(v) => held.insert(*v),
            _ => true,
        })
        .collect();
    for (t, first) in values.iter_mut().zip(firsts) {
        if let (Token::Int(v), false) = (&mut *t, first) {
            let mut new = v.saturating_add(1);
            while held.contains(&new) {
                new = new.saturating_add(1);
            }
            held.insert(new);
            *v = new;
        }
    }
}

/// The counted lists that hold only positive integers in every input that has them, where
/// some counted list of the task shows a 0 or less: a move set `2 3` beside queries `0 1 2 4
/// 5` is a set of positive moves (a move of 0 is outside the problem, and solutions part
/// there), which the task's other list shows to be a choice, not chance.
fn positive_lists(inputs: &[Parsed]) -> BTreeSet<Place> {
    let mut positive: BTreeMap<Place, bool> = BTreeMap::new();
    let mut contrast = false;
    for (at, values) in integer_lists(inputs) {
        let all_positive = values.iter().all(|&v| v >= 1);
        contrast |= !all_positive;
        *positive.entry(at).or_insert(true) &= all_positive;
    }
    if !contrast {
        return BTreeSet::new();
    }
    positive
        .into_iter()
        .filter_map(|(at, all)| all.then_some(at))
        .collect()
}

/// Largest count a resized structure gets (grown tests stay small and cheap).
const MAX_COUNT: usize = 60;

/// Largest count a large input's structures get ([`InputModel::enlarge`]): past a block of
/// 128, the first power of two past 100, where square-root decompositions, buffers and
/// word-sized bit sets a judge's large tests reach start to matter.
pub const LARGE_COUNT: usize = 400;

/// Largest large input, in bytes: a grid of 400 by 400 is no test a task file should carry.
const MAX_LARGE_INPUT: usize = 64 << 10;

/// Largest cap of a large input: a square matrix is built whole before its size is checked,
/// and one of 1,000 by 1,000 is as far as that should go.
const MAX_LARGE_CAP: usize = 1000;

/// Broad mutations in a row that make a large input: each resizes one count, so two counts
/// on one line (`n q`) both grow in most large inputs.
const LARGE_STEPS: usize = 4;

impl InputModel {
    /// The model of `inputs`.
    pub fn of<'a>(inputs: impl IntoIterator<Item = &'a str>) -> InputModel {
        let inputs: Vec<&str> = inputs.into_iter().collect();
        let cases = cases::Cases::of(&inputs);
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        let mut alphabets: [BTreeSet<char>; 4] = Default::default();
        let (mut len_lo, mut len_hi) = (usize::MAX, 0);
        let mut words = BTreeSet::new();
        let mut shapes = Shapes::default();
        let mut grid_chars = BTreeSet::new();
        let mut parsed_all = Vec::new();
        let mut seen_inputs = BTreeSet::new();
        for input in inputs {
            seen_inputs.insert(fingerprint(input));
            let parsed = Parsed::of(input);
            for g in parsed.grids() {
                grid_chars.extend(parsed.rows(&g).iter().flat_map(|r| r.chars()));
            }
            for t in parsed.lines.iter().flatten() {
                match t {
                    Token::Int(v) => {
                        lo = lo.min(*v);
                        hi = hi.max(*v);
                    }
                    Token::Word(w) => {
                        shapes.add(w);
                        words.insert(w.clone());
                        alphabets[word_class(w)].extend(w.chars());
                        len_lo = len_lo.min(w.chars().count());
                        len_hi = len_hi.max(w.chars().count());
                    }
                    Token::Float(..) => {}
                }
            }
            parsed_all.push(parsed);
        }
        if lo > hi {
            (lo, hi) = (0, 10);
        }
        let numerals = numerals::are_numerals(&words)
            .then(|| words.iter().filter_map(|w| numerals::read(w)).max())
            .flatten();
        let mut header: BTreeMap<usize, bool> = BTreeMap::new();
        let mut header_tops: BTreeMap<usize, i64> = BTreeMap::new();
        for p in &parsed_all {
            for (k, t) in p.lines.first().into_iter().flatten().enumerate() {
                if let Token::Int(v) = t {
                    *header.entry(k).or_insert(true) &= *v >= 1;
                    let top = header_tops.entry(k).or_insert(0);
                    *top = (*top).max(v.saturating_abs());
                }
            }
        }
        let positive_header = header.into_iter().filter(|h| h.1).map(|h| h.0).collect();
        let positive_lists = positive_lists(&parsed_all);
        let distinct_lists = distinct_lists(&parsed_all);
        let cards = Deck::of(
            &words,
            parsed_all
                .iter()
                .flat_map(|p| p.lines.iter().map(|line| words_of(line))),
        );
        // A plain word: not made of fields, not a numeral of a task whose words are numerals,
        // not a card of a task whose words are cards.
        let plain = |w: &str| {
            shape_of(w).is_none()
                && numerals.is_none_or(|_| numerals::read(w).is_none())
                && cards.as_ref().is_none_or(|d| !d.holds(w))
        };
        let mut by_format: BTreeMap<(usize, usize), Vec<&String>> = BTreeMap::new();
        for w in &words {
            if plain(w) {
                by_format
                    .entry((word_class(w), w.chars().count()))
                    .or_default()
                    .push(w);
            }
        }
        let mut columns = BTreeMap::new();
        for p in &parsed_all {
            p.add_columns(plain, &mut columns);
        }
        let mut leads: BTreeMap<String, BTreeSet<Vec<Option<usize>>>> = BTreeMap::new();
        for line in parsed_all.iter().flat_map(|p| &p.lines) {
            if let Some(Token::Word(w)) = line.first() {
                leads.entry(w.clone()).or_default().insert(after_lead(line));
            }
        }
        let mut indices = Parsed::index_columns(&parsed_all);
        let commands = commands::Commands::of(&parsed_all);
        let op_codes = match commands {
            Some(_) => commands::OpCodes::default(),
            None => commands::OpCodes::of(&parsed_all, graphs::all_trees(&parsed_all)),
        };
        // Coded lines' indices are each code's own (an update's `x` is no index where a
        // query's `r` is, in one column).
        indices.retain(|&(w, _), _| !op_codes.covers(w));
        let records = records::RecordRules::of(&parsed_all);
        let mut pairs = PairStats::new();
        for p in &parsed_all {
            p.add_pairs(&mut pairs);
        }
        let line_orders = one_line_orders(&parsed_all);
        let free_text = free_text_classes(&parsed_all, plain);
        let graphs = graphs::GraphRules::of(&parsed_all, &indices, commands.is_some());
        let line_counts: BTreeSet<usize> = parsed_all.iter().map(|p| p.lines.len()).collect();
        let mut first_line_kinds: BTreeMap<usize, BTreeSet<LinkKind>> = BTreeMap::new();
        let mut weak_first_line_kinds = BTreeSet::new();
        let mut counting_widths = BTreeSet::new();
        let unled_widths: BTreeSet<usize> = parsed_all.iter().flat_map(unled_widths).collect();
        let mut first_line_values = BTreeSet::new();
        // Per first-line token counting lines: whether its lines were all its own width, and
        // the sizes seen.
        let mut sides: BTreeMap<usize, (bool, BTreeSet<usize>)> = BTreeMap::new();
        for p in &parsed_all {
            let links = p.links();
            for link in &links {
                if let &Link::LinesAfter { line: 0, tok } = link {
                    let n = match p.lines.first().and_then(|f| f.get(tok)) {
                        Some(Token::Int(v)) => usize::try_from(*v).unwrap_or(0),
                        _ => 0,
                    };
                    let entry = sides.entry(tok).or_insert((true, BTreeSet::new()));
                    entry.0 &= n >= 2 && p.square_after(0, n);
                    entry.1.insert(n);
                }
            }
            let first = p.lines.first().map(Vec::as_slice).unwrap_or_default();
            for (k, t) in first.iter().enumerate() {
                let counts = links.iter().any(|l| l.at() == (0, k));
                if matches!(t, Token::Int(v) if *v >= 2) && !counts {
                    first_line_values.insert(k);
                }
            }
            for link in links {
                match link {
                    // `1` over one line of one token counts that line or that token: no
                    // evidence of either, where another input shows which (`1\n7` beside
                    // `3\n4 6 10` is a list of one, and its grown `2\n9\n8` no list).
                    _ if p.one_over_one(link) => {
                        weak_first_line_kinds.insert((link.at().1, link.kind()));
                    }
                    // Only a count over a line of another width is evidence: records of
                    // one width count each other by chance (`2 5` over `7 9`).
                    Link::TokensOnNext { line, .. } if line >= 1 => {
                        let width = p.lines.get(line).map_or(0, Vec::len);
                        if p.lines.get(line + 1).map(Vec::len) != Some(width) {
                            counting_widths.insert(width);
                        }
                    }
                    _ if link.at().0 == 0 => {
                        first_line_kinds
                            .entry(link.at().1)
                            .or_default()
                            .insert(link.kind());
                    }
                    _ => {}
                }
            }
        }
        // Where one input reads a first-line count two ways (`2 2` over two rows of two: a
        // matrix, or two lists), the reading that every input allows is the count's
        // (`3 3` over `5 2 9` and `4 8 1` is two lists, no matrix).
        // Where no reading fits every input that holds a count there, and one input shows a
        // value of 2 or more there counting nothing, the token is a value that counted by
        // chance (`3 1` over the edge `1 2 7`, beside `4 5` over five edges).
        first_line_kinds.retain(|&tok, kinds| {
            let fits_all = |kind: LinkKind| {
                !kind.readable()
                    || parsed_all.iter().all(|p| {
                        let holds = matches!(
                            p.lines.first().and_then(|f| f.get(tok)),
                            Some(Token::Int(v)) if *v >= 1
                        );
                        !holds || p.read_as(kind, 0, tok).is_some()
                    })
            };
            let kept: BTreeSet<LinkKind> = kinds.iter().copied().filter(|&k| fits_all(k)).collect();
            if kept.is_empty() {
                return !first_line_values.contains(&tok);
            }
            *kinds = kept;
            true
        });
        // A count of a fixed layout's value that varies counts by chance (`2` over `10` and
        // `3`, beside `7` over `222` and `5`: a base, an exponent and a digit count).
        let chance_counts = varying_places(&parsed_all);
        let (layout, place_ranges) = place_ranges(&parsed_all);
        let tail_counts = tail_counts(&parsed_all, &first_line_kinds);
        first_line_kinds.retain(|tok, _| !chance_counts.contains(&(0, *tok)));
        for (tok, kind) in weak_first_line_kinds {
            if !first_line_kinds.contains_key(&tok) {
                first_line_kinds.entry(tok).or_default().insert(kind);
            }
        }
        let (square_sides, unsure_sides) =
            sides
                .into_iter()
                .filter(|(_, (square, _))| *square)
                .partition::<BTreeMap<_, _>, _>(|(_, (_, sizes))| sizes.len() >= 2);
        let square_sides = square_sides.into_keys().collect();
        let unsure_sides = unsure_sides.into_keys().collect();
        let positions = by_format
            .into_iter()
            .filter(|(_, ws)| ws.len() >= 2)
            .map(|((class, len), ws)| {
                let sets = (0..len)
                    .map(|i| ws.iter().filter_map(|w| w.chars().nth(i)).collect())
                    .collect();
                ((class, len), sets)
            })
            .collect();
        let mut model = InputModel {
            int_lo: lo,
            int_hi: hi,
            alphabets: alphabets.map(|a| a.into_iter().collect()),
            len_lo: len_lo.min(len_hi),
            len_hi,
            words,
            shapes,
            numerals,
            cards,
            positive_header,
            positive_lists,
            distinct_lists,
            chance_counts,
            layout,
            place_ranges,
            tail_counts,
            grid_chars,
            positions,
            columns,
            leads,
            indices,
            pairs,
            line_orders,
            seen_inputs,
            records,
            free_text,
            commands,
            op_codes,
            graphs,
            first_line_kinds,
            counting_widths,
            first_line_values,
            unled_widths,
            header_tops,
            square_sides,
            unsure_sides,
            cases,
            open_ended: false,
            domains: domains::Domains::default(),
            cap: MAX_COUNT,
        };
        // Counts read as the task reads them: `2` over `1 1` in `2021 2` is chance where
        // `2024 2` alone shows the `2` counting nothing.
        model.open_ended = model.cases.is_none()
            && line_counts.len() >= 2
            && parsed_all
                .iter()
                .all(|p| model.links_of(p).is_empty() && p.grids().is_empty());
        model
    }

    /// Whether `w` is a word of a free-text class ([`free_text_classes`]) made of characters
    /// the task's words of that class show, no shorter or longer than the words seen: an edited
    /// string (`dbxac` → `dbxcc`) is as valid as the original where the problem reads any
    /// string, which a closed set of words (commands, names beside numbers) is not.
    fn free_text_word(&self, w: &str) -> bool {
        let class = word_class(w);
        let len = w.chars().count();
        self.free_text.get(class).copied().unwrap_or(false)
            && (self.len_lo..=self.len_hi).contains(&len)
            && self
                .alphabets
                .get(class)
                .is_some_and(|a| w.chars().all(|c| a.contains(&c)))
    }

    /// Whether `input` stays within what the existing inputs show: every integer in their
    /// range (widened down to 1 when they show only positive ones: `1 ≤ x` is the commonest
    /// constraint, and 0 or a negative the commonest invalid input), every word one of theirs
    /// (an edited word may be no valid numeral, time or name) or made of fields each within
    /// what their words of that shape show ([`Shapes::within`]: `01:07` after `09:45`), a
    /// numeral up to the largest they show, or a grid row of the characters their grids hold.
    /// Such an input most likely lies within the problem's constraints.
    pub fn within_observed(&self, input: &str) -> bool {
        if let Some((c, cases)) = self.cases_of(input) {
            return c.within_observed(&cases);
        }
        let lo = self.typical_floor();
        let p = Parsed::of(input);
        let grids = p.grids();
        let sizes = self.sizes(&p);
        p.lines.iter().enumerate().all(|(l, line)| {
            // A grid's rows: its characters are the grids' (markers are kept one each).
            if grids.iter().any(|g| g.contains(&l)) {
                return line
                    .iter()
                    .all(|t| t.render().chars().all(|c| self.grid_chars.contains(&c)));
            }
            line.iter().enumerate().all(|(k, t)| match t {
                Token::Int(v) => {
                    (lo..=self.int_hi).contains(v)
                        || sizes
                            .get(&(l, k))
                            .is_some_and(|&(a, b)| (a..=b).contains(v))
                }
                Token::Word(w) => {
                    self.words.contains(w)
                        || self.free_text_word(w)
                        || self.cards.as_ref().is_some_and(|d| d.holds(w))
                        || self.shapes.within(w) == Some(true)
                        || self
                            .numerals
                            .is_some_and(|hi| numerals::read(w).is_some_and(|v| v <= hi))
                }
                Token::Float(..) => true,
            })
        })
    }

    /// The places of `p` that hold a size or an index into one, with the values typical there:
    /// a count (of tokens, lines, cases, a tree's vertices) or a value that records index up to
    /// [`MAX_COUNT`], as broad inputs make them, and an index column's value or a tree's vertex
    /// within what it indexes. A tree of 40 vertices is as valid as the sample's of 6 where the
    /// values are no more than sizes and the places they name.
    fn sizes(&self, p: &Parsed) -> BTreeMap<(usize, usize), (i64, i64)> {
        let size = (self.typical_floor().max(1), MAX_COUNT as i64);
        let mut out: BTreeMap<(usize, usize), (i64, i64)> = count_places(&self.links_of(p))
            .into_iter()
            .map(|at| (at, size))
            .collect();
        for (at, vertices) in self.graphs.tree_places(p) {
            out.insert(at, vertices.unwrap_or(size));
        }
        // A value of the first line that records index is a size too (`n` vertices).
        for ix in self.indices.values() {
            out.entry((0, ix.place)).or_insert(size);
        }
        let header = p.header();
        for (l, line) in p.lines.iter().enumerate().skip(1) {
            for k in 0..line.len() {
                let Some(ix) = self.indices.get(&(line.len(), k)) else {
                    continue;
                };
                let h = header.get(ix.place).copied().flatten();
                if let Some(bounds) = h
                    .filter(|&h| h <= MAX_COUNT as i64)
                    .and_then(|h| ix.bounds(h))
                {
                    out.entry((l, k)).or_insert(bounds);
                }
            }
        }
        out
    }

    /// The task's varying-length cases and `input`'s, when it splits into them.
    fn cases_of(&self, input: &str) -> Option<(&cases::Cases, Vec<String>)> {
        let c = self.cases.as_ref()?;
        Some((c, c.cases_of(input)?))
    }

    /// A new input made from `base` by one to three mutations; `None` when `base` has nothing
    /// to mutate.
    pub fn mutate(&self, base: &str, rng: &mut impl Rng) -> Option<String> {
        self.mutate_in(base, false, rng)
    }

    /// A large input made from `base`, as a judge's large random tests are: a few broad
    /// mutations in a row at `cap` (each re-reading the counts and resizing one of them to
    /// between half of `cap` and all of it, so most counts grow; a record's own count stays
    /// within what the task's records show), its values redrawn within the range the task's
    /// tests show, and every index column redrawn over all it may index (`flip l r` over the
    /// whole string, not its first five places; `cap` at most 1,000). An input of cases gets
    /// many cases or a few large ones ([`cases::Cases::enlarge`]). `None` where `base` has no
    /// count to grow, or the input would pass 64 KiB. The same keep rules judge it as any
    /// grown input.
    pub fn enlarge(&self, base: &str, cap: usize, rng: &mut impl Rng) -> Option<String> {
        if let Some((c, cases)) = self.cases_of(base) {
            let cap = cap.clamp(MAX_COUNT, MAX_LARGE_CAP);
            return c
                .enlarge(&cases, cap, rng)
                .filter(|input| input.len() > base.len());
        }
        let big = InputModel {
            cap: cap.clamp(MAX_COUNT, MAX_LARGE_CAP),
            ..self.clone()
        };
        let mut input = base.to_string();
        for _ in 0..LARGE_STEPS {
            if let Some(next) = big.mutate_in(&input, true, rng) {
                input = next;
            }
            // Copied cases or rows of rows can multiply lines past any count's cap (370
            // lines became 22,990 of one token each), and reading counts on such an input
            // is slow: no input is made of it.
            if input.len() > MAX_LARGE_INPUT || input.lines().count() > 2 * big.cap + 2 {
                return None;
            }
        }
        (input.len() > base.len() && input.len() <= MAX_LARGE_INPUT).then_some(input)
    }

    /// [`InputModel::mutate`]; `large`: a broad mutation at this model's cap whose index
    /// columns are all redrawn (see [`InputModel::enlarge`]).
    fn mutate_in(&self, base: &str, large: bool, rng: &mut impl Rng) -> Option<String> {
        if let Some((c, cases)) = self.cases_of(base) {
            return c.mutate(base, cases, rng);
        }
        let mut p = Parsed::of(base);
        if p.lines.iter().all(Vec::is_empty) {
            return None;
        }
        let base_first = p.lines.first().cloned().unwrap_or_default();
        // The counts are read once, from the base: a count of 1 left by a resize must keep
        // its meaning (one token, not one line).
        let mut links = self.links_of(&p);
        // A string of digits whose length is counted is a word: edited and resized by its
        // characters (`10110` → `1011001`), never as a number.
        for link in &links {
            if let Link::LengthOfNext { line, .. } = *link {
                if let Some(t @ Token::Int(_)) =
                    p.lines.get_mut(line + 1).and_then(|x| x.first_mut())
                {
                    *t = Token::Word(t.render());
                }
            }
        }
        let mut pairs = self.pairs.clone();
        if !self.seen_inputs.contains(&fingerprint(base)) {
            p.add_pairs(&mut pairs);
        }
        let orders = ordered_pairs(pairs);
        let trees = self.graphs.trees_of(&p);
        // One input in five is broad: one count's structure made large, then many of its values
        // redrawn within the range the task's tests show, as a judge's random tests are. A
        // solution growth never saw errs on values no small edit of the sample reaches
        // (`x mod y = 1` among many cases), and a broad input tries many at once.
        // Not of cards: a hand cannot outgrow the deck.
        let open = self.open_ended && links.is_empty();
        let broad = (!links.is_empty() || !trees.is_empty() || open)
            && self.cards.is_none()
            && (large || rng.random_ratio(1, 5));
        // A large input is a broad one, of a count or a tree it can grow.
        if large && !broad {
            return None;
        }
        // A broad input of a tree makes the tree large (its edges are rebuilt below); a tree
        // whose count is also a link's (a value per vertex) is resized by the link.
        let tree = match trees.len() {
            0 => None,
            n => trees.get(rng.random_range(0..n)),
        };
        let big_tree = tree.filter(|t| {
            broad
                && (links.is_empty() || rng.random_bool(0.5))
                && !links.iter().any(|l| l.at() == t.at())
        });
        if let Some(slot) = big_tree.and_then(|t| p.token_mut(t.at())) {
            *slot = Token::Int(rng.random_range(self.cap as i64 / 2..=self.cap as i64));
        }
        // A broad grid grows both ways half the time (a long thin strip has one route): its
        // row count and its width are resized in turn.
        let grid_links: Vec<Link> = links
            .iter()
            .copied()
            .filter(|l| match *l {
                Link::GridRows { .. } | Link::GridWidth { .. } => true,
                Link::LinesAfter { line, .. } => p.grid_of(line + 1).is_some(),
                _ => false,
            })
            .collect();
        let both_ways =
            broad && big_tree.is_none() && grid_links.len() >= 2 && rng.random_bool(0.5);
        let steps = match () {
            _ if both_ways => grid_links.len(),
            _ if broad => 1,
            _ => rng.random_range(1..=3),
        };
        for step in 0..steps {
            let choice = match () {
                _ if big_tree.is_some() => 10,
                _ if broad => 5,
                _ => rng.random_range(0..10),
            };
            match choice {
                0..=4 => self.change_value(&mut p, &links, rng),
                5..=7 if open => self.resize_open(&mut p, broad, rng),
                5..=7 if !links.is_empty() => {
                    let link = match grid_links.get(step) {
                        Some(&g) if both_ways => g,
                        _ => links[rng.random_range(0..links.len())],
                    };
                    self.resize(&mut p, link, broad, rng);
                    let remade = match link {
                        Link::LinesAfter { line, .. }
                        | Link::Cases { line, .. }
                        | Link::GridRows { line, .. }
                        | Link::Rows { line, .. }
                        | Link::LinesBefore { line, .. } => Some(line),
                        Link::QueriesAfter { line, .. } => Some(line + 1),
                        _ => None,
                    };
                    if let Some(line) = remade {
                        // The lines after it were remade: counts found there are gone. Other
                        // stale counts (on a line a resize shortened, or moved by a shuffle)
                        // are found out by `resize` itself.
                        links.retain(|l| l.at().0 <= line);
                        // Counts that lead their lines were copied with their lines, and a
                        // copied case holds its own counts.
                        let cases = matches!(link, Link::Cases { .. });
                        // Not a record's first value equal to the values after it by
                        // chance (`3 2 3 3` where the task's records of four are not led).
                        let unled = |l: &Link| {
                            matches!(l, Link::TokensAfter { line, .. }
                                if p.lines.get(*line).is_some_and(|x| self.unled_widths.contains(&x.len())))
                        };
                        let found: Vec<Link> = p
                            .links()
                            .into_iter()
                            .filter(|l| {
                                l.at().0 > line
                                    && (cases || matches!(l, Link::TokensAfter { .. }))
                                    && !unled(l)
                            })
                            .collect();
                        links.extend(found);
                    }
                }
                10 => {}
                _ => shuffle_line(&mut p, &links, !self.first_line_kinds.is_empty(), rng),
            }
        }
        if broad {
            let sites: usize = p.lines.iter().map(Vec::len).sum();
            for _ in 0..(sites / 3).clamp(1, 40) {
                self.change_value(&mut p, &links, rng);
            }
            let mut counts = count_places(&links);
            counts.extend(trees.iter().map(graphs::Tree::at));
            self.keep_typical(&mut p, &counts);
            // Half the broad inputs without a tree also spread what indexes a value of the
            // first line that no count fixes (`n` vertices under `m` edges) over a larger one.
            if trees.is_empty() && !self.indices.is_empty() && (large || rng.random_bool(0.5)) {
                let mut fixed = counts.clone();
                fixed.extend(links.iter().filter_map(|l| match *l {
                    Link::Rows {
                        line, width_tok, ..
                    } => Some((line, width_tok)),
                    _ => None,
                }));
                self.spread_indices(&mut p, &fixed, rng);
                if large {
                    p.redraw_indices(&self.indices, rng);
                }
            }
        }
        // A header's positive size stays positive, whatever edit reached it (a record's group
        // copied: `4 0` → `0 0`). A header value that counts nothing stays within
        // [`header_cap`] of the largest the inputs show there, or of the base's own.
        let counted = count_places(&links);
        for (k, t) in p.lines.first_mut().into_iter().flatten().enumerate() {
            if let Token::Int(v) = t {
                if self.positive_header.contains(&k) {
                    *v = (*v).max(1);
                }
                let own = match base_first.get(k) {
                    Some(Token::Int(b)) => b.saturating_abs(),
                    _ => 0,
                };
                let Some(&top) = self.header_tops.get(&k) else {
                    continue;
                };
                // Past the cap, a value of the range shown there (doubled, as `int_range`).
                if !counted.contains(&(0, k)) && v.saturating_abs() > header_cap(top).max(own) {
                    let lo = i64::from(self.positive_header.contains(&k));
                    *v = v.signum() * rng.random_range(lo..=top.saturating_mul(2).max(lo));
                }
            }
        }
        // A list the task shows positive beside one that is not stays positive too, and a
        // list it shows as a set stays one.
        for at in links.iter().filter_map(counted_list) {
            let Some(line) = p.lines.get_mut(at.0) else {
                continue;
            };
            if self.positive_lists.contains(&at) {
                for t in line.iter_mut().skip(at.1) {
                    if let Token::Int(v) = t {
                        *v = (*v).max(1);
                    }
                }
            }
            if self.distinct_lists.contains(&at) {
                if let Some(values) = line.get_mut(at.1..) {
                    make_distinct(values);
                }
            }
        }
        // Orders first: an index past its bound crashes a solution, and the bound wins where
        // both cannot hold (`l < r` with n = 1).
        let counts = count_places(&links);
        // A large input's index columns span what they index, past the range records show.
        let unclamped = if large {
            let mut c = counts.clone();
            c.extend(p.index_places(&self.indices));
            c
        } else {
            counts.clone()
        };
        if !self.domains.is_empty() {
            let first = usize::from(!self.open_ended);
            self.domains.apply(&mut p, first, &counts, rng);
        }
        self.records.clamp(&mut p, &unclamped);
        p.keep_order(&orders, &counts);
        p.keep_line_order(&self.line_orders);
        p.keep_indices(&self.indices);
        let values: BTreeSet<usize> = links.iter().filter_map(|l| l.counted_line()).collect();
        // Trees and simple graphs after the indices (a clamped end may close a cycle or make a
        // loop), their new edges put in order.
        if !self
            .graphs
            .repair(&mut p, &trees, &self.indices, self.cap, rng)
        {
            return None;
        }
        p.keep_order(&orders, &counts);
        // Where both cannot hold (an edge `u < v` among n = 1 vertices), no input is made.
        if p.breaks_strict_order(&orders, &counts) || !p.within_indices(&self.indices) {
            return None;
        }
        self.records.permute(&mut p);
        self.records.sort(&mut p, &counts);
        self.deal(&mut p, rng);
        self.records
            .keep_keys(&mut p, |w| self.new_word(w, false, rng));
        // A command's code edited, or its arguments shuffled before it (`2 4` from `4 2`), is
        // no command the problem knows: solutions that read lines and ones that read tokens
        // part there.
        if let Some(c) = &self.commands {
            if !c.hold(&p) {
                return None;
            }
            c.keep_floors(&mut p);
        }
        self.op_codes.keep(&mut p, &values, rng);
        let out = p.render();
        (out != base).then_some(out)
    }

    /// The columns of small integers whose domain a probe of the original may find (see
    /// [`DomainProbe`]), each with one of `inputs` (the task's own, the model's source) to set
    /// values in: token `k` of lines of one width (after a header; every line where the lines
    /// run until the end), integers from 0 to 64 in every input, neither a
    /// count, a counted list's value nor an index (their bounds are their own; but an index
    /// into a first-line value no probe reaches, a month under a year, is a column), at most
    /// four.
    /// None for inputs of cases, commands, operations or cards, whose columns mean one thing
    /// per code.
    pub fn domain_probes<'a>(&self, inputs: impl IntoIterator<Item = &'a str>) -> Vec<DomainProbe> {
        if self.cases.is_some()
            || self.commands.is_some()
            || self.op_codes != commands::OpCodes::default()
            || self.cards.is_some()
        {
            return Vec::new();
        }
        let first = usize::from(!self.open_ended);
        let mut columns: BTreeMap<Place, domains::ColumnSeen> = BTreeMap::new();
        let parsed: Vec<Parsed> = inputs.into_iter().map(Parsed::of).collect();
        for (i, p) in parsed.iter().enumerate() {
            let links = self.links_of(p);
            let counts = count_places(&links);
            // A counted list's values are no column: its width is its count.
            let lists: BTreeSet<usize> = links.iter().filter_map(|l| l.counted_line()).collect();
            let grids = p.grids();
            for (l, line) in p.lines.iter().enumerate().skip(first) {
                if grids.iter().any(|g| g.contains(&l)) || lists.contains(&l) {
                    continue;
                }
                for (k, t) in line.iter().enumerate() {
                    let value = match t {
                        Token::Int(v) if !counts.contains(&(l, k)) => Some(*v),
                        _ => None,
                    };
                    columns
                        .entry((line.len(), k))
                        .or_default()
                        .add(value, (i, (l, k)));
                }
            }
        }
        columns
            .into_iter()
            .filter(|(_, seen)| seen.small())
            .filter_map(|(column, seen)| {
                let (i, at) = seen.base?;
                let (lo, hi) = seen.range()?;
                let base = parsed.get(i)?;
                // An index's edge is the value it indexes (`n`), no domain; a column within a
                // first-line value no probe reaches (`M` under the year `2024`) is one by chance.
                if let Some(index) = self.indices.get(&column) {
                    let h = base.header().get(index.place).copied().flatten()?;
                    if h <= hi.saturating_add(domains::PROBE_SPAN) {
                        return None;
                    }
                }
                Some(DomainProbe::new(column, (lo, hi), base.clone(), at))
            })
            .take(domains::MOST_PROBED)
            .collect()
    }

    /// Sets the domain a probe found for `column` (see [`InputModel::domain_probes`]): its
    /// values are drawn over all of it, and kept within it.
    pub fn set_domain(&mut self, column: Place, domain: (i64, i64)) {
        self.domains.set(column, domain);
        self.records.set_range(column, domain);
    }

    /// The smallest integer [`InputModel::within_observed`] accepts: the smallest seen, or 1
    /// when only positive ones are seen.
    fn typical_floor(&self) -> i64 {
        if self.int_lo >= 1 {
            1
        } else {
            self.int_lo
        }
    }

    /// Brings every integer of `p` that is not one of `counts` nor in a grid within the range
    /// [`InputModel::within_observed`] accepts.
    fn keep_typical(&self, p: &mut Parsed, counts: &BTreeSet<(usize, usize)>) {
        let lo = self.typical_floor();
        let grids = p.grids();
        for (l, line) in p.lines.iter_mut().enumerate() {
            if grids.iter().any(|g| g.contains(&l)) {
                continue;
            }
            for (k, t) in line.iter_mut().enumerate() {
                if let Token::Int(v) = t {
                    if !counts.contains(&(l, k)) {
                        *v = (*v).clamp(lo, self.int_hi.max(lo));
                    }
                }
            }
        }
    }

    /// Copies or drops a line of an open-ended input ([`InputModel::open_ended`]): a line
    /// after the first (the first, where it is alone) copied next to itself, or a line after
    /// the first dropped; `broad`: copies until the input has between half the
    /// model's cap and all of it lines, as a judge's large test of lines until the end is.
    fn resize_open(&self, p: &mut Parsed, broad: bool, rng: &mut impl Rng) {
        let n = p.lines.len();
        if n == 0 {
            return;
        }
        if !broad && n >= 2 && rng.random_bool(0.4) {
            p.lines.remove(rng.random_range(1..n));
            return;
        }
        let target = match broad {
            true => rng.random_range(self.cap / 2..=self.cap).max(n + 1),
            false => n + 1,
        };
        while p.lines.len() < target {
            let len = p.lines.len();
            let from = if len == 1 {
                0
            } else {
                rng.random_range(1..len)
            };
            let Some(line) = p.lines.get(from).cloned() else {
                return;
            };
            // Next to its source: lines the task keeps in order (log events by time) stay so.
            p.lines.insert(from + 1, line);
        }
    }

    /// Makes each value of the first line that an index column indexes and that is not one of
    /// `fixed` (counts, a matrix's width; `n` of `n m` over `m` edges `u v`) larger, up to
    /// the model's cap ([`MAX_COUNT`] but in large inputs), and redraws every value of its index
    /// columns over all it may now index. Edits keep indices within the values the task's
    /// inputs show, so a graph of 6 vertices stays one of 6 however many edges a
    /// broad input gives it; a judge's random graph spreads its edges over many vertices, where
    /// union-find parities, path lengths and components a solution growth never saw may err.
    fn spread_indices(&self, p: &mut Parsed, fixed: &BTreeSet<Place>, rng: &mut impl Rng) {
        let header = p.header();
        let places: BTreeSet<usize> = self
            .indices
            .values()
            .map(|ix| ix.place)
            .filter(|&j| !fixed.contains(&(0, j)))
            .collect();
        let mut grown = BTreeMap::new();
        for j in places {
            let Some(Some(h)) = header.get(j).copied() else {
                continue;
            };
            if !(1..self.cap as i64).contains(&h) {
                continue;
            }
            let new = rng.random_range(h.max(self.cap as i64 / 4)..=self.cap as i64);
            if let Some(slot) = p.token_mut((0, j)) {
                *slot = Token::Int(new);
                grown.insert(j, new);
            }
        }
        if grown.is_empty() {
            return;
        }
        for line in p.lines.iter_mut().skip(1) {
            let width = line.len();
            for (k, t) in line.iter_mut().enumerate() {
                let (Some(ix), Token::Int(v)) = (self.indices.get(&(width, k)), &mut *t) else {
                    continue;
                };
                if let Some((lo, hi)) = grown.get(&ix.place).and_then(|&h| ix.bounds(h)) {
                    *v = rng.random_range(lo..=hi);
                }
            }
        }
    }

    /// Changes one token that is not a count.
    fn change_value(&self, p: &mut Parsed, links: &[Link], rng: &mut impl Rng) {
        let counts: Vec<(usize, usize)> = links.iter().map(|l| l.at()).collect();
        let length_bound: Vec<usize> = links
            .iter()
            .filter_map(|l| match l {
                Link::LengthOfNext { line, .. } => Some(line + 1),
                _ => None,
            })
            .collect();
        let sites: Vec<(usize, usize)> = p
            .lines
            .iter()
            .enumerate()
            .flat_map(|(l, line)| (0..line.len()).map(move |k| (l, k)))
            .filter(|s| !counts.contains(s))
            // A first-line count of the task's this base does not read as one (`1 60` over
            // one row: the `1` counts rows of one): an edit would leave what it counts behind.
            .filter(|&(l, k)| {
                l > 0
                    || !self.first_line_kinds.contains_key(&k)
                    || self.first_line_values.contains(&k)
            })
            .filter(|&(l, k)| self.commands.is_none() || l == 0 || k > 0)
            .collect();
        if sites.is_empty() {
            return;
        }
        // A header's parameter (a target sum, an exponent) shapes the whole answer, where one
        // value among fifty records rarely does: it is picked more often than its share.
        let parameters: Vec<(usize, usize)> = sites
            .iter()
            .copied()
            .filter(|&(l, k)| self.is_parameter(l, k) || self.is_lone_value(&*p, &counts, l, k))
            .collect();
        let (l, k) = match parameters.len() {
            1.. if sites.len() > 4 && rng.random_bool(PARAMETER_PICK_CHANCE) => {
                parameters[rng.random_range(0..parameters.len())]
            }
            _ => sites[rng.random_range(0..sites.len())],
        };
        // Not a grid that holds a count (`58` above rows of two letters): its cells are no
        // cells.
        if let Some(g) = p
            .grid_of(l)
            .filter(|g| !counts.iter().any(|(c, _)| g.contains(c)))
        {
            let rows = grids::edit_cell(&p.rows(&g), rng);
            p.set_rows(g, rows);
            return;
        }
        let keep_length = length_bound.contains(&l);
        // Sometimes a tie: the value of another number of the same line, where equal
        // elements take another path (a strict `>`, a stable order, a first index). Never a
        // word: `bob withdraw` is a record, `withdraw withdraw` none.
        let number = matches!(
            p.lines.get(l).and_then(|line| line.get(k)),
            Some(Token::Int(_) | Token::Float(..))
        );
        // Sometimes a group of a record copied onto another (`0 0 0 0` from `0 0 4 4`: a
        // segment that is a point, two equal corners, the same segment twice): judges test
        // degenerate shapes, and single edits rarely make all of a point equal.
        if number && !counts.iter().any(|&(c, _)| c == l) && rng.random_bool(0.15) {
            if let Some(line) = p.lines.get_mut(l) {
                if copy_group(line, rng) {
                    return;
                }
            }
        }
        if number && rng.random_bool(0.2) {
            if let Some(line) = p.lines.get_mut(l) {
                // A first-line value may take a count's (`k = n`: every element its own part,
                // the edge of `1 ≤ k ≤ n`); elsewhere a count's value is no record's.
                let twins: Vec<Token> = (0..line.len())
                    .filter(|&j| j != k && (l == 0 || !counts.contains(&(l, j))))
                    .filter_map(|j| line.get(j).cloned())
                    .filter(|t| line.get(k).is_some_and(|own| same_type(t, own)))
                    .collect();
                if !twins.is_empty() {
                    if let Some(slot) = line.get_mut(k) {
                        *slot = twins[rng.random_range(0..twins.len())].clone();
                    }
                    return;
                }
            }
        }
        if let Some(card) = self.new_card(p, l, k, rng) {
            if let Some(t) = p.lines.get_mut(l).and_then(|line| line.get_mut(k)) {
                *t = Token::Word(card);
            }
            return;
        }
        if let Some(mate) = self.column_mate(p, l, k, rng) {
            if let Some(t) = p.lines.get_mut(l).and_then(|line| line.get_mut(k)) {
                *t = Token::Word(mate);
            }
            return;
        }
        let lone = self.is_lone_value(p, &counts, l, k);
        let parameter = lone || self.is_parameter(l, k);
        let header = l == 0 && self.positive_header.contains(&k);
        let seen = self.seen_at(p, l, k);
        let Some(t) = p.lines.get_mut(l).and_then(|line| line.get_mut(k)) else {
            return;
        };
        *t = match t {
            Token::Int(v) if parameter && rng.random_bool(SCALE_CHANCE) => {
                let scaled = scaled_up(*v, rng);
                Token::Int(if lone && rng.random_bool(FLIP_CHANCE) {
                    -scaled
                } else {
                    scaled
                })
            }
            Token::Int(v) if header => Token::Int(self.new_int(*v, seen, rng).max(1)),
            Token::Int(v) => Token::Int(self.new_int(*v, seen, rng)),
            Token::Float(v, d) => Token::Float(*v * rng.random_range(0.5..1.5), *d),
            Token::Word(w) => Token::Word(self.new_word(w, keep_length, rng)),
        };
    }

    /// Whether token `k` of line `l` is a header's parameter: a first-line value that counts
    /// nothing ([`InputModel::first_line_values`]) and is no size that record columns index
    /// into (`n` of `n m` over edges: a graph of thousands of vertices is slow for a solution
    /// quadratic in them and tests little more).
    fn is_parameter(&self, l: usize, k: usize) -> bool {
        l == 0
            && self.first_line_values.contains(&k)
            && !self.indices.values().any(|i| i.place == k)
    }

    /// Whether token `k` of line `l` of `p` is a lone value: the only token of a line after
    /// the first, an integer of at least 2 that counts nothing and indexes nothing, between
    /// lines that are no lone integers themselves (a run of them is a column of records). A
    /// day offset under a date, a number of steps under a grid: the sample shows 3, the
    /// statement allows 10⁵, and a month-by-month loop only errs across many months.
    fn is_lone_value(&self, p: &Parsed, counts: &[(usize, usize)], l: usize, k: usize) -> bool {
        let single_int =
            |l: usize| matches!(p.lines.get(l).map(Vec::as_slice), Some([Token::Int(_)]));
        let Some([Token::Int(v)]) = p.lines.get(l).map(Vec::as_slice) else {
            return false;
        };
        // The count of the next line's tokens (a case's `5` over five numbers), unless every
        // line to the end is that wide (a threshold of 3 over edges `u v w`).
        let counts_next = usize::try_from(*v).is_ok_and(|n| {
            p.lines.get(l + 1).map(Vec::len) == Some(n) && !p.lone_over_records(l, n)
        });
        l >= 1
            && k == 0
            && *v >= 2
            && !counts_next
            && !counts.contains(&(l, k))
            // A first line counts the run below it only where it is read as a count (`1000`
            // over `15`: a modulus, then the value).
            && !(single_int(l - 1) && (l >= 2 || counts.contains(&(0, 0))))
            && !single_int(l + 1)
            && !self.indices.contains_key(&(1, 0))
    }

    /// For a card at token `k` of line `l`: another card of the deck, none of the line's
    /// others unless the deck repeats. `None`: not a card (or no other card found).
    fn new_card(&self, p: &Parsed, l: usize, k: usize, rng: &mut impl Rng) -> Option<String> {
        let deck = self.cards.as_ref()?;
        let line = p.lines.get(l)?;
        let Some(Token::Word(own)) = line.get(k) else {
            return None;
        };
        if !deck.holds(own) {
            return None;
        }
        deck.edit(own, &words_of(line), rng)
    }

    /// Where a task's cards come from one deck, a card that repeats on its line (copied by a
    /// resize, or drawn) is dealt again: a hand with two `QH` is no hand.
    fn deal(&self, p: &mut Parsed, rng: &mut impl Rng) {
        let Some(deck) = self.cards.as_ref().filter(|d| !d.repeats()) else {
            return;
        };
        for line in &mut p.lines {
            for k in 0..line.len() {
                let Some(Token::Word(own)) = line.get(k) else {
                    continue;
                };
                let earlier = line
                    .iter()
                    .take(k)
                    .any(|t| matches!(t, Token::Word(w) if w == own));
                if !earlier || !deck.holds(own) {
                    continue;
                }
                let card = deck.edit(own, &words_of(line), rng);
                if let (Some(card), Some(slot)) = (card, line.get_mut(k)) {
                    *slot = Token::Word(card);
                }
            }
        }
    }

    /// For a plain word at token `k` of line `l`: another word its column holds in the
    /// task's inputs ([`Columns`]), always when a word repeats in such a column (a closed set
    /// such as `deposit`/`withdraw`, whose edited spellings are no command), half the time
    /// otherwise. Only a word of its own class, and a line's first word only for one seen
    /// before words of the kinds that follow it: a column of `E aab` and `D a2b1` lines holds
    /// a string to encode and a code to decode, and neither is valid in the other's place.
    /// `None`: edit the word itself.
    fn column_mate(&self, p: &Parsed, l: usize, k: usize, rng: &mut impl Rng) -> Option<String> {
        let Some(Token::Word(own)) = p.lines.get(l)?.get(k) else {
            return None;
        };
        let column = self.columns.get(own)?;
        let class = word_class(own);
        // A line's leading word is swapped only for one that leads such lines (`D` for `E`
        // only where `D` is seen before a word of this line's kinds).
        let line = p.lines.get(l)?;
        let fits = |w: &String| {
            k > 0
                || self
                    .leads
                    .get(w)
                    .is_some_and(|kinds| kinds.contains(&after_lead(line)))
        };
        let others: Vec<&String> = column
            .mates
            .iter()
            .filter(|w| *w != own && word_class(w) == class && fits(w))
            .collect();
        if others.is_empty() {
            // A closed column with one word: the word stays.
            return column.closed.then(|| own.clone());
        }
        (column.closed || rng.random_bool(0.5))
            .then(|| others[rng.random_range(0..others.len())].clone())
    }

    /// The range new integers are drawn from: the observed one, widened to reach 0 (or
    /// twice as far below 0) and twice as far up (one sample test shows one value, not the
    /// problem's range); the keep rules drop what lies outside the constraints.
    fn int_range((lo, hi): (i64, i64)) -> (i64, i64) {
        let hi = hi.max(lo);
        let lo = if lo >= 0 { 0 } else { lo.saturating_mul(2) };
        let hi = hi.saturating_mul(2).max(hi.saturating_add(2)).max(lo);
        (lo, hi)
    }

    /// The integers seen at `(l, k)` of `p`: where every input of the task has one layout
    /// and `p` has it too, those of that place in the task's inputs ([`place_ranges`]: `k`
    /// under `a` and `b` shows 3 to 5, not the input's 222), else those of every input.
    fn seen_at(&self, p: &Parsed, l: usize, k: usize) -> (i64, i64) {
        let fixed = self
            .layout
            .as_ref()
            .is_some_and(|w| p.lines.iter().map(Vec::len).eq(w.iter().copied()));
        match self.place_ranges.get(&(l, k)) {
            Some(&range) if fixed => range,
            _ => (self.int_lo, self.int_hi),
        }
    }

    fn new_int(&self, v: i64, seen: (i64, i64), rng: &mut impl Rng) -> i64 {
        let (int_lo, int_hi) = seen;
        let (lo, hi) = Self::int_range(seen);
        let step = (v.unsigned_abs() / 2).clamp(1, 1 << 20) as i64;
        let candidate = match rng.random_range(0..10) {
            0 => v.saturating_add(1),
            1 => v.saturating_sub(1),
            2 => v.saturating_add(rng.random_range(1..=step)),
            3 => v.saturating_sub(rng.random_range(1..=step)),
            // 1 where the inputs show only positive integers: `1 ≤ x` is the commonest lower
            // bound, and values the tests never go near (`x mod y = 1`, `y = 1`) sit there.
            4 if int_lo > 1 && rng.random_bool(0.5) => 1,
            4 => int_lo,
            5 => int_hi,
            // A round number: where divisibility by 10, 100, … changes the answer.
            6 => round_down(rng.random_range(lo..=hi), rng),
            // The other sign where the task shows negative numbers: far values of the other
            // sign that `lo..=hi` does not reach around a large `v` (no clamp: its size is
            // one the task shows).
            7 if int_lo < 0 => return v.saturating_neg(),
            _ => rng.random_range(lo..=hi),
        };
        candidate.clamp(lo.min(v), hi.max(v))
    }

    fn new_word(&self, w: &str, keep_length: bool, rng: &mut impl Rng) -> String {
        // A numeral becomes another numeral: by value, written canonically (of the same
        // length where its length is counted; a few draws, else the numeral stays).
        if let (Some(hi), Some(v)) = (self.numerals, numerals::read(w)) {
            let top = hi.saturating_mul(2).clamp(1, numerals::MAX);
            for _ in 0..20 {
                let new = match rng.random_range(0..6) {
                    0 => v + 1,
                    1 => v.saturating_sub(1),
                    2 => 1,
                    3 => hi,
                    4 => rng.random_range(1..=top),
                    _ => rng.random_range(1..=hi.max(1)),
                };
                let new = numerals::write(new.clamp(1, numerals::MAX));
                if !keep_length || new.len() == w.len() {
                    return new;
                }
            }
            return w.to_string();
        }
        // A number too long for an integer changes its sign where the task shows negative
        // numbers: a huge negative term flips a sum's sign, which small ones never do.
        let digits = w.strip_prefix('-').unwrap_or(w);
        if self.int_lo < 0
            && !keep_length
            && digits.len() > 18
            && digits.bytes().all(|b| b.is_ascii_digit())
            && rng.random_ratio(1, 4)
        {
            return match w.strip_prefix('-') {
                Some(positive) => positive.to_string(),
                None => format!("-{w}"),
            };
        }
        // A word made of fields keeps its shape (and its length where that is counted).
        if let Some(new) = self.shapes.edit(w, rng) {
            if !keep_length || new.chars().count() == w.chars().count() {
                return new;
            }
            return w.to_string();
        }
        let mut chars: Vec<char> = w.chars().collect();
        // A word of a fixed format (a card): one position changed to a character seen there.
        if let Some(sets) = self.positions.get(&(word_class(w), chars.len())) {
            let i = rng.random_range(0..chars.len());
            if let (Some(set), Some(own)) = (sets.get(i), chars.get(i).copied()) {
                let others: Vec<char> = set.iter().copied().filter(|&c| c != own).collect();
                if let (false, Some(slot)) = (others.is_empty(), chars.get_mut(i)) {
                    *slot = others[rng.random_range(0..others.len())];
                }
            }
            return chars.into_iter().collect();
        }
        let alphabet = &self.alphabets[word_class(w)];
        if alphabet.is_empty() || chars.is_empty() {
            return w.to_string();
        }
        let pick = |rng: &mut dyn rand::RngCore| alphabet[rng.random_range(0..alphabet.len())];
        match rng.random_range(0..4) {
            0 => {
                let i = rng.random_range(0..chars.len());
                chars[i] = pick(rng);
            }
            1 if chars.len() >= 2 => {
                let (i, j) = (
                    rng.random_range(0..chars.len()),
                    rng.random_range(0..chars.len()),
                );
                chars.swap(i, j);
            }
            2 if !keep_length && chars.len() < self.len_hi.max(chars.len() + 1) => {
                let i = rng.random_range(0..=chars.len());
                chars.insert(i, pick(rng));
            }
            3 if !keep_length && chars.len() > self.len_lo.min(chars.len() - 1).max(1) => {
                let i = rng.random_range(0..chars.len());
                chars.remove(i);
            }
            _ => {
                let i = rng.random_range(0..chars.len());
                chars[i] = pick(rng);
            }
        }
        chars.into_iter().collect()
    }

    /// Changes a count and what it counts together. Earlier mutations may have moved or
    /// removed the count or what it counts (shuffled lines, a resized line): whatever is no
    /// longer where the link says is left alone (never indexed blindly). `broad`: to between
    /// half of the model's cap ([`MAX_COUNT`] but in large inputs) and all of it (never
    /// smaller).
    fn resize(&self, p: &mut Parsed, link: Link, broad: bool, rng: &mut impl Rng) {
        let (l, k) = link.at();
        let Some(Token::Int(n)) = p.lines.get(l).and_then(|line| line.get(k)) else {
            return;
        };
        let n = usize::try_from((*n).max(1)).unwrap_or(1);
        // A square-or-records count (see `unsure_sides`) over a base of that shape stays.
        if l == 0 && self.unsure_sides.contains(&k) && p.square_after(0, n) {
            return;
        }
        // Only a count that still counts what it did: an earlier mutation may have moved it
        // (shuffled lines) or changed what follows it (a resized line).
        let counts_now = match link {
            Link::TokensOnNext { .. } | Link::TokensOnSecond { .. } => link
                .counted_line()
                .and_then(|c| p.lines.get(c))
                .map(Vec::len),
            Link::TokensAfter { .. } => p.lines.get(l).map(|x| x.len().saturating_sub(1)),
            Link::LinesAfter { .. } => p.lines.len().checked_sub(l + 1),
            Link::QueriesAfter { .. } => p.lines.len().checked_sub(l + 2),
            Link::GridRows { .. } => p
                .grid_of(l + 1)
                .filter(|g| g.start == l + 1)
                .map(|g| g.len()),
            // The rows as they are now: a resize of the row count may have added some.
            Link::Width { .. } => {
                let rows = p.rows_of_width(l, n);
                (rows >= 2).then_some(n)
            }
            Link::Rows { width_tok, .. } => match p.lines.get(l).and_then(|x| x.get(width_tok)) {
                Some(Token::Int(w)) => usize::try_from(*w).ok().map(|w| p.rows_of_width(l, w)),
                _ => None,
            },
            Link::LinesBefore {
                shape: TailShape::Unsure,
                ..
            } => None,
            Link::LinesBefore { tail, .. } => p.lines.len().checked_sub(l + 1 + tail),
            Link::Cases { per, .. } => p
                .lines
                .len()
                .checked_sub(l + 1)
                .filter(|after| after % per.max(1) == 0)
                .map(|after| after / per.max(1)),
            Link::LengthOfNext { .. } | Link::GridWidth { .. } => {
                match p.lines.get(l + 1).map(Vec::as_slice) {
                    Some([Token::Word(w)]) => Some(w.chars().count()),
                    _ => None,
                }
            }
        };
        if counts_now != Some(n) {
            return;
        }
        let upper = n.saturating_mul(2).clamp(8, MAX_COUNT).max(n);
        let new = match rng.random_range(0..5) {
            _ if broad => rng.random_range(n.max(self.cap / 2)..=n.max(self.cap)),
            0 => n.saturating_sub(1).max(1),
            1 => (n + 1).min(upper),
            2 => 1,
            3 => upper,
            _ => rng.random_range(1..=upper),
        };
        // A grid keeps two rows and two columns at least: fewer, and it is no longer seen as
        // a grid by the mutations that follow.
        let grid = matches!(link, Link::GridWidth { .. } | Link::GridRows { .. })
            || (matches!(link, Link::LinesAfter { .. }) && p.grid_of(l + 1).is_some());
        // A record's own count stays within what the task's records show (see
        // [`records::RecordRules::count_range`]).
        let own = (l >= 1)
            .then(|| p.lines.get(l).map(Vec::len))
            .flatten()
            .and_then(|w| self.records.count_range(w, k))
            .and_then(|(lo, hi)| Some((usize::try_from(lo).ok()?, usize::try_from(hi).ok()?)));
        let new = match own {
            Some((lo, hi)) if lo <= hi => new.clamp(lo.max(1), hi.max(1)),
            _ => new,
        };
        // Three columns where the grid had them: rows of two (`S.` over `E#`) may read as
        // values of one field shape, no longer a grid.
        let new = match link {
            Link::GridWidth { .. } => new.max(n.min(3)).max(2),
            // Rows of one number would run on into one-number lines after them (`k`): the
            // next resize would take those for rows.
            Link::Width { .. } if p.lines.len() > l + 1 + p.rows_of_width(l, n) => new.max(2),
            _ if grid => new.max(2),
            _ => new,
        };
        if new == n {
            return;
        }
        match link {
            Link::TokensOnNext { .. } | Link::TokensOnSecond { .. } => {
                let Some(next) = link.counted_line().and_then(|c| p.lines.get_mut(c)) else {
                    return;
                };
                resize_vec(next, new, rng, |t, rng| self.mutated_token(t, rng));
            }
            Link::LinesAfter { .. } if p.grid_of(l + 1) == Some(l + 1..p.lines.len()) => {
                let g = l + 1..p.lines.len();
                let rows = grids::resize_rows(&p.rows(&g), new, rng);
                p.set_rows(g, rows);
            }
            Link::TokensAfter { .. } => {
                let Some(line) = p.lines.get_mut(l) else {
                    return;
                };
                let mut rest = line.split_off(1);
                resize_vec(&mut rest, new, rng, |t, rng| self.mutated_token(t, rng));
                line.extend(rest);
            }
            Link::GridWidth { .. } => {
                let Some(g) = p.grid_of(l + 1).filter(|g| g.start == l + 1) else {
                    return;
                };
                let rows = grids::resize_width(&p.rows(&g), new, rng);
                p.set_rows(g, rows);
            }
            Link::GridRows { .. } => {
                let Some(g) = p.grid_of(l + 1).filter(|g| g.start == l + 1) else {
                    return;
                };
                let rows = grids::resize_rows(&p.rows(&g), new, rng);
                p.set_rows(g, rows);
            }
            Link::Width { .. } => {
                let rows = p.rows_of_width(l, n);
                for row in p.lines.iter_mut().skip(l + 1).take(rows) {
                    resize_vec(row, new, rng, |t, rng| self.mutated_token(t, rng));
                }
            }
            Link::Rows { .. } => {
                // `n` rows (the count still counts them), then the lines after them.
                let mut block = p.lines.split_off(l + 1);
                let tail = block.split_off(n.min(block.len()));
                resize_vec(&mut block, new, rng, |line, rng| {
                    line.iter().map(|t| self.mutated_token(t, rng)).collect()
                });
                p.lines.extend(block);
                p.lines.extend(tail);
            }
            Link::LinesBefore { tail, shape, .. } => {
                // The counted lines, then the tail as it is.
                let mut block = p.lines.split_off(l + 1);
                let rest = block.split_off(block.len().saturating_sub(tail));
                resize_vec(&mut block, new, rng, |line, rng| {
                    line.iter().map(|t| self.mutated_token(t, rng)).collect()
                });
                if shape == TailShape::Square {
                    for row in &mut block {
                        resize_vec(row, new, rng, |t, rng| self.mutated_token(t, rng));
                    }
                }
                p.lines.extend(block);
                p.lines.extend(rest);
            }
            Link::Cases { per, .. } => {
                // Whole cases are dropped or copied: a case holds its own counts.
                let rest = p.lines.split_off(l + 1);
                let mut cases: Vec<Vec<Vec<Token>>> =
                    rest.chunks(per.max(1)).map(<[_]>::to_vec).collect();
                resize_vec(&mut cases, new, rng, |c, _| c.clone());
                p.lines.extend(cases.into_iter().flatten());
            }
            Link::LinesAfter { .. } | Link::QueriesAfter { .. } => {
                let start = if matches!(link, Link::QueriesAfter { .. }) {
                    l + 2
                } else {
                    l + 1
                };
                // A square matrix's side: its rows take the new width too.
                let square = matches!(link, Link::LinesAfter { line: 0, tok } if self.square_sides.contains(&tok))
                    && p.square_after(l, n);
                let Some(mut block) = (start <= p.lines.len()).then(|| p.lines.split_off(start))
                else {
                    return;
                };
                resize_vec(&mut block, new, rng, |line, rng| {
                    // A count that leads its line (`2 AS KD`), or a command's code, is copied
                    // as it is.
                    let leads = led_by_count(line) || self.commands.is_some();
                    line.iter()
                        .enumerate()
                        .map(|(i, t)| {
                            if i == 0 && leads {
                                t.clone()
                            } else {
                                self.mutated_token(t, rng)
                            }
                        })
                        .collect()
                });
                if square {
                    for row in &mut block {
                        resize_vec(row, new, rng, |t, rng| self.mutated_token(t, rng));
                    }
                }
                p.lines.extend(block);
            }
            Link::LengthOfNext { .. } => {
                let Some(Token::Word(w)) = p.lines.get_mut(l + 1).and_then(|x| x.first_mut())
                else {
                    return;
                };
                let mut chars: Vec<char> = w.chars().collect();
                let alphabet: Vec<char> = chars.clone();
                resize_vec(&mut chars, new, rng, |c, rng| {
                    alphabet
                        .get(rng.random_range(0..alphabet.len().max(1)))
                        .copied()
                        .unwrap_or(*c)
                });
                *w = chars.into_iter().collect();
            }
        }
        if let Some(t) = p.lines.get_mut(l).and_then(|line| line.get_mut(k)) {
            *t = Token::Int(new as i64);
        }
    }

    /// A copy of `t`, changed half the time (new elements of a resized structure). A plain
    /// word is copied as it is: a record's name or command copied from another record is one
    /// the problem knows, an edited spelling may not be.
    fn mutated_token(&self, t: &Token, rng: &mut impl Rng) -> Token {
        if rng.random_bool(0.5) {
            return t.clone();
        }
        match t {
            Token::Int(v) => Token::Int(self.new_int(*v, (self.int_lo, self.int_hi), rng)),
            Token::Float(v, d) => Token::Float(*v * rng.random_range(0.5..1.5), *d),
            Token::Word(w) if self.cards.as_ref().is_some_and(|d| d.holds(w)) => self
                .cards
                .as_ref()
                .and_then(|d| d.edit(w, &[], rng))
                .map_or_else(|| t.clone(), Token::Word),
            // A plain word is copied as it is (`D` is a command, not 500, unless the task's
            // words are numerals).
            Token::Word(w)
                if self.shapes.within(w).is_none()
                    && (self.numerals.is_none() || numerals::read(w).is_none()) =>
            {
                t.clone()
            }
            Token::Word(w) => Token::Word(self.new_word(w, true, rng)),
        }
    }
}

/// Truncates `v` to `n` items or extends it with items made from random existing ones.
fn resize_vec<T: Clone, R: Rng>(
    v: &mut Vec<T>,
    n: usize,
    rng: &mut R,
    make: impl Fn(&T, &mut R) -> T,
) {
    if v.is_empty() {
        return;
    }
    if n <= v.len() {
        v.truncate(n);
        return;
    }
    while v.len() < n {
        let i = rng.random_range(0..v.len());
        let Some(base) = v.get(i).cloned() else {
            return;
        };
        let item = make(&base, rng);
        v.push(item);
    }
}

/// Copies one group of `line`'s numbers onto another of the same size (groups of two tokens
/// or more that split the line evenly, two groups or more): false where the line is not of
/// numbers only or has no such groups.
fn copy_group(line: &mut [Token], rng: &mut impl Rng) -> bool {
    let w = line.len();
    if w < 4
        || !line
            .iter()
            .all(|t| matches!(t, Token::Int(_) | Token::Float(..)))
    {
        return false;
    }
    let sizes: Vec<usize> = (2..=w / 2).filter(|d| w.is_multiple_of(*d)).collect();
    let Some(&d) = sizes.get(rng.random_range(0..sizes.len().max(1))) else {
        return false;
    };
    let groups = w / d;
    let from = rng.random_range(0..groups);
    let to = (from + rng.random_range(1..groups)) % groups;
    let group: Vec<Token> = line.iter().skip(from * d).take(d).cloned().collect();
    for (slot, t) in line.iter_mut().skip(to * d).zip(group) {
        *slot = t;
    }
    true
}

/// Shuffles the tokens of a line that holds several of one kind (or makes an array's numbers
/// equal or sorted), or the lines a count counts. Not the first line where `header` (the
/// task's first line holds counts): `4 0` shuffled is `0 4`, four edges counted and none there.
fn shuffle_line(p: &mut Parsed, links: &[Link], header: bool, rng: &mut impl Rng) {
    use rand::seq::SliceRandom;
    let blocks: Vec<usize> = links
        .iter()
        .filter_map(|l| match l {
            Link::LinesAfter { line, .. } => Some(*line),
            Link::QueriesAfter { line, .. } => Some(*line + 1),
            _ => None,
        })
        .collect();
    if let Some(&l) = blocks.first().filter(|_| rng.random_bool(0.3)) {
        if let Some(block) = p.lines.get_mut(l + 1..) {
            block.shuffle(rng);
        }
        return;
    }
    let counted: Vec<usize> = links.iter().map(|l| l.at().0).collect();
    // Only a line of one kind of token: a record (`bob withdraw 50`, `D a2b1`) has an order.
    let alike = |a: &Token, b: &Token| match (a, b) {
        (Token::Word(x), Token::Word(y)) => word_class(x) == word_class(y),
        _ => same_type(a, b),
    };
    let lines: Vec<usize> = (0..p.lines.len())
        .filter(|&l| p.lines[l].len() >= 2 && !counted.contains(&l) && !(header && l == 0))
        .filter(|&l| p.lines[l].windows(2).all(|w| alike(&w[0], &w[1])))
        .collect();
    if lines.is_empty() {
        return;
    }
    let Some(line) = p.lines.get_mut(lines[rng.random_range(0..lines.len())]) else {
        return;
    };
    // An array of three numbers or more is sometimes made what judges' tests always try and
    // an edit seldom reaches: all equal (no pair differs), sorted, or sorted backwards.
    let array = line.len() >= 3 && line.iter().all(|t| matches!(t, Token::Int(_)));
    match rng.random_range(0..10) {
        0 | 1 if array => {
            if let Some(v) = line.get(rng.random_range(0..line.len())).cloned() {
                line.iter_mut().for_each(|t| *t = v.clone());
            }
        }
        roll @ 2..=4 if array => {
            line.sort_by_key(|t| match t {
                Token::Int(v) => *v,
                _ => 0,
            });
            if roll == 4 {
                line.reverse();
            }
        }
        _ => line.shuffle(rng),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn counts_stay_consistent_with_what_they_count() {
        let base = "4\n3 1 4 1\n";
        let model = InputModel::of([base]);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut resized = 0;
        for _ in 0..200 {
            let Some(new) = model.mutate(base, &mut rng) else {
                continue;
            };
            let lines: Vec<&str> = new.lines().collect();
            let n: usize = lines[0].parse().unwrap();
            assert_eq!(lines[1].split_whitespace().count(), n, "{new:?}");
            resized += usize::from(n != 4);
            for t in lines[1].split_whitespace() {
                let v: i64 = t.parse().unwrap();
                assert!((0..=8).contains(&v), "{new:?}");
            }
        }
        assert!(resized > 10);
    }

    #[test]
    fn pairs_of_times_ordered_in_every_record_stay_ordered() {
        let base = "5\n09:00 10:30\n10:00 11:00\n10:30 12:00\n10:15 10:45\n13:00 14:00\n";
        let inputs = made(base, 300, 5);
        for new in &inputs {
            for line in new.lines().skip(1) {
                let (a, b) = line.split_once(' ').unwrap();
                assert!(a < b, "{new:?}");
            }
        }
        assert!(inputs.len() > 100, "{}", inputs.len());
        // Fields compare as numbers (`9:00` before `10:30`); words with letters do not compare.
        assert_eq!(
            order_of(&Token::Word("9:00".into()), &Token::Word("10:30".into())),
            Some(std::cmp::Ordering::Less)
        );
        assert_eq!(
            order_of(&Token::Word("e4".into()), &Token::Word("a5".into())),
            None
        );
    }

    #[test]
    fn command_lines_keep_their_codes_and_widths() {
        let base = "8\n1 5\n1 -3\n1 10\n3\n4 2\n3\n2\n3\n";
        let model = InputModel::of([base]);
        let codes = model.commands.clone().expect("commands read").widths();
        assert_eq!(codes, BTreeMap::from([(1, 2), (2, 1), (3, 1), (4, 2)]));
        let inputs = made(base, 300, 3);
        for new in &inputs {
            for line in new.lines().skip(1) {
                let t: Vec<i64> = line
                    .split_whitespace()
                    .map(|t| t.parse().unwrap())
                    .collect();
                assert_eq!(codes.get(&t[0]), Some(&t.len()), "{new:?}");
                // `4 k` only ever shows k ≥ 1.
                assert!(t[0] != 4 || t[1] >= 1, "{new:?}");
            }
        }
        assert!(inputs.len() > 100, "{}", inputs.len());
        // Counts are no commands (`3` over three numbers), nor are arrays, nor one code.
        assert!(InputModel::of(["2\n3\n1 2 3\n2\n4 5\n"]).commands.is_none());
        assert!(InputModel::of(["3\n5 1 4\n2 7 1\n"]).commands.is_none());
        assert!(InputModel::of(["3\n1 5\n1 6\n1 7\n"]).commands.is_none());
    }

    #[test]
    fn a_one_beside_a_value_over_one_word_counts_nothing() {
        let base = "3 4\n....\n.#..\n....\n1 1\nRRDDLLUU\n";
        for new in made(base, 200, 32) {
            assert_eq!(
                new.lines().last().map(|l| l.split(' ').count()),
                Some(1),
                "{new}"
            );
        }
    }

    #[test]
    fn huge_numbers_change_sign_where_negatives_are_shown() {
        let base = "3\n123456789012345678901234567890\n-5\n1000000007\n";
        let made = made(base, 200, 33);
        let negative = |m: &String| m.lines().any(|l| l.starts_with("-123456789"));
        assert!(made.iter().filter(|m| negative(m)).count() >= 5);
        assert!(made.iter().any(|m| m.lines().any(|l| l == "-1000000007")));
        // Not where every number is positive (the lone `5` below may run backwards: it is
        // an offset's kind of value, not a huge number).
        let made = super::tests::made("2\n123456789012345678901234567890\n5\n", 200, 33);
        assert!(!made.iter().any(|m| m.contains("-123")));
    }

    #[test]
    fn a_first_line_value_sometimes_takes_its_counts_value() {
        let made = made("5 2\n7 2 5 10 8\n", 300, 34);
        let equal = made.iter().filter(|m| {
            let first: Vec<&str> = m.lines().next().unwrap_or("").split(' ').collect();
            first.len() == 2 && first[0] == first[1]
        });
        assert!(equal.count() >= 10);
    }

    #[test]
    fn points_of_a_record_sometimes_coincide() {
        // Segments `x1 y1 x2 y2`: some grown inputs hold a point segment.
        let base = "3\n0 0 4 4\n1 3 2 1\n2 0 2 5\n";
        let point = |l: &str| {
            let v: Vec<&str> = l.split(' ').collect();
            v.len() == 4 && v[0] == v[2] && v[1] == v[3]
        };
        let made = made(base, 300, 31);
        let points = made.iter().filter(|m| m.lines().skip(1).any(point)).count();
        assert!(points >= 30, "{points}");
    }

    #[test]
    fn arrays_are_sometimes_all_equal_or_sorted() {
        let (mut equal, mut sorted, mut backwards) = (0, 0, 0);
        for new in made("6\n3 10 5 25 2 8\n", 400, 6) {
            let lines = numbers(&new);
            let xs = &lines[1];
            assert_eq!(lines[0][0] as usize, xs.len(), "{new}");
            if xs.len() < 3 {
                continue;
            }
            equal += usize::from(xs.iter().all(|x| *x == xs[0]));
            sorted += usize::from(xs.windows(2).all(|w| w[0] < w[1]));
            backwards += usize::from(xs.windows(2).all(|w| w[0] > w[1]));
        }
        assert!(
            equal > 5 && sorted > 5 && backwards > 2,
            "{equal} {sorted} {backwards}"
        );
    }

    #[test]
    fn a_column_word_takes_only_the_place_of_words_of_its_class() {
        // Strings to encode and codes to decode share a column; neither goes in the other's.
        let base = "3\nE aaabccdddd\nD x2y1x10\nE zz\n";
        let inputs = made(base, 300, 4);
        for new in &inputs {
            for line in new.lines().skip(1) {
                let (cmd, word) = line.split_once(' ').expect("two tokens");
                let code = word.chars().any(|c| c.is_ascii_digit());
                assert_eq!(cmd == "D", code, "{new:?}");
            }
        }
        assert!(inputs.len() > 100, "{}", inputs.len());
    }

    #[test]
    fn free_text_words_are_typical_and_keywords_are_not() {
        // One string: an edit of it over its letters is as valid as it.
        let model = InputModel::of(["dbxac\n"]);
        assert!(model.within_observed("dcxab\n"));
        assert!(!model.within_observed("dbxaz\n"), "a letter no word shows");
        assert!(!model.within_observed("dbxacd\n"), "longer than any word");
        let model = InputModel::of(["5\nlisten\nsilent\nenlist\ngoogle\nelgoog\n"]);
        assert!(model.within_observed("2\ntsilen\nelgoog\n"));
        // Words beside numbers, or repeated on lines, are a closed set.
        let model = InputModel::of(["2\nalice 5\nbob 7\n"]);
        assert!(!model.within_observed("2\nalicb 5\nbob 7\n"));
        let model = InputModel::of(["3\npush\npop\npush\n"]);
        assert!(!model.within_observed("3\npush\npup\npush\n"));
    }

    #[test]
    fn broad_inputs_are_large_and_stay_within_the_observed_range() {
        let base = "3\n10 4\n13 9\n100 13\n";
        let model = InputModel::of([base]);
        let (mut broad, mut ones) = (0, 0);
        for new in made(base, 300, 4) {
            let lines: Vec<&str> = new.lines().collect();
            let n: usize = lines[0].parse().unwrap();
            assert_eq!(lines.len() - 1, n, "{new:?}");
            if n >= MAX_COUNT / 2 {
                broad += 1;
                assert!(model.within_observed(&new), "{new:?}");
                ones += usize::from(lines[1..].iter().any(|l| l.split(' ').any(|t| t == "1")));
            }
        }
        assert!(broad > 20, "{broad}");
        assert!(
            ones > 0,
            "1 is drawn where the inputs show only positive values"
        );
    }

    #[test]
    fn line_counts_and_word_lengths_follow_their_count() {
        let base = "3\nab\ncd\nef\n";
        let model = InputModel::of([base]);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        for _ in 0..100 {
            let Some(new) = model.mutate(base, &mut rng) else {
                continue;
            };
            let lines: Vec<&str> = new.lines().collect();
            let n: usize = lines[0].parse().unwrap();
            assert_eq!(lines.len() - 1, n, "{new:?}");
        }
        let base = "5\nabcab\n";
        let model = InputModel::of([base]);
        for _ in 0..100 {
            let Some(new) = model.mutate(base, &mut rng) else {
                continue;
            };
            let lines: Vec<&str> = new.lines().collect();
            let n: usize = lines[0].parse().unwrap();
            assert_eq!(lines[1].chars().count(), n, "{new:?}");
            assert!(lines[1].chars().all(|c| "abc".contains(c)), "{new:?}");
        }
    }

    #[test]
    fn two_linked_counts_on_one_line_never_panic() {
        // `3 4` then 3 lines of 4 numbers: 3 counts the lines, 4 the next line's tokens, and
        // a 4 inside a line looks like a count of the line after it. Resizing one left the
        // others pointing past the end of a line (issue 38).
        let bases = [
            "3 4\n1 2 3 4\n5 6 7 8\n9 10 11 12\n",
            "3 4\n4 3 2 1\n4 4 4 4\n1 4 2 4\n",
            "2 3\n3 1 2\n3 3 3\n",
            "3 2\nab\n2 5\nxy\n",
        ];
        let model = InputModel::of(bases);
        for seed in 0..300 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            for base in bases {
                for _ in 0..20 {
                    let Some(new) = model.mutate(base, &mut rng) else {
                        continue;
                    };
                    // The first count still counts the lines after it, as in the base.
                    let lines: Vec<&str> = new.lines().collect();
                    let first: Vec<usize> = lines[0]
                        .split_whitespace()
                        .filter_map(|t| t.parse().ok())
                        .collect();
                    assert_eq!(first.len(), 2, "{new:?}");
                }
            }
        }
    }

    #[test]
    fn same_seed_same_inputs() {
        let base = "2 3\n1.50 x\n";
        let model = InputModel::of([base]);
        let run = |seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            (0..20)
                .filter_map(|_| model.mutate(base, &mut rng))
                .collect::<Vec<_>>()
        };
        assert_eq!(run(3), run(3));
        assert_ne!(run(3), run(4));
    }

    /// `count` inputs made from `base` with seed `seed`.
    fn made(base: &str, count: usize, seed: u64) -> Vec<String> {
        let model = InputModel::of([base]);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..count)
            .filter_map(|_| model.mutate(base, &mut rng))
            .collect()
    }

    #[test]
    fn a_header_of_three_counts_the_records_after_it() {
        // `S T N` over N arrivals `a d`: not a `2` counting `10 5`, nor a `1 3` counting the
        // three records after it.
        let base = "2 10 5\n0 5\n1 3\n2 4\n3 2\n9 1\n";
        let p = Parsed::of(base);
        assert_eq!(p.links(), vec![Link::LinesAfter { line: 0, tok: 2 }]);
        let inputs = made(base, 400, 3);
        let mut resized = 0;
        for new in &inputs {
            let t: Vec<i64> = new.split_whitespace().map(|v| v.parse().unwrap()).collect();
            let n = usize::try_from(t[2]).unwrap();
            assert_eq!(t.len(), 3 + 2 * n, "{new:?}");
            resized += usize::from(n != 5);
            let records: Vec<&[i64]> = t[3..].chunks(2).collect();
            // Arrivals stay in order, and durations positive (the 0 of the arrivals is theirs
            // alone, though both columns lie under `T`).
            assert!(records.windows(2).all(|w| w[0][0] <= w[1][0]), "{new:?}");
            assert!(records.iter().all(|r| r[1] >= 1), "{new:?}");
        }
        assert!(resized > 20, "{resized}");
        // A header whose two tokens equal the record count says nothing of which one counts.
        let p = Parsed::of("3 9 3\n0 5\n1 3\n2 4\n");
        assert!(!p.links().contains(&Link::LinesAfter { line: 0, tok: 0 }));
        assert!(!p.links().contains(&Link::LinesAfter { line: 0, tok: 2 }));
    }

    #[test]
    fn cases_headed_by_a_word_and_a_size_keep_their_counts() {
        // `T` games, each `mode n` over `n` piles: cases whose heads hold a word; `n` (a count
        // under `T`) is no index of `T`, and stays near the sizes the cases show.
        let base = "3\nnormal 3\n1 2 3\nmisere 2\n1 1\nmisere 3\n1 1 1\n";
        let (mut more, mut fewer) = (0, 0);
        for new in made(base, 300, 8) {
            let lines: Vec<&str> = new.lines().collect();
            let t: usize = lines[0].parse().unwrap();
            assert_eq!(lines.len(), 1 + 2 * t, "{new:?}");
            for case in lines[1..].chunks(2) {
                let head: Vec<&str> = case[0].split(' ').collect();
                assert!(["normal", "misere"].contains(&head[0]), "{new:?}");
                let n: usize = head[1].parse().unwrap();
                assert_eq!(case[1].split(' ').count(), n, "{new:?}");
                assert!((1..=4).contains(&n), "{new:?}");
            }
            more += usize::from(t > 3);
            fewer += usize::from(t < 3);
        }
        assert!(more > 10 && fewer > 10, "{more} {fewer}");
    }

    #[test]
    fn queries_that_count_each_other_by_chance_keep_their_bounds() {
        // `2 4` over the two tokens of `1 5`: chance, so the queries' `l` is still an index
        // from 1 (one count in a column of three is no column of counts).
        let base = "5 3\n12 18 24 36 7\n1 3\n2 4\n1 5\n";
        let inputs = made(base, 300, 9);
        assert!(inputs.len() > 100);
        for new in inputs {
            for q in new.lines().skip(2) {
                let l: i64 = q.split(' ').next().unwrap().parse().unwrap();
                assert!(l >= 1, "{new:?}");
            }
        }
    }

    #[test]
    fn a_row_count_stays_with_its_rows_in_an_input_of_one_row() {
        // `R C` over R rows, then operations. Growth mutates what it kept: `1 60` over one
        // row reads its `1` as nothing, and an edit of it to 2 left the row alone.
        let model = InputModel::of(["2 3\n1 2 3\n4 5 6\nRH\n"]);
        let row: Vec<String> = (0..60).map(|i| (i % 6 + 1).to_string()).collect();
        let base = format!("1 60\n{}\nRH\n", row.join(" "));
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut rows_changed = 0;
        for _ in 0..300 {
            let Some(new) = model.mutate(&base, &mut rng) else {
                continue;
            };
            let lines: Vec<&str> = new.lines().collect();
            let head: Vec<usize> = lines[0].split(' ').map(|v| v.parse().unwrap()).collect();
            assert_eq!(lines.len(), head[0] + 2, "{new:?}");
            for r in &lines[1..=head[0]] {
                assert_eq!(r.split(' ').count(), head[1], "{new:?}");
            }
            rows_changed += usize::from(head[0] != 1);
        }
        assert!(rows_changed > 10, "{rows_changed}");
    }

    #[test]
    fn a_header_counts_two_lists_one_after_the_other() {
        // `n m` over n greeds, then m cookie sizes: the `m` resized the line after the next
        // (before, it was a plain value: the sizes stayed three and `m` drifted from them).
        let inputs = made("4 3\n1 5 3 3\n4 2 3\n", 300, 8);
        assert!(inputs.len() > 200, "{}", inputs.len());
        let mut second = BTreeSet::new();
        for new in &inputs {
            let lines: Vec<&str> = new.lines().collect();
            assert_eq!(lines.len(), 3, "{new:?}");
            let head: Vec<usize> = lines[0].split(' ').map(|v| v.parse().unwrap()).collect();
            assert_eq!(lines[1].split(' ').count(), head[0], "{new:?}");
            assert_eq!(lines[2].split(' ').count(), head[1], "{new:?}");
            second.insert(head[1]);
        }
        assert!(second.len() >= 4, "{second:?}");
    }

    #[test]
    fn cases_of_square_matrices_keep_each_matrix_square() {
        // `T`, then each case `n` over n rows of n: counted lines of two widths, one case's.
        let base = "2\n2\n1 2\n3 4\n3\n2 0 1\n1 3 2\n1 1 2\n";
        let inputs = made(base, 300, 6);
        assert!(inputs.len() > 200, "{}", inputs.len());
        let mut sides = BTreeSet::new();
        for new in &inputs {
            let lines: Vec<&str> = new.lines().collect();
            let t: usize = lines[0].parse().unwrap();
            let mut at = 1;
            for _ in 0..t {
                let n: usize = lines[at].parse().unwrap();
                sides.insert(n);
                for r in &lines[at + 1..=at + n] {
                    assert_eq!(r.split(' ').count(), n, "{new:?}");
                }
                at += n + 1;
            }
            assert_eq!(at, lines.len(), "{new:?}");
        }
        assert!(sides.len() >= 4, "{sides:?}");
    }

    #[test]
    fn a_list_shown_positive_beside_one_with_a_zero_stays_positive() {
        // Moves `2 3` beside positions `0 1 2 4 5`: a move of 0 is no move.
        let base = "2\n2 3\n5\n0 1 2 4 5\n";
        let mut zero_positions = 0;
        for new in made(base, 400, 4) {
            let t: Vec<i64> = new.split_whitespace().map(|v| v.parse().unwrap()).collect();
            let k = usize::try_from(t[0]).unwrap();
            let Some(moves) = t.get(1..1 + k) else {
                continue;
            };
            assert!(moves.iter().all(|&m| m >= 1), "{new:?}");
            zero_positions += usize::from(t.get(2 + k..).is_some_and(|q| q.contains(&0)));
        }
        assert!(zero_positions > 20, "{zero_positions}");
        // Without a list that shows a 0, positive lists are edited to 0 as before.
        let model = InputModel::of(["2\n2 3\n5\n3 1 2 4 5\n"]);
        assert!(model.positive_lists.is_empty());
    }

    #[test]
    fn a_square_matrix_is_resized_in_rows_and_columns_together() {
        let inputs = ["3\n1 2 3\n4 5 6\n7 8 9\n", "2\n5 1\n0 4\n"];
        let model = InputModel::of(inputs);
        assert_eq!(model.square_sides, BTreeSet::from([0]));
        let mut rng = ChaCha8Rng::seed_from_u64(21);
        let mut resized = 0;
        for _ in 0..300 {
            let Some(new) = model.mutate(inputs[0], &mut rng) else {
                continue;
            };
            let lines: Vec<Vec<&str>> = new.lines().map(|l| l.split(' ').collect()).collect();
            let n: usize = lines[0][0].parse().unwrap();
            assert_eq!(lines.len(), n + 1, "{new:?}");
            assert!(lines[1..].iter().all(|r| r.len() == n), "{new:?}");
            resized += usize::from(n != 3);
        }
        assert!(resized > 20, "{resized}");
        // Records that happen to be as wide as their count, at one size only, keep their width.
        let records = InputModel::of(["3\n1 2 3\n4 5 6\n7 8 9\n"]);
        assert!(records.square_sides.is_empty());
        let mixed = InputModel::of(["3\n1 2 3\n4 5 6\n7 8 9\n", "2\n1 2 3\n4 5 6\n"]);
        assert!(mixed.square_sides.is_empty());
    }

    #[test]
    fn a_lone_value_after_the_first_line_is_scaled_and_sometimes_flipped() {
        // A date, then an offset of days: the sample's `3` is one of ±10⁵.
        let base = "2024-03-15\n3\n";
        let model = InputModel::of([base]);
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let (mut far, mut backwards) = (BTreeSet::new(), 0);
        for _ in 0..1000 {
            let Some(new) = model.mutate(base, &mut rng) else {
                continue;
            };
            let Some(v) = new.lines().nth(1).and_then(|l| l.parse::<i64>().ok()) else {
                continue;
            };
            if v.abs() >= 30 {
                far.insert(v.abs());
            }
            backwards += usize::from(v < 0);
            assert!(v.abs() <= SCALE_TOP, "{new:?}");
        }
        assert!(far.iter().any(|v| [30, 300, 3000].contains(v)), "{far:?}");
        assert!(backwards > 0);
        // A column of lone integers is records, not a value: `3` over three numbers.
        let records = "3\n4\n9\n2\n";
        let model = InputModel::of([records]);
        let p = Parsed::of(records);
        let counts: Vec<Place> = model.links_of(&p).iter().map(|l| l.at()).collect();
        assert!((1..4).all(|l| !model.is_lone_value(&p, &counts, l, 0)));
        // A first line that counts nothing does not make a run: a modulus over the value.
        let p = Parsed::of("1000\n15\n");
        let model = InputModel::of(["1000\n15\n"]);
        let counts: Vec<Place> = model.links_of(&p).iter().map(|l| l.at()).collect();
        assert!(model.is_lone_value(&p, &counts, 1, 0));
        // `N M`, a threshold, then M edges: N = 5 equals the five lines after by chance.
        let input = "5 4\n3\n1 2 1\n2 3 5\n4 5 3\n3 4 2\n";
        let p = Parsed::of(input);
        assert!(p.links().is_empty(), "{:?}", p.links());
        let model = InputModel::of([input]);
        let counts: Vec<Place> = model.links_of(&p).iter().map(|l| l.at()).collect();
        assert!(model.is_lone_value(&p, &counts, 1, 0));
        // Nor is a token of a line that holds more than one.
        let pair = Parsed::of("2024-03-15\n3 4\n");
        assert!(!model.is_lone_value(&pair, &[], 1, 0));
    }

    #[test]
    fn a_one_over_one_token_is_the_list_another_input_shows() {
        // `1` over `7` reads as one line or one token; `3` over `4 6 10` says which. A grown
        // `2\n9\n8` is outside the problem, and a solution reading one line of N numbers
        // disagrees with one reading all tokens.
        let inputs = ["3\n4 6 10\n", "1\n7\n"];
        let model = InputModel::of(inputs);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut resized = 0;
        for _ in 0..300 {
            let Some(new) = model.mutate("1\n7\n", &mut rng) else {
                continue;
            };
            let lines: Vec<&str> = new.lines().collect();
            assert_eq!(lines.len(), 2, "{new:?}");
            let n: usize = lines[0].trim().parse().unwrap();
            assert_eq!(lines[1].split_whitespace().count(), n, "{new:?}");
            resized += usize::from(n >= 2);
        }
        assert!(resized >= 10, "{resized}");
        // Alone, the `1` still counts something: a one-line list grows as lines or tokens.
        assert!(!InputModel::of(["1\n7\n"]).first_line_kinds.is_empty());
    }

    #[test]
    fn a_value_that_counts_lines_in_one_input_of_a_fixed_layout_counts_nothing() {
        // `a`, `b` and `k` one per line: `2` equals the two lines after it by chance.
        let inputs = ["2\n10\n3\n", "7\n222\n5\n", "12\n1\n4\n"];
        let model = InputModel::of(inputs);
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        let mut made = 0;
        for i in 0..300 {
            if let Some(new) = model.mutate(inputs[i % 3], &mut rng) {
                assert_eq!(new.lines().count(), 3, "{new:?}");
                made += 1;
            }
        }
        assert!(made >= 100, "{made}");
        // Where the layouts differ, the count of lines stays one (`2` over two rows, `3` over
        // three).
        let model = InputModel::of(["2\n1 5\n2 6\n", "3\n1 2\n3 4\n5 6\n"]);
        assert!(model
            .first_line_kinds
            .get(&0)
            .is_some_and(|k| k.contains(&LinkKind::LinesAfter)));
    }

    /// Inputs `model` makes from `inputs` in turn, `count` tries.
    fn made_from(inputs: &[&str], count: usize, seed: u64) -> Vec<String> {
        let model = InputModel::of(inputs.iter().copied());
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..count)
            .filter_map(|i| model.mutate(inputs.get(i % inputs.len())?, &mut rng))
            .collect()
    }

    #[test]
    fn a_count_of_lines_before_a_last_line_counts_them() {
        // `q`, q values, then the modulus.
        let made = made_from(
            &[
                "3
3
4
10
7
",
                "2
6
5
9
",
            ],
            300,
            21,
        );
        let resized = made
            .iter()
            .filter(|new| {
                let lines: Vec<&str> = new.lines().collect();
                let q: usize = lines[0].parse().unwrap();
                assert_eq!(lines.len(), q + 2, "{new:?}");
                q > 3
            })
            .count();
        assert!(resized > 10, "{resized}");
        // A square matrix before its exponent, seen at two sizes: rows and widths together.
        let inputs = [
            "2
1 1
1 0
10
",
            "2
2 0
3 1
0
",
            "1
2
100
",
        ];
        for new in made_from(&inputs, 300, 22) {
            let rows = numbers(&new);
            let n = rows[0][0] as usize;
            assert_eq!(rows.len(), n + 2, "{new:?}");
            assert!(rows[1..=n].iter().all(|r| r.len() == n), "{new:?}");
        }
        // Records as wide as their count at one size only: the count stays.
        for new in made_from(
            &[
                "3
0 2 5
1 5 0
20 3 4
1 2
",
                "3
10 1 0
2 7 3
10 0 9
2 0
",
            ],
            200,
            23,
        ) {
            let rows = numbers(&new);
            assert_eq!(rows.len(), rows[0][0] as usize + 2, "{new:?}");
            assert!(
                rows[1..rows.len() - 1].iter().all(|r| r.len() == 3),
                "{new:?}"
            );
        }
    }

    #[test]
    fn a_first_line_count_reads_as_every_input_allows() {
        // `N M` over two lists of cards: `2 2` over `4 4`, `4 4` is two lists, not a matrix.
        let inputs = ["3 3\n5 2 9\n4 8 1\n", "2 2\n4 4\n4 4\n"];
        let made = made_from(&inputs, 300, 24);
        assert!(made.len() > 100);
        for new in &made {
            let rows = numbers(new);
            assert_eq!(rows.len(), 3, "{new:?}");
            assert_eq!(rows[1].len() as i64, rows[0][0], "{new:?}");
            assert_eq!(rows[2].len() as i64, rows[0][1], "{new:?}");
        }
        // `n m` over m edges: a `3 1` over the edge `1 2 7` counts no tokens where `4 5` over
        // five edges counts nothing there.
        for new in made_from(
            &["4 5\n1 2 3\n2 3 -1\n3 4 4\n4 1 2\n1 3 5\n", "3 1\n1 2 7\n"],
            300,
            25,
        ) {
            let rows = numbers(&new);
            assert_eq!(rows.len() as i64, rows[0][1] + 1, "{new:?}");
            assert!(rows[1..].iter().all(|r| r.len() == 3), "{new:?}");
        }
    }

    #[test]
    fn a_count_of_words_that_run_past_a_grid_counts_lines() {
        // Six words, four of them as long as the count: a list, no grid six wide.
        let made = made_from(
            &[
                "6\nlisten\nsilent\nenlist\ngoogle\ncat\nact\n",
                "2\nab\nabb\n",
            ],
            300,
            26,
        );
        assert!(made.len() > 100);
        for new in &made {
            let lines: Vec<&str> = new.lines().collect();
            assert_eq!(
                lines.len() as i64 - 1,
                lines[0].parse::<i64>().unwrap(),
                "{new:?}"
            );
        }
    }

    #[test]
    fn commands_among_records_are_no_grid() {
        // `max` and `pop` between `push 3` lines keep their spelling.
        let base = "9\npush 3\npush -5\nmax\npush 7\nmax\npop\npop\npop\nmax\n";
        let made = made(base, 300, 27);
        assert!(made.len() > 100);
        for new in &made {
            let lines: Vec<&str> = new.lines().collect();
            // No argument counts the lines after it (`push 3` over three more commands).
            assert_eq!(
                lines[0].parse::<usize>().unwrap(),
                lines.len() - 1,
                "{new:?}"
            );
            for line in lines.iter().skip(1) {
                let words: Vec<&str> = line.split(' ').collect();
                match words[0] {
                    "push" => assert_eq!(words.len(), 2, "{new:?}"),
                    "pop" | "max" => assert_eq!(words.len(), 1, "{new:?}"),
                    _ => panic!("{new:?}"),
                }
            }
        }
    }

    #[test]
    fn a_first_line_of_counts_is_not_shuffled() {
        // `4 0`, shuffled, would count four edges that are not there.
        for new in made_from(&["5 3\n1 2\n2 3\n4 5\n", "4 0\n"], 300, 28) {
            let rows = numbers(&new);
            assert_eq!(rows.len() as i64, rows[0][1] + 1, "{new:?}");
        }
    }

    #[test]
    fn a_place_of_a_fixed_layout_keeps_near_its_own_values() {
        // `k` (3 to 5) under `a` and `b` (up to 222) is drawn near 3 to 5.
        let inputs = ["2\n10\n3\n", "7\n222\n5\n", "12\n1\n4\n"];
        let made = made_from(&inputs, 400, 29);
        assert!(made.len() > 100);
        let ks: Vec<i64> = made.iter().map(|new| numbers(new)[2][0]).collect();
        assert!(ks.iter().all(|&k| k <= 10), "{ks:?}");
        assert!(ks.iter().any(|&k| k != 3 && k != 4 && k != 5), "{ks:?}");
    }

    #[test]
    fn a_one_line_range_stays_in_order() {
        // `L R` shown as `1 10` and `27 27`.
        let made = made_from(&["1 10\n", "27 27\n"], 300, 30);
        assert!(made.len() > 100);
        assert!(made.iter().all(|new| {
            let v = &numbers(new)[0];
            v[0] <= v[1]
        }));
        // One input shows no order.
        assert!(one_line_orders(&[Parsed::of("1 10\n")]).is_empty());
    }

    #[test]
    fn a_string_of_digits_as_long_as_its_count_is_a_string() {
        let inputs = [
            "5 5\n10110\ncount 1 5\nflip 2 4\nget 2\ncount 1 3\nget 5\n",
            "1 3\n0\nflip 1 1\nflip 1 1\nget 1\n",
        ];
        let made = made_from(&inputs, 300, 31);
        let mut longer = 0;
        for new in &made {
            let lines: Vec<&str> = new.lines().collect();
            let n: usize = lines[0].split(' ').next().unwrap().parse().unwrap();
            assert_eq!(lines[1].len(), n, "{new:?}");
            assert!(lines[1].chars().all(|c| c == '0' || c == '1'), "{new:?}");
            longer += usize::from(n > 5);
        }
        assert!(longer > 5, "{longer}");
    }

    #[test]
    fn small_columns_are_probed_unless_they_index_a_value_a_probe_reaches() {
        let columns = |inputs: &[&str]| -> Vec<Place> {
            let model = InputModel::of(inputs.iter().copied());
            let probes = model.domain_probes(inputs.iter().copied());
            probes.iter().map(DomainProbe::column).collect()
        };
        // Months under years: the month column (the years are too large to probe).
        assert_eq!(columns(&["2024 2\n2021 1\n2020 2\n"]), vec![(2, 1)]);
        assert_eq!(columns(&["2024 2\n", "2021 2\n1 1\n"]), vec![(2, 1)]);
        // Queries `Y M` under their count: a month past the count in one input is no index.
        assert_eq!(
            columns(&["1\n2023 5\n", "2\n2024 1\n2000 1\n"]),
            vec![(2, 1)]
        );
        // Edges `u v` under `n m`: indices into `n`, whose edge is `n` itself.
        assert!(columns(&["4 3\n1 2\n2 3\n3 4\n"]).is_empty());
        // Words and counts are no column of small integers.
        assert!(columns(&["2\nab 3\ncd 4\n"]).iter().all(|&(_, k)| k == 1));
        assert!(columns(&["3\n1 2 3\n"]).is_empty());
        // Set domains are kept: the month stays within 1..=12 however it is edited.
        let mut model = InputModel::of(["2024 2\n", "2021 2\n1 1\n"]);
        model.set_domain((2, 1), (1, 12));
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut months = BTreeSet::new();
        for _ in 0..300 {
            if let Some(new) = model.mutate("2021 2\n1 1\n", &mut rng) {
                for line in new.lines() {
                    let m: i64 = line
                        .split(' ')
                        .nth(1)
                        .and_then(|m| m.parse().ok())
                        .unwrap_or(0);
                    assert!((1..=12).contains(&m), "{new:?}");
                    months.insert(m);
                }
            }
        }
        assert!(months.len() >= 10, "{months:?}");
    }

    #[test]
    fn a_list_shown_as_a_set_stays_one() {
        // Eight distinct values within -1..=10 and six within -2..=4: sets. A solution that
        // reads them into a set and one that sorts a list part on a duplicate.
        let inputs = ["8\n5 1 2 3 7 8 10 -1\n", "6\n-2 0 -1 1 4 3\n"];
        let model = InputModel::of(inputs);
        assert!(!model.distinct_lists.is_empty());
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut grown = 0;
        for i in 0..300 {
            let Some(new) = model.mutate(inputs[i % 2], &mut rng) else {
                continue;
            };
            let values: Vec<&str> = new.lines().nth(1).unwrap().split_whitespace().collect();
            let unique: BTreeSet<&str> = values.iter().copied().collect();
            assert_eq!(unique.len(), values.len(), "{new:?}");
            grown += usize::from(values.len() > 8);
        }
        assert!(grown >= 10, "{grown}");
        // Three distinct values among ten possible are no evidence: duplicates may be drawn.
        assert!(InputModel::of(["3\n4 9 2\n"]).distinct_lists.is_empty());
        let mut values = vec![Token::Int(3), Token::Int(3), Token::Int(4), Token::Int(3)];
        make_distinct(&mut values);
        assert_eq!(
            values,
            [Token::Int(3), Token::Int(5), Token::Int(4), Token::Int(6)]
        );
    }

    #[test]
    fn a_header_value_stays_at_the_scale_its_place_shows() {
        // `N M` with N ≤ 10 shown beside M = 10⁹+7: N is drawn near its own scale (up to
        // the scaled top), never from the whole input's range.
        let inputs = ["5 7\n", "10 1000000007\n", "6 4\n"];
        let model = InputModel::of(inputs);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let (mut firsts, mut big_seconds) = (BTreeSet::new(), 0);
        for i in 0..600 {
            let Some(new) = model.mutate(inputs[i % 3], &mut rng) else {
                continue;
            };
            let v: Vec<i64> = new.split_whitespace().map(|t| t.parse().unwrap()).collect();
            firsts.insert(v[0]);
            big_seconds += usize::from(v[1] > 1_000_000);
        }
        assert!(firsts.iter().all(|&n| n <= SCALE_TOP), "{firsts:?}");
        assert!(
            firsts.iter().any(|&n| n > 20),
            "scaled values stay: {firsts:?}"
        );
        assert!(big_seconds >= 20, "M keeps its own scale: {big_seconds}");
        // A base's own larger value is kept where a later edit does not touch it.
        assert_eq!(header_cap(10), SCALE_TOP);
        assert_eq!(header_cap(1_000_000), 1_000_000_000);
    }

    #[test]
    fn a_counted_list_of_one_is_no_record_and_an_amount_after_it_scales() {
        // Coins `1 2 5` and an amount `5`; then one coin `2` and an amount `3`. The coin and
        // the amount are no column of records, so the amount is not held to 2..=3.
        let inputs = ["3\n1 2 5\n5\n", "1\n2\n3\n"];
        let model = InputModel::of(inputs);
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut amounts = BTreeSet::new();
        for i in 0..600 {
            let Some(new) = model.mutate(inputs[i % 2], &mut rng) else {
                continue;
            };
            if let Some(Ok(a)) = new.lines().nth(2).map(|l| l.trim().parse::<i64>()) {
                amounts.insert(a);
            }
        }
        assert!(amounts.iter().any(|&a| a >= 50), "{amounts:?}");
    }

    #[test]
    fn a_header_parameter_is_sometimes_scaled_up() {
        // `n S` over n coins: the `5` shown is a target sum that a modulus never reaches.
        let base = "3 5\n1 2 5\n";
        let model = InputModel::of([base]);
        assert!(model.first_line_values.contains(&1));
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        let mut scaled = BTreeSet::new();
        for _ in 0..400 {
            let Some(new) = model.mutate(base, &mut rng) else {
                continue;
            };
            let Some(s) = new.split_whitespace().nth(1) else {
                continue;
            };
            if let Ok(v @ 11..) = s.parse::<i64>() {
                scaled.insert(v);
            }
        }
        // The three scales reach past the shown range's double (10); a later step may edit
        // a scaled value, never past the top.
        assert!(
            scaled.iter().any(|v| [50, 500, 5000].contains(v)),
            "{scaled:?}"
        );
        assert!(scaled.iter().all(|v| *v <= SCALE_TOP), "{scaled:?}");
        // Never past the top, and a value already there stays.
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..50 {
            assert!(scaled_up(7, &mut rng) <= SCALE_TOP);
            assert_eq!(scaled_up(SCALE_TOP, &mut rng), SCALE_TOP);
        }
    }

    #[test]
    fn a_count_as_wide_as_its_rows_at_one_size_keeps_its_value() {
        // `k e` over a k×k matrix, or k records of k values: shown at one size, no resize
        // fits both readings, so the side stays and the values change.
        let base = "2 5\n1 1\n1 0\n";
        let model = InputModel::of([base]);
        assert_eq!(model.unsure_sides, BTreeSet::from([0]));
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut changed = 0;
        for _ in 0..300 {
            let Some(new) = model.mutate(base, &mut rng) else {
                continue;
            };
            let lines: Vec<Vec<&str>> = new.lines().map(|l| l.split(' ').collect()).collect();
            assert_eq!(lines.len(), 3, "{new:?}");
            assert_eq!(lines[0][0], "2", "{new:?}");
            assert!(lines[1..].iter().all(|r| r.len() == 2), "{new:?}");
            changed += usize::from(new != base);
        }
        assert!(changed > 100, "{changed}");
        // Shown at two sizes it is a square's side, resized (see above), and nothing is unsure.
        let two = InputModel::of(["3\n1 2 3\n4 5 6\n7 8 9\n", "2\n5 1\n0 4\n"]);
        assert!(two.unsure_sides.is_empty());
    }

    #[test]
    fn a_grid_keeps_its_width_and_one_start_and_end() {
        let base = "3 4\nS.#.\n.##E\n....\n";
        let mut resized = 0;
        for new in made(base, 300, 5) {
            let lines: Vec<&str> = new.lines().collect();
            let dims: Vec<usize> = lines[0].split(' ').map(|x| x.parse().unwrap()).collect();
            let rows = &lines[1..];
            assert_eq!(rows.len(), dims[0], "{new}");
            assert!(rows.iter().all(|r| r.chars().count() == dims[1]), "{new}");
            let count = |c| new.chars().filter(|&x| x == c).count();
            assert_eq!((count('S'), count('E')), (1, 1), "{new}");
            resized += usize::from(dims != [3, 4]);
        }
        assert!(resized > 20, "{resized}");
    }

    #[test]
    fn rows_of_one_field_shape_are_values_not_a_grid() {
        let base = "3\n23:50\n00:10\n12:00\n";
        assert!(Parsed::of(base).grids().is_empty());
        assert_eq!(Parsed::of("2\n#..\n.S.\n").grids(), vec![1..3]);
        // Points of one width with their signs in other places are values too.
        let points = "4\n(1,1)\n(-2,3)\n(4,-1)\n(0,0)\n";
        assert!(Parsed::of(points).grids().is_empty());
        for new in made(points, 200, 6) {
            for t in new.lines().skip(1) {
                let inner = t.strip_prefix('(').and_then(|t| t.strip_suffix(')'));
                let (x, y) = inner.and_then(|t| t.split_once(',')).expect(&new);
                assert!(
                    x.parse::<i64>().is_ok() && y.parse::<i64>().is_ok(),
                    "{new}"
                );
            }
        }
        for new in made(base, 200, 6) {
            for t in new.lines().skip(1) {
                let (h, m) = t.split_once(':').unwrap();
                let (h, m): (u32, u32) = (h.parse().unwrap(), m.parse().unwrap());
                assert!(h <= 23 && m <= 59, "{new}");
            }
        }
    }

    #[test]
    fn a_count_that_leads_its_line_follows_it() {
        let base = "2\n2 AS KD\n3 10H 5C 9D\n";
        let mut resized = 0;
        for new in made(base, 300, 7) {
            for line in new.lines().skip(1) {
                let toks: Vec<&str> = line.split(' ').collect();
                assert_eq!(toks[0].parse::<usize>().unwrap(), toks.len() - 1, "{new}");
                resized += usize::from(toks.len() != 3 && toks.len() != 4);
                for card in &toks[1..] {
                    let rank = card.trim_end_matches(['S', 'H', 'D', 'C']);
                    assert!(
                        ["A", "K", "Q", "J"].contains(&rank)
                            || rank.parse::<u32>().is_ok_and(|r| (2..=10).contains(&r))
                            || rank.len() == card.len() - 1,
                        "{new}"
                    );
                }
            }
        }
        assert!(resized > 10, "{resized}");
    }

    #[test]
    fn numerals_stay_numerals_and_commands_stay_commands() {
        let base = "3\nXIV MCMXC VII\n";
        let made_numerals = made(base, 200, 8);
        assert!(made_numerals
            .iter()
            .any(|n| n.contains("MC") && !n.contains("MCMXC")));
        for new in &made_numerals {
            for w in new.lines().nth(1).unwrap().split(' ') {
                assert!(numerals::read(w).is_some(), "{new}");
            }
        }
        let model = InputModel::of([base]);
        assert!(model.within_observed("1\nXL\n"));
        assert!(!model.within_observed("1\nVIX\n"));
        let base = "4\nalice deposit 100\nbob withdraw 50\nalice withdraw 30\nbob deposit 20\n";
        for new in made(base, 300, 9) {
            for line in new.lines().skip(1) {
                let toks: Vec<&str> = line.split(' ').collect();
                assert!(["alice", "bob"].contains(&toks[0]), "{new}");
                assert!(["deposit", "withdraw"].contains(&toks[1]), "{new}");
            }
        }
    }

    #[test]
    fn pairs_that_are_ordered_in_every_record_stay_ordered() {
        let base = "3\n1 3\n4 5\n7 9\n";
        let mut changed = 0;
        for new in made(base, 300, 10) {
            for line in new.lines().skip(1) {
                let v: Vec<i64> = line.split(' ').map(|x| x.parse().unwrap()).collect();
                assert!(v[0] <= v[1], "{new}");
            }
            changed += 1;
        }
        assert!(changed > 100);
        // Strict in every record: never made equal (an empty interval); equal once: ties stay.
        let strict = made("3\n1 3\n4 5\n7 9\n", 300, 11);
        assert!(strict.iter().all(|new| new.lines().skip(1).all(|l| {
            let v: Vec<&str> = l.split(' ').collect();
            v.first() != v.get(1)
        })));
        let ties = made("3\n1 3\n4 4\n7 9\n", 300, 11);
        assert!(ties.iter().any(|new| new.lines().skip(1).any(|l| {
            let v: Vec<&str> = l.split(' ').collect();
            v.len() == 2 && v.first() == v.get(1)
        })));
        // One record shows no order: its values are edited freely.
        assert!(Parsed::of("1\n1 3\n").orders().is_empty());
        // Rectangles `x1 y1 x2 y2`: each corner's coordinate below the other's.
        let tarps = made("3\n0 0 4 3\n2 1 6 5\n-3 -2 1 1\n", 300, 12);
        for new in &tarps {
            for r in numbers(new).iter().skip(1) {
                assert!(r[0] < r[2] && r[1] < r[3], "{new}");
            }
        }
        assert!(tarps.len() > 100, "{}", tarps.len());
    }

    #[test]
    fn a_last_case_of_one_counts_its_token_like_the_cases_before() {
        let p = Parsed::of("4\n3\n3 1 2\n3\n2 3 1\n5\n4 1 3 2 5\n1\n1\n");
        let links = p.links();
        assert!(
            links.contains(&Link::TokensOnNext { line: 7, tok: 0 }),
            "{links:?}"
        );
        assert!(!links.iter().any(|l| matches!(l, Link::LinesAfter { .. })));
    }

    #[test]
    fn a_grown_base_with_one_record_keeps_the_order_the_task_shows() {
        // The task's input shows edges `u < v`; a grown base holds a single edge, which on its
        // own shows no order. Mutated, it must never get a self-loop or a reversed edge.
        let model = InputModel::of(["3 3\n1 2\n1 3\n2 3\n"]);
        let base = "2 1\n1 2\n";
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut made = 0;
        for _ in 0..400 {
            let Some(new) = model.mutate(base, &mut rng) else {
                continue;
            };
            made += 1;
            for line in new.lines().skip(1) {
                let v: Vec<i64> = line.split(' ').filter_map(|x| x.parse().ok()).collect();
                if let [u, w] = v[..] {
                    assert!(u < w, "{new}");
                }
            }
        }
        assert!(made > 50, "{made}");
    }

    #[test]
    fn a_matrix_with_a_line_after_it_is_resized_in_rows_by_its_row_count() {
        // `r c` over r rows of c, then `k`: `r` counts the rows though lines follow them.
        let sample = "2 3\n1 2 3\n4 5 6\n1\n";
        let model = InputModel::of([sample]);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut rows_seen = BTreeSet::new();
        for _ in 0..300 {
            let Some(new) = model.mutate(sample, &mut rng) else {
                continue;
            };
            let lines = numbers(&new);
            let (r, c) = (lines[0][0] as usize, lines[0][1] as usize);
            assert_eq!(lines.len(), r + 2, "{new}");
            assert!(lines[1..=r].iter().all(|row| row.len() == c), "{new}");
            assert_eq!(lines[r + 1].len(), 1, "{new}");
            rows_seen.insert(r);
        }
        assert!(rows_seen.len() >= 4, "{rows_seen:?}");
    }

    #[test]
    fn a_list_of_one_number_per_line_holds_no_count() {
        // `q` over q numbers: the `1` counts no token of the `9` after it, so a resize of it
        // neither empties a line nor leaves it as a count exempt from the column's range.
        let sample = "4\n1\n9\n10\n36\n";
        let model = InputModel::of([sample]);
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut made = 0;
        for _ in 0..500 {
            let Some(new) = model.mutate(sample, &mut rng) else {
                continue;
            };
            made += 1;
            let lines: Vec<&str> = new.lines().collect();
            let q: usize = lines[0].parse().unwrap();
            assert_eq!(q, lines.len() - 1, "{new}");
            for l in &lines[1..] {
                let v: i64 = l.parse().unwrap_or_else(|_| panic!("{new}"));
                assert!(v >= 1, "{new}");
            }
        }
        assert!(made > 300, "{made}");
    }

    #[test]
    fn a_value_equal_to_the_count_by_chance_is_no_count() {
        // The task shows `n K` with n counting the array; a grown base has K = n.
        let model = InputModel::of(["7 6\n1 5 3 3 7 -1 2\n"]);
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let (mut made, mut k_changed) = (0, 0);
        for _ in 0..400 {
            let Some(new) = model.mutate("8 8\n1 5 3 3 7 -1 2 4\n", &mut rng) else {
                continue;
            };
            let lines = numbers(&new);
            assert_eq!(lines[0][0] as usize, lines[1].len(), "{new}");
            made += 1;
            k_changed += usize::from(lines[0][1] != 8);
        }
        assert!(made > 100 && k_changed > 10, "{made} {k_changed}");
    }

    #[test]
    fn a_base_counts_what_the_tasks_first_line_counts_where_it_fits() {
        // The task's `3` counts the next line's tokens; a grown `1\n1` fits that reading too.
        let model = InputModel::of(["3\n4 1 2\n"]);
        // The task's `m` counts the edges after it; `3 2` over two edges is no matrix's width.
        let edges = InputModel::of(["4 3\n1 2\n2 3\n2 4\n"]);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let (mut tokens, mut lines) = (0, 0);
        for _ in 0..300 {
            if let Some(new) = model.mutate("1\n1\n", &mut rng) {
                let l = numbers(&new);
                assert_eq!((l.len(), l[0][0] as usize), (2, l[1].len()), "{new}");
                tokens += usize::from(l[1].len() != 1);
            }
            if let Some(new) = edges.mutate("3 2\n1 2\n2 3\n", &mut rng) {
                let l = numbers(&new);
                assert_eq!(l[0][1] as usize, l.len() - 1, "{new}");
                assert!(l[1..].iter().all(|r| r.len() == 2), "{new}");
                lines += usize::from(l.len() != 3);
            }
        }
        assert!(tokens > 10 && lines > 10, "{tokens} {lines}");
    }

    #[test]
    fn a_record_counts_no_record_after_it_unless_the_task_shows_it() {
        // A threshold over records, one of which reads as a count of the next (`2 5`).
        let records = InputModel::of(["5\n1 4\n2 5\n7 9\n"]);
        let base = Parsed::of("7\n2 10\n0 2\n");
        assert!(base
            .links()
            .contains(&Link::TokensOnNext { line: 1, tok: 0 }));
        assert!(!records
            .links_of(&base)
            .iter()
            .any(|l| matches!(l, Link::TokensOnNext { line: 1, .. })));
        // Cases of `n k` over n numbers: a case of two numbers is counted.
        let cases = InputModel::of(["2\n3 1\n5 6 7\n1 9\n4\n"]);
        let base = Parsed::of("2\n2 1\n5 6\n1 9\n4\n");
        assert!(cases
            .links_of(&base)
            .contains(&Link::TokensOnNext { line: 1, tok: 0 }));
    }

    /// Whether the `n − 1` lines from `first` of `lines` join `1..=n` into a tree.
    fn joins_into_tree(lines: &[Vec<i64>], first: usize, n: i64) -> bool {
        let edges = &lines[first..];
        let mut parent: Vec<usize> = (0..=n as usize).collect();
        fn root(p: &mut [usize], x: usize) -> usize {
            if p[x] == x {
                x
            } else {
                let r = root(p, p[x]);
                p[x] = r;
                r
            }
        }
        edges.len() as i64 == n - 1
            && edges.iter().all(|e| {
                let (a, b) = (e[0] as usize, e[1] as usize);
                if !(1..=n).contains(&e[0]) || !(1..=n).contains(&e[1]) {
                    return false;
                }
                let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
                parent[ra] = rb;
                ra != rb
            })
    }

    fn numbers(input: &str) -> Vec<Vec<i64>> {
        input
            .lines()
            .map(|l| l.split(' ').map(|x| x.parse().unwrap()).collect())
            .collect()
    }

    #[test]
    fn a_tree_stays_a_tree_and_grows() {
        let (mut sizes, mut big) = (BTreeSet::new(), 0);
        for new in made("5\n1 2\n1 3\n3 4\n3 5\n", 400, 21) {
            let lines = numbers(&new);
            let n = lines[0][0];
            assert!(joins_into_tree(&lines, 1, n), "{new}");
            sizes.insert(n);
            big += usize::from(n >= 30);
        }
        assert!(sizes.len() >= 4 && big >= 10, "{sizes:?} {big}");
    }

    #[test]
    fn edges_counted_by_m_are_a_graph_even_where_the_sample_is_a_tree() {
        // `n m` over m = n − 1 edges: a graph problem (a directed one's cycles matter) whose
        // sample has no cycle; m keeps counting the edges, and inputs that are no tree come.
        let mut graphs = 0;
        for new in made("5 4\n1 2 7\n2 3 1\n2 4 9\n4 5 3\n", 300, 22) {
            let lines = numbers(&new);
            assert_eq!(lines[0][1] as usize, lines.len() - 1, "{new}");
            assert!(lines[1..].iter().all(|e| e.len() == 3), "{new}");
            graphs += usize::from(!joins_into_tree(&lines, 1, lines[0][0]));
        }
        assert!(graphs >= 20, "{graphs}");
    }

    #[test]
    fn broad_graphs_spread_their_edges_over_more_vertices() {
        // `n m` over m edges among 6 vertices: some inputs name a vertex beyond the sample's
        // 6, every edge stays within its input's n, and such inputs are typical.
        let base = "6 4\n1 2\n2 3\n4 5\n5 4\n";
        let model = InputModel::of([base]);
        let mut wide = 0;
        for new in made(base, 400, 31) {
            let lines = numbers(&new);
            let n = lines[0][0];
            assert_eq!(lines[0][1] as usize, lines.len() - 1, "{new}");
            assert!(
                lines[1..].iter().flatten().all(|&v| (1..=n).contains(&v)),
                "{new}"
            );
            if lines[1..].iter().flatten().any(|&v| v > 12) {
                wide += 1;
                assert!(model.within_observed(&new), "{new}");
            }
        }
        assert!(wide >= 10, "{wide}");
    }

    #[test]
    fn broad_grids_sometimes_grow_both_ways() {
        let base = "3 4\nS..#\n.#.#\n...T\n";
        let mut square = 0;
        for new in made(base, 400, 32) {
            let lines: Vec<&str> = new.lines().collect();
            let hw = numbers(lines[0]);
            let (h, w) = (hw[0][0] as usize, hw[0][1] as usize);
            assert_eq!(lines.len() - 1, h, "{new}");
            assert!(lines[1..].iter().all(|r| r.chars().count() == w), "{new}");
            square += usize::from(h >= MAX_COUNT / 2 && w >= MAX_COUNT / 2);
        }
        assert!(square >= 5, "{square}");
    }

    #[test]
    fn sizes_and_what_they_index_are_typical_up_to_the_largest_count() {
        let model = InputModel::of(["6\n1 2\n2 3\n2 4\n4 5\n1 6\n"]);
        let path: String = (1..30).map(|v| format!("{v} {}\n", v + 1)).collect();
        assert!(model.within_observed(&format!("30\n{path}")));
        // A vertex past the count is not, nor a count past the largest made.
        assert!(!model.within_observed("3\n1 2\n2 9\n"));
        let long: String = (1..70).map(|v| format!("{v} {}\n", v + 1)).collect();
        assert!(!model.within_observed(&format!("70\n{long}")));
        // An array's length is a size; its values stay within those seen.
        let model = InputModel::of(["3\n4 9 2\n"]);
        assert!(model.within_observed(&format!("40\n{}\n", vec!["4"; 40].join(" "))));
        assert!(!model.within_observed(&format!("40\n{}\n", vec!["40"; 40].join(" "))));
    }

    #[test]
    fn a_simple_graph_gets_no_loop_or_repeated_edge() {
        let mut more = 0;
        for new in made("4 4\n1 2\n2 3\n3 4\n1 4\n", 400, 23) {
            let lines = numbers(&new);
            let mut pairs = BTreeSet::new();
            for e in &lines[1..] {
                assert_ne!(e[0], e[1], "{new}");
                assert!(pairs.insert((e[0].min(e[1]), e[0].max(e[1]))), "{new}");
            }
            more += usize::from(lines.len() > 5);
        }
        assert!(more > 10, "{more}");
    }

    #[test]
    fn indices_stay_within_what_they_index() {
        let base = "5 5\n1 2 3 4 5\n1 2 4 10\n2 3\n1 1 5 -1\n2 1\n2 5\n";
        let model = InputModel::of([base]);
        // The query's ends and the point query's place index n (the value added does not).
        assert!(model.indices.contains_key(&(4, 1)) && model.indices.contains_key(&(4, 2)));
        assert!(model.indices.contains_key(&(2, 1)) && !model.indices.contains_key(&(4, 3)));
        let mut grew = false;
        for new in made(base, 300, 12) {
            let lines: Vec<Vec<i64>> = new
                .lines()
                .map(|l| l.split(' ').map(|x| x.parse().unwrap()).collect())
                .collect();
            let n = lines[0][0];
            for q in &lines[2..] {
                let places: &[usize] = match q.len() {
                    4 => &[1, 2],
                    2 => &[1],
                    _ => &[],
                };
                for &i in places {
                    assert!((1..=n).contains(&q[i]), "{new}");
                }
            }
            grew |= n > 5;
        }
        assert!(grew, "the array still resizes, and its indices follow it");
        // Edges `u < v` among n vertices: within n and never a self-loop, so none at n = 1.
        let edges = made("3 2\n1 2\n2 3\n", 300, 13);
        assert!(edges.len() > 100);
        for new in &edges {
            let n: i64 = new.split_whitespace().next().unwrap().parse().unwrap();
            for l in new.lines().skip(1) {
                let v: Vec<i64> = l.split(' ').map(|x| x.parse().unwrap()).collect();
                if v.len() == 2 {
                    assert!(v[0] < v[1] && v[1] <= n, "{new}");
                }
            }
        }
    }

    /// Whether `input` is `T` cases, each a count line and a line of that many numbers.
    fn counted_cases(input: &str) -> bool {
        let lines: Vec<Vec<&str>> = input.lines().map(|l| l.split(' ').collect()).collect();
        let t: usize = lines[0][0].parse().unwrap_or(0);
        lines.len() == 1 + 2 * t
            && (0..t).all(|c| {
                let n: usize = lines[1 + 2 * c][0].parse().unwrap_or(usize::MAX);
                lines[1 + 2 * c].len() == 1 && lines[2 + 2 * c].len() == n
            })
    }

    #[test]
    fn cases_of_a_count_and_its_numbers_are_resized_as_cases() {
        let base = "3\n5\n4 1 4 3 2\n1\n7\n3\n-5 -5 -5\n";
        assert_eq!(
            Parsed::of(base).links().first(),
            Some(&Link::Cases {
                line: 0,
                tok: 0,
                per: 2
            })
        );
        let made = made(base, 400, 11);
        for new in &made {
            assert!(counted_cases(new), "{new:?}");
        }
        let resized = made.iter().filter(|n| !n.starts_with("3\n")).count();
        assert!(resized > 20, "{resized}");
        // A square matrix's size counts its rows, which are alike.
        assert!(matches!(
            Parsed::of("2\n1 2\n3 4\n").links().first(),
            Some(Link::LinesAfter { .. })
        ));
    }

    #[test]
    fn a_one_in_front_of_one_value_leads_its_line_among_lines_that_are_led() {
        let base = "4\n5 2 2 1 2 3\n4 1 1 2 2\n1 7\n3 0 5 0\n";
        for new in made(base, 400, 12) {
            let lines: Vec<Vec<&str>> = new.lines().map(|l| l.split(' ').collect()).collect();
            assert_eq!(
                lines.len(),
                1 + lines[0][0].parse::<usize>().unwrap_or(0),
                "{new:?}"
            );
            for line in &lines[1..] {
                assert_eq!(
                    line[0].parse::<usize>().ok(),
                    Some(line.len() - 1),
                    "{new:?}"
                );
            }
        }
        // Alone, `1 5` is two numbers.
        assert!(Parsed::of("1 5\n").links().is_empty());
    }

    #[test]
    fn lines_until_the_end_are_copied_and_dropped_where_the_inputs_show_them() {
        // Queries `Y M` until the end of the input: one line in one sample, two in the other
        // (the `2` over `1 1` counts nothing: `2024 2` alone shows it).
        let task = ["2024 2\n", "2021 2\n1 1\n"];
        let model = InputModel::of(task);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(4);
        let mut lengths = BTreeSet::new();
        for i in 0..300 {
            if let Some(new) = model.mutate(task[i % 2], &mut rng) {
                assert!(new.lines().all(|l| l.split(' ').count() == 2), "{new:?}");
                lengths.insert(new.lines().count());
            }
        }
        assert!(lengths.contains(&3) && lengths.contains(&1), "{lengths:?}");
        let large = model
            .enlarge(task[1], 100, &mut rng)
            .expect("a large input");
        assert!(large.lines().count() >= 50, "{large:?}");
        // Inputs of one length hold a fixed number of lines.
        let fixed = InputModel::of(["5 7\n", "10 3\n"]);
        for _ in 0..100 {
            if let Some(new) = fixed.mutate("5 7\n", &mut rng) {
                assert_eq!(new.lines().count(), 1, "{new:?}");
            }
        }
    }

    #[test]
    fn a_one_in_front_of_one_value_between_other_lines_is_a_list_of_one() {
        // `c x_1 … x_c` accepting states between `s t` and the transitions, every sample
        // `1 x`: never `0 1` or `2 1`, which solutions reading `c` values and ones reading
        // the rest of the line part on.
        let task = [
            "2 4\n1 0\n0 a 1\n0 b 0\n1 a 0\n1 b 1\n2\nab\nbbb\n",
            "3 3\n1 2\n0 x 1\n1 y 2\n2 x 1\n1\nxy\n",
        ];
        let model = InputModel::of(task);
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
        let mut longer = 0;
        for i in 0..400 {
            let Some(new) = model.mutate(task[i % 2], &mut rng) else {
                continue;
            };
            let line: Vec<&str> = new.lines().nth(1).unwrap().split(' ').collect();
            assert_eq!(
                line[0].parse::<usize>().ok(),
                Some(line.len() - 1),
                "{new:?}"
            );
            longer += usize::from(line.len() > 2);
        }
        assert!(longer > 0);
        // In a run of pairs, or last, or under a lone `2` that counts it (`n` = 2, then `k`:
        // read as a list of one, it grew into `48 -2 …` under `n` = 2), `1 x` is two values.
        for input in [
            "3\n1 10\n11 19\n2 4\n",
            "20 3 4\n5 1\n1 2\n",
            "2\n1 -2\n1\n",
        ] {
            assert!(!Parsed::of(input)
                .links()
                .iter()
                .any(|l| matches!(l, Link::TokensAfter { .. })));
        }
    }

    #[test]
    fn cards_are_edited_as_cards_of_one_deck() {
        let base = "3\n2 AS KD\n3 10H 5C 9D\n3 AH AD 9S\n";
        let model = InputModel::of([base]);
        let (mut faces, mut changed) = (BTreeSet::new(), 0);
        for new in made(base, 400, 13) {
            for line in new.lines().skip(1) {
                let cards: Vec<&str> = line.split(' ').skip(1).collect();
                let distinct: BTreeSet<&&str> = cards.iter().collect();
                assert_eq!(distinct.len(), cards.len(), "a card dealt twice: {new:?}");
                for c in cards {
                    assert!(
                        model.cards.as_ref().is_some_and(|d| d.holds(c)),
                        "{c} in {new:?}"
                    );
                    faces.extend(c.chars().next().filter(|f| "JQ".contains(*f)));
                }
            }
            changed += 1;
        }
        assert!(changed > 100);
        assert_eq!(faces.len(), 2, "ranks the sample lacks were never drawn");
        assert!(model.within_observed("1\n2 QC JH\n"));
    }

    #[test]
    fn years_of_dates_stay_within_the_centuries_around_those_seen() {
        let base = "2\n2024-02-28 2024-03-01\n1900-02-28 1999-12-31\n";
        for new in made(base, 300, 14) {
            for date in new.split_whitespace().skip(1) {
                let year: i64 = date[..4].parse().unwrap_or(0);
                assert!((1900..=2100).contains(&year), "{new:?}");
            }
        }
    }

    #[test]
    fn a_grid_with_lines_after_it_resizes_its_rows_and_a_matrix_its_width() {
        let base = "3 4\nS.*#\n.#*.\n*...\nRRDDL\n";
        let links = Parsed::of(base).links();
        assert!(
            links.contains(&Link::GridRows { line: 0, tok: 0 }),
            "{links:?}"
        );
        assert!(
            links.contains(&Link::GridWidth { line: 0, tok: 1 }),
            "{links:?}"
        );
        for new in made(base, 300, 15) {
            let lines: Vec<&str> = new.lines().collect();
            let head: Vec<usize> = lines[0]
                .split(' ')
                .map(|v| v.parse().unwrap_or(0))
                .collect();
            assert_eq!(lines.len(), head[0] + 2, "{new:?}");
            assert!(
                lines[1..=head[0]].iter().all(|r| r.len() == head[1]),
                "{new:?}"
            );
        }
        // A value in a row is no count of the next row, with or without a width.
        for base in [
            "3 4\n5 3 3 7\n9 4 4 8\n1 2 0 6\n",
            "3 1\n1 2 3\n4 5 6\n7 8 9\n",
        ] {
            let links = Parsed::of(base).links();
            assert!(links.iter().all(|l| l.at().0 == 0), "{links:?}");
        }
        let base = "3 2\n5 3\n1 6\n4 0\n";
        assert!(Parsed::of(base).links().contains(&Link::Width {
            line: 0,
            tok: 1,
            rows: 3
        }));
        for new in made(base, 300, 16) {
            let lines: Vec<&str> = new.lines().collect();
            let head: Vec<i64> = lines[0]
                .split(' ')
                .map(|v| v.parse().unwrap_or(0))
                .collect();
            assert_eq!(lines.len() as i64, head[0] + 1, "{new:?}");
            assert!(
                lines[1..]
                    .iter()
                    .all(|r| r.split(' ').count() as i64 == head[1]),
                "{new:?}"
            );
        }
    }

    #[test]
    fn a_header_that_is_positive_in_every_input_stays_positive() {
        let base = "5 3\n3 -1 4 1 -5\nS 1 3\nM 5 2\nS 2 4\n";
        for new in made(base, 300, 17) {
            let head: Vec<i64> = new
                .lines()
                .next()
                .unwrap_or("")
                .split(' ')
                .map(|v| v.parse().unwrap_or(0))
                .collect();
            assert!(head.iter().all(|&v| v >= 1), "{new:?}");
        }
    }

    #[test]
    fn a_large_input_grows_its_counts_and_spreads_its_indices_over_them() {
        // A string under range queries: `n q`, the string, then q queries into it.
        let inputs = [
            "5 5\n10110\ncount 1 5\nflip 2 4\nget 2\ncount 1 3\nget 5\n",
            "1 3\n0\nflip 1 1\nflip 1 1\nget 1\n",
        ];
        let model = InputModel::of(inputs);
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let (mut made, mut long, mut wide) = (0, 0, 0);
        for i in 0..20 {
            let Some(new) = model.enlarge(inputs[i % 2], LARGE_COUNT, &mut rng) else {
                continue;
            };
            made += 1;
            let lines: Vec<&str> = new.lines().collect();
            let head: Vec<usize> = lines[0].split(' ').map(|v| v.parse().unwrap()).collect();
            let (n, q) = (head[0], head[1]);
            assert_eq!(lines[1].len(), n, "{new:?}");
            assert!(lines[1].chars().all(|c| c == '0' || c == '1'), "{new:?}");
            assert_eq!(lines.len(), q + 2, "{new:?}");
            long += usize::from(n >= LARGE_COUNT / 2 && q >= LARGE_COUNT / 2);
            for query in &lines[2..] {
                let args: Vec<usize> = query
                    .split(' ')
                    .skip(1)
                    .map(|v| v.parse().unwrap())
                    .collect();
                assert!(
                    args.iter().all(|&a| (1..=n).contains(&a)),
                    "{query} past {n}"
                );
                assert!(args.windows(2).all(|w| w[0] <= w[1]), "{query}");
                wide += usize::from(args.iter().any(|&a| a > 5));
            }
        }
        assert!(made >= 15, "{made} large inputs");
        assert!(long * 2 >= made, "{long} of {made} grew both counts");
        assert!(wide > 100, "indices spread past the samples' 5: {wide}");
        // The same seed makes the same input, from a model made anew of the same inputs.
        let again = |seed| {
            InputModel::of(inputs).enlarge(
                inputs[0],
                LARGE_COUNT,
                &mut ChaCha8Rng::seed_from_u64(seed),
            )
        };
        assert_eq!(again(3), again(3));
        // No cap makes an input past 64 KiB or panics.
        let huge = model.enlarge(inputs[0], usize::MAX, &mut rng);
        assert!(huge.is_none_or(|h| h.len() <= MAX_LARGE_INPUT));
        // A list's count follows it; a lone value has nothing to grow.
        let list = "5\n1 3 2 5 4\n";
        let model = InputModel::of([list]);
        let new = model.enlarge(list, LARGE_COUNT, &mut rng).unwrap();
        let lines: Vec<&str> = new.lines().collect();
        let n: usize = lines[0].parse().unwrap();
        assert!(n >= LARGE_COUNT / 2, "{n}");
        assert_eq!(lines[1].split(' ').count(), n);
        let model = InputModel::of(["85\n"]);
        assert_eq!(model.enlarge("85\n", LARGE_COUNT, &mut rng), None);
    }
}
