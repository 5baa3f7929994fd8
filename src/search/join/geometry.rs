//! The board as the join sees it: where the halves meet, the keys of
//! half boards, and the symmetry weights of row sets.

/// Where the halves meet: the bits of a board's diagonals that form keys.
#[derive(Clone, Copy, Debug)]
pub(super) struct Geometry {
    pub(super) n: u32,
    /// Side of a quadrant, N/2.
    pub(super) h: u32,
    /// First row and column of the south and west quadrants, N-h; also the
    /// first diagonal index crossing the middle.
    pub(super) lo: u32,
    /// Diagonals of one direction that cross the middle: N-1 for even N,
    /// N-2 for odd N.
    pub(super) width: u32,
}

impl Geometry {
    pub(super) fn new(n: u32) -> Geometry {
        let h = n / 2;
        let lo = n - h;
        Geometry {
            n,
            h,
            lo,
            width: 2 * n - 1 - 2 * lo,
        }
    }

    /// The key of a half board with diagonal masks `d1` (index r - c + N-1)
    /// and `d2` (index r + c): its crossing diagonals, `d1`'s in the low
    /// `width` bits and `d2`'s above.
    #[inline(always)]
    pub(super) fn key(&self, d1: u64, d2: u64) -> u64 {
        let mask = self.crossing_mask();
        ((d1 >> self.lo) & mask) | (((d2 >> self.lo) & mask) << self.width)
    }

    /// The crossing diagonals of one direction, shifted down to bit 0: a
    /// key's half.
    pub(super) fn crossing_mask(&self) -> u64 {
        (1u64 << self.width) - 1
    }

    /// Diagonal masks of the queen on (row, col).
    pub(super) fn queen_diagonals(&self, row: u32, col: u32) -> (u64, u64) {
        (1u64 << (row + self.n - 1 - col), 1u64 << (row + col))
    }

    /// Shifts taking a quadrant's local diagonal indexes to the board's, for
    /// the quadrant in the north or south and the east or west half.
    pub(super) fn shifts(&self, south: bool, west: bool) -> (u32, u32) {
        match (south, west) {
            (false, false) => (self.lo, 0),
            (true, false) => (2 * self.lo, self.lo),
            (false, true) => (0, self.lo),
            (true, true) => (self.lo, 2 * self.lo),
        }
    }

    pub(super) fn all_rows(&self) -> u32 {
        ((1u64 << self.n) - 1) as u32
    }

    /// Rows of the north quadrants: the first h.
    pub(super) fn north_rows(&self) -> u32 {
        (1 << self.h) - 1
    }

    /// Rows open to the halves: all but the middle row (odd N).
    pub(super) fn half_rows(&self) -> u32 {
        if self.n % 2 == 1 {
            self.all_rows() & !(1 << self.h)
        } else {
            self.all_rows()
        }
    }
}

/// `rows` with row r moved to N-1-r: the north-south flip.
pub(super) fn reverse_rows(rows: u32, n: u32) -> u32 {
    rows.reverse_bits() >> (32 - n)
}

/// Weight of the north-south flip alone: R and its reverse are counted
/// through the smaller one.
pub(super) fn flip_weight(rows: u32, n: u32) -> u64 {
    use std::cmp::Ordering::*;
    match rows.cmp(&reverse_rows(rows, n)) {
        Less => 2,
        Equal => 1,
        Greater => 0,
    }
}

/// Weight under the north-south and east-west flips together (rows ->
/// reverse, rows -> complement within `open`): the size of R's class if R
/// is its smallest member, else 0.
pub(super) fn four_flip_weight(rows: u32, open: u32, n: u32) -> u64 {
    let class = [
        rows,
        reverse_rows(rows, n),
        open & !rows,
        reverse_rows(open & !rows, n),
    ];
    if class.iter().any(|&other| other < rows) {
        return 0;
    }
    let mut distinct = class;
    distinct.sort_unstable();
    1 + distinct
        .windows(2)
        .filter(|pair| pair[0] != pair[1])
        .count() as u64
}

/// Weight of an odd-N task with the queen on the centre square.
pub(super) fn centre_weight(rows: u32, open: u32, n: u32) -> u64 {
    four_flip_weight(rows, open, n)
}

/// Weights of an even-N task's west boards by their long-diagonal queens:
/// index 0 = none, 1 = one, 2 = both.
pub(super) fn even_weights(rows: u32, n: u32) -> [u64; 3] {
    let flip = flip_weight(rows, n);
    [four_flip_weight(rows, (1 << n) - 1, n), flip * 2, flip * 4]
}

/// The diagonals of both `a` and `b`.
pub(super) fn union(a: (u64, u64), b: (u64, u64)) -> (u64, u64) {
    (a.0 | b.0, a.1 | b.1)
}

/// Whether a queen on diagonals `queen` keeps off the diagonals `forbid`.
pub(super) fn leaves_alone(forbid: (u64, u64), queen: (u64, u64)) -> bool {
    forbid.0 & queen.0 == 0 && forbid.1 & queen.1 == 0
}

/// The rows of `rows`, lowest first.
pub(super) fn rows_in(geo: &Geometry, rows: u32) -> impl Iterator<Item = u32> {
    (0..geo.n).filter(move |&row| rows & (1 << row) != 0)
}
