//! The `d4` search: one image of each solution under the 8 symmetries of the
//! square, weighted by the size of its orbit.
//!
//! Every solution for N >= 2 has one queen on each edge; the representative
//! searched is an image whose top-row queen is the edge queen nearest a
//! corner, on the left half of the top row (distance k from the corner).
//! That is enforced while searching, by the per-row bounds of
//! [`Shape::allowed_columns`]: side columns closed in the first and last k rows, the
//! bottom row limited to columns k..N-1-k. A corner queen (k = 0) is its own
//! case, settled by a bound in the plan (weight 8).
//!
//! Reflections never tie with such a board (two of its queens would attack
//! each other), but rotations can: a board may hold another edge queen at
//! distance k on one of its three tie squares ([`tie_squares`]), and then
//! that rotation is searched too. [`classify()`] says which image counts: by
//! the pattern of occupied tie squares where the pattern tells the images
//! apart, by comparing the boards where it cannot. So an edge task is
//! searched in parts, each with its tie squares fixed or closed by row
//! bounds: the parts whose boards all count 8 need no columns and run in
//! the vector lanes of [`super::lanes`] when the CPU has them; the few
//! boards that need comparing are searched depth first with their columns
//! recorded. Half-turn comparisons are mostly decided by the task's prefix,
//! each as a bound on a bottom row.

mod classify;
mod method;
mod search;

pub use classify::{classify, rotate};
pub(crate) use method::D4;

use super::board::{force_open_sides, full_mask, Board, RowBounds};
use super::lanes;

/// The two kinds of `d4` subtree, by where the top-row queen stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    /// A queen in the corner (0, 0) and the second-row queen in column
    /// `second`: column 1 is closed down to row `second`, so that of a board
    /// and its reflection in the corner's diagonal only one is searched.
    Corner {
        /// Column of the row-1 queen.
        second: u32,
    },
    /// Top-row queen in column `k` (1 <= k <= (N-1)/2), nearest a corner of
    /// all edge queens: the side columns are closed in the first and last
    /// `k` rows and the bottom row is limited to columns k..N-1-k.
    Edge {
        /// Column of the row-0 queen: its distance from the corner.
        k: u32,
    },
}

impl Shape {
    /// Squares of `row` a subtree of this shape may use on an `n` board,
    /// before the attacks of the queens above are taken out.
    #[inline(always)]
    pub fn allowed_columns(self, n: u32, row: u32) -> u64 {
        let full = full_mask(n);
        match self {
            Shape::Corner { second } => {
                if (2..=second).contains(&row) {
                    full & !0b10
                } else {
                    full
                }
            }
            Shape::Edge { k } => {
                let sides = 1 | (1u64 << (n - 1));
                let mut allowed = full;
                if row < k || row > n - 1 - k {
                    allowed &= !sides;
                }
                if row == n - 1 {
                    // Columns k..=n-1-k.
                    allowed &= full_mask(n - k) & !full_mask(k);
                }
                allowed
            }
        }
    }

    /// Squares of `board`'s next row open to the search: free of attacks,
    /// allowed on that row, and for edge subtrees the forced side columns
    /// of [`force_open_sides`].
    pub fn open_squares(self, n: u32, board: &Board) -> u64 {
        let free = board.free(n) & self.allowed_columns(n, board.row);
        match self {
            Shape::Edge { k } if board.row == n - 1 - k => {
                let sides = 1 | (1u64 << (n - 1));
                force_open_sides(free, sides & !board.cols)
            }
            _ => free,
        }
    }
}

/// A `d4` subtree: its shape, the board its search starts from, and the
/// columns of the prefix's queens, row by row.
#[derive(Clone, Copy, Debug)]
pub struct Subtree<'a> {
    /// Corner or edge.
    pub shape: Shape,
    /// The prefix's board.
    pub board: Board,
    /// Columns of the prefix's queens, rows `0..board.row`.
    pub prefix: &'a [u8],
}

/// What a `d4` task found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct D4Tally {
    /// Solutions, each counted representative weighted by its orbit size.
    pub solutions: u64,
    /// Counted representatives: one per class of solutions under symmetry.
    pub orbits: u64,
    /// Representatives whose orbit has 2, 4 and 8 boards.
    pub by_orbit_size: [u64; 3],
    /// Queens placed.
    pub nodes: u64,
}

impl D4Tally {
    fn add_boards(&mut self, count: u64, orbit_size: u64) {
        self.solutions += count * orbit_size;
        self.orbits += count;
        let slot = match orbit_size {
            2 => 0,
            4 => 1,
            _ => 2,
        };
        self.by_orbit_size[slot] += count;
    }
}

impl std::ops::AddAssign for D4Tally {
    fn add_assign(&mut self, other: D4Tally) {
        self.solutions += other.solutions;
        self.orbits += other.orbits;
        for (mine, theirs) in self.by_orbit_size.iter_mut().zip(other.by_orbit_size) {
            *mine += theirs;
        }
        self.nodes += other.nodes;
    }
}

/// One part of a task's subtree, searched on its own: the task's row
/// bounds, narrowed by the tie squares the part fixes or excludes.
#[derive(Clone, Copy, Debug)]
struct Part {
    bounds: RowBounds,
    /// `Some(k)` when every leaf is settled by [`classify()`] (top-row queen
    /// in column k); `None` when every leaf counts with weight 8.
    classify: Option<u32>,
}

/// The squares of an edge board (top-row queen in column k) that can hold
/// the top-row queen of one of its rotations: the left column's queen at
/// row n-1-k (brought to the top by a quarter turn clockwise), the bottom
/// queen at column n-1-k (a half turn) and the right column's queen at row
/// k (three quarter turns).
pub(crate) fn tie_squares(n: u32, k: u32) -> [(u32, u32); 3] {
    [(n - 1 - k, 0), (n - 1, n - 1 - k), (k, n - 1)]
}

/// Closes square `(row, col)`.
fn exclude(bounds: &mut RowBounds, (row, col): (u32, u32)) {
    bounds.allowed[row as usize] &= !(1u64 << col);
}

/// Makes `(row, col)` hold a queen: its row may use nothing else, and the
/// other rows lose the squares it attacks, so the rows above it prune early.
fn occupy(n: u32, bounds: &mut RowBounds, (row, col): (u32, u32)) {
    for other in 0..n {
        let allowed = &mut bounds.allowed[other as usize];
        if other == row {
            *allowed &= 1u64 << col;
            continue;
        }
        let distance = other.abs_diff(row);
        *allowed &= !(1u64 << col);
        if col + distance < n {
            *allowed &= !(1u64 << (col + distance));
        }
        if col >= distance {
            *allowed &= !(1u64 << (col - distance));
        }
    }
}

/// Hands `visit` the parts a `d4` task's subtree is searched in.
///
/// A corner task is one part. An edge task is split by its tie squares
/// ([`tie_squares`]: Q, H and T for the quarter, half and three-quarter
/// turns) so that only the boards whose counted image needs a comparison
/// are compared, under the rule of [`classify()`]:
/// - neither H nor T: counted, weight 8;
/// - Q and T, not H: counted, weight 8;
/// - H, neither Q nor T: the smaller of the board and its half turn counts.
///   The half turn pairs row r with row n-1-r, and the first pair that
///   differs decides. For a pair whose top row is in the task's prefix,
///   the decision is a bound on the bottom row: below the mirrored column
///   the board counts (weight 8), above it never (not searched), on it the
///   next pair decides. What the prefix cannot decide is compared leaf by
///   leaf.
/// - Q, H and T: compared with every rotation;
/// - the other patterns are never counted, and never searched.
///
/// Parts that the task's prefix already contradicts are left out.
fn for_each_part(n: u32, task: &Subtree, mut visit: impl FnMut(&Part)) {
    let base = task_bounds(n, task.shape);
    let k = match task.shape {
        Shape::Edge { k } => k,
        Shape::Corner { .. } => {
            visit(&Part {
                bounds: base,
                classify: None,
            });
            return;
        }
    };
    let prefix = task.prefix;
    let mut add = |bounds: RowBounds, classify: bool| {
        let prefix_fits = prefix
            .iter()
            .enumerate()
            .all(|(row, &col)| bounds.allowed[row] & (1u64 << col) != 0);
        let rows_open = (task.board.row..n).all(|row| bounds.allowed[row as usize] != 0);
        if prefix_fits && rows_open {
            visit(&Part {
                bounds,
                classify: classify.then_some(k),
            });
        }
    };
    let [quarter, half, three] = tie_squares(n, k);
    let mut settled = base;
    exclude(&mut settled, half);
    exclude(&mut settled, three);
    add(settled, false);
    let mut quarter_and_three = base;
    occupy(n, &mut quarter_and_three, quarter);
    occupy(n, &mut quarter_and_three, three);
    exclude(&mut quarter_and_three, half);
    add(quarter_and_three, false);
    let mut half_only = base;
    occupy(n, &mut half_only, half);
    exclude(&mut half_only, quarter);
    exclude(&mut half_only, three);
    for (top, &col) in prefix.iter().enumerate().skip(1) {
        let (top, bottom) = (top as u32, n - 1 - top as u32);
        if bottom <= top || bottom < task.board.row {
            break;
        }
        // The half turn puts this pair's top queen at (bottom, mirrored).
        let mirrored = n - 1 - u32::from(col);
        let mut smaller = half_only;
        smaller.allowed[bottom as usize] &= full_mask(mirrored);
        add(smaller, false);
        occupy(n, &mut half_only, (bottom, mirrored));
    }
    add(half_only, true);
    let mut all_three = base;
    for square in [quarter, half, three] {
        occupy(n, &mut all_three, square);
    }
    add(all_three, true);
}

/// Tasks with fewer rows than this below their prefix are searched whole,
/// depth first, every leaf classified: setting up the parts would cost
/// more than their search. Measured, 1 thread: 7 rows left (N = 13) whole
/// 12 ms, parts 23; 8 rows (N = 13, split 5) whole 12.3, parts 11.0; 9 rows
/// (N = 14) whole 44, parts 24.
const PARTS_FROM_ROWS: u32 = 8;

/// Counts a `d4` subtree.
pub fn count_task(n: u32, task: &Subtree) -> D4Tally {
    count_with(n, task, lanes::supported())
}

/// [`count_task`] without the vector lanes: every part depth first, as on
/// a CPU without AVX2. The tests check the two agree task by task.
pub fn count_task_depth_first(n: u32, task: &Subtree) -> D4Tally {
    count_with(n, task, false)
}

fn count_with(n: u32, task: &Subtree, lanes: bool) -> D4Tally {
    if n - task.board.row < PARTS_FROM_ROWS {
        let whole = Part {
            bounds: task_bounds(n, task.shape),
            classify: match task.shape {
                Shape::Edge { k } => Some(k),
                Shape::Corner { .. } => None,
            },
        };
        return count_part(n, task, &whole, false);
    }
    let mut tally = D4Tally::default();
    for_each_part(n, task, |part| tally += count_part(n, task, part, lanes));
    tally
}

/// The bounds of a `d4` task's rows: those of [`Shape::allowed_columns`],
/// and for edge tasks the forced side row.
fn task_bounds(n: u32, shape: Shape) -> RowBounds {
    let mut bounds = RowBounds::unbounded(n);
    for (row, allowed) in bounds.allowed.iter_mut().enumerate().take(n as usize) {
        *allowed = shape.allowed_columns(n, row as u32);
    }
    if let Shape::Edge { k } = shape {
        bounds.force_row = n - 1 - k;
    }
    bounds
}

/// Counts one part of a task's subtree: in the vector lanes when its leaves
/// need no comparison and `lanes` allows, else depth first.
fn count_part(n: u32, task: &Subtree, part: &Part, lanes: bool) -> D4Tally {
    if part.classify.is_none() && lanes {
        let found = lanes::count_bounded(n, task.board, &part.bounds);
        let mut tally = D4Tally {
            nodes: found.nodes,
            ..D4Tally::default()
        };
        tally.add_boards(found.solutions, 8);
        return tally;
    }
    search::count_part(n, task, part)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// The edge subtrees of an `n` board cut at row `depth`, as (k, board,
    /// prefix columns): the top-row queen in column k, then every square
    /// open to the search down to the depth.
    fn edge_subtrees(n: u32, depth: u32) -> Vec<(u32, Board, Vec<u8>)> {
        fn expand(
            n: u32,
            k: u32,
            board: Board,
            prefix: Vec<u8>,
            depth: u32,
            out: &mut Vec<(u32, Board, Vec<u8>)>,
        ) {
            if board.row >= depth || board.row >= n {
                out.push((k, board, prefix));
                return;
            }
            let mut free = Shape::Edge { k }.open_squares(n, &board);
            while free != 0 {
                let bit = free & free.wrapping_neg();
                free &= free - 1;
                let mut longer = prefix.clone();
                longer.push(bit.trailing_zeros() as u8);
                expand(n, k, board.place(bit), longer, depth, out);
            }
        }
        let mut out = Vec::new();
        for k in 1..=(n - 1) / 2 {
            expand(
                n,
                k,
                Board::EMPTY.place(1 << k),
                vec![k as u8],
                depth,
                &mut out,
            );
        }
        out
    }

    /// Every complete board below `board` within `bounds`, as columns.
    fn leaves(n: u32, board: Board, bounds: &RowBounds, columns: &mut Vec<u32>) -> Vec<Vec<u32>> {
        if board.row == n {
            return vec![columns.clone()];
        }
        let mut found = Vec::new();
        let free = bounds.free(board.row, board.cols, board.ld | board.rd);
        for col in 0..n {
            if free & (1u64 << col) != 0 {
                columns.push(col);
                found.extend(leaves(n, board.place(1u64 << col), bounds, columns));
                columns.pop();
            }
        }
        found
    }

    #[test]
    fn the_parts_count_exactly_the_boards_classify_counts() {
        for n in 5..=10u32 {
            for depth in [1, 2, 3] {
                for (index, (k, board, columns)) in edge_subtrees(n, depth).into_iter().enumerate()
                {
                    let shape = Shape::Edge { k };
                    let task = &Subtree {
                        shape,
                        board,
                        prefix: &columns,
                    };
                    let prefix: Vec<u32> = columns.iter().map(|&c| u32::from(c)).collect();
                    // Board -> weight, over the whole task, by classify.
                    let whole = task_bounds(n, shape);
                    let expected: BTreeMap<Vec<u32>, u64> =
                        leaves(n, task.board, &whole, &mut prefix.clone())
                            .into_iter()
                            .filter_map(|b| classify(n, k, &b).map(|w| (b, w)))
                            .collect();
                    // The same through the parts.
                    let mut counted = BTreeMap::new();
                    let mut seen = std::collections::BTreeSet::new();
                    for_each_part(n, task, |part| {
                        for board in leaves(n, task.board, &part.bounds, &mut prefix.clone()) {
                            assert!(seen.insert(board.clone()), "n={n} {board:?} in two parts");
                            let weight = match part.classify {
                                None => {
                                    assert_eq!(classify(n, k, &board), Some(8), "n={n} {board:?}");
                                    Some(8)
                                }
                                Some(_) => classify(n, k, &board),
                            };
                            if let Some(weight) = weight {
                                counted.insert(board, weight);
                            }
                        }
                    });
                    assert_eq!(counted, expected, "n={n} depth {depth} subtree {index}");
                }
            }
        }
    }
}
