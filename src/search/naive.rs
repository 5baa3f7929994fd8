//! Slow, obviously correct twins of the fast routines, for tests.
//!
//! Nothing here uses bit tricks: a board is a list of the queens' columns and
//! every placement is checked against every queen above it.

use super::board::Tally;

/// Whether a queen on (`row`, `col`) is attacked by the queens `columns[r]`
/// on rows `0..row`.
pub fn is_attacked(columns: &[u32], row: usize, col: u32) -> bool {
    columns[..row].iter().enumerate().any(|(r, &c)| {
        let row_gap = (row - r) as i64;
        let col_gap = (i64::from(col) - i64::from(c)).abs();
        c == col || row_gap == col_gap
    })
}

/// Counts the completions of the queens `prefix` (one column per row) on an
/// `n` x `n` board, with nodes counted as queens placed below the prefix.
pub fn count_completions(n: u32, prefix: &[u32]) -> Tally {
    fn descend(n: u32, columns: &mut Vec<u32>, tally: &mut Tally) {
        let row = columns.len();
        if row == n as usize {
            tally.solutions += 1;
            return;
        }
        for col in 0..n {
            if !is_attacked(columns, row, col) {
                tally.nodes += 1;
                columns.push(col);
                descend(n, columns, tally);
                columns.pop();
            }
        }
    }
    let mut columns = prefix.to_vec();
    let mut tally = Tally::default();
    descend(n, &mut columns, &mut tally);
    tally
}

/// Every solution of the `n` board, as column vectors in lexicographic order.
pub fn solutions(n: u32) -> Vec<Vec<u32>> {
    fn descend(n: u32, columns: &mut Vec<u32>, out: &mut Vec<Vec<u32>>) {
        let row = columns.len();
        if row == n as usize {
            out.push(columns.clone());
            return;
        }
        for col in 0..n {
            if !is_attacked(columns, row, col) {
                columns.push(col);
                descend(n, columns, out);
                columns.pop();
            }
        }
    }
    let mut out = Vec::new();
    descend(n, &mut Vec::new(), &mut out);
    out
}
