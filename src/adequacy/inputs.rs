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

use super::fields::Shapes;
use rand::Rng;
use std::collections::BTreeSet;

/// `v` rounded toward 0 to a multiple of a random power of ten below it (`1937` → `1900`).
fn round_down(v: i64, rng: &mut impl Rng) -> i64 {
    let digits = v.unsigned_abs().checked_ilog10().unwrap_or(0);
    if digits == 0 {
        return v;
    }
    let unit = 10i64.pow(rng.random_range(1..=digits));
    v / unit * unit
}

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

/// A count in an input and what it counts.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Link {
    /// Token `tok` of `line` is the number of tokens on the next line.
    TokensOnNext { line: usize, tok: usize },
    /// Token `tok` of `line` is the number of lines after it.
    LinesAfter { line: usize, tok: usize },
    /// Token `tok` of `line` is the length of the next line's only word.
    LengthOfNext { line: usize, tok: usize },
}

impl Link {
    fn at(self) -> (usize, usize) {
        match self {
            Link::TokensOnNext { line, tok }
            | Link::LinesAfter { line, tok }
            | Link::LengthOfNext { line, tok } => (line, tok),
        }
    }
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
        Parsed {
            lines,
            trailing_newline: input.ends_with('\n'),
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

    /// The counts found in this input.
    fn links(&self) -> Vec<Link> {
        let mut out = Vec::new();
        for (l, line) in self.lines.iter().enumerate() {
            for (k, t) in line.iter().enumerate() {
                let Token::Int(n) = t else { continue };
                let Ok(n) = usize::try_from(*n) else { continue };
                if n == 0 {
                    continue;
                }
                let after = self.lines.len() - l - 1;
                let next = self.lines.get(l + 1);
                // A count of 1 is taken as one only on a short line: "1\n5" is most often one
                // case or one element; if it is not, the keep rules drop what resizing makes.
                let short = line.len() <= 2;
                if short && n == after && (n >= 2 || line.len() == 1) {
                    out.push(Link::LinesAfter { line: l, tok: k });
                } else if next.is_some_and(|nx| nx.len() == n && (n >= 2 || short)) {
                    out.push(Link::TokensOnNext { line: l, tok: k });
                } else if let Some([Token::Word(w)]) = next.map(Vec::as_slice) {
                    if w.chars().count() == n {
                        out.push(Link::LengthOfNext { line: l, tok: k });
                    }
                }
            }
        }
        out
    }
}

/// What the existing inputs show: integer range, word alphabets and lengths.
#[derive(Debug, Clone)]
pub struct InputModel {
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

/// Largest count a resized structure gets (grown tests stay small and cheap).
const MAX_COUNT: usize = 60;

impl InputModel {
    /// The model of `inputs`.
    pub fn of<'a>(inputs: impl IntoIterator<Item = &'a str>) -> InputModel {
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        let mut alphabets: [BTreeSet<char>; 4] = Default::default();
        let (mut len_lo, mut len_hi) = (usize::MAX, 0);
        let mut words = BTreeSet::new();
        let mut shapes = Shapes::default();
        for input in inputs {
            for t in Parsed::of(input).lines.iter().flatten() {
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
        }
        if lo > hi {
            (lo, hi) = (0, 10);
        }
        InputModel {
            int_lo: lo,
            int_hi: hi,
            alphabets: alphabets.map(|a| a.into_iter().collect()),
            len_lo: len_lo.min(len_hi),
            len_hi,
            words,
            shapes,
        }
    }

    /// Whether `input` stays within what the existing inputs show: every integer in their
    /// range (widened down to 1 when they show only positive ones: `1 ≤ x` is the commonest
    /// constraint, and 0 or a negative the commonest invalid input), every word one of theirs
    /// (an edited word may be no valid numeral, time or name) or made of fields each within
    /// what their words of that shape show ([`Shapes::within`]: `01:07` after `09:45`). Such an
    /// input most likely lies within the problem's constraints.
    pub fn within_observed(&self, input: &str) -> bool {
        let lo = if self.int_lo >= 1 { 1 } else { self.int_lo };
        Parsed::of(input).lines.iter().flatten().all(|t| match t {
            Token::Int(v) => (lo..=self.int_hi).contains(v),
            Token::Word(w) => self.words.contains(w) || self.shapes.within(w) == Some(true),
            Token::Float(..) => true,
        })
    }

    /// A new input made from `base` by one to three mutations; `None` when `base` has nothing
    /// to mutate.
    pub fn mutate(&self, base: &str, rng: &mut impl Rng) -> Option<String> {
        let mut p = Parsed::of(base);
        if p.lines.iter().all(Vec::is_empty) {
            return None;
        }
        // The counts are read once, from the base: a count of 1 left by a resize must keep
        // its meaning (one token, not one line).
        let mut links = p.links();
        for _ in 0..rng.random_range(1..=3) {
            match rng.random_range(0..10) {
                0..=4 => self.change_value(&mut p, &links, rng),
                5..=7 if !links.is_empty() => {
                    let link = links[rng.random_range(0..links.len())];
                    self.resize(&mut p, link, rng);
                    if let Link::LinesAfter { line, .. } = link {
                        // The lines after it were remade: counts found there are gone. Other
                        // stale counts (on a line a resize shortened, or moved by a shuffle)
                        // are found out by `resize` itself.
                        links.retain(|l| l.at().0 <= line);
                    }
                }
                _ => shuffle_line(&mut p, &links, rng),
            }
        }
        let out = p.render();
        (out != base).then_some(out)
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
            .collect();
        if sites.is_empty() {
            return;
        }
        let (l, k) = sites[rng.random_range(0..sites.len())];
        let keep_length = length_bound.contains(&l);
        // Sometimes a tie: the value of another token of the same line and type, where equal
        // elements take another path (a strict `>`, a stable order, a first index).
        if rng.random_bool(0.2) {
            if let Some(line) = p.lines.get_mut(l) {
                let twins: Vec<Token> = (0..line.len())
                    .filter(|&j| j != k && !counts.contains(&(l, j)))
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
        let Some(t) = p.lines.get_mut(l).and_then(|line| line.get_mut(k)) else {
            return;
        };
        *t = match t {
            Token::Int(v) => Token::Int(self.new_int(*v, rng)),
            Token::Float(v, d) => Token::Float(*v * rng.random_range(0.5..1.5), *d),
            Token::Word(w) => Token::Word(self.new_word(w, keep_length, rng)),
        };
    }

    /// The range new integers are drawn from: the observed one, widened to reach 0 (or
    /// twice as far below 0) and twice as far up (one sample test shows one value, not the
    /// problem's range); the keep rules drop what lies outside the constraints.
    fn int_range(&self) -> (i64, i64) {
        let (lo, hi) = (self.int_lo, self.int_hi.max(self.int_lo));
        let lo = if lo >= 0 { 0 } else { lo.saturating_mul(2) };
        let hi = hi.saturating_mul(2).max(hi.saturating_add(2)).max(lo);
        (lo, hi)
    }

    fn new_int(&self, v: i64, rng: &mut impl Rng) -> i64 {
        let (lo, hi) = self.int_range();
        let step = (v.unsigned_abs() / 2).clamp(1, 1 << 20) as i64;
        let candidate = match rng.random_range(0..10) {
            0 => v.saturating_add(1),
            1 => v.saturating_sub(1),
            2 => v.saturating_add(rng.random_range(1..=step)),
            3 => v.saturating_sub(rng.random_range(1..=step)),
            4 => self.int_lo,
            5 => self.int_hi,
            // A round number: where divisibility by 10, 100, … changes the answer.
            6 => round_down(rng.random_range(lo..=hi), rng),
            _ => rng.random_range(lo..=hi),
        };
        candidate.clamp(lo.min(v), hi.max(v))
    }

    fn new_word(&self, w: &str, keep_length: bool, rng: &mut impl Rng) -> String {
        // A word made of fields keeps its shape (and its length where that is counted).
        if let Some(new) = self.shapes.edit(w, rng) {
            if !keep_length || new.chars().count() == w.chars().count() {
                return new;
            }
            return w.to_string();
        }
        let mut chars: Vec<char> = w.chars().collect();
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
    /// longer where the link says is left alone (never indexed blindly).
    fn resize(&self, p: &mut Parsed, link: Link, rng: &mut impl Rng) {
        let (l, k) = link.at();
        let Some(Token::Int(n)) = p.lines.get(l).and_then(|line| line.get(k)) else {
            return;
        };
        let n = usize::try_from((*n).max(1)).unwrap_or(1);
        // Only a count that still counts what it did: an earlier mutation may have moved it
        // (shuffled lines) or changed what follows it (a resized line).
        let counts_now = match link {
            Link::TokensOnNext { .. } => p.lines.get(l + 1).map(Vec::len),
            Link::LinesAfter { .. } => p.lines.len().checked_sub(l + 1),
            Link::LengthOfNext { .. } => match p.lines.get(l + 1).map(Vec::as_slice) {
                Some([Token::Word(w)]) => Some(w.chars().count()),
                _ => None,
            },
        };
        if counts_now != Some(n) {
            return;
        }
        let upper = n.saturating_mul(2).clamp(8, MAX_COUNT).max(n);
        let new = match rng.random_range(0..5) {
            0 => n.saturating_sub(1).max(1),
            1 => (n + 1).min(upper),
            2 => 1,
            3 => upper,
            _ => rng.random_range(1..=upper),
        };
        if new == n {
            return;
        }
        match link {
            Link::TokensOnNext { .. } => {
                let Some(next) = p.lines.get_mut(l + 1) else {
                    return;
                };
                resize_vec(next, new, rng, |t, rng| self.mutated_token(t, rng));
            }
            Link::LinesAfter { .. } => {
                let mut block = p.lines.split_off(l + 1);
                resize_vec(&mut block, new, rng, |line, rng| {
                    line.iter().map(|t| self.mutated_token(t, rng)).collect()
                });
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

    /// A copy of `t`, changed half the time (new elements of a resized structure).
    fn mutated_token(&self, t: &Token, rng: &mut impl Rng) -> Token {
        if rng.random_bool(0.5) {
            return t.clone();
        }
        match t {
            Token::Int(v) => Token::Int(self.new_int(*v, rng)),
            Token::Float(v, d) => Token::Float(*v * rng.random_range(0.5..1.5), *d),
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

/// Shuffles the tokens of a line that holds several, or the lines a count counts.
fn shuffle_line(p: &mut Parsed, links: &[Link], rng: &mut impl Rng) {
    use rand::seq::SliceRandom;
    let blocks: Vec<usize> = links
        .iter()
        .filter_map(|l| match l {
            Link::LinesAfter { line, .. } => Some(*line),
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
    let lines: Vec<usize> = (0..p.lines.len())
        .filter(|&l| p.lines[l].len() >= 2 && !counted.contains(&l))
        .collect();
    if lines.is_empty() {
        return;
    }
    if let Some(line) = p.lines.get_mut(lines[rng.random_range(0..lines.len())]) {
        line.shuffle(rng);
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
}
