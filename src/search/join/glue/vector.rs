//! The glue's vector loops, written once for every width.
//!
//! The bodies are generic over [`GlueVector`], whose methods are one or two
//! intrinsics each; every width's entry points (`avx512.rs`, `avx2.rs`) are
//! functions built with that width's target features that call these
//! bodies, so everything is inlined and compiled for those features. The
//! kept values are packed to the front of a vector (a compress on AVX-512,
//! a shuffle from a table on AVX2) and stored whole.

use std::arch::x86_64::__m128i;

use super::{finish_place, reserve_keys, start_place, Move, Placed, PAD};

/// A vector of u64 lanes and the operations the glue takes on it.
///
/// # Safety
/// Every method runs instructions of its width: call them only from a
/// function built with that width's target features, on a CPU that has
/// them.
pub(super) trait GlueVector: Copy {
    /// Values per vector.
    const WIDTH: usize;
    /// One flag per lane.
    type Lanes: Copy + PartialEq;

    /// Every lane.
    const ALL: Self::Lanes;
    /// The first `left` lanes (all of them when `left` >= WIDTH).
    fn first_lanes(left: usize) -> Self::Lanes;
    /// The lanes of `first` not in `second`.
    fn and_not(first: Self::Lanes, second: Self::Lanes) -> Self::Lanes;
    /// How many lanes are set.
    fn count(lanes: Self::Lanes) -> usize;

    /// `word` in every lane.
    unsafe fn splat(word: u64) -> Self;
    /// [`Self::WIDTH`] values from `from`.
    unsafe fn load(from: *const u64) -> Self;
    /// The values of `lanes` from `from`, reading only those lanes' slots
    /// (0 in the others).
    unsafe fn load_within(from: *const u64, lanes: Self::Lanes) -> Self;
    /// `self & other` in every lane.
    unsafe fn and(self, other: Self) -> Self;
    /// `self | other` in every lane.
    unsafe fn or(self, other: Self) -> Self;
    /// Every lane shifted left by `count` (a count in the low u64).
    unsafe fn shl(self, count: __m128i) -> Self;
    /// Every lane shifted right by `count`.
    unsafe fn shr(self, count: __m128i) -> Self;
    /// Every lane shifted left by 32.
    unsafe fn shl32(self) -> Self;
    /// Every lane shifted right by 32.
    unsafe fn shr32(self) -> Self;
    /// The lanes of `lanes` where `self & other` is 0.
    unsafe fn disjoint_within(self, other: Self, lanes: Self::Lanes) -> Self::Lanes;
    /// The lanes of `lanes` where `self & other` is not 0.
    unsafe fn meets_within(self, other: Self, lanes: Self::Lanes) -> Self::Lanes;
    /// Writes the values of `kept`, packed to the front, to the
    /// [`Self::WIDTH`] slots from `to`.
    unsafe fn store_packed(self, to: *mut u64, kept: Self::Lanes);
}

/// A shift count for [`GlueVector::shl`] and [`GlueVector::shr`].
#[inline(always)]
unsafe fn shift_count(bits: u32) -> __m128i {
    // SAFETY: SSE2, which every x86-64 CPU has.
    unsafe { std::arch::x86_64::_mm_cvtsi64_si128(i64::from(bits)) }
}

/// [`super::Glue::place`], [`GlueVector::WIDTH`] placements a step.
///
/// # Safety
/// As [`GlueVector`].
#[inline(always)]
pub(super) unsafe fn place<V: GlueVector>(how: &Move, cell: &[u64], out: &mut [Placed; 2]) {
    // Most moves have no class (every east half): half the packing then
    // goes.
    if how.class_keys == 0 {
        // SAFETY: the caller's promise.
        unsafe { place_in::<V, false>(how, cell, out) }
    } else {
        // SAFETY: the caller's promise.
        unsafe { place_in::<V, true>(how, cell, out) }
    }
}

/// [`place`], with or without a class list (`CLASSED`: `how.class_keys`
/// is not 0).
///
/// # Safety
/// As [`GlueVector`].
#[inline(always)]
unsafe fn place_in<V: GlueVector, const CLASSED: bool>(
    how: &Move,
    cell: &[u64],
    out: &mut [Placed; 2],
) {
    let lists = start_place(out, cell.len());
    // SAFETY: the caller's promise (the width's features).
    unsafe {
        let (shift1, shift2) = (shift_count(how.shifts.0), shift_count(how.shifts.1));
        let (overlap1, overlap2) = (shift_count(how.overlap.0), shift_count(how.overlap.1));
        let (lo, width) = (shift_count(how.geo.lo), shift_count(how.geo.width));
        let low_half = V::splat(0xffff_ffff);
        let forbid1 = V::splat(how.forbid.0);
        let forbid2 = V::splat(how.forbid.1);
        let mask = V::splat(how.geo.crossing_mask());
        let class_keys = V::splat(how.class_keys);
        let (mut plain_len, mut classed_len) = (0, 0);
        for start in (0..cell.len()).step_by(V::WIDTH) {
            let valid = V::first_lanes(cell.len() - start);
            // A whole step reads WIDTH of the cell's slots; the last reads
            // only its own.
            let diag = V::load_within(cell.as_ptr().add(start), valid);
            let d1 = diag.and(low_half).shl(shift1);
            let d2 = diag.shr32().shl(shift2);
            let hits = d1.and(forbid1).or(d2.and(forbid2));
            let allowed = hits.disjoint_within(hits, valid);
            let check = d1.shr(overlap1).or(d2.shr(overlap2).shl32());
            let key = d1.shr(lo).and(mask).or(d2.shr(lo).and(mask).shl(width));
            // A length stays at or below the placements seen, and each
            // list has room for the cell and PAD more: WIDTH slots from
            // any length fit.
            if CLASSED {
                let in_class = key.meets_within(class_keys, allowed);
                let outside = V::and_not(allowed, in_class);
                check.store_packed(lists[0].add(plain_len), outside);
                key.store_packed(lists[1].add(plain_len), outside);
                check.store_packed(lists[2].add(classed_len), in_class);
                key.store_packed(lists[3].add(classed_len), in_class);
                plain_len += V::count(outside);
                classed_len += V::count(in_class);
            } else {
                check.store_packed(lists[0].add(plain_len), allowed);
                key.store_packed(lists[1].add(plain_len), allowed);
                plain_len += V::count(allowed);
            }
        }
        // The first lengths' slots were written (packed to the front of
        // each store); room for the padding was made.
        finish_place(out, plain_len, classed_len)
    }
}

/// [`super::Glue::join`], [`GlueVector::WIDTH`] pairs a step.
///
/// # Safety
/// As [`GlueVector`].
#[inline(always)]
pub(super) unsafe fn join<V: GlueVector>(
    north_checks: &[u64],
    north_keys: &[u64],
    south: &Placed,
    left: usize,
    keys: &mut Vec<u64>,
) {
    let pairs = north_checks.len() * south.len();
    reserve_keys(keys, pairs, left);
    let start = keys.len();
    let out = keys.as_mut_ptr();
    let mut len = start;
    let steps = south.len().div_ceil(V::WIDTH);
    let last = V::first_lanes(south.len() - (steps.max(1) - 1) * V::WIDTH);
    for (&north_check, &north_key) in north_checks.iter().zip(north_keys) {
        // SAFETY: the caller's promise (the width's features). The south
        // lists are padded past their end (a step reads at most WIDTH - 1
        // slots past it), and `keys` has room for every pair and PAD more,
        // so WIDTH slots from any length.
        unsafe {
            let north_check = V::splat(north_check);
            let north_key = V::splat(north_key);
            for step in 0..steps {
                let valid = if step + 1 == steps { last } else { V::ALL };
                let at = V::WIDTH * step;
                let checks = V::load(south.checks.as_ptr().add(at));
                let south_keys = V::load(south.keys.as_ptr().add(at));
                let kept = checks.disjoint_within(north_check, valid);
                south_keys.or(north_key).store_packed(out.add(len), kept);
                len += V::count(kept);
            }
        }
    }
    debug_assert!(len <= start + pairs && len + PAD <= keys.capacity());
    // SAFETY: the first `len` slots were written.
    unsafe { keys.set_len(len) };
}

/// [`super::keep_disjoint`], [`GlueVector::WIDTH`] values a step; the
/// last few values are left to the portable loop.
///
/// # Safety
/// As [`GlueVector`].
#[inline(always)]
pub(super) unsafe fn keep_disjoint<V: GlueVector>(
    values: &[u64],
    test: u64,
    out: &mut [u64],
) -> usize {
    let steps = values.len() / V::WIDTH;
    let mut len = 0;
    // SAFETY: the caller's promise (the width's features). A step reads
    // its WIDTH values; the store writes WIDTH slots from `len`, which is
    // at most the values before this step, so within `out` (as long as
    // `values`).
    unsafe {
        let test = V::splat(test);
        for step in 0..steps {
            let lanes = V::load(values.as_ptr().add(V::WIDTH * step));
            let kept = lanes.disjoint_within(test, V::ALL);
            lanes.store_packed(out.as_mut_ptr().add(len), kept);
            len += V::count(kept);
        }
    }
    let rest = &values[V::WIDTH * steps..];
    len + super::keep_disjoint_portable(rest, test, &mut out[len..])
}

/// The vector steps of [`super::split_by_bit`], [`GlueVector::WIDTH`]
/// keys a step; the last few keys are left to the portable loop.
///
/// # Safety
/// As [`GlueVector`].
#[inline(always)]
pub(super) unsafe fn split_by_bit<V: GlueVector>(
    keys: &mut [u64],
    bit: u64,
    taken: &mut [u64],
) -> (usize, usize) {
    let (mut free_len, mut taken_len) = (0, 0);
    let steps = keys.len() / V::WIDTH;
    let (keys_at, taken_at) = (keys.as_mut_ptr(), taken.as_mut_ptr());
    // SAFETY: the caller's promise (the width's features). The load reads
    // the step's WIDTH keys; each store writes WIDTH slots from a length
    // that is at most the keys before this step: within both lists, and
    // in `keys` only over keys already read.
    unsafe {
        let lanes_bit = V::splat(bit);
        for step in 0..steps {
            let lanes = V::load(keys_at.add(V::WIDTH * step));
            let takes = lanes.meets_within(lanes_bit, V::ALL);
            let frees = V::and_not(V::ALL, takes);
            lanes.store_packed(keys_at.add(free_len), frees);
            lanes.store_packed(taken_at.add(taken_len), takes);
            let took = V::count(takes);
            free_len += V::WIDTH - took;
            taken_len += took;
        }
    }
    super::split_by_bit_from(keys, V::WIDTH * steps, (free_len, taken_len), bit, taken)
}
