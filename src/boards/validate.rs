//! Linear-time check of a claimed solution, naming the first conflict found.
//!
//! Boards from `solve` can have millions of rows, so the check remembers, for
//! every column and diagonal, which row took it: one pass, no pair loop.

use std::fmt;

/// Why a board is not a solution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Violation {
    /// The board has no rows.
    Empty,
    /// A column index is not on the board.
    OffBoard {
        /// The row holding it.
        row: usize,
        /// The column given.
        col: u64,
        /// The board size.
        n: usize,
    },
    /// Two queens share a column.
    SameColumn {
        /// The earlier row.
        first: usize,
        /// The later row.
        second: usize,
        /// The shared column.
        col: u64,
    },
    /// Two queens share a diagonal.
    SameDiagonal {
        /// The earlier row.
        first: usize,
        /// The later row.
        second: usize,
    },
}

impl Violation {
    /// The violation in words, with rows and columns numbered from `base`
    /// (0, or 1 for boards written 1-based).
    pub fn describe(&self, base: u64) -> String {
        let row = |row: usize| row as u64 + base;
        match *self {
            Violation::Empty => "no queens".to_string(),
            Violation::OffBoard { row: at, col, n } => format!(
                "row {} has column {}, off a board of {n} columns",
                row(at),
                col + base
            ),
            Violation::SameColumn { first, second, col } => format!(
                "rows {} and {} share column {}",
                row(first),
                row(second),
                col + base
            ),
            Violation::SameDiagonal { first, second } => format!(
                "rows {} and {} are on one diagonal",
                row(first),
                row(second)
            ),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(0))
    }
}

/// Checks that `columns` (row -> 0-based column) is a solution of the
/// `columns.len()` board; rows in messages are 0-based.
///
/// One pass marks columns and diagonals in bit sets (5N bits in all); only
/// when a line is found taken twice is the board scanned again for the row
/// that took it first.
pub fn check(columns: &[u64]) -> Result<(), Violation> {
    let n = columns.len();
    if n == 0 {
        return Err(Violation::Empty);
    }
    let mut taken_cols = BitSet::new(n);
    let mut taken_sums = BitSet::new(2 * n - 1);
    let mut taken_diffs = BitSet::new(2 * n - 1);
    for (row, &col) in columns.iter().enumerate() {
        if col >= n as u64 {
            return Err(Violation::OffBoard { row, col, n });
        }
        let c = col as usize;
        if !taken_cols.insert(c) {
            let first = columns
                .iter()
                .position(|&other| other == col)
                .unwrap_or(row);
            return Err(Violation::SameColumn {
                first,
                second: row,
                col,
            });
        }
        let (sum, diff) = (row + c, row + n - 1 - c);
        if !taken_sums.insert(sum) || !taken_diffs.insert(diff) {
            let first = columns
                .iter()
                .enumerate()
                .position(|(r, &other)| {
                    let o = other as usize;
                    r + o == sum || r + n - 1 - o == diff
                })
                .unwrap_or(row);
            return Err(Violation::SameDiagonal { first, second: row });
        }
    }
    Ok(())
}

/// A fixed-size set of small integers, one bit each.
struct BitSet(Vec<u64>);

impl BitSet {
    fn new(size: usize) -> BitSet {
        BitSet(vec![0; size.div_ceil(64)])
    }

    /// Adds `index`; false if it was already there.
    fn insert(&mut self, index: usize) -> bool {
        let (word, bit) = (index / 64, 1u64 << (index % 64));
        let fresh = self.0[word] & bit == 0;
        self.0[word] |= bit;
        fresh
    }
}
