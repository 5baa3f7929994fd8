//! The board every search shares: a partial board as u64 bitmasks, what a
//! search found, and the per-row limits of a bounded search.
//!
//! A board is four words (columns taken, the two diagonal directions as seen
//! from the next row, and the row index); N is at most [`MAX_N`], so a
//! diagonal bit shifted left by one per row never leaves the word before it
//! leaves the board.

use serde::{Deserialize, Serialize};

/// Largest board the kernel accepts. Counting beyond it is far out of reach,
/// and 2N diagonal bits still fit in one u64.
pub const MAX_N: u32 = 32;

/// What one search found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Complete boards below the start state.
    pub solutions: u64,
    /// Queens placed below the start state, complete boards included.
    pub nodes: u64,
}

impl std::ops::Add for Tally {
    type Output = Tally;

    #[inline(always)]
    fn add(self, other: Tally) -> Tally {
        Tally {
            solutions: self.solutions + other.solutions,
            nodes: self.nodes + other.nodes,
        }
    }
}

impl std::ops::AddAssign for Tally {
    #[inline(always)]
    fn add_assign(&mut self, other: Tally) {
        *self = *self + other;
    }
}

/// A partial board: rows `0..row` hold a queen each.
///
/// `ld` and `rd` are the squares of row `row` attacked along the two diagonal
/// directions; they move one column per row (`ld` left, `rd` right).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Board {
    /// The next row to fill.
    pub row: u32,
    /// Columns already holding a queen.
    pub cols: u64,
    /// Squares of row `row` attacked from above along up-left diagonals.
    pub ld: u64,
    /// Squares of row `row` attacked from above along up-right diagonals.
    pub rd: u64,
}

impl Board {
    /// The empty board.
    pub const EMPTY: Board = Board {
        row: 0,
        cols: 0,
        ld: 0,
        rd: 0,
    };

    /// Squares of row `self.row` free for a queen on an `n` board.
    #[inline(always)]
    pub fn free(&self, n: u32) -> u64 {
        full_mask(n) & !(self.cols | self.ld | self.rd)
    }

    /// The board after a queen is placed on column bit `bit` of the next row.
    #[inline(always)]
    pub fn place(&self, bit: u64) -> Board {
        debug_assert!(bit.is_power_of_two());
        Board {
            row: self.row + 1,
            cols: self.cols | bit,
            ld: (self.ld | bit) << 1,
            rd: (self.rd | bit) >> 1,
        }
    }
}

/// Limits a bounded search puts on each row, beyond the attacks: the
/// squares each row may use at all, and one row where a side column still
/// open must take the queen (see [`force_open_sides`]). The plain search
/// has none; the `d4` search bounds its rows to count one image per class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowBounds {
    /// Squares each row may use, by row.
    pub allowed: [u64; MAX_N as usize],
    /// The row whose open side columns are forced; past the board for none.
    pub force_row: u32,
    /// The two side columns.
    pub sides: u64,
}

impl RowBounds {
    /// No limit on an `n` board: every square of every row.
    pub fn unbounded(n: u32) -> RowBounds {
        RowBounds {
            allowed: [full_mask(n); MAX_N as usize],
            force_row: u32::MAX,
            sides: 1 | (1u64 << (n.max(1) - 1)),
        }
    }

    /// Squares of `row` open to the search, given the columns taken and
    /// the squares attacked from above.
    #[inline(always)]
    pub fn free(&self, row: u32, cols: u64, attacked: u64) -> u64 {
        let free = self.allowed[row_slot(row)] & !(cols | attacked);
        if row == self.force_row {
            force_open_sides(free, self.sides & !cols)
        } else {
            free
        }
    }

    /// The columns `row` must take if they are still open (0 but on the
    /// forced row).
    #[inline(always)]
    pub fn forced(&self, row: u32) -> u64 {
        if row == self.force_row {
            self.sides
        } else {
            0
        }
    }
}

/// `row` as an index into per-row arrays of [`MAX_N`] slots. Rows are below
/// N <= MAX_N = 32, so the mask changes nothing but lets the compiler drop
/// the bounds check from hot loops.
#[inline(always)]
pub(crate) fn row_slot(row: u32) -> usize {
    (row & (MAX_N - 1)) as usize
}

/// The columns of an `n` board as bits `0..n`.
#[inline(always)]
pub(crate) const fn full_mask(n: u32) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// The squares of row n-1-k open to a `d4` edge search, the last row where
/// the side columns are allowed: a side column still open must take the
/// queen, and two still open mean a dead end. The row masks imply this, but
/// only rows later.
#[inline(always)]
pub fn force_open_sides(free: u64, open_sides: u64) -> u64 {
    if open_sides == 0 {
        free
    } else if open_sides.is_power_of_two() {
        free & open_sides
    } else {
        0
    }
}
