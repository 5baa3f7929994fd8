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

/// [`nth_solution`] with the subtrees counted on `threads` workers (a
/// row's candidates taken `threads` at a time, in order, so the search
/// still stops at the subtree that holds the index), calling `on_row` with
/// the number of rows fixed as each is decided.
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
    on_row: &(dyn Fn(u32) + Sync),
) -> Option<Solution> {
    assert!((1..=MAX_N).contains(&n), "board size out of range");
    match crate::published::total(n) {
        Some(total) if index >= total => None,
        Some(total) if index >= total / 2 => {
            let mut solution = nth_in_order(n, total - 1 - index, threads, on_row)?;
            for column in &mut solution.columns[..n as usize] {
                *column = n - 1 - *column;
            }
            Some(solution)
        }
        _ => nth_in_order(n, index, threads, on_row),
    }
}

/// [`nth_solution_with`] without the mirror: walked to, or found by
/// counting subtrees row by row. The first row's subtrees past the middle
/// are the mirror images of those before it and are not counted again.
fn nth_in_order(
    n: u32,
    index: u128,
    threads: usize,
    on_row: &(dyn Fn(u32) + Sync),
) -> Option<Solution> {
    use rayon::prelude::*;
    if index < NTH_STREAM_LIMIT {
        let found = Solutions::new(n).nth(index as usize);
        if found.is_some() {
            (1..=n).for_each(on_row);
        }
        return found;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .ok()?;
    let count_below = |child: Board| -> u128 {
        let tally = if crate::search::lanes::best().is_some() {
            crate::search::lanes::count_completions(n, child)
        } else {
            count_completions(n, child)
        };
        u128::from(tally.solutions)
    };
    let mut remaining = index;
    let mut board = Board::EMPTY;
    let mut columns = Vec::with_capacity(n as usize);
    // First-row subtree counts by column, for the mirror images.
    let mut first_row: Vec<Option<u128>> = vec![None; n as usize];
    'rows: while (columns.len() as u32) < n {
        let mut children = Vec::new();
        let mut free = board.free(n);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            children.push((bit, board.place(bit)));
        }
        for group in children.chunks(threads.max(1)) {
            let counts: Vec<u128> = pool.install(|| {
                group
                    .par_iter()
                    .map(|&(bit, child)| {
                        let column = bit.trailing_zeros() as usize;
                        match columns
                            .is_empty()
                            .then(|| first_row[n as usize - 1 - column])
                        {
                            Some(Some(mirrored)) => mirrored,
                            _ => count_below(child),
                        }
                    })
                    .collect()
            });
            for (&(bit, child), below) in group.iter().zip(counts) {
                if columns.is_empty() {
                    first_row[bit.trailing_zeros() as usize] = Some(below);
                }
                if remaining < below {
                    columns.push(bit.trailing_zeros());
                    board = child;
                    on_row(columns.len() as u32);
                    continue 'rows;
                }
                remaining -= below;
            }
        }
        return None;
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
