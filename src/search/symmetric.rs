//! Solutions unchanged by a half turn (P) or a quarter turn (R), and the
//! unique count they give by Burnside's lemma.
//!
//! A symmetric solution is fixed by its top half (or quarter): queens are
//! placed a whole orbit at a time (pairs for the half turn, fours for the
//! quarter turn), so these searches are tiny next to the full count and can
//! run for every method. Unique = (total + P + 2R) / 8 for N >= 2, because
//! no solution for N >= 2 is unchanged by a reflection.

use super::board::full_mask;

/// Which rotation the solutions must be unchanged by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    /// 180 degrees.
    Half,
    /// 90 degrees (and so also 180 and 270).
    Quarter,
}

/// Occupied rows, columns and diagonals, all as absolute bit indices.
#[derive(Clone, Copy)]
struct Occupied {
    rows: u64,
    cols: u64,
    /// Diagonals r + c.
    sums: u64,
    /// Diagonals c - r + n - 1.
    diffs: u64,
}

/// Solutions of the `n` board unchanged by `turn`.
pub fn count_symmetric(n: u32, turn: Turn) -> u64 {
    count_symmetric_part(n, turn, 0, 1)
}

/// Orbits placed before the search is cut into parts: enough prefixes (a
/// few thousand at N = 28) to share among many shards, chosen by `n` alone
/// so that every shard and every merge cuts the same way.
fn part_depth(n: u32) -> u32 {
    match n {
        0..=11 => 0,
        12..=19 => 2,
        _ => 3,
    }
}

/// Part `part` of `parts` of [`count_symmetric`]: the search is cut after a
/// few orbits (as many for every `parts`, by `n` alone), and the `k`-th prefix (in search order) belongs to
/// part `k % parts`. The parts sum to the whole; a shard of a count
/// computes its own part, so a merge needs no search.
pub fn count_symmetric_part(n: u32, turn: Turn, part: u64, parts: u64) -> u64 {
    assert!(part < parts, "part {part} of {parts}");
    let empty = Occupied {
        rows: 0,
        cols: 0,
        sums: 0,
        diffs: 0,
    };
    let mut prefix = 0u64;
    descend_part(n, turn, empty, part_depth(n), &mut |occupied| {
        let mine = prefix % parts == part;
        prefix += 1;
        if mine {
            descend(n, turn, occupied)
        } else {
            0
        }
    })
}

/// Walks the search to `depth` more orbits and hands each prefix (or a
/// board finished sooner) to `visit`, summing what it returns.
fn descend_part(
    n: u32,
    turn: Turn,
    occupied: Occupied,
    depth: u32,
    visit: &mut dyn FnMut(Occupied) -> u64,
) -> u64 {
    let row = occupied.rows.trailing_ones();
    if depth == 0 || row >= n {
        return visit(occupied);
    }
    let mut candidates = full_mask(n)
        & !(occupied.cols | (occupied.sums >> row) | (occupied.diffs >> (n - 1 - row)));
    let mut total = 0;
    while candidates != 0 {
        let col = candidates.trailing_zeros();
        candidates &= candidates - 1;
        if let Some(next) = place_orbit(n, turn, occupied, row, col) {
            total += descend_part(n, turn, next, depth - 1, visit);
        }
    }
    total
}

fn descend(n: u32, turn: Turn, occupied: Occupied) -> u64 {
    // Orbits fill rows out of order: take the first row still empty.
    let row = occupied.rows.trailing_ones();
    if row >= n {
        return 1;
    }
    let mut candidates = full_mask(n)
        & !(occupied.cols | (occupied.sums >> row) | (occupied.diffs >> (n - 1 - row)));
    let mut total = 0;
    while candidates != 0 {
        let col = candidates.trailing_zeros();
        candidates &= candidates - 1;
        if let Some(next) = place_orbit(n, turn, occupied, row, col) {
            total += descend(n, turn, next);
        }
    }
    total
}

/// Places the queen (row, col) and its images under `turn`, or `None` if
/// any of them is attacked (by the board or by each other).
fn place_orbit(n: u32, turn: Turn, mut occupied: Occupied, row: u32, col: u32) -> Option<Occupied> {
    let last = n - 1;
    let (mut r, mut c) = (row, col);
    loop {
        let (row_bit, col_bit) = (1u64 << r, 1u64 << c);
        let sum_bit = 1u64 << (r + c);
        let diff_bit = 1u64 << (c + last - r);
        if occupied.rows & row_bit != 0
            || occupied.cols & col_bit != 0
            || occupied.sums & sum_bit != 0
            || occupied.diffs & diff_bit != 0
        {
            return None;
        }
        occupied.rows |= row_bit;
        occupied.cols |= col_bit;
        occupied.sums |= sum_bit;
        occupied.diffs |= diff_bit;
        (r, c) = match turn {
            Turn::Half => (last - r, last - c),
            Turn::Quarter => (c, last - r),
        };
        if (r, c) == (row, col) {
            return Some(occupied);
        }
    }
}

/// Solutions up to symmetry from the total, P and R (Burnside's lemma);
/// `None` if they are inconsistent (the sum is not a multiple of 8).
pub fn unique_by_burnside(
    n: u32,
    total: u128,
    half_turn: u128,
    quarter_turn: u128,
) -> Option<u128> {
    if n == 1 {
        // The lone queen is fixed by every symmetry, reflections included.
        return (total == 1).then_some(1);
    }
    let sum = total + half_turn + 2 * quarter_turn;
    sum.is_multiple_of(8).then_some(sum / 8)
}
