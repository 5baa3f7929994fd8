//! How many solutions extend a prefix (queens fixed on the top rows), for
//! every column of the next row's queen at once, counted by joining half
//! boards instead of searching the subtrees: what [`nth_solution`] needs
//! to skip whole subtrees at the top of the tree, where they are largest.
//!
//! Let h = N/2; columns 0..h are the east half, h..N the west. In a
//! solution the rows whose queen stands in the east form a set R of h
//! rows, and the two halves can only clash on the diagonals that cross
//! the middle; so for each R the solutions are the pairs (east half board
//! on R, west half board on the other rows) whose crossing diagonals, one
//! u64 key each, are disjoint. Unlike the `join` counting method this one
//! uses no symmetry (the symmetries move the prefix), so every pair is
//! one solution and a pair's next-row queen is read off the half that
//! holds that row: that half's boards are sorted by it and each group is
//! summed against the other half's boards on its own.
//!
//! Why a join of its own beside the method's: it shares the method's
//! matcher ([`SplitMatcher`], its cuts and leaves) but none of its tasks,
//! quadrant cells or symmetry weights, which all assume an empty top row;
//! and it keeps no task list or cells, so it reaches N = 32
//! ([`MAX_FINDER_N`]) where the counting method stops at 28 for memory.
//!
//! [`nth_solution`]: super::solutions::nth_solution

use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use crate::search::disjoint::{
    choose_cuts, count_disjoint_naive, SplitMatcher, LEAF_MIN, MAX_CUTS,
};

/// Largest N: a half board's crossing diagonals, 2N - 2 bits, fit a key.
const MAX_FINDER_N: u32 = 32;

/// Pairs below which a row set's halves are paired one by one: setting up
/// the split matcher costs more than it saves.
const NAIVE_PAIRS: usize = 1 << 12;

/// For each column c of row `prefix.len()` in `wanted`, the solutions of the
/// `n` board that begin with the queens `prefix` (one column per row) and
/// have the next row's queen on c; 0 for the other columns. The prefix
/// must not attack itself (the caller's boards never do), and it must
/// leave a row free. Row sets are shared among the threads of `pool`;
/// `on_share` hears the share of them joined so far, from any of them.
pub(crate) fn next_row_counts(
    pool: &rayon::ThreadPool,
    n: u32,
    prefix: &[u32],
    wanted: u64,
    on_share: &(dyn Fn(f64) + Sync),
) -> Vec<u128> {
    assert!(
        (4..=MAX_FINDER_N).contains(&n),
        "board size out of the finder's range"
    );
    assert!(prefix.len() < n as usize, "the prefix leaves no row free");
    let h = n / 2;
    let east_cols = (1u64 << h) - 1;
    let all_cols = (1u64 << n) - 1;
    let next = prefix.len() as u32;
    // Rows every R holds and rows no R holds.
    let (mut east_rows, mut west_rows) = (0u64, 0u64);
    for (row, &column) in prefix.iter().enumerate() {
        if column < h {
            east_rows |= 1 << row;
        } else {
            west_rows |= 1 << row;
        }
    }
    let wanted = wanted & all_cols;
    // The next row in the east needs an east column wanted, and in the west
    // a west one.
    let sets: Vec<u64> = row_sets(n, h)
        .filter(|&set| set & east_rows == east_rows && set & west_rows == 0)
        .filter(|&set| {
            let next_side = if set >> next & 1 == 1 {
                east_cols
            } else {
                !east_cols
            };
            wanted & next_side != 0
        })
        .collect();
    let side = Sides::new(n, prefix, wanted);
    let joined = AtomicUsize::new(0);
    let totals = pool.install(|| {
        sets.par_chunks(16)
            .map_init(Pairing::default, |pairing, chunk| {
                let mut counts = [0u64; MAX_FINDER_N as usize];
                for &set in chunk {
                    pairing.count_row_set(&side, set, &mut counts);
                }
                let done = joined.fetch_add(chunk.len(), Ordering::Relaxed) + chunk.len();
                on_share(done as f64 / sets.len() as f64);
                // A chunk's counts fit u64 (each row set's share of the
                // board's total); the sums of all chunks may not past N = 27.
                counts.map(u128::from)
            })
            .reduce(
                || [0u128; MAX_FINDER_N as usize],
                |mut a, b| {
                    for (a, b) in a.iter_mut().zip(b) {
                        *a += b;
                    }
                    a
                },
            )
    });
    totals[..n as usize].to_vec()
}

/// Every set of `h` of the `n` rows, as bits (Gosper's next combination).
fn row_sets(n: u32, h: u32) -> impl Iterator<Item = u64> {
    let end = 1u64 << n;
    let first = (1u64 << h) - 1;
    std::iter::successors(Some(first), move |&set| {
        if set == 0 {
            return None;
        }
        let low = set & set.wrapping_neg();
        let ripple = set + low;
        let next = (((ripple ^ set) >> 2) / low) | ripple;
        (next < end).then_some(next)
    })
}

/// What the half boards of every row set share: the board, the prefix and
/// the columns wanted of the next row.
struct Sides {
    n: u32,
    h: u32,
    /// Per row, the columns its queen may take: the prefix's own column,
    /// the wanted columns for the next row, every column below.
    allowed: Vec<u64>,
    /// The prefix's queens in the east and in the west, as (diagonal bits,
    /// antidiagonal bits): a half's boards must leave the other half's
    /// fixed queens alone.
    east_fixed: (u64, u64),
    west_fixed: (u64, u64),
    next: u32,
}

impl Sides {
    fn new(n: u32, prefix: &[u32], wanted: u64) -> Sides {
        let h = n / 2;
        let all_cols = (1u64 << n) - 1;
        let mut allowed = vec![all_cols; n as usize];
        let (mut east_fixed, mut west_fixed) = ((0, 0), (0, 0));
        for (row, &column) in prefix.iter().enumerate() {
            allowed[row] = 1 << column;
            let fixed = if column < h {
                &mut east_fixed
            } else {
                &mut west_fixed
            };
            fixed.0 |= 1 << (row as u32 + column);
            fixed.1 |= 1 << (column + n - 1 - row as u32);
        }
        allowed[prefix.len()] = wanted;
        Sides {
            n,
            h,
            allowed,
            east_fixed,
            west_fixed,
            next: prefix.len() as u32,
        }
    }
}

/// One half of a row set: its rows in order and its columns, the other
/// half's fixed queens to avoid, and where the next row is among its rows.
struct Half<'a> {
    sides: &'a Sides,
    rows: Vec<u32>,
    cols: u64,
    avoid: (u64, u64),
    next_at: Option<usize>,
}

/// Queens on some of a half's rows: the columns and diagonals they take,
/// and the next row's column if they hold it.
#[derive(Clone, Copy, Default)]
struct Placed {
    cols: u64,
    diag: u64,
    anti: u64,
    group: u8,
}

/// A thread's placements of quarter boards (the queens on some rows of a
/// half), by their rows and columns, each list sorted by the columns it
/// takes: consecutive row sets share most of their quarters.
#[derive(Default)]
struct Quarters {
    made: std::collections::HashMap<(u64, u64), Vec<Placed>>,
    placements: usize,
}

/// Placements a thread keeps made (32 bytes each): past it the cache
/// starts again.
const QUARTER_PLACEMENTS: usize = 1 << 20;

impl Half<'_> {
    /// Appends a key for each board of this half and, when the half holds
    /// the next row, that row's column to `groups`. A board is glued from
    /// a placement on the upper half of its rows and one on the lower
    /// half with the other columns, both kept for the next row sets (a
    /// search of the whole half, row by row, took 8 times as long at
    /// N = 16).
    fn boards(&self, quarters: &mut Quarters, keys: &mut Vec<u64>, groups: &mut Vec<u8>) {
        keys.clear();
        groups.clear();
        let Sides { n, h, .. } = *self.sides;
        let middle = self.rows.len() / 2;
        let rows_mask = |rows: &[u32]| rows.iter().fold(0u64, |mask, &row| mask | 1 << row);
        let upper_key = (rows_mask(&self.rows[..middle]), self.cols);
        let lower_key = (rows_mask(&self.rows[middle..]), self.cols);
        if quarters.placements > QUARTER_PLACEMENTS {
            quarters.made.clear();
            quarters.placements = 0;
        }
        for (key, range) in [(upper_key, 0..middle), (lower_key, middle..self.rows.len())] {
            if !quarters.made.contains_key(&key) {
                let mut placed = Vec::new();
                self.place(range.start, range.end, Placed::default(), &mut placed);
                placed.sort_unstable_by_key(|placed| placed.cols);
                quarters.placements += placed.len();
                quarters.made.insert(key, placed);
            }
        }
        let (upper, lower) = (&quarters.made[&upper_key], &quarters.made[&lower_key]);
        // The crossing diagonals are bits h..n+h-1 of both kinds.
        let crossing = (1u64 << (n - 1)) - 1;
        // Both lists are sorted by columns, and the lower columns an upper
        // placement needs (the half's others: all less its own) fall as
        // its own rise, so one pass down the lower list meets them all.
        let (mut begin, mut end) = (lower.len(), lower.len());
        let mut last_wanted = None;
        for top in upper {
            let wanted = self.cols ^ top.cols;
            if last_wanted != Some(wanted) {
                last_wanted = Some(wanted);
                end = begin;
                while end > 0 && lower[end - 1].cols > wanted {
                    end -= 1;
                }
                begin = end;
                while begin > 0 && lower[begin - 1].cols == wanted {
                    begin -= 1;
                }
            }
            // Every pair written, the ones that attack overwritten: no
            // branch to mispredict (most pairs with the right columns
            // share a diagonal).
            let mut written = keys.len();
            keys.resize(written + (end - begin), 0);
            groups.resize(written + (end - begin), 0);
            for bottom in &lower[begin..end] {
                let (diag, anti) = (top.diag | bottom.diag, top.anti | bottom.anti);
                keys[written] = (diag >> h & crossing) | (anti >> h & crossing) << (n - 1);
                groups[written] = top.group | bottom.group;
                let apart = (top.diag & bottom.diag) | (top.anti & bottom.anti) == 0;
                written += usize::from(apart);
            }
            keys.truncate(written);
            groups.truncate(written);
        }
    }

    /// Appends every placement of queens on rows `at..end` of this half
    /// that extends `placed` to `out`.
    fn place(&self, at: usize, end: usize, placed: Placed, out: &mut Vec<Placed>) {
        let n = self.sides.n;
        if at == end {
            out.push(placed);
            return;
        }
        let row = self.rows[at];
        let diag = placed.diag | self.avoid.0;
        let anti = placed.anti | self.avoid.1;
        let attacked = diag >> row | anti >> (n - 1 - row);
        let mut open = self.cols & !placed.cols & !attacked & self.sides.allowed[row as usize];
        while open != 0 {
            let bit = open & open.wrapping_neg();
            open ^= bit;
            let column = bit.trailing_zeros();
            let next = Placed {
                cols: placed.cols | bit,
                diag: placed.diag | 1 << (row + column),
                anti: placed.anti | 1 << (column + n - 1 - row),
                group: if self.next_at == Some(at) {
                    column as u8
                } else {
                    placed.group
                },
            };
            self.place(at + 1, end, next, out);
        }
    }
}

/// A thread's buffers for pairing the halves of row sets.
#[derive(Default)]
struct Pairing {
    matcher: SplitMatcher,
    stored: Vec<u64>,
    keys: Vec<u64>,
    groups: Vec<u8>,
    sorted: Vec<u64>,
    spill: Vec<u8>,
    quarters: Quarters,
}

impl Pairing {
    /// Adds the solutions on the row set `set` (the east rows), by the
    /// next row's column, to `counts`.
    fn count_row_set(&mut self, sides: &Sides, set: u64, counts: &mut [u64]) {
        let n = sides.n;
        let all_cols = (1u64 << n) - 1;
        let east_cols = (1u64 << sides.h) - 1;
        let rows_of = |bits: u64| -> Vec<u32> { (0..n).filter(|&r| bits >> r & 1 == 1).collect() };
        let east = Half {
            sides,
            rows: rows_of(set),
            cols: east_cols,
            avoid: sides.west_fixed,
            next_at: None,
        };
        let west = Half {
            sides,
            rows: rows_of(all_cols & !set),
            cols: all_cols & !east_cols,
            avoid: sides.east_fixed,
            next_at: None,
        };
        // The half holding the next row is grouped by its column and
        // queries the other, stored.
        let (mut grouped, stored) = if set >> sides.next & 1 == 1 {
            (east, west)
        } else {
            (west, east)
        };
        grouped.next_at = grouped.rows.iter().position(|&r| r == sides.next);
        stored.boards(&mut self.quarters, &mut self.stored, &mut self.spill);
        if self.stored.is_empty() {
            return;
        }
        grouped.boards(&mut self.quarters, &mut self.keys, &mut self.groups);
        if self.keys.is_empty() {
            return;
        }
        // The grouped keys sorted by group (a counting sort).
        let mut starts = [0usize; MAX_FINDER_N as usize + 1];
        for &g in &self.groups {
            starts[g as usize + 1] += 1;
        }
        for g in 0..n as usize {
            starts[g + 1] += starts[g];
        }
        let mut fill = starts;
        self.sorted.clear();
        self.sorted.resize(self.keys.len(), 0);
        for (&key, &g) in self.keys.iter().zip(&self.groups) {
            self.sorted[fill[g as usize]] = key;
            fill[g as usize] += 1;
        }
        let naive = self.stored.len() * self.sorted.len() < NAIVE_PAIRS;
        if !naive {
            let cuts = choose_cuts(&self.stored, &self.sorted, MAX_CUTS);
            self.matcher.load(&self.stored, &cuts, LEAF_MIN, u64::MAX);
        }
        for g in 0..n as usize {
            let queries = &self.sorted[starts[g]..starts[g + 1]];
            if queries.is_empty() {
                continue;
            }
            let pairs = if naive {
                None
            } else {
                self.matcher.sum_disjoint(queries, 0).ok()
            };
            counts[g] += pairs.unwrap_or_else(|| {
                queries
                    .iter()
                    .map(|&query| count_disjoint_naive(&self.stored, query))
                    .sum()
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::board::Board;
    use crate::search::kernel::count_completions;

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
    }

    /// The tree's count below each column of the next row.
    fn tree_counts(n: u32, prefix: &[u32], wanted: u64) -> Vec<u128> {
        let mut board = Board::EMPTY;
        for &column in prefix {
            board = board.place(1 << column);
        }
        let free = board.free(n);
        (0..n)
            .map(|c| {
                if (free & wanted) >> c & 1 == 1 {
                    u128::from(count_completions(n, board.place(1 << c)).solutions)
                } else {
                    0
                }
            })
            .collect()
    }

    #[test]
    fn row_sets_are_every_combination_once() {
        for (n, h) in [(4u32, 2u32), (9, 4), (12, 6)] {
            let sets: Vec<u64> = row_sets(n, h).collect();
            let expected = (0..1u64 << n).filter(|s| s.count_ones() == h).count();
            assert_eq!(sets.len(), expected, "N = {n}");
            assert!(sets.windows(2).all(|w| w[0] < w[1]));
            assert!(sets.iter().all(|s| s.count_ones() == h && *s < 1 << n));
        }
    }

    #[test]
    fn every_prefix_of_small_boards_counts_as_the_tree() {
        // Every valid prefix of up to 3 rows (N = 4..9) and a spread of
        // them (N = 10..12), all columns wanted, on one and two threads.
        let pools = [pool(1), pool(2)];
        for n in 4u32..=12 {
            let prefixes: Vec<Vec<u32>> = (0..=3.min(n as usize - 1))
                .flat_map(|rows| super::super::solutions::prefixes(n, rows))
                .collect();
            let stride = if n <= 9 { 1 } else { 7 };
            for (i, prefix) in prefixes.iter().enumerate().step_by(stride) {
                let all = (1u64 << n) - 1;
                let joined = next_row_counts(&pools[i % 2], n, prefix, all, &|_| {});
                assert_eq!(
                    joined,
                    tree_counts(n, prefix, all),
                    "N = {n}, prefix {prefix:?}"
                );
            }
        }
    }

    #[test]
    fn unwanted_columns_count_nothing_and_the_rest_as_the_tree() {
        let pool = pool(2);
        for n in [8u32, 11, 13] {
            for (prefix, wanted) in [
                (vec![], 0b1u64),
                (vec![], (1 << n.div_ceil(2)) - 1),
                (vec![1], 0b1010_1010),
                (vec![n - 1, 2], !0b111),
                (vec![0, 2, 4], 0),
            ] {
                let joined = next_row_counts(&pool, n, &prefix, wanted, &|_| {});
                assert_eq!(
                    joined,
                    tree_counts(n, &prefix, wanted),
                    "N = {n}, {prefix:?}"
                );
            }
        }
        // A mutation check of the test itself: the columns differ.
        let all = next_row_counts(&pool, 8, &[], 0xff, &|_| {});
        assert_ne!(all, next_row_counts(&pool, 8, &[], 0x0f, &|_| {}));
        assert_eq!(all.iter().sum::<u128>(), 92);
    }
}
