//! The glue's entry points built with AVX-512F, over the kernel's 8-lane
//! vector ([`Avx512`]).

use super::vector;
use super::{Glue, Move, Placed, PlacedRows, SouthCell};
use crate::search::disjoint::vector::Avx512;

/// [`vector::place`] on AVX-512F.
#[target_feature(enable = "avx512f,popcnt")]
#[inline]
pub(super) fn place(how: &Move, cell: &[u64], out: &mut [Placed; 2]) {
    // SAFETY: built with the width's features.
    unsafe { vector::place::<Avx512>(how, cell, out) }
}

/// [`vector::place_rows`] on Avx512.
#[target_feature(enable = "avx512f,popcnt")]
#[inline]
pub(super) fn place_rows(how: &Move, placements: &[u64], out: &mut PlacedRows) {
    // SAFETY: built with the width's features.
    unsafe { vector::place_rows::<Avx512>(how, placements, out) }
}

/// [`vector::join`] on AVX-512F.
#[target_feature(enable = "avx512f,popcnt")]
#[inline]
pub(super) fn join(
    north_checks: &[u64],
    north_keys: &[u64],
    south: SouthCell<'_>,
    left: usize,
    keys: &mut Vec<u64>,
) {
    // SAFETY: built with AVX-512F and POPCNT, which
    // `vector::join::<Avx512>` needs of its caller.
    unsafe { vector::join::<Avx512>(north_checks, north_keys, south, left, keys) }
}

/// The loops with AVX-512F: 8 placements or pairs a step, the kept ones
/// packed by a compress.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx512Glue(());

impl Glue for Avx512Glue {
    fn here() -> Option<Self> {
        (std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("popcnt"))
        .then_some(Avx512Glue(()))
    }

    #[inline(always)]
    fn place(self, how: &Move, cell: &[u64], out: &mut [Placed; 2]) {
        // SAFETY: the value proves the CPU has AVX-512F.
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
        // SAFETY: an `Avx512Glue` is made only by `here`, once it found
        // AVX-512F and POPCNT, which `join` is built with.
        unsafe { join(north_checks, north_keys, south, left, keys) }
    }
}
