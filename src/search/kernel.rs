//! The hot loop: counts the completions of one partial board, depth first.
//!
//! Everything else in the crate exists to feed this function with independent
//! subtrees, so it is kept free of allocation, I/O, locks and threads.

use super::board::{force_open_sides, full_mask, Board, Tally, MAX_N};

/// Counts every completion of `start` on an `n` x `n` board.
///
/// `start` must be a valid partial board (no two queens attack each other,
/// `start.row <= n <= MAX_N`). A complete board counts as one solution and no
/// nodes. Dispatches once per call to a build using BMI1/POPCNT when the CPU
/// has them; the task, not the node, is the unit of dispatch, so the check
/// costs nothing in the loop.
pub fn count_completions(n: u32, start: Board) -> Tally {
    debug_assert!(n <= MAX_N && start.row <= n);
    #[cfg(target_arch = "x86_64")]
    {
        if cpu_has_bmi() {
            // SAFETY: the CPU was just checked to support every feature the
            // function is compiled with.
            return unsafe { count_completions_bmi(n, start) };
        }
    }
    count_completions_portable(n, start)
}

/// The kernel built for the baseline target (no assumption on the CPU).
pub fn count_completions_portable(n: u32, start: Board) -> Tally {
    search(n, start)
}

/// The kernel built with BLSI/BLSR/TZCNT/POPCNT available.
///
/// # Safety
/// The caller must ensure the CPU supports `bmi1` and `popcnt`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,popcnt")]
pub(crate) unsafe fn count_completions_bmi(n: u32, start: Board) -> Tally {
    search(n, start)
}

/// Whether the running CPU has the instructions [`count_completions_bmi`] uses.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn cpu_has_bmi() -> bool {
    // std caches the CPUID answer, so this is a load and a test.
    std::arch::is_x86_feature_detected!("bmi1") && std::arch::is_x86_feature_detected!("popcnt")
}

/// Depth of the explicit stack: one frame per row below the start.
const STACK_DEPTH: usize = MAX_N as usize;

/// Completions of a board with two rows left, without a loop or a branch.
///
/// Two columns are still open, `low` and `high`. A solution puts one of them
/// on each row: the upper one must be free on its row, the lower one must not
/// be hit by the diagonals coming down from above, and the two columns must
/// not be neighbours (the upper queen would attack the lower one).
/// `upper_allowed` and `last_allowed` are the squares the rows may use at
/// all (the whole row for plain searches; bounded rows for `d4`), and
/// `upper_forced` the columns that must take the upper row's queen if still
/// open (see [`force_open_sides`]; 0 for plain searches).
#[inline(always)]
pub(crate) fn two_rows(
    mask: u64,
    board: (u64, u64, u64),
    upper_allowed: u64,
    last_allowed: u64,
    upper_forced: u64,
) -> Tally {
    let (cols, ld, rd) = board;
    let open = mask & !cols;
    let free = force_open_sides(upper_allowed & !(cols | ld | rd), upper_forced & open);
    let low = open & open.wrapping_neg();
    let high = open ^ low;
    let below = (ld << 1) | (rd >> 1);
    let apart = u64::from((low << 1) != high);
    let low_first = u64::from(free & low != 0) & u64::from(high & (last_allowed & !below) != 0);
    let high_first = u64::from(free & high != 0) & u64::from(low & (last_allowed & !below) != 0);
    let solutions = (low_first + high_first) * apart;
    Tally {
        solutions,
        // Every free square of the upper row takes a queen; each solution
        // adds the queen of the last row.
        nodes: u64::from(free.count_ones()) + solutions,
    }
}

/// Completions of a board with three rows left: a tight loop over the first,
/// closed form for the other two. A loop of its own predicts better than one
/// more frame of the general search. `allowed` holds the squares each of the
/// three rows may use at all, `forced` the columns each must take if open.
#[inline(always)]
pub(crate) fn three_rows(
    mask: u64,
    board: (u64, u64, u64),
    allowed: [u64; 3],
    forced: [u64; 3],
) -> Tally {
    let (cols, ld, rd) = board;
    let mut free = force_open_sides(allowed[0] & !(cols | ld | rd), forced[0] & !cols);
    let mut tally = Tally::default();
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free &= free - 1;
        let next = (cols | bit, (ld | bit) << 1, (rd | bit) >> 1);
        let below = two_rows(mask, next, allowed[1], allowed[2], forced[1]);
        tally.solutions += below.solutions;
        tally.nodes += below.nodes + 1;
    }
    tally
}

/// The iterative depth-first search shared by every build of the kernel.
///
/// Each frame keeps the board of its row and the free squares not yet tried.
/// A child is entered only when its row has a free square (one row of
/// look-ahead), and the last three rows are never entered as frames: they are
/// counted by [`three_rows`].
#[inline(always)]
fn search(n: u32, start: Board) -> Tally {
    if start.row >= n {
        return Tally {
            solutions: 1,
            nodes: 0,
        };
    }
    let mask = full_mask(n);
    match n - start.row {
        1 => {
            let count = u64::from(start.free(n).count_ones());
            return Tally {
                solutions: count,
                nodes: count,
            };
        }
        2 => return two_rows(mask, (start.cols, start.ld, start.rd), mask, mask, 0),
        3 => return three_rows(mask, (start.cols, start.ld, start.rd), [mask; 3], [0; 3]),
        _ => {}
    }
    // Frames 0..=last_level place queens on rows start.row..=n-4.
    let last_level = (n - start.row - 4) as usize;
    let mut stack_cols = [0u64; STACK_DEPTH];
    let mut stack_ld = [0u64; STACK_DEPTH];
    let mut stack_rd = [0u64; STACK_DEPTH];
    let mut stack_free = [0u64; STACK_DEPTH];

    let mut level = 0usize;
    let (mut cols, mut ld, mut rd, mut free) = (start.cols, start.ld, start.rd, start.free(n));
    let mut tally = Tally::default();
    loop {
        if free == 0 {
            if level == 0 {
                break;
            }
            level -= 1;
            cols = stack_cols[level];
            ld = stack_ld[level];
            rd = stack_rd[level];
            free = stack_free[level];
            continue;
        }
        // Lowest free square (BLSI), then clear it (BLSR).
        let bit = free & free.wrapping_neg();
        free &= free - 1;
        tally.nodes += 1;
        let next_cols = cols | bit;
        let next_ld = (ld | bit) << 1;
        let next_rd = (rd | bit) >> 1;
        if level == last_level {
            tally += three_rows(mask, (next_cols, next_ld, next_rd), [mask; 3], [0; 3]);
            continue;
        }
        let next_free = mask & !(next_cols | next_ld | next_rd);
        if next_free != 0 {
            debug_assert!(level + 1 < STACK_DEPTH);
            stack_cols[level] = cols;
            stack_ld[level] = ld;
            stack_rd[level] = rd;
            stack_free[level] = free;
            level += 1;
            cols = next_cols;
            ld = next_ld;
            rd = next_rd;
            free = next_free;
        }
    }
    tally
}
