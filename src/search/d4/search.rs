//! The depth-first search of the `d4` parts whose leaves need their
//! columns: every complete board is settled by [`classify()`], or counted
//! with weight 8 where the part needs no comparison (on CPUs without the
//! vector lanes).

use super::{classify, D4Tally, Part, Subtree};
use crate::search::board::{full_mask, row_slot, Board, RowBounds, Tally, MAX_N};
#[cfg(target_arch = "x86_64")]
use crate::search::kernel::cpu_has_bmi;
use crate::search::kernel::{three_rows, two_rows};

/// Counts one part of a task's subtree depth first, with the columns of
/// every board recorded.
pub(super) fn count_part(n: u32, task: &Subtree, part: &Part) -> D4Tally {
    let mut columns = [0u32; MAX_N as usize];
    for (slot, &col) in columns.iter_mut().zip(task.prefix) {
        *slot = u32::from(col);
    }
    let rules = Rules {
        n,
        mask: full_mask(n),
        bounds: part.bounds,
        classify: part.classify,
    };
    #[cfg(target_arch = "x86_64")]
    {
        if cpu_has_bmi() {
            // SAFETY: the CPU was just checked to support every feature the
            // function is compiled with.
            return unsafe { search_bmi(&rules, task.board, &mut columns) };
        }
    }
    search(&rules, task.board, &mut columns)
}

/// The fixed facts of one part's depth-first search.
struct Rules {
    n: u32,
    mask: u64,
    bounds: RowBounds,
    /// `Some(k)`: every leaf is settled by [`classify()`].
    classify: Option<u32>,
}

impl Rules {
    /// What a complete board `columns` counts for.
    fn leaf(&self, tally: &mut D4Tally, columns: &[u32]) {
        match self.classify {
            None => tally.add_boards(1, 8),
            Some(k) => {
                if let Some(orbit_size) = classify(self.n, k, columns) {
                    tally.add_boards(1, orbit_size);
                }
            }
        }
    }
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
    let mut free = rules.bounds.free(row, cols, ld | rd);
    // The common outcomes stay in registers: queens placed, and boards of
    // weight 8 from the closed-form endings.
    let mut nodes = 0u64;
    let mut boards_of_8 = 0u64;
    let mut classified = D4Tally::default();
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
        columns[row_slot(row)] = bit.trailing_zeros();
        let next = Board {
            row: row + 1,
            cols: cols | bit,
            ld: (ld | bit) << 1,
            rd: (rd | bit) >> 1,
        };
        if level == last_level {
            if rules.classify.is_some() {
                classified += classified_ending(rules, next, columns);
            } else {
                let tally = closed_form_ending(rules, next);
                boards_of_8 += tally.solutions;
                nodes += tally.nodes;
            }
            continue;
        }
        let next_free = rules.bounds.free(next.row, next.cols, next.ld | next.rd);
        if next_free != 0 {
            stack[level] = (cols, ld, rd, free);
            level += 1;
            row = next.row;
            (cols, ld, rd, free) = (next.cols, next.ld, next.rd, next_free);
        }
    }
    let mut tally = classified;
    tally.nodes += nodes;
    tally.add_boards(boards_of_8, 8);
    tally
}

/// The last three rows below `board` (at row n-3) in closed form.
#[inline(always)]
fn closed_form_ending(rules: &Rules, board: Board) -> Tally {
    let n = rules.n;
    let bounds = &rules.bounds;
    let rows = [n - 3, n - 2, n - 1];
    three_rows(
        rules.mask,
        (board.cols, board.ld, board.rd),
        rows.map(|row| bounds.allowed[row_slot(row)]),
        rows.map(|row| bounds.forced(row)),
    )
}

/// The last three rows below `board` (at row n-3), every solution built and
/// classified: the same loop and closed form as the fast ending, whose two
/// orders are known (one open column takes row n-2, the other the last
/// row).
#[inline(never)]
fn classified_ending(rules: &Rules, board: Board, columns: &mut [u32; MAX_N as usize]) -> D4Tally {
    let n = rules.n;
    let mask = rules.mask;
    let bounds = &rules.bounds;
    let upper_allowed = bounds.allowed[row_slot(n - 2)];
    let last_allowed = bounds.allowed[row_slot(n - 1)];
    let upper_forced = bounds.forced(n - 2);
    let mut tally = D4Tally::default();
    let mut free3 = rules.bounds.free(n - 3, board.cols, board.ld | board.rd);
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
        columns[row_slot(n - 3)] = bit3.trailing_zeros();
        // Which of the two orders are solutions, as the closed form decides.
        let free2 = rules.bounds.free(n - 2, third.cols, third.ld | third.rd);
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
            columns[row_slot(n - 2)] = upper.trailing_zeros();
            columns[row_slot(n - 1)] = lower.trailing_zeros();
            rules.leaf(&mut tally, &columns[..n as usize]);
        }
        debug_assert_eq!(found, below.solutions);
    }
    tally
}

/// Plain recursive search of the rows below `board`, every complete board
/// counted by [`Rules::leaf`]: for tasks that start within the last rows.
fn explicit(rules: &Rules, board: Board, columns: &mut [u32; MAX_N as usize]) -> D4Tally {
    let n = rules.n;
    let mut tally = D4Tally::default();
    if board.row == n {
        rules.leaf(&mut tally, &columns[..n as usize]);
        return tally;
    }
    let mut free = rules
        .bounds
        .free(board.row, board.cols, board.ld | board.rd);
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free &= free - 1;
        tally.nodes += 1;
        columns[row_slot(board.row)] = bit.trailing_zeros();
        tally += explicit(rules, board.place(bit), columns);
    }
    tally
}
