//! The `d4` search: one image of each solution under the 8 symmetries of the
//! square, weighted by the size of its orbit.
//!
//! Every solution for N >= 2 has one queen on each edge; the representative
//! searched is an image whose top-row queen is the edge queen nearest a
//! corner, on the left half of the top row (distance k from the corner).
//! That is enforced while searching, by the per-row bounds of
//! [`allowed_columns`]: side columns closed in the first and last k rows, the
//! bottom row limited to columns k..N-1-k. A corner queen (k = 0) is its own
//! case, settled by a bound in the plan (weight 8).
//!
//! Reflections never tie with such a board (two of its queens would attack
//! each other), but rotations can: a board may hold another edge queen at
//! distance k on one of its three tie squares ([`tie_squares`]), and then
//! that rotation is searched too. [`classify`] says which image counts: by
//! the pattern of occupied tie squares where the pattern tells the images
//! apart, by comparing the boards where it cannot. So an edge task is
//! searched in parts, each with its tie squares fixed or closed by row
//! bounds: the parts whose boards all count 8 need no columns and run in
//! the vector lanes of [`crate::frontier`] when the CPU has them; the few
//! boards that need comparing are searched depth first with their columns
//! recorded. Half-turn comparisons are mostly decided by the task's prefix,
//! each as a bound on a bottom row.

use crate::frontier;
use crate::kernel::{full_mask, row_slot, three_rows, two_rows, Board, RowBounds, Tally, MAX_N};
use crate::plan::{allowed_columns, Task, TaskKind};

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
    /// `Some(k)` when every leaf is settled by [`classify`] (top-row queen
    /// in column k); `None` when every leaf counts with weight 8.
    classify: Option<u32>,
}

/// The squares of an edge board (top-row queen in column k) that can hold
/// the top-row queen of one of its rotations: the left column's queen at
/// row n-1-k (brought to the top by a quarter turn clockwise), the bottom
/// queen at column n-1-k (a half turn) and the right column's queen at row
/// k (three quarter turns).
pub fn tie_squares(n: u32, k: u32) -> [(u32, u32); 3] {
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
/// are compared, under the rule of [`classify`]:
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
fn for_each_part(n: u32, task: &Task, mut visit: impl FnMut(&Part)) {
    let base = task_bounds(n, task.kind);
    let k = match task.kind {
        TaskKind::D4Edge { k } => k,
        TaskKind::D4Corner { .. } => {
            visit(&Part {
                bounds: base,
                classify: None,
            });
            return;
        }
        TaskKind::Plain | TaskKind::Join { .. } => panic!("count_task takes d4 tasks only"),
    };
    let prefix = task.prefix_columns();
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

/// Counts a `d4` task's subtree.
pub fn count_task(n: u32, task: &Task) -> D4Tally {
    count_with(n, task, frontier::supported())
}

/// [`count_task`] without the vector lanes: every part depth first, as on
/// a CPU without AVX2. The tests check the two agree task by task.
pub fn count_task_depth_first(n: u32, task: &Task) -> D4Tally {
    count_with(n, task, false)
}

fn count_with(n: u32, task: &Task, lanes: bool) -> D4Tally {
    if n - task.board.row < PARTS_FROM_ROWS {
        let whole = Part {
            bounds: task_bounds(n, task.kind),
            classify: match task.kind {
                TaskKind::D4Edge { k } => Some(k),
                _ => None,
            },
        };
        return count_part(n, task, &whole, false);
    }
    let mut tally = D4Tally::default();
    for_each_part(n, task, |part| tally += count_part(n, task, part, lanes));
    tally
}

/// The bounds of a `d4` task's rows: those of [`allowed_columns`], and for
/// edge tasks the forced side row.
fn task_bounds(n: u32, kind: TaskKind) -> RowBounds {
    let mut bounds = RowBounds::unbounded(n);
    for (row, allowed) in bounds.allowed.iter_mut().enumerate().take(n as usize) {
        *allowed = allowed_columns(n, kind, row as u32);
    }
    if let TaskKind::D4Edge { k } = kind {
        bounds.force_row = n - 1 - k;
    }
    bounds
}

/// Counts one part of a task's subtree: in the vector lanes when its leaves
/// need no comparison and `lanes` allows, else depth first.
fn count_part(n: u32, task: &Task, part: &Part, lanes: bool) -> D4Tally {
    if part.classify.is_none() && lanes {
        let found = frontier::count_bounded(n, task.board, &part.bounds);
        let mut tally = D4Tally {
            nodes: found.nodes,
            ..D4Tally::default()
        };
        tally.add_boards(found.solutions, 8);
        return tally;
    }
    let mut columns = [0u32; MAX_N as usize];
    for (slot, &col) in columns.iter_mut().zip(task.prefix_columns()) {
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
        if crate::kernel::cpu_has_bmi() {
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
    /// `Some(k)`: every leaf is settled by [`classify`].
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

/// Settles a complete edge board `columns` (top-row queen in column `k`,
/// every edge queen at least k from its corner): `None` when another of its
/// images is the one counted, otherwise its orbit size (2, 4 or 8).
///
/// The images with the top-row queen in column k are the board and the
/// rotations whose tie square ([`tie_squares`]) it occupies. Which one is
/// counted is read from the pattern of occupied tie squares where the
/// pattern tells the images apart, because every image sees the pattern
/// turned: of Q alone and T alone (a board and its quarter turn), Q counts;
/// of Q+T, H+T and Q+H (a board and its two turns that keep a queen on the
/// top edge's tie), Q+T counts. That lets the search count those boards
/// without building them. The patterns H alone and Q+H+T look the same from
/// every image, so the smallest image row by row counts, and the rotations
/// equal to the board give its orbit size.
pub fn classify(n: u32, k: u32, columns: &[u32]) -> Option<u64> {
    debug_assert_eq!(columns[0], k);
    let [quarter, half, three] = tie_squares(n, k).map(|(row, col)| columns[row as usize] == col);
    match (quarter, half, three) {
        (false, false, false) | (true, false, false) | (true, false, true) => return Some(8),
        (false, false, true) | (true, true, false) | (false, true, true) => return None,
        (false, true, false) | (true, true, true) => {}
    }
    let mut symmetries = 1u64;
    for (quarter_turns, ties) in [(1, quarter), (2, half), (3, three)] {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Method, Plan, SplitDepth};
    use std::collections::BTreeMap;

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
                let plan = Plan::build(n, Method::D4, SplitDepth::Rows(depth)).unwrap();
                for task in &plan.tasks {
                    let TaskKind::D4Edge { k } = task.kind else {
                        continue;
                    };
                    let prefix: Vec<u32> = task
                        .prefix_columns()
                        .iter()
                        .map(|&c| u32::from(c))
                        .collect();
                    // Board -> weight, over the whole task, by classify.
                    let whole = task_bounds(n, task.kind);
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
                    assert_eq!(counted, expected, "n={n} depth {depth} task {}", task.id);
                }
            }
        }
    }
}
