//! The `d4` search: one image of each solution under the 8 symmetries of the
//! square, weighted at the leaf by the size of its orbit.
//!
//! Every solution for N >= 2 has one queen on each edge; the representative
//! searched is the image whose top-row queen is the edge queen nearest a
//! corner, on the left half of the top row (distance k from the corner).
//! That is enforced while searching, by the per-row masks of
//! [`allowed_columns`]: side columns closed in the first and last k rows, the
//! bottom row limited to columns k..N-1-k. Reflections can never tie with the
//! representative (two of its queens would attack each other), but a
//! rotation can, when another edge queen is also at distance k from its
//! corner in the matching place; those few boards are compared with their
//! rotations at the leaf, which settles which image counts and, from the
//! rotations equal to the board, its orbit size (2, 4 or 8). A corner queen
//! (k = 0) is its own case, settled by a bound in the plan (weight 8).
//!
//! The search itself is the plain kernel's, with the row masks added and the
//! queens' columns recorded for the leaf comparison.

use crate::kernel::{full_mask, three_rows, Board, Tally, MAX_N};
#[cfg(doc)]
use crate::plan::open_squares;
use crate::plan::{allowed_columns, force_open_sides, Task, TaskKind};

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

/// The fixed facts of one task's search.
struct Rules {
    n: u32,
    mask: u64,
    /// Squares each row may use at all.
    allowed: [u64; MAX_N as usize],
    /// `Some(k)` for edge tasks (their leaves may tie), `None` for corners.
    edge: Option<u32>,
    /// The last row the side columns may use (edge tasks; past the board for
    /// corners): any side column still open there must take its queen.
    last_side_row: u32,
    /// The side columns.
    sides: u64,
}

impl Rules {
    /// Squares of `row` open to the search, given the columns taken and the
    /// attacks from above: [`open_squares`] with the masks precomputed.
    #[inline(always)]
    fn free(&self, row: u32, cols: u64, attacked: u64) -> u64 {
        let free = self.allowed[row as usize] & !(cols | attacked);
        if row == self.last_side_row {
            force_open_sides(free, self.sides & !cols)
        } else {
            free
        }
    }
}

/// Counts a `d4` task's subtree.
pub fn count_task(n: u32, task: &Task) -> D4Tally {
    let edge = match task.kind {
        TaskKind::D4Edge { k } => Some(k),
        TaskKind::D4Corner { .. } => None,
        TaskKind::Plain => panic!("count_task takes d4 tasks only"),
    };
    let mut allowed = [0u64; MAX_N as usize];
    for (row, slot) in allowed.iter_mut().enumerate().take(n as usize) {
        *slot = allowed_columns(n, task.kind, row as u32);
    }
    let rules = Rules {
        n,
        mask: full_mask(n),
        allowed,
        edge,
        last_side_row: edge.map_or(u32::MAX, |k| n - 1 - k),
        sides: 1 | (1u64 << (n - 1)),
    };
    let mut columns = [0u32; MAX_N as usize];
    for (slot, &col) in columns.iter_mut().zip(task.prefix_columns()) {
        *slot = u32::from(col);
    }
    search(&rules, task.board, &mut columns)
}

/// Depth-first search from `start`; `columns[..start.row]` holds the prefix.
fn search(rules: &Rules, start: Board, columns: &mut [u32; MAX_N as usize]) -> D4Tally {
    let n = rules.n;
    // Frames place rows up to n-4; the last three rows are the ending.
    if start.row + 3 >= n {
        return explicit(rules, start, columns);
    }
    let last_level = (n - start.row - 4) as usize;
    let mut stack = [(0u64, 0u64, 0u64, 0u64); MAX_N as usize];
    let mut level = 0usize;
    let mut row = start.row;
    let (mut cols, mut ld, mut rd) = (start.cols, start.ld, start.rd);
    let mut free = rules.free(row, cols, ld | rd);
    let mut tally = D4Tally::default();
    loop {
        if free == 0 {
            if level == 0 {
                break;
            }
            level -= 1;
            row -= 1;
            (cols, ld, rd, free) = stack[level];
            continue;
        }
        let bit = free & free.wrapping_neg();
        free &= free - 1;
        tally.nodes += 1;
        columns[row as usize] = bit.trailing_zeros();
        let next = Board {
            row: row + 1,
            cols: cols | bit,
            ld: (ld | bit) << 1,
            rd: (rd | bit) >> 1,
        };
        if level == last_level {
            tally += ending(rules, next, columns);
            continue;
        }
        let next_free = rules.free(next.row, next.cols, next.ld | next.rd);
        if next_free != 0 {
            stack[level] = (cols, ld, rd, free);
            level += 1;
            row = next.row;
            (cols, ld, rd, free) = (next.cols, next.ld, next.rd, next_free);
        }
    }
    tally
}

/// The last three rows below `board` (at row n-3): closed form with weight 8
/// unless a leaf could tie with one of its rotations.
#[inline(always)]
fn ending(rules: &Rules, board: Board, columns: &mut [u32; MAX_N as usize]) -> D4Tally {
    if let Some(k) = rules.edge {
        if may_tie(rules.n, k, board, columns) {
            return explicit(rules, board, columns);
        }
    }
    let n = rules.n as usize;
    let allowed = [
        rules.allowed[n - 3],
        rules.allowed[n - 2],
        rules.allowed[n - 1],
    ];
    let forced_on = |row: u32| {
        if row == rules.last_side_row {
            rules.sides
        } else {
            0
        }
    };
    let forced = [forced_on(rules.n - 3), forced_on(rules.n - 2), 0];
    let Tally { solutions, nodes } = three_rows(
        rules.mask,
        (board.cols, board.ld, board.rd),
        allowed,
        forced,
    );
    let mut tally = D4Tally {
        nodes,
        ..D4Tally::default()
    };
    tally.add_boards(solutions, 8);
    tally
}

/// Whether a completion of `board` (at row n-3, rows above recorded in
/// `columns`) could have a rotation with its top-row queen in column k too.
/// Rotating a quarter turn clockwise brings the left column's queen to the
/// top row, at column n-1-r for its row r; a half turn brings the bottom
/// queen, at n-1-c; three quarters the right column's queen, at r.
#[inline(always)]
fn may_tie(n: u32, k: u32, board: Board, columns: &[u32; MAX_N as usize]) -> bool {
    let known = |row: u32, col: u32| -> bool {
        if row < board.row {
            columns[row as usize] == col
        } else {
            // Not placed yet: possible while the column is open.
            board.cols & (1u64 << col) == 0
        }
    };
    known(n - 1 - k, 0) || known(n - 1, n - 1 - k) || known(k, n - 1)
}

/// Plain recursive search of the rows below `board`, classifying each
/// complete board: for the few subtrees where leaves may tie, and for tasks
/// that start within the last rows.
fn explicit(rules: &Rules, board: Board, columns: &mut [u32; MAX_N as usize]) -> D4Tally {
    let n = rules.n;
    let mut tally = D4Tally::default();
    if board.row == n {
        match rules.edge {
            None => tally.add_boards(1, 8),
            Some(k) => {
                if let Some(orbit_size) = classify(n, k, &columns[..n as usize]) {
                    tally.add_boards(1, orbit_size);
                }
            }
        }
        return tally;
    }
    let mut free = rules.free(board.row, board.cols, board.ld | board.rd);
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free &= free - 1;
        tally.nodes += 1;
        columns[board.row as usize] = bit.trailing_zeros();
        tally += explicit(rules, board.place(bit), columns);
    }
    tally
}

/// Settles a complete edge-case board `columns` (top-row queen in column
/// `k`): `None` when a rotation that also has its top queen in column k is
/// smaller (that image is the one counted), otherwise the orbit size.
pub fn classify(n: u32, k: u32, columns: &[u32]) -> Option<u64> {
    debug_assert_eq!(columns[0], k);
    let last = n - 1;
    let mut symmetries = 1u64;
    for quarter_turns in 1..=3 {
        let ties = match quarter_turns {
            1 => columns[(last - k) as usize] == 0,
            2 => columns[last as usize] == last - k,
            _ => columns[k as usize] == last,
        };
        if !ties {
            continue;
        }
        match compare_with_rotation(columns, quarter_turns) {
            std::cmp::Ordering::Less => return None,
            std::cmp::Ordering::Equal => symmetries += 1,
            std::cmp::Ordering::Greater => {}
        }
    }
    Some(8 / symmetries)
}

/// Compares the board turned clockwise by `quarter_turns` with the board,
/// row by row (lexicographic order of the column vectors).
fn compare_with_rotation(columns: &[u32], quarter_turns: u32) -> std::cmp::Ordering {
    let mut image = [0u32; MAX_N as usize];
    let image = &mut image[..columns.len()];
    rotate(columns, quarter_turns, image);
    image.iter().cmp(columns.iter())
}

/// The board `columns` (row -> column) turned clockwise by `quarter_turns`.
/// A quarter turn takes the square (r, c) to (c, n-1-r).
pub fn rotate(columns: &[u32], quarter_turns: u32, image: &mut [u32]) {
    let last = columns.len() as u32 - 1;
    for (row, &col) in columns.iter().enumerate() {
        let row = row as u32;
        let (r, c) = match quarter_turns % 4 {
            0 => (row, col),
            1 => (col, last - row),
            2 => (last - row, last - col),
            _ => (last - col, row),
        };
        image[r as usize] = c;
    }
}
