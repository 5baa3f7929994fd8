//! The glue's vector loops, written once for every width.
//!
//! The bodies are generic over [`LaneVector`], whose methods are one or two
//! intrinsics each; every width's entry points (made in `widths.rs`) are
//! functions built with that width's target features that call these
//! bodies, so everything is inlined and compiled for those features. The
//! kept values are packed to the front of a vector (a compress on AVX-512,
//! a shuffle from a table on AVX2) and stored whole.

use std::arch::x86_64::__m128i;

use super::{
    finish_place, finish_rows, reserve_keys, start_place, Move, Placed, PlacedRows, SouthCell,
    StepBase, PAD,
};
use crate::search::disjoint::vector::LaneVector;

/// A shift count for [`LaneVector::shl`] and [`LaneVector::shr`].
#[inline(always)]
unsafe fn shift_count(bits: u32) -> __m128i {
    // SAFETY: SSE2, which every x86-64 CPU has.
    unsafe { std::arch::x86_64::_mm_cvtsi64_si128(i64::from(bits)) }
}

/// [`super::Glue::place`], [`LaneVector::WIDTH`] placements a step.
///
/// # Safety
/// As [`LaneVector`].
#[inline(always)]
pub(super) unsafe fn place<V: LaneVector>(how: &Move, cell: &[u64], out: &mut [Placed; 2]) {
    // Most moves have no class (every east half): half the packing then
    // goes.
    if how.class_keys == 0 {
        // SAFETY: the caller's promise.
        unsafe { place_in::<V, false, false>(how, cell, out, &mut Vec::new()) }
    } else {
        // SAFETY: the caller's promise.
        unsafe { place_in::<V, true, false>(how, cell, out, &mut Vec::new()) }
    }
}

/// [`super::Glue::place_rows`], [`LaneVector::WIDTH`] placements a step.
///
/// # Safety
/// As [`LaneVector`].
#[inline(always)]
pub(super) unsafe fn place_rows<V: LaneVector>(
    how: &Move,
    placements: &[u64],
    out: &mut PlacedRows,
) {
    debug_assert!(V::WIDTH.is_power_of_two());
    out.width_log = V::WIDTH.trailing_zeros();
    out.steps.clear();
    // A step per WIDTH placements and the one past the last, exactly.
    out.steps
        .reserve_exact(placements.len().div_ceil(V::WIDTH) + 1);
    let PlacedRows { lists, steps, .. } = out;
    if how.class_keys == 0 {
        // SAFETY: the caller's promise.
        unsafe { place_in::<V, false, true>(how, placements, lists, steps) }
    } else {
        // SAFETY: the caller's promise.
        unsafe { place_in::<V, true, true>(how, placements, lists, steps) }
    }
    finish_rows(out);
}

/// [`place`], with or without a class list (`CLASSED`: `how.class_keys`
/// is not 0), recording each step in `steps` if `STEPS`.
///
/// # Safety
/// As [`LaneVector`].
#[inline(always)]
unsafe fn place_in<V: LaneVector, const CLASSED: bool, const STEPS: bool>(
    how: &Move,
    cell: &[u64],
    out: &mut [Placed; 2],
    steps: &mut Vec<StepBase>,
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
                if STEPS {
                    steps.push(StepBase {
                        before: [plain_len as u32, classed_len as u32],
                        kept: [V::bits(outside) as u16, V::bits(in_class) as u16],
                    });
                }
                check.store_packed(lists[0].add(plain_len), outside);
                key.store_packed(lists[1].add(plain_len), outside);
                check.store_packed(lists[2].add(classed_len), in_class);
                key.store_packed(lists[3].add(classed_len), in_class);
                plain_len += V::count(outside);
                classed_len += V::count(in_class);
            } else {
                if STEPS {
                    steps.push(StepBase {
                        before: [plain_len as u32, 0],
                        kept: [V::bits(allowed) as u16, 0],
                    });
                }
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

/// [`super::Glue::join`], [`LaneVector::WIDTH`] pairs a step.
///
/// # Safety
/// As [`LaneVector`].
#[inline(always)]
pub(super) unsafe fn join<V: LaneVector>(
    north_checks: &[u64],
    north_keys: &[u64],
    south: SouthCell<'_>,
    left: usize,
    keys: &mut Vec<u64>,
) {
    let pairs = north_checks.len() * south.len();
    reserve_keys(keys, pairs, left);
    let start = keys.len();
    let out = keys.as_mut_ptr();
    let mut len = start;
    // A quarter of the north placements at N = 18 meet one or two south
    // ones: a step over one north placement would fill only a quarter or
    // half of its lanes, so these steps take several.
    if south.len() <= 2 {
        let norths = north_checks.len();
        // SAFETY: the caller's promise (the width's features); each step
        // reads only the north slots of its lanes, and `keys` has room
        // for every pair and PAD more, so WIDTH slots from any length.
        unsafe {
            if south.len() == 1 {
                let south_check = V::splat(south.checks[0]);
                let south_key = V::splat(south.keys[0]);
                for at in (0..norths).step_by(V::WIDTH) {
                    let valid = V::first_lanes(norths - at);
                    let checks = V::load_within(north_checks.as_ptr().add(at), valid);
                    let north_keys = V::load_within(north_keys.as_ptr().add(at), valid);
                    let kept = checks.disjoint_within(south_check, valid);
                    north_keys.or(south_key).store_packed(out.add(len), kept);
                    len += V::count(kept);
                }
            } else if south.len() == 2 {
                // North placements in lane pairs, each against the two
                // south ones: the pairs in north order, each in south
                // order.
                let south_checks = V::splat_pair(south.checks[0], south.checks[1]);
                let south_keys = V::splat_pair(south.keys[0], south.keys[1]);
                for at in (0..norths).step_by(V::WIDTH / 2) {
                    let valid = V::first_lanes(2 * (norths - at));
                    let checks = V::load_doubled(north_checks.as_ptr().add(at), norths - at);
                    let north_keys = V::load_doubled(north_keys.as_ptr().add(at), norths - at);
                    let kept = checks.disjoint_within(south_checks, valid);
                    north_keys.or(south_keys).store_packed(out.add(len), kept);
                    len += V::count(kept);
                }
            }
        }
        debug_assert!(len <= start + pairs && len + PAD <= keys.capacity());
        // SAFETY: the first `len` slots were written.
        unsafe { keys.set_len(len) };
        return;
    }
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
