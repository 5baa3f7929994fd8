//! Glues quadrant placements into half boards: moves a cell's placements
//! onto the board ([`Glue::place`]) and pairs every north placement with
//! every south one that it does not attack ([`Glue::join`]).
//!
//! Both are the glue of every half board a task makes: up to half the time
//! of a count at N = 18, a quarter at N = 20. Each pair and placement is a
//! few operations, so they run 8 (AVX-512) or 4 (AVX2) at a time, the
//! survivors packed to the front of the vector (a compress, or a shuffle
//! from a table on AVX2) and stored whole. The portable loops are the naive
//! twins the vector ones are tested against.
//!
//! The vector loops are written once (`vector.rs`) over the kernel's lane
//! vector trait ([`LaneVector`](crate::search::disjoint::vector::LaneVector),
//! whose widths' one-line operations live there); `widths.rs` builds
//! them for each width with its target features.

#[cfg(target_arch = "x86_64")]
mod vector;
#[cfg(target_arch = "x86_64")]
mod widths;

use super::geometry::Geometry;

/// Slots written past the end of [`Placed`] lists and of the keys a join
/// appends to: a vector loop reads and stores whole registers of 8.
pub(crate) const PAD: usize = 8;

/// Placements of one quadrant moved onto the board, as parallel lists:
/// each placement's overlap check (the diagonals the other quadrant of the
/// half can share, ANDed with the other's check) and its key. After a
/// place, the [`PAD`] slots past the end of each list are written (zeros),
/// so the vector joins read whole registers.
#[derive(Default)]
pub(crate) struct Placed {
    pub checks: Vec<u64>,
    pub keys: Vec<u64>,
}

impl Placed {
    /// Placements held.
    pub(crate) fn len(&self) -> usize {
        self.checks.len()
    }

    /// Bytes the lists hold (their capacity).
    pub(crate) fn bytes(&self) -> u64 {
        ((self.checks.capacity() + self.keys.capacity()) * 8) as u64
    }

    /// Empties both lists and makes room for `len` placements and the
    /// padding, exactly (the memory bound counts no doubling).
    fn clear_for(&mut self, len: usize) {
        for list in [&mut self.checks, &mut self.keys] {
            list.clear();
            list.reserve_exact(len + PAD);
        }
    }

    /// Sets the lengths to `len` and writes the padding past it.
    ///
    /// # Safety
    /// The first `len` slots of both lists are written, and both have
    /// room for `len + PAD`.
    unsafe fn finish(&mut self, len: usize) {
        for list in [&mut self.checks, &mut self.keys] {
            debug_assert!(list.capacity() >= len + PAD);
            // SAFETY: within the capacity (the caller's promise).
            unsafe {
                list.as_mut_ptr().add(len).write_bytes(0, PAD);
                list.set_len(len);
            }
        }
    }
}

/// A south cell's placements moved onto the board, as [`Glue::join`]
/// reads them: `len` placements, and [`PAD`] slots past them that a
/// vector loop may read (and ignore).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SouthCell<'a> {
    checks: &'a [u64],
    keys: &'a [u64],
    len: usize,
}

impl<'a> SouthCell<'a> {
    /// The placements of `placed`.
    pub(crate) fn of(placed: &'a Placed) -> SouthCell<'a> {
        // SAFETY: the placements and their padding are written (a place
        // writes the padding past its lists).
        unsafe { SouthCell::within(placed, 0, placed.len()) }
    }

    /// Placements `start..start + len` of `placed`.
    ///
    /// # Safety
    /// `start + len + PAD` slots of both lists are written (within the
    /// lists, or padding a place wrote past them).
    pub(crate) unsafe fn within(placed: &'a Placed, start: usize, len: usize) -> SouthCell<'a> {
        debug_assert!(start + len <= placed.len());
        debug_assert!(placed.checks.capacity() >= start + len + PAD);
        // SAFETY: the caller's promise: the slots are written and within
        // the lists' allocations.
        unsafe {
            SouthCell {
                checks: std::slice::from_raw_parts(placed.checks.as_ptr().add(start), len + PAD),
                keys: std::slice::from_raw_parts(placed.keys.as_ptr().add(start), len + PAD),
                len,
            }
        }
    }

    /// Placements held.
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

/// What a place of a whole row set records per step of the vector loop
/// (`width` placements): the lengths of both lists before the step, and
/// which of its placements went to each, so that any cell's span in the
/// lists is found from where it starts among the row set's placements.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct StepBase {
    pub before: [u32; 2],
    pub kept: [u16; 2],
}

/// Placements of a whole row set (every cell, one after another) moved
/// onto the board in one pass, and the steps that find a cell in them.
#[derive(Default)]
pub(crate) struct PlacedRows {
    pub lists: [Placed; 2],
    pub steps: Vec<StepBase>,
    /// Placements a step: 1 << this (a shift, not a division, finds a
    /// step: a division cost 4% of a count of N = 18).
    pub width_log: u32,
}

/// `f` of each class, 0 then 1: written out, where `[0, 1].map` was
/// left a call (1% of a count of N = 18).
#[inline(always)]
pub(crate) fn by_class<T>(mut f: impl FnMut(usize) -> T) -> [T; 2] {
    [f(0), f(1)]
}

impl PlacedRows {
    /// Where the placements from `start` on (among the row set's) begin
    /// in each list.
    #[inline(always)]
    pub(crate) fn position(&self, start: usize) -> [usize; 2] {
        let step = self.steps[start >> self.width_log];
        let below = (1u32 << (start & ((1 << self.width_log) - 1))) - 1;
        by_class(|class| {
            step.before[class] as usize
                + (u32::from(step.kept[class]) & below).count_ones() as usize
        })
    }

    /// Bytes the buffers hold.
    pub(crate) fn bytes(&self) -> u64 {
        self.lists.iter().map(Placed::bytes).sum::<u64>()
            + (self.steps.capacity() * std::mem::size_of::<StepBase>()) as u64
    }
}

/// How a quadrant's placements move onto the board for one half: the
/// shifts from local to board diagonals, the diagonals the half must leave
/// free, where the overlap check and the key are cut from, and the class
/// diagonals that sort placements into two lists.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Move {
    /// Shifts of the local diagonals (`i - j + side - 1` in the low 32
    /// bits of a placement, `i + j` in the high) to the board's.
    pub shifts: (u32, u32),
    /// Shifts taking the diagonals both quadrants reach to the low bits.
    pub overlap: (u32, u32),
    /// Board diagonals no placement may take.
    pub forbid: (u64, u64),
    /// The board, whose crossing diagonals make the key.
    pub geo: Geometry,
    /// Key bits of the class diagonals: a placement taking one goes to the
    /// second list.
    pub class_keys: u64,
}

impl Move {
    /// The overlap check and key of a placement, whether the half allows
    /// it, and whether it is in the class.
    #[inline(always)]
    fn apply(&self, diag: u64) -> (u64, u64, bool, bool) {
        let d1 = (diag & 0xffff_ffff) << self.shifts.0;
        let d2 = (diag >> 32) << self.shifts.1;
        let allowed = d1 & self.forbid.0 | d2 & self.forbid.1 == 0;
        let check = (d1 >> self.overlap.0) | (d2 >> self.overlap.1) << 32;
        let key = self.geo.key(d1, d2);
        (check, key, allowed, key & self.class_keys != 0)
    }
}

/// Empties both lists of `out` for a cell of `len` placements; returns
/// where their slots start: checks and keys outside the class, then inside.
#[inline(always)]
fn start_place(out: &mut [Placed; 2], len: usize) -> [*mut u64; 4] {
    let [plain, classed] = out;
    plain.clear_for(len);
    classed.clear_for(len);
    [
        plain.checks.as_mut_ptr(),
        plain.keys.as_mut_ptr(),
        classed.checks.as_mut_ptr(),
        classed.keys.as_mut_ptr(),
    ]
}

/// Sets the lengths of the lists a place wrote, with their padding.
///
/// # Safety
/// As [`Placed::finish`], for each list of `out` (opened by
/// [`start_place`] for at least as many placements).
#[inline(always)]
unsafe fn finish_place(out: &mut [Placed; 2], plain_len: usize, classed_len: usize) {
    let [plain, classed] = out;
    // SAFETY: the caller's promise.
    unsafe {
        plain.finish(plain_len);
        classed.finish(classed_len);
    }
}

/// The loops that glue half boards, for one kind of CPU. A value is proof
/// that this CPU runs them: [`Glue::here`] makes one only after checking.
pub(crate) trait Glue: Copy {
    /// This glue, if this CPU runs it.
    fn here() -> Option<Self>;

    /// Moves `cell`'s placements onto the board by `how` into `out`: those
    /// the half allows, outside the class into `out[0]` and inside into
    /// `out[1]` (each in cell order).
    fn place(self, how: &Move, cell: &[u64], out: &mut [Placed; 2]);

    /// [`Glue::place`] of every placement of a row set at once (its
    /// cells one after another), recording in `out.steps` where each
    /// cell's placements land ([`PlacedRows::position`]).
    fn place_rows(self, how: &Move, placements: &[u64], out: &mut PlacedRows);

    /// Appends to `keys` the key (OR) of every pair of a north placement
    /// (`north_checks`, `north_keys`) and a south one whose checks are
    /// disjoint, north by north, each in south order. `left`: keys the
    /// part still takes, to reserve at once.
    fn join(
        self,
        north_checks: &[u64],
        north_keys: &[u64],
        south: SouthCell<'_>,
        left: usize,
        keys: &mut Vec<u64>,
    );
}

/// Ends a [`Glue::place_rows`]: the step past the last (where a cell
/// ending with the row set is found).
fn finish_rows(out: &mut PlacedRows) {
    out.steps.push(StepBase {
        before: [out.lists[0].len() as u32, out.lists[1].len() as u32],
        kept: [0, 0],
    });
}

/// Makes room in `keys` for `pairs` more keys and the padding: grown to
/// what the part has `left` to take, exactly (a doubling would hold up
/// to twice the part, past what the memory bound counts), at most doubled
/// on the way (`left` is unbounded where every key is wanted at once).
#[inline(always)]
fn reserve_keys(keys: &mut Vec<u64>, pairs: usize, left: usize) {
    if keys.capacity() - keys.len() < pairs + PAD {
        keys.reserve_exact((pairs + PAD).max(left.min(keys.capacity())));
    }
}

/// The loops in plain Rust: any CPU, and the naive twins of the others.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PortableGlue;

impl Glue for PortableGlue {
    fn here() -> Option<Self> {
        Some(PortableGlue)
    }

    /// Branch-free: each placement is written to both lists and kept by
    /// one (or none).
    #[inline(always)]
    fn place(self, how: &Move, cell: &[u64], out: &mut [Placed; 2]) {
        let lists = start_place(out, cell.len());
        let (mut plain_len, mut classed_len) = (0, 0);
        for &diag in cell {
            let (check, key, allowed, in_class) = how.apply(diag);
            // SAFETY: each list has room for the cell, and a length stays
            // at or below the placements seen.
            unsafe {
                lists[0].add(plain_len).write(check);
                lists[1].add(plain_len).write(key);
                lists[2].add(classed_len).write(check);
                lists[3].add(classed_len).write(key);
            }
            plain_len += usize::from(allowed & !in_class);
            classed_len += usize::from(allowed & in_class);
        }
        // SAFETY: a length only grows past a slot just written; room for
        // the padding was made.
        unsafe { finish_place(out, plain_len, classed_len) }
    }

    /// Four placements a step, each placed as [`Glue::place`] does.
    fn place_rows(self, how: &Move, placements: &[u64], out: &mut PlacedRows) {
        const WIDTH: usize = 4;
        out.width_log = WIDTH.trailing_zeros();
        out.steps.clear();
        // A step per WIDTH placements and the one past the last, exactly
        // (the memory bound counts no doubling).
        out.steps
            .reserve_exact(placements.len().div_ceil(WIDTH) + 1);
        let lists = start_place(&mut out.lists, placements.len());
        let mut lens = [0usize; 2];
        for step in placements.chunks(WIDTH) {
            let mut base = StepBase {
                before: lens.map(|len| len as u32),
                kept: [0, 0],
            };
            // Branch-free, as `place`: a branch on each placement's
            // class took a third of the portable count's placing.
            for (lane, &diag) in step.iter().enumerate() {
                let (check, key, allowed, in_class) = how.apply(diag);
                // SAFETY: each list has room for every placement, and a
                // length stays at or below the placements seen.
                unsafe {
                    lists[0].add(lens[0]).write(check);
                    lists[1].add(lens[0]).write(key);
                    lists[2].add(lens[1]).write(check);
                    lists[3].add(lens[1]).write(key);
                }
                let kept = [allowed & !in_class, allowed & in_class];
                for (class, kept) in kept.into_iter().enumerate() {
                    lens[class] += usize::from(kept);
                    base.kept[class] |= u16::from(kept) << lane;
                }
            }
            out.steps.push(base);
        }
        // SAFETY: the first lengths' slots were written; room for the
        // padding was made.
        unsafe { finish_place(&mut out.lists, lens[0], lens[1]) };
        finish_rows(out);
    }

    /// Branch-free: every pair is written, and the length only moves past
    /// the good ones (about half of them die, in no pattern a predictor
    /// could learn).
    #[inline(always)]
    fn join(
        self,
        north_checks: &[u64],
        north_keys: &[u64],
        south: SouthCell<'_>,
        left: usize,
        keys: &mut Vec<u64>,
    ) {
        let pairs = north_checks.len() * south.len();
        reserve_keys(keys, pairs, left);
        let start = keys.len();
        let slots = &mut keys.spare_capacity_mut()[..pairs];
        let mut len = 0;
        let (south_checks, south_keys) = (&south.checks[..south.len], &south.keys[..south.len]);
        for (&north_check, &north_key) in north_checks.iter().zip(north_keys) {
            for (&south_check, &south_key) in south_checks.iter().zip(south_keys) {
                slots[len].write(north_key | south_key);
                len += usize::from(north_check & south_check == 0);
            }
        }
        // SAFETY: the first `len` slots were written: the length only
        // grows past a slot just written.
        unsafe { keys.set_len(start + len) };
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) use widths::{Avx2Glue, Avx512Glue};

#[cfg(test)]
mod tests;
