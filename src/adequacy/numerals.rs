//! Roman numerals, a token contest inputs use (`XIV`, `MCMXC`): edited by value and written
//! back in canonical form, so a new numeral is always a valid one.
//!
//! Edited as letters, `MCMXC` becomes `MCCMXC` or `VIX`: strings no numeral system reads the same
//! way, that two solutions may agree on while a third, equally correct, parses them otherwise.

/// The letters and values of canonical numerals, largest first (subtractive pairs included).
const PARTS: [(&str, u32); 13] = [
    ("M", 1000),
    ("CM", 900),
    ("D", 500),
    ("CD", 400),
    ("C", 100),
    ("XC", 90),
    ("L", 50),
    ("XL", 40),
    ("X", 10),
    ("IX", 9),
    ("V", 5),
    ("IV", 4),
    ("I", 1),
];

/// The largest value canonical numerals write (`MMMCMXCIX`).
pub(super) const MAX: u32 = 3999;

/// `v` (1..=3999) as a canonical numeral.
pub(super) fn write(mut v: u32) -> String {
    let mut out = String::new();
    for (letters, value) in PARTS {
        while v >= value {
            out.push_str(letters);
            v -= value;
        }
    }
    out
}

/// The value of `w` when it is a canonical numeral (the form [`write`] gives), else `None`.
pub(super) fn read(w: &str) -> Option<u32> {
    if w.is_empty() || w.len() > 15 || !w.chars().all(|c| "IVXLCDM".contains(c)) {
        return None;
    }
    let mut rest = w;
    let mut v = 0u32;
    for (letters, value) in PARTS {
        while let Some(r) = rest.strip_prefix(letters) {
            v += value;
            rest = r;
        }
    }
    // Canonical only: `IIII` or `VX` read above would not be written back the same.
    (rest.is_empty() && (1..=MAX).contains(&v) && write(v) == w).then_some(v)
}

/// Whether the words of a task's inputs are numerals: one of them at least two letters long,
/// and every word made of numeral letters a canonical numeral (`MIX` alone is a word; `CIVIL`
/// among them says the letters are not numerals).
pub(super) fn are_numerals<'a>(words: impl IntoIterator<Item = &'a String>) -> bool {
    let mut long = false;
    for w in words {
        if !w.is_empty() && w.chars().all(|c| "IVXLCDM".contains(c)) {
            if read(w).is_none() {
                return false;
            }
            long |= w.len() >= 2;
        }
    }
    long
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numerals_round_trip_and_only_canonical_ones_read() {
        for v in 1..=MAX {
            assert_eq!(read(&write(v)), Some(v));
        }
        assert_eq!(write(1990), "MCMXC");
        for w in ["IIII", "VX", "MCCMXC", "VIX", "IL", "", "XIVX"] {
            assert_eq!(read(w), None, "{w}");
        }
        let words = |ws: &[&str]| ws.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        assert!(are_numerals(&words(&["XIV", "MCMXC", "alice"])));
        assert!(
            !are_numerals(&words(&["I", "V"])),
            "one-letter words may be words"
        );
        assert!(!are_numerals(&words(&["MIX", "CIVIL"])));
    }
}
