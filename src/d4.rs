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

use crate::kernel::{full_mask, three_rows, two_rows, Board, Tally, MAX_N};
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

/// `row` as an index into per-row arrays of [`MAX_N`] slots. Rows are below
/// N <= MAX_N = 32, so the mask changes nothing but lets the compiler drop the
/// bounds check from the hot loop.
#[inline(always)]
fn slot(row: u32) -> usize {
    (row & (MAX_N - 1)) as usize
}

impl Rules {
    /// Squares of `row` open to the search, given the columns taken and the
    /// attacks from above: [`open_squares`] with the masks precomputed.
    #[inline(always)]
    fn free(&self, row: u32, cols: u64, attacked: u64) -> u64 {
        let free = self.allowed[slot(row)] & !(cols | attacked);
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
        TaskKind::Plain | TaskKind::Join { .. } => panic!("count_task takes d4 tasks only"),
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
    #[cfg(target_arch = "x86_64")]
    {
        if crate::kernel::cpu_has_bmi() {
            // SAFETY: the CPU was just checked to support every feature the
            // function is compiled with.
            return unsafe { search_bmi(&rules, task.board, &mut columns) };
        }
    }
    search(&rules, task.board, &mut columns)
}

/// [`search`] built with BLSI/BLSR/TZCNT/POPCNT: the node loop takes and
/// clears bits and the endings count them on every step.
///
/// # Safety
/// The caller must ensure the CPU supports `bmi1` and `popcnt`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,popcnt")]
unsafe fn search_bmi(rules: &Rules, start: Board, columns: &mut [u32; MAX_N as usize]) -> D4Tally {
    search(rules, start, columns)
}

/// Depth-first search from `start`; `columns[..start.row]` holds the prefix.
#[inline(always)]
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
    // The common outcomes stay in registers: queens placed, and boards of
    // weight 8 from the closed-form endings. Everything else is rare.
    let mut nodes = 0u64;
    let mut boards_of_8 = 0u64;
    let mut rare = D4Tally::default();
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
        nodes += 1;
        columns[slot(row)] = bit.trailing_zeros();
        let next = Board {
            row: row + 1,
            cols: cols | bit,
            ld: (ld | bit) << 1,
            rd: (rd | bit) >> 1,
        };
        if level == last_level {
            match ending(rules, next, columns) {
                Ending::ClosedForm(tally) => {
                    boards_of_8 += tally.solutions;
                    nodes += tally.nodes;
                }
                Ending::Explicit(tally) => rare += tally,
            }
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
    let mut tally = rare;
    tally.nodes += nodes;
    tally.add_boards(boards_of_8, 8);
    tally
}

/// How an ending was counted.
enum Ending {
    /// In closed form: every solution has weight 8.
    ClosedForm(Tally),
    /// Leaf by leaf, each classified.
    Explicit(D4Tally),
}

/// The last three rows below `board` (at row n-3): closed form with weight 8
/// unless a leaf could tie with one of its rotations.
#[inline(always)]
fn ending(rules: &Rules, board: Board, columns: &mut [u32; MAX_N as usize]) -> Ending {
    if let Some(k) = rules.edge {
        let (classify_all, tie_last) = possible_ties(rules.n, k, board, columns);
        if classify_all || tie_last != 0 {
            let tally = classified_ending(rules, k, board, columns, classify_all, tie_last);
            return Ending::Explicit(tally);
        }
    }
    let n = rules.n;
    let allowed = [
        rules.allowed[slot(n - 3)],
        rules.allowed[slot(n - 2)],
        rules.allowed[slot(n - 1)],
    ];
    let forced_on = |row: u32| {
        if row == rules.last_side_row {
            rules.sides
        } else {
            0
        }
    };
    let forced = [forced_on(n - 3), forced_on(n - 2), 0];
    Ending::ClosedForm(three_rows(
        rules.mask,
        (board.cols, board.ld, board.rd),
        allowed,
        forced,
    ))
}

/// Which completions of `board` (at row n-3) could have a rotation with its
/// top-row queen in column k too: all of them (`true`), or those whose
/// bottom queen is on a column of the returned mask. A quarter turn
/// clockwise brings the left column's queen to the top row, at column n-1-r
/// for its row r; a half turn the bottom queen, at n-1-c; three quarters the
/// right column's queen, at r.
#[inline(always)]
fn possible_ties(n: u32, k: u32, board: Board, columns: &[u32; MAX_N as usize]) -> (bool, u64) {
    let placed_or_open = |row: u32, col: u32| -> bool {
        if row < board.row {
            columns[slot(row)] == col
        } else {
            // Not placed yet: possible while the column is open.
            board.cols & (1u64 << col) == 0
        }
    };
    let classify_all = placed_or_open(n - 1 - k, 0) || placed_or_open(k, n - 1);
    let bottom_tie = (1u64 << (n - 1 - k)) & !board.cols;
    (classify_all, bottom_tie)
}

/// The last three rows below `board` (at row n-3) of an edge task whose
/// leaves may tie: the same loop and closed form as the fast ending, and
/// each solution that could tie (every one when `classify_all`, else those
/// whose bottom queen is on a column of `tie_last`) is built and classified.
/// The closed form's two orders are known: one open column takes row n-2
/// and the other the last row.
#[inline(never)]
fn classified_ending(
    rules: &Rules,
    k: u32,
    board: Board,
    columns: &mut [u32; MAX_N as usize],
    classify_all: bool,
    tie_last: u64,
) -> D4Tally {
    let n = rules.n;
    let mask = rules.mask;
    let upper_allowed = rules.allowed[slot(n - 2)];
    let last_allowed = rules.allowed[slot(n - 1)];
    let upper_forced = if n - 2 == rules.last_side_row {
        rules.sides
    } else {
        0
    };
    let mut tally = D4Tally::default();
    let mut free3 = rules.free(n - 3, board.cols, board.ld | board.rd);
    while free3 != 0 {
        let bit3 = free3 & free3.wrapping_neg();
        free3 &= free3 - 1;
        tally.nodes += 1;
        let third = board.place(bit3);
        let below = two_rows(
            mask,
            (third.cols, third.ld, third.rd),
            upper_allowed,
            last_allowed,
            upper_forced,
        );
        tally.nodes += below.nodes;
        if below.solutions == 0 {
            continue;
        }
        columns[slot(n - 3)] = bit3.trailing_zeros();
        // Which of the two orders are solutions, as the closed form decides.
        let free2 = rules.free(n - 2, third.cols, third.ld | third.rd);
        let open = mask & !third.cols;
        let low = open & open.wrapping_neg();
        let high = open ^ low;
        let hit = (third.ld << 1) | (third.rd >> 1);
        let mut found = 0;
        for (upper, lower) in [(low, high), (high, low)] {
            let lower_free = lower & last_allowed & !hit & !(upper << 1) & !(upper >> 1);
            if free2 & upper == 0 || lower_free == 0 {
                continue;
            }
            found += 1;
            if classify_all || lower & tie_last != 0 {
                columns[slot(n - 2)] = upper.trailing_zeros();
                columns[slot(n - 1)] = lower.trailing_zeros();
                if let Some(orbit_size) = classify(n, k, &columns[..n as usize]) {
                    tally.add_boards(1, orbit_size);
                }
            } else {
                tally.add_boards(1, 8);
            }
        }
        debug_assert_eq!(found, below.solutions);
    }
    tally
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
        columns[slot(board.row)] = bit.trailing_zeros();
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
