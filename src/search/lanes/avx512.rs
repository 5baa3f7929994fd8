//! Eight boards per vector with AVX-512F: lane flags are mask registers,
//! and a compress instruction packs the boards kept.

use std::arch::x86_64::*;

use super::search::{search, LaneVector};
use super::Row;
use crate::search::board::{Board, RowBounds, Tally, MAX_N};

/// Eight lanes of 64 bits; `VPOPCNTDQ` says whether the CPU counts each
/// lane's bits in one instruction, else shifts and adds do.
#[derive(Clone, Copy)]
pub(super) struct Avx512<const VPOPCNTDQ: bool>(__m512i);

/// The lane search with VPOPCNTDQ (Ice Lake and later, Zen 4).
///
/// # Safety
/// The CPU must have AVX-512F, VPOPCNTDQ, POPCNT and BMI1.
#[target_feature(enable = "avx512f,avx512vpopcntdq,popcnt,bmi1")]
pub(super) unsafe fn search_popcnt(
    n: u32,
    start: Board,
    bounds: &RowBounds,
    rows: &mut [Row; MAX_N as usize],
) -> Tally {
    // SAFETY: this function is built with AVX-512F, which its own contract promises the CPU has;
    // the lane methods it inlines need no more (LaneVector's contract).
    unsafe { search::<Avx512<true>>(n, start, bounds, rows) }
}

/// The lane search on AVX-512F alone (Skylake-SP, Cascade Lake).
///
/// # Safety
/// The CPU must have AVX-512F, POPCNT and BMI1.
#[target_feature(enable = "avx512f,popcnt,bmi1")]
pub(super) unsafe fn search_shifts(
    n: u32,
    start: Board,
    bounds: &RowBounds,
    rows: &mut [Row; MAX_N as usize],
) -> Tally {
    // SAFETY: this function is built with AVX-512F, which its own contract promises the CPU has;
    // the lane methods it inlines need no more (LaneVector's contract).
    unsafe { search::<Avx512<false>>(n, start, bounds, rows) }
}

impl<const VPOPCNTDQ: bool> LaneVector for Avx512<VPOPCNTDQ> {
    const WIDTH: usize = 8;
    type Lanes = __mmask8;

    #[inline(always)]
    unsafe fn splat(word: u64) -> Self {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe { Avx512(_mm512_set1_epi64(word as i64)) }
    }

    #[inline(always)]
    unsafe fn load(words: &[u64]) -> Self {
        let words = &words[..8];
        // SAFETY: `words` was cut to one vector's words above, so the unaligned load reads inside
        // it; AVX-512F by LaneVector's contract.
        unsafe { Avx512(_mm512_loadu_si512(words.as_ptr().cast())) }
    }

    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe { Avx512(_mm512_and_si512(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe { Avx512(_mm512_or_si512(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn xor(self, other: Self) -> Self {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe { Avx512(_mm512_xor_si512(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn and_not(self, other: Self) -> Self {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe { Avx512(_mm512_andnot_si512(other.0, self.0)) }
    }

    #[inline(always)]
    unsafe fn lowest_bit(self) -> Self {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe {
            let negated = _mm512_sub_epi64(_mm512_setzero_si512(), self.0);
            Avx512(_mm512_and_si512(self.0, negated))
        }
    }

    #[inline(always)]
    unsafe fn shl1(self) -> Self {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe { Avx512(_mm512_slli_epi64::<1>(self.0)) }
    }

    #[inline(always)]
    unsafe fn shr1(self) -> Self {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe { Avx512(_mm512_srli_epi64::<1>(self.0)) }
    }

    #[inline(always)]
    unsafe fn add(self, other: Self) -> Self {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe { Avx512(_mm512_add_epi64(self.0, other.0)) }
    }

    #[inline(always)]
    unsafe fn popcount(self) -> Self {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe {
            if VPOPCNTDQ {
                Avx512(_mm512_popcnt_epi64(self.0))
            } else {
                Avx512(popcount_shifts(self.0))
            }
        }
    }

    #[inline(always)]
    unsafe fn sum(self) -> u64 {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe { _mm512_reduce_add_epi64(self.0) as u64 }
    }

    #[inline(always)]
    unsafe fn first_lanes(count: usize) -> __mmask8 {
        ((1u32 << count.min(8)) - 1) as __mmask8
    }

    #[inline(always)]
    unsafe fn within(self, lanes: __mmask8) -> Self {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe { Avx512(_mm512_maskz_mov_epi64(lanes, self.0)) }
    }

    #[inline(always)]
    unsafe fn nonzero(self) -> __mmask8 {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe { _mm512_test_epi64_mask(self.0, self.0) }
    }

    #[inline(always)]
    unsafe fn meets(self, other: Self) -> __mmask8 {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe { _mm512_test_epi64_mask(self.0, other.0) }
    }

    #[inline(always)]
    unsafe fn differs(self, other: Self) -> __mmask8 {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe { _mm512_cmpneq_epi64_mask(self.0, other.0) }
    }

    #[inline(always)]
    unsafe fn both(first: __mmask8, second: __mmask8) -> __mmask8 {
        first & second
    }

    #[inline(always)]
    unsafe fn count_in(self, lanes: __mmask8) -> Self {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe {
            Avx512(_mm512_mask_add_epi64(
                self.0,
                lanes,
                self.0,
                _mm512_set1_epi64(1),
            ))
        }
    }

    #[inline(always)]
    unsafe fn force_open_sides(free: Self, open_sides: Self) -> Self {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe {
            let open = open_sides.0;
            let none_open = _mm512_testn_epi64_mask(open, open);
            let below = _mm512_sub_epi64(open, _mm512_set1_epi64(1));
            let at_most_one = _mm512_testn_epi64_mask(open, below);
            let one_open = at_most_one & !none_open;
            let cut = _mm512_maskz_and_epi64(one_open, free.0, open);
            Avx512(_mm512_mask_mov_epi64(cut, none_open, free.0))
        }
    }

    #[inline(always)]
    unsafe fn append(row: &mut Row, at: usize, lanes: __mmask8, boards: [Self; 4]) -> usize {
        // SAFETY: AVX-512F instructions on registers, written through `store`, which cuts its
        // slice to one vector's words; AVX-512F by LaneVector's contract.
        unsafe {
            let [cols, ld, rd, free] = boards;
            store(
                &mut row.cols[at..],
                _mm512_maskz_compress_epi64(lanes, cols.0),
            );
            store(&mut row.ld[at..], _mm512_maskz_compress_epi64(lanes, ld.0));
            store(&mut row.rd[at..], _mm512_maskz_compress_epi64(lanes, rd.0));
            store(
                &mut row.free[at..],
                _mm512_maskz_compress_epi64(lanes, free.0),
            );
            at + lanes.count_ones() as usize
        }
    }
}

/// Writes `value` over the first 8 words of `words`.
#[inline(always)]
unsafe fn store(words: &mut [u64], value: __m512i) {
    let words = &mut words[..8];
    // SAFETY: `words` was cut to one vector's words above, so the unaligned store writes inside
    // it; AVX-512F by LaneVector's contract.
    unsafe { _mm512_storeu_si512(words.as_mut_ptr().cast(), value) }
}

/// The set bits of each lane of `words`, for words of at most 32 bits (a
/// row's squares, N <= 32), with shifts and adds: pairs, nibbles, then the
/// four low bytes summed into the lowest.
#[inline(always)]
unsafe fn popcount_shifts(words: __m512i) -> __m512i {
    // SAFETY: AVX-512F instructions on registers; callers are lane methods, run under LaneVector's
    // contract.
    unsafe {
        let pairs = _mm512_sub_epi64(
            words,
            _mm512_and_si512(
                _mm512_srli_epi64::<1>(words),
                _mm512_set1_epi64(0x5555_5555),
            ),
        );
        let quads = _mm512_add_epi64(
            _mm512_and_si512(pairs, _mm512_set1_epi64(0x3333_3333)),
            _mm512_and_si512(
                _mm512_srli_epi64::<2>(pairs),
                _mm512_set1_epi64(0x3333_3333),
            ),
        );
        let bytes = _mm512_and_si512(
            _mm512_add_epi64(quads, _mm512_srli_epi64::<4>(quads)),
            _mm512_set1_epi64(0x0f0f_0f0f),
        );
        let halves = _mm512_add_epi64(bytes, _mm512_srli_epi64::<8>(bytes));
        let sum = _mm512_add_epi64(halves, _mm512_srli_epi64::<16>(halves));
        _mm512_and_si512(sum, _mm512_set1_epi64(0x3f))
    }
}
