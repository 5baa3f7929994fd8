//! The glue's entry points built with AVX2, over the kernel's 4-lane
//! vector ([`Avx2`]).

use super::vector;
use super::{Glue, Move, Placed, PlacedRows, SouthCell};
use crate::search::disjoint::vector::Avx2;

/// [`vector::place`] on AVX2.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
pub(super) fn place(how: &Move, cell: &[u64], out: &mut [Placed; 2]) {
    // SAFETY: built with the width's features.
    unsafe { vector::place::<Avx2>(how, cell, out) }
}

/// [`vector::place_rows`] on Avx2.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
pub(super) fn place_rows(how: &Move, placements: &[u64], out: &mut PlacedRows) {
    // SAFETY: built with the width's features.
    unsafe { vector::place_rows::<Avx2>(how, placements, out) }
}

/// [`vector::join`] on AVX2.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
pub(super) fn join(
    north_checks: &[u64],
    north_keys: &[u64],
    south: SouthCell<'_>,
    left: usize,
    keys: &mut Vec<u64>,
) {
    // SAFETY: built with AVX2 and POPCNT, which `vector::join::<Avx2>`
    // needs of its caller.
    unsafe { vector::join::<Avx2>(north_checks, north_keys, south, left, keys) }
}

/// The loops with AVX2: 4 placements or pairs a step, the kept ones
/// packed by a shuffle looked up by their mask.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx2Glue(());

impl Glue for Avx2Glue {
    fn here() -> Option<Self> {
        (std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("popcnt"))
        .then_some(Avx2Glue(()))
    }

    #[inline(always)]
    fn place(self, how: &Move, cell: &[u64], out: &mut [Placed; 2]) {
        // SAFETY: the value proves the CPU has AVX2 and popcnt.
        unsafe { place(how, cell, out) }
    }

    #[inline(always)]
    fn place_rows(self, how: &Move, placements: &[u64], out: &mut PlacedRows) {
        // SAFETY: the value proves the CPU has the width's features.
        unsafe { place_rows(how, placements, out) }
    }

    #[inline(always)]
    fn join(
        self,
        north_checks: &[u64],
        north_keys: &[u64],
        south: SouthCell<'_>,
        left: usize,
        keys: &mut Vec<u64>,
    ) {
        // SAFETY: an `Avx2Glue` is made only by `here`, once it found AVX2
        // and POPCNT, which `join` is built with.
        unsafe { join(north_checks, north_keys, south, left, keys) }
    }
}
