//! Words made of fields, as contest inputs write squares (`e4`), times (`23:45`), dates
//! (`2024-01-05`), addresses (`192.168.0.1`) and colours (`#a1b2c3`): a word is read as runs of
//! digits, runs of lower- or upper-case letters and single other characters, and words of one
//! shape (`d:d`, `ld`) are edited field by field.
//!
//! Editing such a word character by character over every character seen makes `23:454` or
//! `e4:` — inputs outside any constraint, which accepted solutions may still agree on and then
//! become tests that reject a correct solution written another way. Field by field, a number
//! stays a number of the widths seen, a square's file stays a letter, and the separators stay.

use rand::Rng;
use std::collections::{BTreeMap, BTreeSet};

/// One run of a word.
#[derive(Debug, Clone, PartialEq)]
enum Piece {
    Digits(String),
    Lower(String),
    Upper(String),
    Other(char),
}

impl Piece {
    fn text(&self) -> String {
        match self {
            Piece::Digits(s) | Piece::Lower(s) | Piece::Upper(s) => s.clone(),
            Piece::Other(c) => c.to_string(),
        }
    }

    /// The piece's place in a shape: its class, or the character itself.
    fn class(&self) -> String {
        match self {
            Piece::Digits(_) => "d".into(),
            Piece::Lower(_) => "l".into(),
            Piece::Upper(_) => "u".into(),
            Piece::Other(c) => format!("'{c}"),
        }
    }
}

/// The runs of `w`.
fn pieces(w: &str) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::new();
    for c in w.chars() {
        let extended = match (out.last_mut(), c) {
            (Some(Piece::Digits(s)), c) if c.is_ascii_digit() => Some(s),
            (Some(Piece::Lower(s)), c) if c.is_ascii_lowercase() => Some(s),
            (Some(Piece::Upper(s)), c) if c.is_ascii_uppercase() => Some(s),
            _ => None,
        };
        match extended {
            Some(s) => s.push(c),
            None if c.is_ascii_digit() => out.push(Piece::Digits(c.to_string())),
            None if c.is_ascii_lowercase() => out.push(Piece::Lower(c.to_string())),
            None if c.is_ascii_uppercase() => out.push(Piece::Upper(c.to_string())),
            None => out.push(Piece::Other(c)),
        }
    }
    out
}

/// The shape of a word made of fields (two runs or more, one of them a number or letters,
/// separators no more than twice as many as fields), or `None` for a plain word, whose
/// characters are edited as before. In `{[a](b)}(c` the brackets are the content, not
/// separators: kept, they left nothing to edit.
fn shape(pieces: &[Piece]) -> Option<String> {
    let fields = pieces
        .iter()
        .filter(|p| !matches!(p, Piece::Other(_)))
        .count();
    let separators = pieces.len() - fields;
    (pieces.len() >= 2 && fields >= 1 && separators <= 2 * fields).then(|| {
        pieces
            .iter()
            .map(Piece::class)
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// The shape of `w` when it is made of fields (see [`shape`]).
pub(super) fn shape_of(w: &str) -> Option<String> {
    shape(&pieces(w))
}

/// What the inputs show of one field of one shape.
#[derive(Debug, Clone, Default)]
struct Field {
    /// Numbers: the smallest and largest value, the digit counts, and whether one was
    /// written with leading zeros (`05`).
    lo: i64,
    hi: i64,
    widths: BTreeSet<usize>,
    padded: bool,
    /// Letters: the characters and lengths seen.
    chars: BTreeSet<char>,
    lengths: BTreeSet<usize>,
    /// Whether a number follows this field in its shape (`e` of `e4`: a file before a rank).
    before_number: bool,
    /// Whether the field is a clock's or a date's (`23:15`, `2024-02-28`): two digits seen,
    /// never fewer, mean a padded `03:59` or `1924-03-01`, though no value under 10 showed it.
    clock_or_date: bool,
}

impl Field {
    fn add(&mut self, piece: &Piece, first: bool) {
        match piece {
            Piece::Digits(s) => {
                let v = s.parse::<i64>().unwrap_or(i64::MAX);
                (self.lo, self.hi) = if first {
                    (v, v)
                } else {
                    (self.lo.min(v), self.hi.max(v))
                };
                self.widths.insert(s.len());
                self.padded |= s.len() > 1 && s.starts_with('0');
            }
            Piece::Lower(s) | Piece::Upper(s) => {
                self.chars.extend(s.chars());
                self.lengths.insert(s.chars().count());
            }
            Piece::Other(_) => {}
        }
    }

    /// The smallest number within what is seen: as for integers, down to 1 when only
    /// positive values appear (`1 ≤ x`, the commonest constraint; month 0 is no month).
    fn number_floor(&self) -> i64 {
        if self.lo >= 1 {
            1
        } else {
            self.lo
        }
    }

    /// The widest number seen.
    fn widest(&self) -> usize {
        self.widths.iter().next_back().copied().unwrap_or(1)
    }

    /// Whether numbers are written zero-padded to the field's width: seen so (`05`), or a
    /// clock's or a date's field seen only two digits wide.
    fn pads(&self) -> bool {
        self.padded || (self.clock_or_date && self.widths.iter().eq([&2]))
    }

    /// `v` written as this field writes numbers (zero-padded to its width when it pads).
    fn write_number(&self, v: i64) -> String {
        let width = self.widest();
        if self.pads() {
            format!("{v:0width$}")
        } else {
            v.to_string()
        }
    }

    /// The lowest letter of a one-letter field: `a` (or `A`), as the files of a board and the
    /// columns of a grid start there.
    fn letter_floor(&self, upper: bool) -> char {
        if upper {
            'A'
        } else {
            'a'
        }
    }

    /// Whether a one-letter field reads as a position (a board's file, a grid's column: `e4`,
    /// `B7`), whose letters run from `a` up: letters up to `j` before a number. Otherwise (`S`
    /// for spades after a rank, `h` for hours) the letters are codes, and only those seen are
    /// used.
    fn is_position(&self) -> bool {
        self.before_number
            && self
                .chars
                .iter()
                .all(|c| matches!(c.to_ascii_lowercase(), 'a'..='j'))
    }

    /// Whether `piece` lies within what is seen of this field.
    fn within(&self, piece: &Piece) -> bool {
        match piece {
            Piece::Digits(s) => {
                let Ok(v) = s.parse::<i64>() else {
                    return false;
                };
                let written = if self.pads() {
                    self.write_number(v) == *s
                } else {
                    self.widths.contains(&s.len()) && (s.len() == 1 || !s.starts_with('0'))
                };
                written && (self.number_floor()..=self.hi).contains(&v)
            }
            Piece::Lower(s) | Piece::Upper(s) => {
                let n = s.chars().count();
                if self.lengths.iter().all(|&l| l == 1) && n == 1 && self.is_position() {
                    let upper = matches!(piece, Piece::Upper(_));
                    let top = self.chars.iter().next_back().copied().unwrap_or('a');
                    s.chars()
                        .all(|c| (self.letter_floor(upper)..=top).contains(&c))
                } else {
                    self.lengths.contains(&n) && s.chars().all(|c| self.chars.contains(&c))
                }
            }
            Piece::Other(_) => true,
        }
    }

    /// A new value for `piece`: within what is seen most of the time, sometimes beyond it
    /// (twice as far up, never wider than seen), where a mutant's wrong bound shows.
    fn edit(&self, piece: &Piece, known: Option<(i64, i64)>, rng: &mut impl Rng) -> Piece {
        match piece {
            Piece::Digits(s) => {
                let v = s.parse::<i64>().unwrap_or(self.lo);
                let floor = known.map_or(self.number_floor(), |(lo, _)| lo.max(0));
                let top = self.hi.max(floor);
                // Beyond what is seen: twice as far up, or up to a known format's bound.
                let far = known.map_or(top.saturating_mul(2).max(top), |(_, hi)| hi.max(floor));
                let new = match rng.random_range(0..9) {
                    0 => floor,
                    1 => top,
                    // A format's own last value (`23` o'clock, minute `59`, the next century).
                    8 => known.map_or(top, |(_, hi)| hi.max(floor)),
                    2 => v.saturating_add(1),
                    3 => v.saturating_sub(1),
                    4 => rng.random_range(floor..=far),
                    _ => rng.random_range(floor..=top),
                };
                let new = match known {
                    Some((lo, hi)) => new.clamp(lo, hi.max(lo)),
                    None => new,
                };
                // Never wider than seen: a field's width is part of its format. A one-digit
                // field that shows only positive values (a square's rank, a die) never gets 0;
                // a padded one (`09`) may (hour `00`).
                let cap = 10i64.saturating_pow(self.widest().min(18) as u32) - 1;
                let least = if self.widest() == 1 && !self.pads() {
                    floor
                } else {
                    0
                };
                Piece::Digits(self.write_number(new.clamp(least, cap.max(least))))
            }
            Piece::Lower(s) | Piece::Upper(s) => {
                let upper = matches!(piece, Piece::Upper(_));
                let mut chars: Vec<char> = s.chars().collect();
                let seen: Vec<char> = self.chars.iter().copied().collect();
                if chars.len() == 1 && self.lengths.iter().all(|&l| l == 1) && self.is_position() {
                    let floor = self.letter_floor(upper) as u32;
                    let top = seen.last().map_or(floor, |&c| c as u32).max(floor);
                    let last = if upper { 'Z' } else { 'z' } as u32;
                    let c = chars.first().map_or(floor, |&c| c as u32);
                    let new = match rng.random_range(0..7) {
                        0 => floor,
                        1 => top,
                        2 => c + 1,
                        3 => c.saturating_sub(1).max(floor),
                        4 => rng.random_range(floor..=(top + (top - floor + 1)).min(last)),
                        _ => rng.random_range(floor..=top),
                    };
                    let new = char::from_u32(new.min(last)).unwrap_or('a');
                    return if upper {
                        Piece::Upper(new.to_string())
                    } else {
                        Piece::Lower(new.to_string())
                    };
                }
                if !seen.is_empty() && !chars.is_empty() {
                    let i = rng.random_range(0..chars.len());
                    chars[i] = seen[rng.random_range(0..seen.len())];
                }
                let s: String = chars.into_iter().collect();
                if upper {
                    Piece::Upper(s)
                } else {
                    Piece::Lower(s)
                }
            }
            Piece::Other(c) => Piece::Other(*c),
        }
    }
}

/// The bounds that a format contest inputs often use puts on each number field of `shape`,
/// where it is recognised: a clock time (`23:59`, `23:59:59`: hours to 23, minutes and
/// seconds to 59), a date (`2024-01-05`: month 1–12, day 1–28, valid in every month, the
/// years seen), an IPv4
/// address (each part to 255), a chess square (`e4`: rank 1–8) and a playing card (`10S`:
/// rank 2–10). Beyond what the task's tests show, edits go up to these bounds, never past them:
/// `52:00` is no time, and solutions that agree on it prove nothing.
fn known_bounds(shape: &str, fields: &[Field]) -> Vec<Option<(i64, i64)>> {
    let widest = |i: usize| fields.get(i).map_or(0, Field::widest);
    let mut out = vec![None; fields.len()];
    let mut set = |i: usize, b: (i64, i64)| {
        if let Some(slot) = out.get_mut(i) {
            *slot = Some(b);
        }
    };
    match shape {
        _ if is_clock(shape) && (0..fields.len()).step_by(2).all(|i| widest(i) == 2) => {
            set(0, (0, 23));
            set(2, (0, 59));
            set(4, (0, 59));
        }
        _ if is_date(shape, fields) => {
            // A year has no bound a format gives, and problems bound it (`1900 ≤ y ≤ 2100`,
            // `1600 ≤ y ≤ 2400`) where calendars change: it stays within the centuries around
            // the years seen (2000 and 2100 around 2019–2021), which reach the leap rules of
            // centuries, not past them. A day past its month's last is brought back by
            // [`Shapes::edit`].
            if let Some(year) = fields.first() {
                let below = (year.lo.div_euclid(100) * 100).max(1);
                let above = (year.hi.div_euclid(100) + 1) * 100;
                set(0, (below, above));
            }
            set(2, (1, 12));
            set(4, (1, 31));
        }
        "d '. d '. d '. d" => {
            for i in [0, 2, 4, 6] {
                set(i, (0, 255));
            }
        }
        "l d" | "u d" if fields.first().is_some_and(Field::is_position) && widest(1) == 1 => {
            set(1, (1, 8));
        }
        "d u"
            if fields.get(1).is_some_and(|f| {
                !f.chars.is_empty() && f.chars.iter().all(|c| "SHDC".contains(*c))
            }) =>
        {
            set(0, (2, 10));
        }
        _ => {}
    }
    out
}

/// Whether words of `shape` are clock times (`23:59`, `23:59:59`).
fn is_clock(shape: &str) -> bool {
    matches!(shape, "d ': d" | "d ': d ': d")
}

/// Whether words of `shape` are written as dates are: three numbers between `-` or `/`.
fn is_date_shape(shape: &str) -> bool {
    matches!(shape, "d '- d '- d" | "d '/ d '/ d")
}

/// Whether words of `shape` with `fields` are dates, year first (`2024-01-05`, `2024/1/5`).
fn is_date(shape: &str, fields: &[Field]) -> bool {
    let widest = |i: usize| fields.get(i).map_or(0, Field::widest);
    is_date_shape(shape) && widest(0) == 4 && widest(2) <= 2 && widest(4) <= 2
}

/// The days of month `m` of year `y` (Gregorian).
fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The shapes of the words the inputs show, with what each field of each shape holds.
#[derive(Debug, Clone, Default)]
pub(super) struct Shapes {
    fields: BTreeMap<String, Vec<Field>>,
}

impl Shapes {
    /// Adds what `w` shows (nothing when it is a plain word).
    pub(super) fn add(&mut self, w: &str) {
        let pieces = pieces(w);
        let Some(shape) = shape(&pieces) else {
            return;
        };
        let first = !self.fields.contains_key(&shape);
        let clock_or_date = is_clock(&shape) || is_date_shape(&shape);
        let fields = self
            .fields
            .entry(shape)
            .or_insert_with(|| vec![Field::default(); pieces.len()]);
        for (i, (field, piece)) in fields.iter_mut().zip(&pieces).enumerate() {
            field.add(piece, first);
            field.before_number = matches!(pieces.get(i + 1), Some(Piece::Digits(_)));
            field.clock_or_date = clock_or_date;
        }
    }

    /// Whether `w` has a shape the inputs show with every field within what they show of it;
    /// `None` for a plain word.
    pub(super) fn within(&self, w: &str) -> Option<bool> {
        let pieces = pieces(w);
        let shape = shape(&pieces)?;
        Some(self.fields.get(&shape).is_some_and(|fields| {
            fields
                .iter()
                .zip(&pieces)
                .all(|(field, piece)| field.within(piece))
        }))
    }

    /// `w` with one or two of its fields edited; `None` for a plain word or a shape the inputs
    /// do not show.
    pub(super) fn edit(&self, w: &str, rng: &mut impl Rng) -> Option<String> {
        let mut pieces = pieces(w);
        let editable: Vec<usize> = (0..pieces.len())
            .filter(|&i| !matches!(pieces.get(i), Some(Piece::Other(_))))
            .collect();
        let shape = shape(&pieces)?;
        let fields = self.fields.get(&shape)?;
        let known = known_bounds(&shape, fields);
        for _ in 0..rng.random_range(1..=2) {
            let i = editable[rng.random_range(0..editable.len())];
            if let (Some(field), Some(piece)) = (fields.get(i), pieces.get(i)) {
                let new = field.edit(piece, known.get(i).copied().flatten(), rng);
                pieces[i] = new;
            }
        }
        if is_date(&shape, fields) {
            keep_valid_day(&mut pieces, fields, rng);
        }
        Some(pieces.iter().map(Piece::text).collect())
    }
}

/// Brings a date's day within its month (`2023-02-30` → `2023-02-28`), and one time in four
/// makes it the month's last, where leap years and month lengths show (`2024-02-29`).
fn keep_valid_day(pieces: &mut [Piece], fields: &[Field], rng: &mut impl Rng) {
    let number = |p: Option<&Piece>| match p {
        Some(Piece::Digits(s)) => s.parse::<i64>().ok(),
        _ => None,
    };
    let (Some(y), Some(m), Some(d), Some(field)) = (
        number(pieces.first()),
        number(pieces.get(2)),
        number(pieces.get(4)),
        fields.get(4),
    ) else {
        return;
    };
    let last = days_in_month(y, m);
    let day = if rng.random_ratio(1, 4) {
        last
    } else {
        d.min(last)
    };
    if let Some(slot) = pieces.get_mut(4) {
        *slot = Piece::Digits(field.write_number(day));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn shapes(words: &[&str]) -> Shapes {
        let mut s = Shapes::default();
        for w in words {
            s.add(w);
        }
        s
    }

    #[test]
    fn brackets_around_letters_are_no_fields() {
        assert_eq!(shape_of("{[a](b)}(c"), None);
        assert!(shape_of("(1,2)").is_some());
        assert!(shape_of("#a1b2c3").is_some());
    }

    #[test]
    fn a_clock_seen_only_two_digits_wide_stays_padded() {
        // `23:15` shows no hour under 10, but a clock writes 3 o'clock `03`.
        let s = shapes(&["23:15"]);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        for _ in 0..200 {
            let new = s.edit("23:15", &mut rng).unwrap();
            assert_eq!(new.len(), 5, "{new}");
        }
        assert_eq!(s.within("03:15"), Some(true));
        assert_eq!(s.within("3:15"), Some(false));
        // A clock that shows one-digit hours keeps writing them so.
        let s = shapes(&["3:15", "11:05"]);
        assert_eq!(s.within("4:09"), Some(true));
    }

    #[test]
    fn a_date_seen_with_two_digit_days_stays_padded() {
        // Days 28, 31 and 15 show no day under 10, but the months show `02`: the day 1 of
        // such a date is `01` (blind kit 31 kept `1924-03-1`).
        let s = shapes(&["2024-02-28", "1999-12-31", "2023-03-15"]);
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        for _ in 0..300 {
            let new = s.edit("2024-02-28", &mut rng).unwrap();
            assert_eq!(new.len(), 10, "{new}");
        }
        assert_eq!(s.within("1924-03-01"), Some(true));
        assert_eq!(s.within("1924-03-1"), Some(false));
        // Dates written without padding keep being written so.
        let s = shapes(&["2024/1/5", "2023/12/25"]);
        assert_eq!(s.within("2024/2/7"), Some(true));
    }

    #[test]
    fn fields_keep_their_kind_width_and_separators() {
        let s = shapes(&["09:45", "14:05"]);
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let mut seen = BTreeSet::new();
        for _ in 0..300 {
            let new = s.edit("09:45", &mut rng).unwrap();
            let (h, m) = new.split_once(':').unwrap();
            assert_eq!((h.len(), m.len()), (2, 2), "{new}");
            assert!(
                h.bytes().chain(m.bytes()).all(|b| b.is_ascii_digit()),
                "{new}"
            );
            seen.insert(new);
        }
        assert!(seen.len() > 30);
        assert!(seen.iter().any(|w| s.within(w) == Some(true)));
        assert_eq!(s.within("23:454"), Some(false));
        assert_eq!(
            s.within("00:45"),
            Some(false),
            "month-0-like values are beyond"
        );
        assert_eq!(s.within("01:07"), Some(true));
        assert_eq!(s.within("hello"), None);
    }

    #[test]
    fn a_square_stays_a_square_and_reaches_the_first_file() {
        let s = shapes(&["c3", "e5"]);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let made: BTreeSet<String> = (0..300).filter_map(|_| s.edit("c3", &mut rng)).collect();
        assert!(made.iter().all(|w| {
            let b = w.as_bytes();
            b.len() == 2 && b[0].is_ascii_lowercase() && b[1].is_ascii_digit()
        }));
        assert!(made.contains("a1"));
        assert_eq!(s.within("a1"), Some(true));
        assert_eq!(s.within("f1"), Some(false));
    }

    #[test]
    fn dates_stay_valid_and_reach_month_ends() {
        let s = shapes(&["2024-01-05", "2024-03-17"]);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let made: BTreeSet<String> = (0..600)
            .filter_map(|_| s.edit("2024-01-05", &mut rng))
            .collect();
        for w in &made {
            let v: Vec<i64> = w.split('-').map(|x| x.parse().unwrap()).collect();
            assert!(w.len() == 10 && (1..=12).contains(&v[1]), "{w}");
            assert!((1..=days_in_month(v[0], v[1])).contains(&v[2]), "{w}");
        }
        assert!(made.contains("2024-02-29"), "a leap day is reached");
        // The centuries around the years seen, and nothing past them.
        let years: BTreeSet<i64> = made.iter().map(|w| w[..4].parse().unwrap()).collect();
        assert!(years.contains(&2000) && years.contains(&2100), "{years:?}");
        assert!(years.iter().all(|y| (2000..=2100).contains(y)), "{years:?}");
        assert!(made.iter().any(|w| w.ends_with("-31")));
        assert_eq!((days_in_month(1900, 2), days_in_month(2000, 2)), (28, 29));
    }

    #[test]
    fn shapes_are_runs_of_classes_and_separators() {
        assert_eq!(shape(&pieces("2024-01-05")).as_deref(), Some("d '- d '- d"));
        assert_eq!(shape(&pieces("#a1")).as_deref(), Some("'# l d"));
        assert_eq!(shape(&pieces("ACGT")), None);
        assert_eq!(shape(&pieces("--")), None);
    }
}
