//! A cost per `join` task known before it is counted: what ranks the
//! heaviest tasks of a plan without timing all of them.
//!
//! A task joins the east half boards of its row set with the west ones,
//! and each half is made of a north and a south quadrant. The cost taken
//! is the product of the four quadrants' placement counts (each quadrant
//! on its own, so attacks between quadrants are ignored): the pairs a
//! join would meet if nothing were pruned. Where a task fixes the east
//! queen beside the middle line, the east quadrant holding it counts only
//! its placements with that queen there, and the other east quadrant only
//! those that leave the queen's column free; an odd-N task that joins
//! once per place of the middle row's queen counts each join. The cost
//! ranks, it does not predict: at N = 28 it correlated 0.65 with the
//! times of 40 random tasks (`docs/methods.md`).

use super::geometry::Geometry;
use super::tasks::JoinTask;
use crate::search::method::ParallelMap;

/// Placement counts of every quadrant row set of one side: for each row set
/// R, how many placements leave the inner column (`side - 1`) empty, and
/// for each row j of R how many put R's queen of row j on it.
pub struct QuadrantCounts {
    side: u32,
    /// `side + 1` counts per row set: slots `0..side` by the row on the
    /// inner column, slot `side` with the inner column empty.
    counts: Vec<u64>,
}

impl QuadrantCounts {
    /// Counts every row set of a `side` square (side <= 16; 2^side row
    /// sets) on the calling thread: about two minutes at side 14, ten times
    /// less per side below.
    pub fn new(side: u32) -> QuadrantCounts {
        QuadrantCounts::counted_by(side, &|len, count| (0..len).map(count).collect())
    }

    /// [`QuadrantCounts::new`], the row sets counted by `map` (which lends
    /// the caller's threads: the engine's pool).
    pub(crate) fn counted_by(side: u32, map: ParallelMap<'_>) -> QuadrantCounts {
        assert!(side <= 16, "quadrant side {side} past 16");
        let slots = side as usize + 1;
        let flip = |rows: u32| rows.reverse_bits() >> (32 - side);
        // A row set and its north-south flip have the same placements,
        // flipped: half the row sets are enumerated, the rest copied.
        let enumerated = map(1 << side, &|rows| {
            let mut out = Vec::new();
            if rows as u32 <= flip(rows as u32) {
                out.resize(slots, 0);
                count_row_set(side, rows as u32, &mut out);
            }
            out
        });
        let mut counts = vec![0u64; slots << side];
        for (rows, out) in enumerated.into_iter().enumerate() {
            counts[rows * slots..][..out.len()].copy_from_slice(&out);
        }
        for rows in 0..1u32 << side {
            let flipped = flip(rows);
            if flipped < rows {
                let (from, to) = (flipped as usize * slots, rows as usize * slots);
                for row in 0..side as usize {
                    counts[to + side as usize - 1 - row] = counts[from + row];
                }
                counts[to + side as usize] = counts[from + side as usize];
            }
        }
        QuadrantCounts { side, counts }
    }

    fn slots(&self, rows: u32) -> &[u64] {
        let slots = self.side as usize + 1;
        &self.counts[rows as usize * slots..][..slots]
    }

    /// Placements with one queen on each row of `rows`.
    pub fn all(&self, rows: u32) -> u64 {
        self.slots(rows).iter().sum()
    }

    /// Placements of `rows` with the inner column empty.
    pub fn inner_free(&self, rows: u32) -> u64 {
        self.slots(rows)[self.side as usize]
    }

    /// Placements of `rows` whose queen of row `row` is on the inner column.
    pub fn inner_at(&self, rows: u32, row: u32) -> u64 {
        self.slots(rows)[row as usize]
    }
}

/// Fills `out` (`side + 1` slots) with the placements of `rows` by the row
/// on the inner column, or none (the last slot).
fn count_row_set(side: u32, rows: u32, out: &mut [u64]) {
    if rows == 0 {
        out[side as usize] = 1;
        return;
    }
    let inner = 1u32 << (side - 1);
    let full = (1u32 << side) - 1;
    // `left` and `right`: columns of the row `row` attacked along each
    // diagonal; `on_inner`: the row holding the inner column, or `side`.
    #[allow(clippy::too_many_arguments)]
    fn below(
        full: u32,
        inner: u32,
        rows_left: u32,
        row: u32,
        cols: u32,
        left: u32,
        right: u32,
        on_inner: u32,
        out: &mut [u64],
    ) {
        let next = rows_left.trailing_zeros();
        let gap = next - row;
        let left = left >> gap;
        let right = (right << gap) & full;
        let free = !(cols | left | right) & full;
        let rest = rows_left & (rows_left - 1);
        if rest == 0 {
            // The last row: count its squares instead of visiting them.
            if on_inner < out.len() as u32 - 1 {
                out[on_inner as usize] += u64::from(free.count_ones());
            } else {
                out[out.len() - 1] += u64::from((free & !inner).count_ones());
                out[next as usize] += u64::from(free & inner != 0);
            }
            return;
        }
        let mut open = free;
        while open != 0 {
            let bit = open & open.wrapping_neg();
            open &= open - 1;
            let holder = if bit == inner { next } else { on_inner };
            below(
                full,
                inner,
                rest,
                next,
                cols | bit,
                left | bit,
                right | bit,
                holder,
                out,
            );
        }
    }
    let first = rows.trailing_zeros();
    below(full, inner, rows, first, 0, 0, 0, side, out);
}

/// The cost of `task` on an `n` board from `quadrants` (of side N/2): the
/// product of its quadrants' placement counts, as a float (it passes u64
/// from N = 24).
pub fn task_cost(n: u32, quadrants: &QuadrantCounts, task: &JoinTask) -> f64 {
    let geo = Geometry::new(n);
    debug_assert_eq!(quadrants.side, geo.h, "quadrant counts of another side");
    let quadrant = (1u32 << geo.h) - 1;
    let split = |rows: u32| [rows & quadrant, (rows >> geo.lo) & quadrant];
    let west_rows = if n % 2 == 1 {
        // The middle row and the middle column's queen's row take no
        // quadrant's queen.
        let middle_column_row = (task.middle > 0).then(|| geo.h - task.middle);
        geo.half_rows() & !task.east_rows & !middle_column_row.map_or(0, |row| 1 << row)
    } else {
        geo.all_rows() & !task.east_rows
    };
    let west: f64 = split(west_rows)
        .iter()
        .map(|&rows| quadrants.all(rows) as f64)
        .product();
    let [north, south] = split(task.east_rows);
    let east = match (n % 2, task.east_beside()) {
        (0, Some(row)) if row < geo.h => {
            quadrants.inner_at(north, row) as f64 * quadrants.inner_free(south) as f64
        }
        (0, Some(row)) => {
            quadrants.inner_free(north) as f64 * quadrants.inner_at(south, row - geo.lo) as f64
        }
        _ => quadrants.all(north) as f64 * quadrants.all(south) as f64,
    };
    // An odd-N task whose middle column's queen stands b rows above the
    // centre joins its east boards once for each of the b - 1 places of
    // the middle row's queen (correlation with 3,000 random N = 21 tasks'
    // times 0.83 with this factor, 0.38 without).
    let joins = if n % 2 == 1 {
        task.middle.saturating_sub(1).max(1)
    } else {
        1
    };
    east * west * f64::from(joins)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::join::count_placements_on;

    /// The slow twin: every placement of `rows` on a `side` square, one
    /// queen per row, with where the inner column's queen stands.
    fn naive_slots(side: u32, rows: u32) -> Vec<u64> {
        let mut out = vec![0u64; side as usize + 1];
        let rows_list: Vec<u32> = (0..side).filter(|r| rows >> r & 1 == 1).collect();
        let mut cols = vec![0u32; rows_list.len()];
        fn place(side: u32, rows: &[u32], cols: &mut Vec<u32>, depth: usize, out: &mut Vec<u64>) {
            if depth == rows.len() {
                let slot = (0..rows.len())
                    .find(|&i| cols[i] == side - 1)
                    .map_or(side as usize, |i| rows[i] as usize);
                out[slot] += 1;
                return;
            }
            for col in 0..side {
                let clash = (0..depth)
                    .any(|i| cols[i] == col || rows[depth] - rows[i] == col.abs_diff(cols[i]));
                if !clash {
                    cols[depth] = col;
                    place(side, rows, cols, depth + 1, out);
                }
            }
        }
        place(side, &rows_list, &mut cols, 0, &mut out);
        out
    }

    #[test]
    fn quadrant_counts_match_a_naive_enumeration() {
        for side in 1..=7 {
            let counts = QuadrantCounts::new(side);
            for rows in 0..1u32 << side {
                assert_eq!(
                    counts.slots(rows),
                    naive_slots(side, rows),
                    "side {side}, rows {rows:b}"
                );
            }
        }
    }

    #[test]
    fn quadrant_totals_match_the_joins_own_placement_count() {
        let counts = QuadrantCounts::new(10);
        for rows in (0..1u32 << 10).step_by(7) {
            assert_eq!(counts.all(rows), count_placements_on(10, rows), "{rows:b}");
        }
    }

    #[test]
    fn the_east_queens_tasks_split_their_row_sets_cost() {
        // A row set's east pairs (north, south) are those with the inner
        // column empty, those with it taken once (the east queen's tasks,
        // one per row) and those with it taken twice (not boards): the
        // task costs must add up to the row set's across all three.
        let n = 14;
        let quadrants = QuadrantCounts::new(n / 2);
        let (h, quadrant) = (n / 2, (1u32 << (n / 2)) - 1);
        for east_rows in (0u32..1 << n).filter(|r| r.count_ones() == h).step_by(37) {
            let whole = task_cost(
                n,
                &quadrants,
                &JoinTask {
                    east_rows,
                    middle: 0,
                },
            );
            let by_queen: f64 = (0..n)
                .filter(|row| east_rows >> row & 1 == 1)
                .map(|row| {
                    task_cost(
                        n,
                        &quadrants,
                        &JoinTask {
                            east_rows,
                            middle: 1 + row,
                        },
                    )
                })
                .sum();
            let (north, south) = (east_rows & quadrant, east_rows >> h);
            let taken = |rows: u32| quadrants.all(rows) - quadrants.inner_free(rows);
            let pairs_left = (quadrants.inner_free(north) * quadrants.inner_free(south)
                + taken(north) * taken(south)) as f64;
            let west: f64 = [!east_rows & quadrant, (!east_rows >> h) & quadrant]
                .iter()
                .map(|&rows| quadrants.all(rows) as f64)
                .product();
            assert_eq!(whole, by_queen + pairs_left * west, "{east_rows:b}");
        }
    }
}
