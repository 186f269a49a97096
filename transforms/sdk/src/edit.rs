//! Edit lists: non-overlapping byte-range replacements applied to the source in one pass.

use std::fmt;
use std::ops::Range;

/// Why an edit list could not be applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditError {
    /// Two edits overlap (their ranges are given).
    Overlap(Range<usize>, Range<usize>),
    /// A range lies outside the text or splits a UTF-8 character.
    OutOfBounds(Range<usize>),
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EditError::Overlap(a, b) => write!(f, "internal error: edits {a:?} and {b:?} overlap"),
            EditError::OutOfBounds(r) => write!(f, "internal error: edit {r:?} is out of bounds"),
        }
    }
}

impl std::error::Error for EditError {}

/// A list of replacements of byte ranges of one source text.
///
/// Insertions are empty ranges; several insertions at one offset keep the order they were added in.
#[derive(Debug, Clone, Default)]
pub struct Edits {
    edits: Vec<(Range<usize>, String)>,
}

impl Edits {
    /// An empty list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Replaces `range` with `text`.
    pub fn replace(&mut self, range: Range<usize>, text: impl Into<String>) {
        self.edits.push((range, text.into()));
    }

    /// Inserts `text` at byte `at`.
    pub fn insert(&mut self, at: usize, text: impl Into<String>) {
        self.edits.push((at..at, text.into()));
    }

    /// Whether there is no edit.
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// Number of edits.
    pub fn len(&self) -> usize {
        self.edits.len()
    }

    /// Whether `range` overlaps a range already edited (touching ends do not overlap,
    /// except that an insertion strictly inside a replaced range does).
    pub fn overlaps(&self, range: &Range<usize>) -> bool {
        self.edits.iter().any(|(r, _)| ranges_overlap(r, range))
    }

    /// Applies every edit to `source` in one pass.
    pub fn apply(&self, source: &str) -> Result<String, EditError> {
        let mut order: Vec<usize> = (0..self.edits.len()).collect();
        // Stable sort keeps insertion order for equal starts.
        order.sort_by_key(|&i| (self.edits[i].0.start, self.edits[i].0.end));
        let mut out = String::with_capacity(source.len() + 64);
        let mut pos = 0usize;
        let mut prev: Option<&Range<usize>> = None;
        for i in order {
            let (range, text) = &self.edits[i];
            if range.start > range.end
                || range.end > source.len()
                || !source.is_char_boundary(range.start)
                || !source.is_char_boundary(range.end)
            {
                return Err(EditError::OutOfBounds(range.clone()));
            }
            if let Some(p) = prev {
                if range.start < pos || ranges_overlap(p, range) {
                    return Err(EditError::Overlap(p.clone(), range.clone()));
                }
            }
            out.push_str(&source[pos..range.start]);
            out.push_str(text);
            pos = range.end;
            prev = Some(range);
        }
        out.push_str(&source[pos..]);
        Ok(out)
    }
}

fn ranges_overlap(a: &Range<usize>, b: &Range<usize>) -> bool {
    if a.is_empty() && b.is_empty() {
        return false;
    }
    if a.is_empty() {
        return b.start < a.start && a.start < b.end;
    }
    if b.is_empty() {
        return a.start < b.start && b.start < a.end;
    }
    a.start < b.end && b.start < a.end
}

/// Replaces a random subset of `sites` (each node by its new text; each site chosen with
/// probability `p` through [`crate::Rng::sites`], so tests can force every site), skipping a
/// site that overlaps one already replaced.
pub fn replace_some(
    rng: &mut crate::Rng,
    sites: &[(tree_sitter::Node<'_>, String)],
    p: f64,
) -> Edits {
    let mut edits = Edits::new();
    for i in rng.sites(sites.len(), p) {
        let (node, text) = &sites[i];
        if !edits.overlaps(&node.byte_range()) {
            edits.replace(node.byte_range(), text.clone());
        }
    }
    edits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn applies_in_order_and_keeps_untouched_text() {
        let mut e = Edits::new();
        e.replace(6..11, "there");
        e.insert(0, ">> ");
        e.insert(11, "!");
        assert_eq!(e.apply("hello world").unwrap(), ">> hello there!");
    }

    #[test]
    fn rejects_overlap_and_out_of_bounds() {
        let mut e = Edits::new();
        e.replace(0..5, "a");
        e.replace(3..7, "b");
        assert!(matches!(
            e.apply("hello world"),
            Err(EditError::Overlap(..))
        ));
        let mut e = Edits::new();
        e.replace(3..99, "x");
        assert!(matches!(e.apply("hello"), Err(EditError::OutOfBounds(_))));
        let mut e = Edits::new();
        e.insert(2, "x");
        e.replace(0..5, "y");
        assert!(e.apply("hello").is_err());
    }
}
