//! The lane search, written once for every vector width.
//!
//! The body is generic over [`LaneVector`], whose methods are one or two
//! intrinsics each; every width's entry point is a function built with that
//! width's target features that calls [`search`], so the whole body, the
//! vector methods included, is inlined and compiled for those features.

use super::{Row, CAPACITY, VECTORS};
use crate::search::board::{full_mask, row_slot, Board, RowBounds, Tally, MAX_N};

/// A vector of boards' words, one board per lane, and the operations the
/// search takes on it.
///
/// # Safety
/// Every method runs instructions of its width: call them only from a
/// function built with that width's target features, on a CPU that has
/// them.
pub(super) trait LaneVector: Copy {
    /// Boards per vector.
    const WIDTH: usize;
    /// One flag per lane.
    type Lanes: Copy;

    /// `word` in every lane.
    unsafe fn splat(word: u64) -> Self;
    /// The first [`Self::WIDTH`] words of `words`.
    unsafe fn load(words: &[u64]) -> Self;
    /// `self & other` in every lane.
    unsafe fn and(self, other: Self) -> Self;
    /// `self | other` in every lane.
    unsafe fn or(self, other: Self) -> Self;
    /// `self ^ other` in every lane.
    unsafe fn xor(self, other: Self) -> Self;
    /// `self & !other` in every lane.
    unsafe fn and_not(self, other: Self) -> Self;
    /// The lowest set bit of every lane (0 where none).
    unsafe fn lowest_bit(self) -> Self;
    /// Every lane shifted left by one.
    unsafe fn shl1(self) -> Self;
    /// Every lane shifted right by one.
    unsafe fn shr1(self) -> Self;
    /// Lane by lane sum (no carry between lanes).
    unsafe fn add(self, other: Self) -> Self;
    /// The set bits of every lane, for words of at most 32 bits.
    unsafe fn popcount(self) -> Self;
    /// The sum of the lanes.
    unsafe fn sum(self) -> u64;

    /// The first `count` lanes (all of them when `count` >= WIDTH).
    unsafe fn first_lanes(count: usize) -> Self::Lanes;
    /// `self` in `lanes`, 0 in the others.
    unsafe fn within(self, lanes: Self::Lanes) -> Self;
    /// The lanes that are not 0.
    unsafe fn nonzero(self) -> Self::Lanes;
    /// The lanes where `self & other` is not 0.
    unsafe fn meets(self, other: Self) -> Self::Lanes;
    /// The lanes where `self` and `other` differ.
    unsafe fn differs(self, other: Self) -> Self::Lanes;
    /// The lanes in both sets.
    unsafe fn both(first: Self::Lanes, second: Self::Lanes) -> Self::Lanes;
    /// `self` plus one in `lanes`.
    unsafe fn count_in(self, lanes: Self::Lanes) -> Self;

    /// [`crate::search::board::force_open_sides`] in every lane: `free`
    /// kept where no side column is open, cut to the open one where one is,
    /// empty where both are.
    unsafe fn force_open_sides(free: Self, open_sides: Self) -> Self;
    /// Writes the boards (cols, ld, rd, free) of `lanes`, packed, into `row`
    /// from slot `at`; returns the row's new length.
    unsafe fn append(row: &mut Row, at: usize, lanes: Self::Lanes, boards: [Self; 4]) -> usize;
}

/// Which rows hold boards, for the scalar choice of the row to step.
struct Levels {
    /// Boards a step takes.
    step: usize,
    /// Boards waiting on each level.
    lens: [usize; MAX_N as usize],
    /// Levels holding at least a step's boards, and levels holding any.
    full: u32,
    waiting: u32,
}

impl Levels {
    /// Puts `start` alone on level 0; `None` when its row has no free square.
    #[inline(always)]
    fn seed(
        step: usize,
        start: &Board,
        bounds: &RowBounds,
        rows: &mut [Row; MAX_N as usize],
    ) -> Option<Levels> {
        let root_free = bounds.free(start.row, start.cols, start.ld | start.rd);
        if root_free == 0 {
            return None;
        }
        rows[0].cols[0] = start.cols;
        rows[0].ld[0] = start.ld;
        rows[0].rd[0] = start.rd;
        rows[0].free[0] = root_free;
        let mut levels = Levels {
            step,
            lens: [0; MAX_N as usize],
            full: 0,
            waiting: 0,
        };
        levels.set_len(0, 1);
        Some(levels)
    }

    /// The level to step: lanes are only worth filling deep down, so the
    /// deepest full level, or else the shallowest holding any (which grows
    /// the frontier); `None` when every level is empty.
    #[inline(always)]
    fn next(&self) -> Option<usize> {
        if self.full != 0 {
            Some((31 - self.full.leading_zeros()) as usize)
        } else if self.waiting != 0 {
            Some(self.waiting.trailing_zeros() as usize)
        } else {
            None
        }
    }

    /// Records that `level` now holds `len` boards.
    #[inline(always)]
    fn set_len(&mut self, level: usize, len: usize) {
        debug_assert!(len <= CAPACITY);
        self.lens[level] = len;
        let bit = 1u32 << level;
        self.full = (self.full & !bit) | if len >= self.step { bit } else { 0 };
        self.waiting = (self.waiting & !bit) | if len > 0 { bit } else { 0 };
    }
}

/// Counts the completions of `start` within `bounds` with vectors `V`; the
/// caller guarantees at least four rows below `start`.
///
/// A step takes [`VECTORS`] vectors of boards from one level, places each
/// board's lowest free queen, puts the boards with squares left back and
/// the children with a free square on the next level. Lanes past a level's
/// length read stale words; their free squares are cleared first, so they
/// place nothing and add nothing.
///
/// # Safety
/// The CPU must have `V`'s target features, and the caller must be built
/// with them.
#[inline(always)]
pub(super) unsafe fn search<V: LaneVector>(
    n: u32,
    start: Board,
    bounds: &RowBounds,
    rows: &mut [Row; MAX_N as usize],
) -> Tally {
    crate::search::frame::align_frame();
    // SAFETY: every `V` method runs `V`'s instructions; this function's
    // contract is theirs (the caller is built with `V`'s target features,
    // on a CPU that has them), and it is inlined into that caller.
    unsafe {
        let step = V::WIDTH * VECTORS;
        // Levels 0..=last hold boards on rows start.row..=n-3; a step on the
        // last level counts the final two rows in closed form.
        let last = (n - 3 - start.row) as usize;
        let Some(mut levels) = Levels::seed(step, &start, bounds, rows) else {
            return Tally::default();
        };
        let mask = V::splat(full_mask(n));
        let sides = V::splat(bounds.sides);
        let last_allowed = V::splat(bounds.allowed[row_slot(n - 1)]);
        let zero = V::splat(0);
        // Boards stepped, and per lane the solutions and upper-row queens of
        // the last level.
        let mut steps = 0u64;
        let mut solutions = zero;
        let mut upper = zero;
        while let Some(level) = levels.next() {
            let len = levels.lens[level];
            let take = len.min(step);
            let base = len - take;
            // The lanes of each vector that hold a board.
            let lanes: [V::Lanes; VECTORS] = std::array::from_fn(|vector| {
                V::first_lanes(take.saturating_sub(V::WIDTH * vector))
            });
            // The children's row: the same for every lane.
            let child_row = start.row + level as u32 + 1;
            let allowed = V::splat(bounds.allowed[row_slot(child_row)]);
            let forced = child_row == bounds.force_row;
            let mut parents = [[zero; 4]; VECTORS];
            let mut children = [[zero; 4]; VECTORS];
            for vector in 0..VECTORS {
                let at = base + V::WIDTH * vector;
                let row = &rows[level];
                let cols = V::load(&row.cols[at..]);
                let ld = V::load(&row.ld[at..]);
                let rd = V::load(&row.rd[at..]);
                let free = V::load(&row.free[at..]).within(lanes[vector]);
                let bit = free.lowest_bit();
                let rest = free.xor(bit);
                let c_cols = cols.or(bit);
                let c_ld = ld.or(bit).shl1();
                let c_rd = rd.or(bit).shr1();
                let attacked = c_cols.or(c_ld).or(c_rd);
                let mut c_free = allowed.and_not(attacked).within(lanes[vector]);
                if forced {
                    c_free = V::force_open_sides(c_free, sides.and_not(c_cols));
                }
                parents[vector] = [cols, ld, rd, rest];
                children[vector] = [c_cols, c_ld, c_rd, c_free];
            }
            steps += take as u64;
            // Every vector was read before any is written back: boards with
            // squares left go back where they were.
            let mut new_len = base;
            for boards in parents {
                new_len = V::append(&mut rows[level], new_len, boards[3].nonzero(), boards);
            }
            levels.set_len(level, new_len);
            if level == last {
                // The children stand on row n-2 with two open columns, and
                // `c_free` holds the squares their row may take: counted in
                // closed form (see `kernel::two_rows`).
                for [c_cols, c_ld, c_rd, c_free] in children {
                    let open = mask.and_not(c_cols);
                    let low = open.lowest_bit();
                    let high = open.xor(low);
                    let bottom = last_allowed.and_not(c_ld.shl1().or(c_rd.shr1()));
                    let apart = low.shl1().differs(high);
                    let low_first = V::both(c_free.meets(low), bottom.meets(high));
                    let high_first = V::both(c_free.meets(high), bottom.meets(low));
                    solutions = solutions.count_in(V::both(apart, low_first));
                    solutions = solutions.count_in(V::both(apart, high_first));
                    upper = upper.add(c_free.popcount());
                }
                continue;
            }
            // Children with a free square wait on the next row.
            let next = level + 1;
            let mut next_len = levels.lens[next];
            for boards in children {
                next_len = V::append(&mut rows[next], next_len, boards[3].nonzero(), boards);
            }
            levels.set_len(next, next_len);
        }
        let solutions = solutions.sum();
        Tally {
            solutions,
            // Each solution adds its last-row queen.
            nodes: steps + upper.sum() + solutions,
        }
    }
}
