//! Every solution of a board, streamed in lexicographic order (row by row,
//! the queen's column), holding one board at a time.
//!
//! The walk is the kernel's bitmask search with the lowest free column tried
//! first, which is exactly lexicographic order. Jumping to the i-th solution
//! counts whole subtrees with the kernel instead of walking them.

use crate::search::board::{Board, MAX_N};
use crate::search::kernel::count_completions;

/// One solution: the queen's column for each row, 0-based.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Solution {
    n: u32,
    columns: [u32; MAX_N as usize],
}

impl Solution {
    /// The queens' columns, one per row.
    pub fn columns(&self) -> &[u32] {
        &self.columns[..self.n as usize]
    }
}

/// The board as a text grid, a row a line (`Q` the queen, `.` an empty
/// square), as `nqueens list --format grid` draws it:
///
/// ```
/// let first = nqueens::Solutions::new(4).next().unwrap();
/// assert_eq!(first.to_string(), ".Q..\n...Q\nQ...\n..Q.\n");
/// ```
impl std::fmt::Display for Solution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut grid = Vec::new();
        crate::boards::render::render_grid(&mut grid, self.columns());
        f.write_str(&String::from_utf8_lossy(&grid))
    }
}

impl std::fmt::Debug for Solution {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.columns().fmt(f)
    }
}

/// A stream of the solutions of an `n` board in lexicographic order.
pub struct Solutions {
    n: u32,
    /// Rows fixed by the caller; the walk never backs up past them.
    base: usize,
    /// Row being filled.
    depth: usize,
    /// Board before each row's queen, and the squares of that row not tried.
    boards: [Board; MAX_N as usize + 1],
    untried: [u64; MAX_N as usize + 1],
    solution: Solution,
    done: bool,
}

impl Solutions {
    /// All solutions of the `n` board (`1 <= n <= MAX_N`).
    pub fn new(n: u32) -> Solutions {
        Solutions::below(n, &[])
    }

    /// The solutions that begin with the queens `prefix` (one column per
    /// row), in lexicographic order. An invalid prefix has none.
    pub fn below(n: u32, prefix: &[u32]) -> Solutions {
        assert!((1..=MAX_N).contains(&n), "board size out of range");
        assert!(prefix.len() <= n as usize, "prefix longer than the board");
        let mut solution = Solution {
            n,
            columns: [0; MAX_N as usize],
        };
        let mut board = Board::EMPTY;
        let mut valid = true;
        for (row, &col) in prefix.iter().enumerate() {
            valid &= col < n && board.free(n) & (1 << col) != 0;
            solution.columns[row] = col;
            board = board.place(1 << col.min(63));
        }
        let base = prefix.len();
        let mut solutions = Solutions {
            n,
            base,
            depth: base,
            boards: [Board::EMPTY; MAX_N as usize + 1],
            untried: [0; MAX_N as usize + 1],
            solution,
            done: !valid,
        };
        solutions.boards[base] = board;
        if base < n as usize {
            solutions.untried[base] = board.free(n);
        }
        solutions
    }
}

impl Iterator for Solutions {
    type Item = Solution;

    fn next(&mut self) -> Option<Solution> {
        if self.done {
            return None;
        }
        let n = self.n as usize;
        if self.base == n {
            // A complete prefix is its own only solution.
            self.done = true;
            return Some(self.solution);
        }
        loop {
            let row = self.depth;
            let untried = self.untried[row];
            if untried == 0 {
                if row == self.base {
                    self.done = true;
                    return None;
                }
                self.depth -= 1;
                continue;
            }
            let bit = untried & untried.wrapping_neg();
            self.untried[row] = untried ^ bit;
            self.solution.columns[row] = bit.trailing_zeros();
            if row + 1 == n {
                return Some(self.solution);
            }
            let child = self.boards[row].place(bit);
            self.boards[row + 1] = child;
            self.untried[row + 1] = child.free(self.n);
            self.depth += 1;
        }
    }
}

/// Indexes below this are found by walking the stream (a million boards
/// take well under a second); beyond, whole subtrees are counted instead.
pub const NTH_STREAM_LIMIT: u128 = 1_000_000;

/// The solution at 0-based position `index` in lexicographic order, or
/// `None` past the last. Early indexes are walked to; later ones skip whole
/// subtrees by counting them (see [`nth_solution_with`], here on one
/// thread).
pub fn nth_solution(n: u32, index: u128) -> Option<Solution> {
    nth_solution_with(n, index, 1, &|_| {})
}

/// How far [`nth_solution_with`] has come: the rows whose queen is
/// decided, and the share (0 to 1) of the counting that decides the next
/// one done so far. At N = 20 the first row alone is minutes of counting
/// on two cores, so a person needs more than the rows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NthProgress {
    /// Rows whose queen is decided, 0 to N.
    pub rows_fixed: u32,
    /// Share of the next row's counting done: row sets joined, or
    /// candidates' subtrees searched (the search stops at the one that
    /// holds the index), of all there are; 0 as the row before is decided.
    pub next_row_done: f64,
}

/// [`nth_solution`] with the subtrees counted on `threads` workers (a
/// row's candidates taken `threads` at a time, in order, so the search
/// still stops at the subtree that holds the index), calling `on_progress`
/// as each row is decided (`next_row_done` 0) and, while a row is being
/// counted, with the share of it done (from several threads at once).
///
/// Mirroring a board (column c to n - 1 - c) reverses lexicographic order,
/// so where the total is published, an index in the second half is found
/// as the mirror image of its counterpart in the first (the last solution
/// is the first one's mirror: found at once, where the search would count
/// the whole tree).
pub fn nth_solution_with(
    n: u32,
    index: u128,
    threads: usize,
    on_progress: &(dyn Fn(NthProgress) + Sync),
) -> Option<Solution> {
    let reach = Reach {
        walk_limit: NTH_STREAM_LIMIT,
        joined_rows: joined_rows(n),
    };
    nth_walking_below(n, index, threads, on_progress, reach)
}

/// Rows whose subtrees are counted by joining half boards (`next_row`)
/// rather than by the tree search: the first rows, where subtrees are
/// largest; none below N = 16, where the tree is as quick. Measured on
/// one thread, a row's subtrees (all columns) by joining against the
/// depth-first search: N = 16 row 0 1.2 s against 7.1 s, row 1 0.28
/// against 0.53 s, row 2 0.10 against 0.05 s; N = 18 row 1 4.3 against
/// 22 s, row 2 0.8 against 1.5 s, with an earlier glue that searched each
/// half board row by row (slower than today's; the search counts from
/// the end nearer the index, about half of them). All on a 2-core x86-64
/// VM whose CPU was not recorded, beside a 2-thread count: read them as
/// ratios.
fn joined_rows(n: u32) -> usize {
    if n < 16 {
        0
    } else {
        ((n as usize - 14) / 2).min(3)
    }
}

/// How [`nth_solution_with`] finds its way down: it walks to the index
/// once it lies in a subtree of fewer than `walk_limit` solutions, and
/// counts the subtrees of the first `joined_rows` rows by joining half
/// boards (tests vary both, to count every row either way).
#[derive(Clone, Copy)]
struct Reach {
    walk_limit: u128,
    joined_rows: usize,
}

fn nth_walking_below(
    n: u32,
    index: u128,
    threads: usize,
    on_progress: &(dyn Fn(NthProgress) + Sync),
    reach: Reach,
) -> Option<Solution> {
    assert!((1..=MAX_N).contains(&n), "board size out of range");
    match crate::published::total(n) {
        Some(total) if index >= total => None,
        Some(total) if index >= total / 2 => {
            let mut solution = nth_in_order(n, total - 1 - index, threads, on_progress, reach)?;
            for column in &mut solution.columns[..n as usize] {
                *column = n - 1 - *column;
            }
            Some(solution)
        }
        _ => nth_in_order(n, index, threads, on_progress, reach),
    }
}

/// Rows a subtree is cut deeper into pieces that the workers count.
const SUBTREE_PIECE_ROWS: usize = 3;

/// [`nth_solution_with`] without the mirror: walked to, or found by
/// counting subtrees row by row, until the subtree that holds the index
/// is small enough to walk. The first rows' subtrees are counted all at
/// once by joining half boards (the first row's left half and middle
/// only: the right half mirrors them). Deeper, where a subtree's total is
/// known, its children are searched from the end nearer the index; where
/// the whole board's total is published, the first row counts only its
/// half (and, odd N, the middle column first).
fn nth_in_order(
    n: u32,
    index: u128,
    threads: usize,
    on_progress: &(dyn Fn(NthProgress) + Sync),
    reach: Reach,
) -> Option<Solution> {
    use rayon::prelude::*;
    let walk_limit = reach.walk_limit;
    let fixed = |rows: u32| {
        on_progress(NthProgress {
            rows_fixed: rows,
            next_row_done: 0.0,
        })
    };
    if index < walk_limit {
        let found = Solutions::new(n).nth(index as usize);
        if found.is_some() {
            (1..=n).for_each(fixed);
        }
        return found;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .ok()?;
    // A subtree is cut a few rows deeper into pieces for the workers.
    let count_below = |board: Board| -> u128 {
        let mut pieces = vec![board];
        for _ in 0..SUBTREE_PIECE_ROWS.min((n - board.row) as usize) {
            pieces = pieces
                .iter()
                .flat_map(|board| {
                    let mut free = board.free(n);
                    std::iter::from_fn(move || {
                        let bit = free & free.wrapping_neg();
                        free &= free.wrapping_sub(1);
                        (bit != 0).then(|| board.place(bit))
                    })
                })
                .collect();
        }
        pool.install(|| {
            pieces
                .par_iter()
                .map(|&piece| {
                    let tally = if crate::search::lanes::best().is_some() {
                        crate::search::lanes::count_completions(n, piece)
                    } else {
                        count_completions(n, piece)
                    };
                    u128::from(tally.solutions)
                })
                .sum()
        })
    };
    let mut columns: Vec<u32> = Vec::with_capacity(n as usize);
    // The board of `columns`.
    let mut board = Board::EMPTY;
    let mut remaining = index;
    // The solutions below `columns`, where known.
    let mut subtree_total = crate::published::total(n);
    // First-row subtree counts by column, for their mirror images.
    let mut first_row: Vec<Option<u128>> = vec![None; n as usize];
    while (columns.len() as u32) < n {
        if subtree_total.is_some_and(|total| total < walk_limit) {
            let found = Solutions::below(n, &columns).nth(remaining as usize)?;
            (columns.len() as u32 + 1..=n).for_each(fixed);
            return Some(found);
        }
        if columns.len() < reach.joined_rows {
            let free = board.free(n);
            let first = columns.is_empty();
            let wanted = if first {
                free & ((1 << n.div_ceil(2)) - 1)
            } else {
                free
            };
            let rows_fixed = columns.len() as u32;
            let share = |next_row_done: f64| {
                on_progress(NthProgress {
                    rows_fixed,
                    next_row_done,
                })
            };
            let mut below = super::next_row::next_row_counts(&pool, n, &columns, wanted, &share);
            if first {
                for column in 0..n / 2 {
                    below[(n - 1 - column) as usize] = below[column as usize];
                }
            }
            let mut left = remaining;
            let (column, count) = below
                .iter()
                .enumerate()
                .find(|&(_, &count)| {
                    let here = left < count;
                    if !here {
                        left -= count;
                    }
                    here
                })
                .map(|(column, &count)| (column as u32, count))?;
            remaining = left;
            subtree_total = Some(count);
            columns.push(column);
            board = board.place(1 << column);
            fixed(columns.len() as u32);
            continue;
        }
        let mut candidates: Vec<u32> = (0..n).filter(|&c| board.free(n) >> c & 1 == 1).collect();
        if let (true, Some(total)) = (columns.is_empty(), subtree_total) {
            // The caller asks only for the first half; mirror images
            // make the columns past the middle the same counts reversed.
            let middle = if n % 2 == 1 {
                count_below(board.place(1 << (n / 2)))
            } else {
                0
            };
            let half = (total - middle) / 2;
            if remaining >= half {
                remaining -= half;
                subtree_total = Some(middle);
                columns.push(n / 2);
                board = board.place(1 << (n / 2));
                fixed(1);
                continue;
            }
            candidates.retain(|&c| c < n / 2);
            subtree_total = Some(half);
        }
        let from_end = subtree_total.is_some_and(|total| remaining >= total / 2);
        let mut left = match subtree_total {
            Some(total) if from_end => total - 1 - remaining,
            _ => remaining,
        };
        if from_end {
            candidates.reverse();
        }
        let mut chosen = None;
        let candidate_count = candidates.len();
        for (searched, column) in candidates.into_iter().enumerate() {
            let below = match columns
                .is_empty()
                .then(|| first_row[(n - 1 - column) as usize])
            {
                Some(Some(mirrored)) => mirrored,
                _ => count_below(board.place(1 << column)),
            };
            if columns.is_empty() {
                first_row[column as usize] = Some(below);
            }
            on_progress(NthProgress {
                rows_fixed: columns.len() as u32,
                next_row_done: (searched + 1) as f64 / candidate_count as f64,
            });
            if left < below {
                remaining = if from_end { below - 1 - left } else { left };
                chosen = Some((column, below));
                break;
            }
            left -= below;
        }
        let (column, below) = chosen?;
        columns.push(column);
        board = board.place(1 << column);
        subtree_total = Some(below);
        fixed(columns.len() as u32);
    }
    Solutions::below(n, &columns).next()
}

/// Every valid prefix of `rows` rows on the `n` board, in lexicographic
/// order: independent pieces of the listing for parallel workers.
pub fn prefixes(n: u32, rows: usize) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    let mut stack = vec![(Board::EMPTY, Vec::new())];
    while let Some((board, columns)) = stack.pop() {
        if columns.len() == rows.min(n as usize) {
            out.push(columns);
            continue;
        }
        // Pushed highest column first so the lowest is expanded first.
        let mut free = board.free(n);
        let mut children = Vec::new();
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            let mut longer = columns.clone();
            longer.push(bit.trailing_zeros());
            children.push((board.place(bit), longer));
        }
        stack.extend(children.into_iter().rev());
    }
    out
}

/// Writes every solution of the `n` board in lexicographic order, each
/// appended by `render`, at most `limit` of them; returns how many were
/// written. Pieces of the listing (prefixes of a few rows) are rendered on
/// `threads` workers a batch at a time and written in order, so the output
/// is the same as a single thread's and memory stays bounded.
pub fn write_solutions<W: std::io::Write>(
    n: u32,
    threads: usize,
    limit: Option<u64>,
    render: &(dyn Fn(&Solution, &mut Vec<u8>) + Sync),
    out: &mut W,
) -> std::io::Result<u64> {
    use rayon::prelude::*;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(std::io::Error::other)?;
    // Three rows give hundreds of pieces from N = 8 up; tiny boards are one.
    let rows = if n >= 8 { 3 } else { 0 };
    let pieces = prefixes(n, rows);
    let batch = threads.max(1) * 16;
    let mut written = 0u64;
    for chunk in pieces.chunks(batch) {
        let remaining = limit.map(|limit| limit - written);
        if remaining == Some(0) {
            break;
        }
        let rendered: Vec<(Vec<u8>, u64)> = pool.install(|| {
            chunk
                .par_iter()
                .map(|prefix| {
                    let mut text = Vec::new();
                    let mut count = 0;
                    for solution in Solutions::below(n, prefix) {
                        if remaining.is_some_and(|remaining| count == remaining) {
                            break;
                        }
                        render(&solution, &mut text);
                        count += 1;
                    }
                    (text, count)
                })
                .collect()
        });
        for (prefix, (text, count)) in chunk.iter().zip(rendered) {
            let room = limit.map_or(u64::MAX, |limit| limit - written);
            if count <= room {
                out.write_all(&text)?;
                written += count;
            } else {
                // The limit ends inside this piece: render its head again.
                let mut head = Vec::new();
                for solution in Solutions::below(n, prefix).take(room as usize) {
                    render(&solution, &mut head);
                }
                out.write_all(&head)?;
                written += room;
            }
            if limit == Some(written) {
                return Ok(written);
            }
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counting_every_row_finds_what_the_walk_finds() {
        // A walk limit of 1 counts subtrees down to the last row, from
        // either end and through the first row's halves (odd and even N),
        // the first 0 to N rows by joining half boards, the rest by search.
        for (n, stride) in [(8u32, 1), (9, 1), (10, 3), (11, 29)] {
            let all: Vec<Solution> = Solutions::new(n).collect();
            for (index, board) in all.iter().enumerate().step_by(stride) {
                let threads = 1 + index % 2;
                let heard = std::sync::Mutex::new(Vec::new());
                let reach = Reach {
                    walk_limit: 1,
                    joined_rows: (index / stride) % (n as usize + 1),
                };
                let found = nth_walking_below(
                    n,
                    index as u128,
                    threads,
                    &|progress| heard.lock().unwrap().push(progress),
                    reach,
                );
                assert_eq!(found.as_ref(), Some(board), "N = {n}, index {index}");
                let heard = heard.into_inner().unwrap();
                // Every row decided once, in order; shares of a row in
                // between, within 0..=1, never for a row already passed.
                let decided: Vec<u32> = heard
                    .iter()
                    .filter(|p| p.next_row_done == 0.0 && p.rows_fixed > 0)
                    .map(|p| p.rows_fixed)
                    .collect();
                assert_eq!(decided, (1..=n).collect::<Vec<u32>>());
                assert!(heard.windows(2).all(|w| w[0].rows_fixed <= w[1].rows_fixed));
                assert!(heard.iter().all(|p| (0.0..=1.0).contains(&p.next_row_done)));
                if index > 0 && index + 1 < all.len() && reach.joined_rows > 0 {
                    // The first row joined to its last row set (the first
                    // and last solutions are walked to).
                    assert!(heard.contains(&NthProgress {
                        rows_fixed: 0,
                        next_row_done: 1.0
                    }));
                }
            }
            for joined_rows in [0, 2] {
                let reach = Reach {
                    walk_limit: 1,
                    joined_rows,
                };
                assert_eq!(
                    nth_walking_below(n, all.len() as u128, 2, &|_| {}, reach),
                    None
                );
            }
        }
    }
}
