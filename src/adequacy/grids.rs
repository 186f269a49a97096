//! Character grids, as contest inputs write mazes and maps: two lines or more, each one word of
//! the same length (`S.#.` over `.##E`). A grid is edited as a grid: a row keeps the width of
//! the others, rows added or removed keep it too, and a character the grid holds exactly once
//! (a start `S`, an end `E`) stays exactly once: moved, never copied or lost.
//!
//! Edited as separate words, a grid gets rows of other widths and a second start, inputs that
//! break the problem's constraints, that the known solutions may still agree on and that then
//! reject a correct solution written another way.

use rand::Rng;
use std::collections::BTreeMap;

/// The characters `rows` hold exactly once, when some other character repeats (in a grid of
/// distinct characters nothing is a marker).
pub(super) fn markers(rows: &[String]) -> Vec<char> {
    let mut counts: BTreeMap<char, usize> = BTreeMap::new();
    for c in rows.iter().flat_map(|r| r.chars()) {
        *counts.entry(c).or_default() += 1;
    }
    if counts.values().all(|&n| n == 1) {
        return Vec::new();
    }
    counts
        .into_iter()
        .filter(|&(_, n)| n == 1)
        .map(|(c, _)| c)
        .collect()
}

/// The characters of `rows` that are not markers, commonest first.
fn fillers(rows: &[String], markers: &[char]) -> Vec<char> {
    let mut counts: BTreeMap<char, usize> = BTreeMap::new();
    for c in rows.iter().flat_map(|r| r.chars()) {
        if !markers.contains(&c) {
            *counts.entry(c).or_default() += 1;
        }
    }
    let mut out: Vec<(char, usize)> = counts.into_iter().collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    out.into_iter().map(|(c, _)| c).collect()
}

/// The cells of `rows` as (row, column) pairs whose character is not a marker.
fn plain_cells(grid: &[Vec<char>], markers: &[char]) -> Vec<(usize, usize)> {
    grid.iter()
        .enumerate()
        .flat_map(|(r, row)| {
            row.iter()
                .enumerate()
                .filter(|(_, c)| !markers.contains(c))
                .map(move |(k, _)| (r, k))
        })
        .collect()
}

fn to_cells(rows: &[String]) -> Vec<Vec<char>> {
    rows.iter().map(|r| r.chars().collect()).collect()
}

fn to_rows(grid: Vec<Vec<char>>) -> Vec<String> {
    grid.into_iter().map(|r| r.into_iter().collect()).collect()
}

/// Puts back each of `markers` that `grid` lost, on a random plain cell (none left: as is).
fn restore(grid: &mut [Vec<char>], markers: &[char], rng: &mut impl Rng) {
    for &m in markers {
        if grid.iter().flatten().any(|&c| c == m) {
            continue;
        }
        let cells = plain_cells(grid, markers);
        if cells.is_empty() {
            return;
        }
        let (r, k) = cells[rng.random_range(0..cells.len())];
        if let Some(cell) = grid.get_mut(r).and_then(|row| row.get_mut(k)) {
            *cell = m;
        }
    }
}

/// `rows` with one cell changed to another of the grid's plain characters, or a marker moved to
/// a plain cell (the cell it leaves gets that cell's character).
pub(super) fn edit_cell(rows: &[String], rng: &mut impl Rng) -> Vec<String> {
    let markers = markers(rows);
    let fill = fillers(rows, &markers);
    let mut grid = to_cells(rows);
    let cells = plain_cells(&grid, &markers);
    if cells.is_empty() {
        return rows.to_vec();
    }
    let (r, k) = cells[rng.random_range(0..cells.len())];
    if !markers.is_empty() && (fill.len() < 2 || rng.random_bool(0.3)) {
        let m = markers[rng.random_range(0..markers.len())];
        let Some((mr, mk)) = grid
            .iter()
            .enumerate()
            .find_map(|(i, row)| row.iter().position(|&c| c == m).map(|j| (i, j)))
        else {
            return rows.to_vec();
        };
        let plain = grid.get(r).and_then(|row| row.get(k)).copied();
        if let (Some(plain), Some(cell)) = (plain, grid.get_mut(mr).and_then(|x| x.get_mut(mk))) {
            *cell = plain;
        }
        if let Some(cell) = grid.get_mut(r).and_then(|x| x.get_mut(k)) {
            *cell = m;
        }
    } else if fill.len() >= 2 {
        let old = grid.get(r).and_then(|row| row.get(k)).copied();
        let others: Vec<char> = fill.iter().copied().filter(|&c| Some(c) != old).collect();
        if let Some(cell) = grid.get_mut(r).and_then(|x| x.get_mut(k)) {
            *cell = others[rng.random_range(0..others.len())];
        }
    }
    to_rows(grid)
}

/// `rows` cut or extended to `n` rows: a new row is a copy of a random row with its markers
/// replaced by the commonest plain character; a marker a cut removed is put back.
pub(super) fn resize_rows(rows: &[String], n: usize, rng: &mut impl Rng) -> Vec<String> {
    let markers = markers(rows);
    let filler = fillers(rows, &markers).first().copied();
    let mut grid = to_cells(rows);
    if grid.is_empty() || n == 0 {
        return rows.to_vec();
    }
    grid.truncate(n);
    while grid.len() < n {
        let copy: Vec<char> = grid[rng.random_range(0..grid.len())]
            .iter()
            .map(|&c| match filler {
                Some(f) if markers.contains(&c) => f,
                _ => c,
            })
            .collect();
        grid.push(copy);
    }
    restore(&mut grid, &markers, rng);
    to_rows(grid)
}

/// `rows` each cut or extended to `width` characters (extended with characters of its own
/// plain cells, or the commonest plain one); a marker a cut removed is put back.
pub(super) fn resize_width(rows: &[String], width: usize, rng: &mut impl Rng) -> Vec<String> {
    let markers = markers(rows);
    let fill = fillers(rows, &markers);
    if width == 0 || fill.is_empty() {
        return rows.to_vec();
    }
    let mut grid = to_cells(rows);
    for row in &mut grid {
        row.truncate(width);
        while row.len() < width {
            row.push(fill[rng.random_range(0..fill.len())]);
        }
    }
    restore(&mut grid, &markers, rng);
    to_rows(grid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn rows(s: &str) -> Vec<String> {
        s.lines().map(str::to_string).collect()
    }

    fn count(rows: &[String], c: char) -> usize {
        rows.iter()
            .flat_map(|r| r.chars())
            .filter(|&x| x == c)
            .count()
    }

    #[test]
    fn markers_are_characters_held_once_among_repeated_ones() {
        assert_eq!(markers(&rows("S.#.\n.##E")), ['E', 'S']);
        assert!(markers(&rows("ab\ncd")).is_empty());
    }

    #[test]
    fn edits_and_resizes_keep_the_width_and_one_of_each_marker() {
        let g = rows("S.#.\n.##E\n....");
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut moved = false;
        for i in 0..300 {
            let new = match i % 3 {
                0 => edit_cell(&g, &mut rng),
                1 => resize_rows(&g, 1 + i % 6, &mut rng),
                _ => resize_width(&g, 1 + i % 7, &mut rng),
            };
            let width = new[0].chars().count();
            assert!(new.iter().all(|r| r.chars().count() == width), "{new:?}");
            if new.len() * width >= 2 {
                assert_eq!((count(&new, 'S'), count(&new, 'E')), (1, 1), "{new:?}");
            }
            moved |= i % 3 == 0 && !new[0].starts_with('S');
        }
        assert!(moved, "markers move");
    }
}
