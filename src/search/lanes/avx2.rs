//! Four boards per vector with AVX2: lane flags are all-ones lanes, and a
//! shuffle from a 16-entry table ([`crate::search::pack`]) stands in for
//! AVX-512's compress.

use std::arch::x86_64::*;

use super::search::{search as lane_search, LaneVector};
use super::Row;
use crate::search::board::{Board, RowBounds, Tally, MAX_N};
use crate::search::pack::pack_order;

/// Four lanes of 64 bits.
#[derive(Clone, Copy)]
pub(super) struct Avx2(__m256i);

/// The lane search on AVX2 (Haswell and later, Zen).
///
/// # Safety
/// The CPU must have AVX2, POPCNT and BMI1.
#[target_feature(enable = "avx2,popcnt,bmi1")]
pub(super) unsafe fn search(
    n: u32,
    start: Board,
    bounds: &RowBounds,
    rows: &mut [Row; MAX_N as usize],
) -> Tally {
    // SAFETY: this function is built with AVX2, which its own contract promises the CPU has; the
    // lane methods it inlines need no more (LaneVector's contract).
    unsafe { lane_search::<Avx2>(n, start, bounds, rows) }
}

impl LaneVector for Avx2 {
    const WIDTH: usize = 4;
    /// All ones in a lane that is set.
    type Lanes = __m256i;

    #[inline(always)]
    unsafe fn splat(word: u64) -> Self {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe { Avx2(_mm256_set1_epi64x(word as i64)) }
    }

    #[inline(always)]
    unsafe fn load(words: &[u64]) -> Self {
        let words = &words[..4];
        // SAFETY: `words` was cut to one vector's words above, so the unaligned load reads inside
        // it; AVX2 by LaneVector's contract.
        unsafe { Avx2(_mm256_loadu_si256(words.as_ptr().cast())) }
    }

    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe { Avx2(_mm256_and_si256(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe { Avx2(_mm256_or_si256(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe { Avx2(_mm256_xor_si256(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn and_not(self, other: Self) -> Self {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe { Avx2(_mm256_andnot_si256(other.0, self.0)) }
    }

    #[inline(always)]
    unsafe fn lowest_bit(self) -> Self {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe {
            let negated = _mm256_sub_epi64(_mm256_setzero_si256(), self.0);
            Avx2(_mm256_and_si256(self.0, negated))
        }
    }

    #[inline(always)]
    unsafe fn shl1(self) -> Self {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe { Avx2(_mm256_slli_epi64::<1>(self.0)) }
    }

    #[inline(always)]
    unsafe fn shr1(self) -> Self {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe { Avx2(_mm256_srli_epi64::<1>(self.0)) }
    }

    #[inline(always)]
    unsafe fn add(self, other: Self) -> Self {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe { Avx2(_mm256_add_epi64(self.0, other.0)) }
    }

    /// Shifts and adds: pairs, nibbles, then the four low bytes summed
    /// into the lowest (AVX2 has no lane popcount).
    #[inline(always)]
    unsafe fn popcount(self) -> Self {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe {
            let words = self.0;
            let pairs = _mm256_sub_epi64(
                words,
                _mm256_and_si256(
                    _mm256_srli_epi64::<1>(words),
                    _mm256_set1_epi64x(0x5555_5555),
                ),
            );
            let quads = _mm256_add_epi64(
                _mm256_and_si256(pairs, _mm256_set1_epi64x(0x3333_3333)),
                _mm256_and_si256(
                    _mm256_srli_epi64::<2>(pairs),
                    _mm256_set1_epi64x(0x3333_3333),
                ),
            );
            let bytes = _mm256_and_si256(
                _mm256_add_epi64(quads, _mm256_srli_epi64::<4>(quads)),
                _mm256_set1_epi64x(0x0f0f_0f0f),
            );
            let halves = _mm256_add_epi64(bytes, _mm256_srli_epi64::<8>(bytes));
            let sum = _mm256_add_epi64(halves, _mm256_srli_epi64::<16>(halves));
            Avx2(_mm256_and_si256(sum, _mm256_set1_epi64x(0x3f)))
        }
    }

    #[inline(always)]
    unsafe fn sum(self) -> u64 {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe {
            let mut lanes = [0u64; 4];
            _mm256_storeu_si256(lanes.as_mut_ptr().cast(), self.0);
            lanes.iter().sum()
        }
    }

    #[inline(always)]
    unsafe fn first_lanes(count: usize) -> __m256i {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe {
            let bits = (1i64 << count.min(4)) - 1;
            let each = _mm256_setr_epi64x(1, 2, 4, 8);
            _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_set1_epi64x(bits), each), each)
        }
    }

    #[inline(always)]
    unsafe fn within(self, lanes: __m256i) -> Self {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe { Avx2(_mm256_and_si256(self.0, lanes)) }
    }

    #[inline(always)]
    unsafe fn nonzero(self) -> __m256i {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe {
            let is_zero = _mm256_cmpeq_epi64(self.0, _mm256_setzero_si256());
            _mm256_xor_si256(is_zero, _mm256_set1_epi64x(-1))
        }
    }

    #[inline(always)]
    unsafe fn meets(self, other: Self) -> __m256i {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe { self.and(other).nonzero() }
    }

    #[inline(always)]
    unsafe fn differs(self, other: Self) -> __m256i {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe {
            let equal = _mm256_cmpeq_epi64(self.0, other.0);
            _mm256_xor_si256(equal, _mm256_set1_epi64x(-1))
        }
    }

    #[inline(always)]
    unsafe fn both(first: __m256i, second: __m256i) -> __m256i {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe { _mm256_and_si256(first, second) }
    }

    /// A set lane is all ones, -1: subtracting it adds one.
    #[inline(always)]
    unsafe fn count_in(self, lanes: __m256i) -> Self {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe { Avx2(_mm256_sub_epi64(self.0, lanes)) }
    }

    #[inline(always)]
    unsafe fn force_open_sides(free: Self, open_sides: Self) -> Self {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe {
            let (free, open) = (free.0, open_sides.0);
            let zero = _mm256_setzero_si256();
            let none_open = _mm256_cmpeq_epi64(open, zero);
            let below = _mm256_sub_epi64(open, _mm256_set1_epi64x(1));
            let at_most_one = _mm256_cmpeq_epi64(_mm256_and_si256(open, below), zero);
            let one_open = _mm256_andnot_si256(none_open, at_most_one);
            let cut = _mm256_and_si256(_mm256_and_si256(free, open), one_open);
            Avx2(_mm256_blendv_epi8(cut, free, none_open))
        }
    }

    #[inline(always)]
    unsafe fn append(row: &mut Row, at: usize, lanes: __m256i, boards: [Self; 4]) -> usize {
        // SAFETY: AVX2 instructions on registers, written through `store`, which cuts its slice to
        // one vector's words; AVX2 by LaneVector's contract.
        unsafe {
            let keep = _mm256_movemask_pd(_mm256_castsi256_pd(lanes)) as usize;
            let pack = pack_order(keep);
            let [cols, ld, rd, free] = boards;
            store(
                &mut row.cols[at..],
                _mm256_permutevar8x32_epi32(cols.0, pack),
            );
            store(&mut row.ld[at..], _mm256_permutevar8x32_epi32(ld.0, pack));
            store(&mut row.rd[at..], _mm256_permutevar8x32_epi32(rd.0, pack));
            store(
                &mut row.free[at..],
                _mm256_permutevar8x32_epi32(free.0, pack),
            );
            at + keep.count_ones() as usize
        }
    }
}

/// Writes `value` over the first 4 words of `words`.
#[inline(always)]
unsafe fn store(words: &mut [u64], value: __m256i) {
    let words = &mut words[..4];
    // SAFETY: `words` was cut to one vector's words above, so the unaligned store writes inside
    // it; AVX2 by LaneVector's contract.
    unsafe { _mm256_storeu_si256(words.as_mut_ptr().cast(), value) }
}
