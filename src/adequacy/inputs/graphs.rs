//! Edge lists: a tree stays a tree, and a graph that the task shows simple stays simple.
//!
//! Edited one value at a time, or resized by copying lines, a tree's edges get a cycle or
//! cut a vertex off, and a graph's get a self-loop (`2 2`) or a repeated edge. Problems rule
//! those out, and accepted solutions part there (one counts the loop, one recurses forever),
//! so a grown test on such an input is a false alarm on a solution growth never saw. Here a
//! tree's edges are rebuilt for its (possibly edited) vertex count, keeping the edits that
//! still fit, and a loop or repeat is redrawn between other vertices.

use super::{Index, Parsed, Place, Token};
use rand::seq::SliceRandom;
use rand::Rng;
use std::collections::{BTreeMap, BTreeSet};

/// A tree in one input: a vertex count `n` and, from line `first` on, its `n − 1` edges.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Tree {
    /// The line and token of the vertex count.
    line: usize,
    tok: usize,
    /// The first edge's line: the next line, or the one after when that holds `n` values (one
    /// per vertex).
    first: usize,
    /// The vertex count in the input the tree was found in.
    n: usize,
    /// Tokens on an edge's line (`u v`, `u v w`).
    width: usize,
    /// The smallest vertex: 0 or 1.
    base: i64,
}

impl Tree {
    /// The line and token of its vertex count.
    pub(super) fn at(&self) -> Place {
        (self.line, self.tok)
    }
}

/// The root of `x`'s set (path halving).
fn find(parent: &mut [usize], mut x: usize) -> usize {
    while let Some(&p) = parent.get(x) {
        if p == x {
            break;
        }
        let grand = parent.get(p).copied().unwrap_or(p);
        if let Some(slot) = parent.get_mut(x) {
            *slot = grand;
        }
        x = grand;
    }
    x
}

/// Joins the sets of `a` and `b`; false when they were one already.
fn union(parent: &mut [usize], a: usize, b: usize) -> bool {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra == rb {
        return false;
    }
    if let Some(slot) = parent.get_mut(ra) {
        *slot = rb;
    }
    true
}

/// The vertices (from 0) that `line` joins, when it starts with two integers within
/// `base..base + n`.
fn endpoints(line: &[Token], n: usize, base: i64) -> Option<(usize, usize)> {
    let vertex = |t: Option<&Token>| match t {
        Some(Token::Int(v)) => usize::try_from(v.checked_sub(base)?)
            .ok()
            .filter(|&i| i < n),
        _ => None,
    };
    Some((vertex(line.first())?, vertex(line.get(1))?))
}

/// Whether `edges` (lines of one width, two tokens or more) join `n` vertices from `base` into
/// a tree: `n − 1` of them, none closing a cycle.
fn is_tree(edges: &[Vec<Token>], n: usize, base: i64) -> bool {
    let width = edges.first().map_or(0, Vec::len);
    if width < 2 || edges.len() + 1 != n || edges.iter().any(|e| e.len() != width) {
        return false;
    }
    let mut parent: Vec<usize> = (0..n).collect();
    edges
        .iter()
        .all(|e| endpoints(e, n, base).is_some_and(|(a, b)| a != b && union(&mut parent, a, b)))
}

/// The trees of `p` (see [`Tree`]), in order. A count's line is the first line or one of
/// another width than the edges (a case's `n` over its edges), so that an edge is never read
/// as the count of a tree inside another.
pub(super) fn trees(p: &Parsed) -> Vec<Tree> {
    let mut out = Vec::new();
    let mut l = 0;
    while let Some(line) = p.lines.get(l) {
        match tree_at(p, l, line) {
            Some(t) => {
                l = t.first + t.n - 1;
                out.push(t);
            }
            None => l += 1,
        }
    }
    out
}

/// The tree whose count is on line `l` of `p`, if any.
fn tree_at(p: &Parsed, l: usize, line: &[Token]) -> Option<Tree> {
    // `n m` over `m` lines, `m` not `n − 1`: a graph whose first edges may span it.
    let after = p.lines.len().saturating_sub(l + 1);
    let counts_after = |tok: usize| {
        line.iter()
            .enumerate()
            .any(|(k, t)| k != tok && *t == Token::Int(after as i64))
    };
    for (tok, t) in line.iter().enumerate() {
        let Token::Int(n) = t else { continue };
        let Some(n) = usize::try_from(*n)
            .ok()
            .filter(|n| (2..=100_000).contains(n))
        else {
            continue;
        };
        if counts_after(tok) && after + 1 != n {
            continue;
        }
        for first in [l + 1, l + 2] {
            if first == l + 2 && p.lines.get(l + 1).map(Vec::len) != Some(n) {
                continue;
            }
            let Some(edges) = p.lines.get(first..first + n - 1) else {
                continue;
            };
            let width = edges.first().map_or(0, Vec::len);
            if l > 0 && width == line.len() {
                continue;
            }
            let Some(base) = [1, 0].into_iter().find(|&b| is_tree(edges, n, b)) else {
                continue;
            };
            // `n m` over the `m = n − 1` edges and nothing after them: a graph that happens to
            // be a tree here (a directed graph's sample without a cycle). A tree problem gives
            // `n` alone; an `n − 1` with lines after the edges is something else (`n q`).
            let last = first + n - 1 == p.lines.len();
            let counts_edges = line
                .iter()
                .enumerate()
                .any(|(k, t)| last && k != tok && *t == Token::Int(n as i64 - 1));
            if counts_edges {
                return None;
            }
            return Some(Tree {
                line: l,
                tok,
                first,
                n,
                width,
                base,
            });
        }
    }
    None
}

/// Whether every input holds a tree (see [`trees`]), one of them of three vertices or more.
pub(super) fn all_trees(inputs: &[Parsed]) -> bool {
    let found: Vec<Vec<Tree>> = inputs.iter().map(trees).collect();
    !found.is_empty()
        && found.iter().all(|t| !t.is_empty())
        && found.iter().flatten().any(|t| t.n >= 3)
}

/// Record lines whose first two integers index one value of the first line (see
/// [`Index`]) and that the task shows without loops, or without a repeated pair.
#[derive(Debug, Clone, Copy)]
struct Simple {
    no_loops: bool,
    no_repeats: bool,
}

/// What the task's edge lists show (see the module's doc).
#[derive(Debug, Clone, Default)]
pub(super) struct GraphRules {
    /// Every input holds a tree, one of them of three vertices or more.
    trees: bool,
    /// Per width of an edge line: what its lines never show.
    simple: BTreeMap<usize, Simple>,
}

impl GraphRules {
    /// The rules `inputs` show, where `indices` are their index columns. Lines of commands
    /// are left out (`1 1 5`: a code is no vertex).
    pub(super) fn of(
        inputs: &[Parsed],
        indices: &BTreeMap<(usize, usize), Index>,
        commands: bool,
    ) -> GraphRules {
        let trees = all_trees(inputs);
        // width → (lines, a loop seen, a repeat seen)
        let mut seen: BTreeMap<usize, (usize, bool, bool)> = BTreeMap::new();
        for p in inputs.iter().filter(|_| !commands) {
            let mut pairs: BTreeSet<(usize, i64, i64)> = BTreeSet::new();
            for line in p.lines.iter().skip(1) {
                let w = line.len();
                let same_place = matches!(
                    (indices.get(&(w, 0)), indices.get(&(w, 1))),
                    (Some(a), Some(b)) if a.place == b.place
                );
                let (true, Some(Token::Int(a)), Some(Token::Int(b))) =
                    (same_place, line.first(), line.get(1))
                else {
                    continue;
                };
                let e = seen.entry(w).or_default();
                e.0 += 1;
                e.1 |= a == b;
                e.2 |= !pairs.insert((w, *a.min(b), *a.max(b)));
            }
        }
        let simple = seen
            .into_iter()
            .filter(|(_, (lines, loops, repeats))| *lines >= 3 && !(*loops && *repeats))
            .map(|(w, (_, loops, repeats))| {
                let rule = Simple {
                    no_loops: !loops,
                    no_repeats: !repeats,
                };
                (w, rule)
            })
            .collect();
        GraphRules { trees, simple }
    }

    /// The trees of `base` that [`GraphRules::repair`] keeps trees (none where the task's
    /// inputs are not all trees).
    pub(super) fn trees_of(&self, base: &Parsed) -> Vec<Tree> {
        if self.trees {
            trees(base)
        } else {
            Vec::new()
        }
    }

    /// The places of the trees of `p` (where the task's inputs are trees): each vertex count
    /// (`None`) and each edge's ends, with the vertices they may name.
    pub(super) fn tree_places(&self, p: &Parsed) -> Vec<(Place, Option<(i64, i64)>)> {
        let mut out = Vec::new();
        for t in self.trees_of(p) {
            out.push((t.at(), None));
            let vertices = (t.base, t.base + t.n as i64 - 1);
            for l in t.first..t.first + t.n - 1 {
                out.push(((l, 0), Some(vertices)));
                out.push(((l, 1), Some(vertices)));
            }
        }
        out
    }

    /// Makes `p`, a mutation of an input holding `trees`, hold trees there again and keep
    /// its edge lines simple where the task's are. False when that cannot be (a count that is
    /// no longer a number, a graph too small for its edges): no input is made then. A tree
    /// has at most `cap` vertices, or its own count where that is larger.
    pub(super) fn repair(
        &self,
        p: &mut Parsed,
        trees: &[Tree],
        indices: &BTreeMap<(usize, usize), Index>,
        cap: usize,
        rng: &mut impl Rng,
    ) -> bool {
        // The last first: a rebuilt tree changes the lines after it, not those before.
        trees.iter().rev().all(|t| rebuild(p, t, cap, rng)) && self.keep_simple(p, indices, rng)
    }

    /// Redraws an edge that is a loop or repeats one above it, where the task shows none.
    fn keep_simple(
        &self,
        p: &mut Parsed,
        indices: &BTreeMap<(usize, usize), Index>,
        rng: &mut impl Rng,
    ) -> bool {
        if self.simple.is_empty() {
            return true;
        }
        let header = p.header();
        let mut pairs: BTreeSet<(usize, i64, i64)> = BTreeSet::new();
        for line in p.lines.iter_mut().skip(1) {
            let w = line.len();
            let Some(rule) = self.simple.get(&w) else {
                continue;
            };
            let bounds = |k: usize| {
                let ix = indices.get(&(w, k))?;
                ix.bounds(header.get(ix.place).copied().flatten()?)
            };
            let (Some((lo0, hi0)), Some((lo1, hi1))) = (bounds(0), bounds(1)) else {
                continue;
            };
            let bad = |a: i64, b: i64, pairs: &BTreeSet<(usize, i64, i64)>| {
                (rule.no_loops && a == b)
                    || (rule.no_repeats && pairs.contains(&(w, a.min(b), a.max(b))))
            };
            let (Some(Token::Int(a)), Some(Token::Int(b))) = (line.first(), line.get(1)) else {
                continue;
            };
            let (mut a, mut b) = (*a, *b);
            let mut tries = 0;
            while bad(a, b, &pairs) {
                tries += 1;
                if tries > 30 {
                    return false;
                }
                a = rng.random_range(lo0..=hi0);
                b = rng.random_range(lo1..=hi1);
            }
            if let Some(t) = line.get_mut(0) {
                *t = Token::Int(a);
            }
            if let Some(t) = line.get_mut(1) {
                *t = Token::Int(b);
            }
            pairs.insert((w, a.min(b), a.max(b)));
        }
        true
    }
}

/// Rebuilds tree `t` of `p` for the vertex count `p` now holds (within 2..=`cap`, or the
/// tree's own count where that is larger):
/// the edges that still join two parts are kept, and random ones join what is left.
fn rebuild(p: &mut Parsed, t: &Tree, cap: usize, rng: &mut impl Rng) -> bool {
    let token = |p: &Parsed, k: usize| match p.lines.get(t.line).and_then(|l| l.get(k)) {
        Some(Token::Int(v)) => Some(*v),
        _ => None,
    };
    let Some(n) = token(p, t.tok) else {
        return false;
    };
    // No larger than broad inputs make, unless the tree already was.
    let n = n.clamp(2, cap.max(t.n) as i64) as usize;
    // The edges' lines now: as many as the tree had.
    let count = t.n - 1;
    // A line of one value per vertex is resized with the count, or the input is no tree's.
    if t.first == t.line + 2 && p.lines.get(t.line + 1).map(Vec::len) != Some(n) {
        return false;
    }
    let end = (t.first + count).min(p.lines.len());
    let Some(old) = p.lines.get(t.first..end).map(<[Vec<Token>]>::to_vec) else {
        return false;
    };
    let old: Vec<Vec<Token>> = old.into_iter().filter(|e| e.len() == t.width).collect();
    let extras: Vec<Vec<Token>> = old
        .iter()
        .map(|e| e.get(2..).map(<[Token]>::to_vec).unwrap_or_default())
        .collect();
    if extras.is_empty() && t.width > 2 {
        return false;
    }
    let mut parent: Vec<usize> = (0..n).collect();
    let mut edges: Vec<Vec<Token>> = old
        .into_iter()
        .filter(|e| endpoints(e, n, t.base).is_some_and(|(a, b)| union(&mut parent, a, b)))
        .collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(rng);
    for i in 1..order.len() {
        let (Some(&v), Some(&u)) = (order.get(i), order.get(rng.random_range(0..i))) else {
            continue;
        };
        if !union(&mut parent, u, v) {
            continue;
        }
        let (a, b) = if rng.random_bool(0.5) { (u, v) } else { (v, u) };
        let mut e = vec![Token::Int(a as i64 + t.base), Token::Int(b as i64 + t.base)];
        if let Some(x) = extras.get(rng.random_range(0..extras.len().max(1))) {
            e.extend(x.iter().cloned());
        }
        edges.insert(rng.random_range(0..=edges.len()), e);
    }
    p.lines.splice(t.first..end, edges);
    if let Some(l) = p.lines.get_mut(t.line) {
        if let Some(tok) = l.get_mut(t.tok) {
            *tok = Token::Int(n as i64);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trees_are_found_with_their_counts() {
        let p = Parsed::of("5\n1 2\n1 3\n3 4\n3 5\n");
        let t = trees(&p);
        assert_eq!(t.len(), 1);
        assert_eq!((t[0].line, t[0].first, t[0].n, t[0].base), (0, 1, 5, 1));
        // `n m` over the edges only: a graph (its edges may close a cycle elsewhere); under
        // `n q` with queries after, a tree.
        assert!(trees(&Parsed::of("4 3\n0 1\n1 2\n1 3\n")).is_empty());
        let t = trees(&Parsed::of("4 3\n1 2\n1 3\n3 4\n2 4\n1 1\n4 4\n"));
        assert_eq!((t[0].n, t[0].base), (4, 1));
        // Values per vertex, then the edges; cases of trees.
        let t = trees(&Parsed::of("3\n5 1 7\n1 2\n2 3\n"));
        assert_eq!(t[0].first, 2);
        assert_eq!(trees(&Parsed::of("2\n3\n1 2\n1 3\n2\n2 1\n")).len(), 2);
        // A cycle, a loop, a vertex out of range: no tree.
        for text in ["4\n1 2\n2 3\n3 1\n", "3\n1 1\n2 3\n", "3\n1 2\n2 4\n"] {
            assert!(trees(&Parsed::of(text)).is_empty(), "{text}");
        }
    }

    #[test]
    fn a_graph_shown_simple_is_ruled_simple() {
        let parsed = [Parsed::of("4 4\n1 2\n2 3\n3 4\n1 4\n")];
        let indices = Parsed::index_columns(&parsed);
        let rules = GraphRules::of(&parsed, &indices, false);
        assert!(!rules.trees);
        let s = rules.simple.get(&2).copied();
        assert!(s.is_some_and(|s| s.no_loops && s.no_repeats), "{s:?}");
        // Lines of commands are no edges.
        assert!(GraphRules::of(&parsed, &indices, true).simple.is_empty());
    }
}
