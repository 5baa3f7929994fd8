//! A join task counted another way: queen by queen, depth first, over
//! whole boards.
//!
//! Where no published count exists (N >= 28), a task's count is trusted
//! when a different code path gives the same number. This one shares
//! nothing with the join's machinery (cells, glue, keys, split, matcher):
//! it places one queen per row with bitmasks, each row restricted to the
//! half the task gives it and the squares the task fixes, and weights each
//! whole board by the same symmetry rule. The rules themselves are checked
//! by the published tables, through whole counts.
//!
//! Rows taken top to bottom ([`count_task_row_order`], the naive twin)
//! spend about 1,500 nodes per board: a row held to half the columns meets
//! its dead ends many rows late. [`count_task_by_rows`] places the most
//! constrained queen first (the row with the fewest free squares, or the
//! only row left that can fill some column) and stops as soon as a row has
//! no square or a column no row, which cuts the nodes about 70-fold and
//! the time 4- to 20-fold at N = 20..22.

use super::geometry::{centre_weight, even_weights, Geometry};
use super::JoinTask;

/// The weighted solutions of `task` of an `n` board, counted queen by
/// queen, the most constrained first. Equals [`super::count_task`]'s
/// `solutions`; slower (a search of the task's boards, not a join of
/// halves: 5 to 95 times the join's time at N = 24..28).
pub fn count_task_by_rows(n: u32, task: &JoinTask) -> u64 {
    let mut search = BoardSearch::of(n, task);
    search.place_constrained(((1u64 << n) - 1) as u32, 0, 0, 0, 0);
    search.total
}

/// The same count with the rows taken top to bottom: the naive twin of
/// [`count_task_by_rows`] (many times slower).
pub fn count_task_row_order(n: u32, task: &JoinTask) -> u64 {
    let mut search = BoardSearch::of(n, task);
    search.place_in_row_order(0, 0, 0, 0, 0);
    search.total
}

/// What a task allows on each row, and how its whole boards weigh.
struct RowBounds {
    /// Columns open to the queen of each row.
    open: [u64; 32],
    /// Per row, the squares whose queen counts towards the board's class
    /// (even N: west squares on a long diagonal).
    west_long: [u64; 32],
    /// Weight of a board by its class (index: its queens on `west_long`).
    weights: [u64; 3],
}

impl RowBounds {
    fn of(geo: &Geometry, task: &JoinTask) -> RowBounds {
        let (n, h) = (geo.n, geo.h);
        let east = (1u64 << h) - 1;
        let west = ((1u64 << n) - 1) & !((1u64 << (n - h)) - 1);
        let mut open = [0u64; 32];
        let mut west_long = [0u64; 32];
        let weights;
        if n.is_multiple_of(2) {
            for row in 0..n {
                let long = (1u64 << row) | (1u64 << (n - 1 - row));
                if task.east_rows & (1 << row) != 0 {
                    // East boards keep both long diagonals free.
                    open[row as usize] = east & !long;
                } else {
                    open[row as usize] = west;
                    west_long[row as usize] = west & long;
                }
            }
            // The queens beside the middle line the task fixes stand on
            // their rows; no other queen takes their columns.
            let fixed = [(task.east_beside(), h - 1), (task.west_beside(), h)];
            for (row, column) in fixed {
                if let Some(row) = row {
                    let beside = 1u64 << column;
                    for columns in &mut open {
                        *columns &= !beside;
                    }
                    open[row as usize] = beside;
                }
            }
            weights = even_weights(task.east_rows, n);
        } else {
            let open_rows = geo.half_rows();
            let middle_column = 1u64 << h;
            let (west_rows, middle_row_open, weight) = if task.middle == 0 {
                // One queen on the centre.
                let weight = centre_weight(task.east_rows, open_rows, n);
                (open_rows & !task.east_rows, middle_column, weight)
            } else {
                // The middle column's queen b above the centre, the middle
                // row's at a nearer place a on the east arm.
                let b = task.middle;
                let column_queen_row = h - b;
                open[column_queen_row as usize] = middle_column;
                let arm = (1u64 << h) - (1u64 << (h - b + 1));
                let west_rows = open_rows & !(1 << column_queen_row) & !task.east_rows;
                (west_rows, arm, 8)
            };
            for row in 0..n {
                if task.east_rows & (1 << row) != 0 {
                    open[row as usize] = east;
                } else if west_rows & (1 << row) != 0 {
                    open[row as usize] = west;
                }
            }
            open[h as usize] = middle_row_open;
            weights = [weight, 0, 0];
        }
        RowBounds {
            open,
            west_long,
            weights,
        }
    }
}

/// A search of one task's boards, in either order, and its count.
struct BoardSearch {
    n: u32,
    open: [u64; 32],
    west_long: [u64; 32],
    weights: [u64; 3],
    total: u64,
}

impl BoardSearch {
    fn of(n: u32, task: &JoinTask) -> BoardSearch {
        let rows = RowBounds::of(&Geometry::new(n), task);
        BoardSearch {
            n,
            open: rows.open,
            west_long: rows.west_long,
            weights: rows.weights,
            total: 0,
        }
    }

    /// Rows top to bottom: places the queen of `row` on every open square not attacked
    /// (`cols`, and the diagonals `left` and `right` shifted to this row),
    /// `class` queens on class squares so far.
    fn place_in_row_order(&mut self, row: u32, cols: u64, left: u64, right: u64, class: usize) {
        if row == self.n {
            self.total += self.weights[class];
            return;
        }
        let r = row as usize;
        let mut free = self.open[r] & !(cols | left | right);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            let class = class + usize::from(self.west_long[r] & bit != 0);
            self.place_in_row_order(
                row + 1,
                cols | bit,
                (left | bit) << 1,
                (right | bit) >> 1,
                class,
            );
        }
    }

    /// Most constrained first: with the queens of the rows not in `rows` placed (their columns
    /// `cols`, their diagonals `sums` by index row + column and `differences`
    /// by column - row + N-1, `class` of them on class squares), counts
    /// every way to place the rest.
    fn place_constrained(
        &mut self,
        rows: u32,
        cols: u64,
        sums: u64,
        differences: u64,
        class: usize,
    ) {
        let n = self.n;
        let (mut best_row, mut best_count, mut best_free) = (0u32, u32::MAX, 0u64);
        // Columns some unplaced row can take, and those two or more can.
        let (mut reach, mut twice) = (0u64, 0u64);
        let open = &self.open;
        let free_of = |row: u32| {
            open[row as usize] & !cols & !(sums >> row) & !(differences >> (n - 1 - row))
        };
        let mut left = rows;
        while left != 0 {
            let row = left.trailing_zeros();
            left &= left - 1;
            let free = free_of(row);
            let count = free.count_ones();
            if count == 0 {
                return;
            }
            twice |= reach & free;
            reach |= free;
            if count < best_count {
                (best_row, best_count, best_free) = (row, count, free);
            }
        }
        if rows & (rows - 1) == 0 {
            // One row left: each free square is a board.
            let free = best_free;
            let long = self.west_long[best_row as usize];
            self.total += self.weights[class] * u64::from((free & !long).count_ones());
            if free & long != 0 {
                self.total += self.weights[class + 1] * u64::from((free & long).count_ones());
            }
            return;
        }
        let all = (1u64 << n) - 1;
        if reach | cols != all {
            // A column no unplaced row can fill.
            return;
        }
        let mut free = best_free;
        let only = reach & !twice;
        if best_count > 1 && only != 0 {
            // A column one row alone can fill: that row's queen goes there.
            let column = only & only.wrapping_neg();
            best_row = (0..n)
                .find(|&row| rows & (1 << row) != 0 && free_of(row) & column != 0)
                .expect("the column is some unplaced row's");
            free = column;
        }
        let row = best_row;
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            let column = bit.trailing_zeros();
            let class = class + usize::from(self.west_long[row as usize] & bit != 0);
            self.place_constrained(
                rows & !(1 << row),
                cols | bit,
                sums | (1u64 << (row + column)),
                differences | (1u64 << (column + n - 1 - row)),
                class,
            );
        }
    }
}
