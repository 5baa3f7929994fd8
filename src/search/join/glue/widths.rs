//! The glue's entry points for each x86 vector width: the loops of
//! `vector.rs` built with the width's target features, behind a [`Glue`]
//! whose value proves the CPU has them. One macro makes both widths, so
//! they differ only in what they name.

use super::vector;
use super::{Glue, Move, Placed, PlacedRows, SouthCell};
use crate::search::disjoint::vector::{Avx2, Avx512};

/// A width's glue `$glue` over the lane vector `$lanes`: its loops built
/// with the features `$features`, its value made only where the CPU has
/// each of `$detect`, which must cover them.
macro_rules! width_glue {
    ($(#[$doc:meta])* $glue:ident, $lanes:ident, $features:tt, [$($detect:tt),+]) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub(crate) struct $glue(());

        impl $glue {
            /// [`vector::place`] built with the width's features.
            #[target_feature(enable = $features)]
            #[inline]
            fn place_built(how: &Move, cell: &[u64], out: &mut [Placed; 2]) {
                // SAFETY: built with the width's features, which the loop
                // needs of its caller.
                unsafe { vector::place::<$lanes>(how, cell, out) }
            }

            /// [`vector::place_rows`] built with the width's features.
            #[target_feature(enable = $features)]
            #[inline]
            fn place_rows_built(how: &Move, placements: &[u64], out: &mut PlacedRows) {
                crate::search::frame::align_frame();
                // SAFETY: as above.
                unsafe { vector::place_rows::<$lanes>(how, placements, out) }
            }

            /// [`vector::join`] built with the width's features.
            #[target_feature(enable = $features)]
            #[inline]
            fn join_built(
                north_checks: &[u64],
                north_keys: &[u64],
                south: SouthCell<'_>,
                left: usize,
                keys: &mut Vec<u64>,
            ) {
                // SAFETY: as above.
                unsafe { vector::join::<$lanes>(north_checks, north_keys, south, left, keys) }
            }
        }

        impl Glue for $glue {
            fn here() -> Option<Self> {
                ($(std::arch::is_x86_feature_detected!($detect))&&+).then_some($glue(()))
            }

            #[inline(always)]
            fn place(self, how: &Move, cell: &[u64], out: &mut [Placed; 2]) {
                // SAFETY: the value is made only by `here`, once it found
                // the features the loops are built with.
                unsafe { Self::place_built(how, cell, out) }
            }

            #[inline(always)]
            fn place_rows(self, how: &Move, placements: &[u64], out: &mut PlacedRows) {
                // SAFETY: as in `place`.
                unsafe { Self::place_rows_built(how, placements, out) }
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
                // SAFETY: as in `place`.
                unsafe { Self::join_built(north_checks, north_keys, south, left, keys) }
            }
        }
    };
}

width_glue!(
    /// The loops with AVX-512F: 8 placements or pairs a step, the kept
    /// ones packed by a compress.
    Avx512Glue,
    Avx512,
    "avx512f,popcnt",
    ["avx512f", "popcnt"]
);

width_glue!(
    /// The loops with AVX2: 4 placements or pairs a step, the kept ones
    /// packed by a shuffle looked up by their mask.
    Avx2Glue,
    Avx2,
    "avx2,popcnt",
    ["avx2", "popcnt"]
);
