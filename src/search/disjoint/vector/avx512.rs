//! The lane vector of AVX-512F: 8 values, lane flags in mask registers,
//! the kept values packed by a compress; and the filters' entry points
//! built with it.

use std::arch::x86_64::*;

use super::{Kept, LaneVector, Parted};

/// Eight lanes of 64 bits.
#[derive(Clone, Copy)]
pub(crate) struct Avx512(__m512i);

impl LaneVector for Avx512 {
    const WIDTH: usize = 8;
    type Lanes = __mmask8;
    const ALL: __mmask8 = 0xff;

    #[inline(always)]
    fn first_lanes(left: usize) -> __mmask8 {
        if left >= 8 {
            0xff
        } else {
            (1u8 << left) - 1
        }
    }

    #[inline(always)]
    fn and_not(first: __mmask8, second: __mmask8) -> __mmask8 {
        first & !second
    }

    #[inline(always)]
    fn count(lanes: __mmask8) -> usize {
        lanes.count_ones() as usize
    }

    #[inline(always)]
    fn bits(lanes: __mmask8) -> u32 {
        u32::from(lanes)
    }

    #[inline(always)]
    unsafe fn splat(word: u64) -> Self {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe { Avx512(_mm512_set1_epi64(word as i64)) }
    }

    #[inline(always)]
    unsafe fn load(from: *const u64) -> Self {
        // SAFETY: the caller's promise: 8 readable slots.
        Avx512(unsafe { _mm512_loadu_epi64(from.cast()) })
    }

    #[inline(always)]
    unsafe fn splat_pair(first: u64, second: u64) -> Self {
        // SAFETY: AVX-512F on registers only (the caller's promise).
        Avx512(unsafe {
            _mm512_setr4_epi64(first as i64, second as i64, first as i64, second as i64)
        })
    }

    #[inline(always)]
    unsafe fn load_doubled(from: *const u64, count: usize) -> Self {
        // SAFETY: the caller's promise: `count` (at least one) readable
        // slots; the masked load reads at most four of them.
        Avx512(unsafe {
            let lanes = Self::first_lanes(count.min(4));
            let values = _mm512_maskz_loadu_epi64(lanes, from.cast());
            _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 0, 1, 1, 2, 2, 3, 3), values)
        })
    }

    #[inline(always)]
    unsafe fn load_within(from: *const u64, lanes: __mmask8) -> Self {
        // SAFETY: the caller's promise: the slots of `lanes` are readable;
        // the masked load reads no other.
        Avx512(unsafe {
            if lanes == 0xff {
                _mm512_loadu_epi64(from.cast())
            } else {
                _mm512_maskz_loadu_epi64(lanes, from.cast())
            }
        })
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
    unsafe fn shl(self, count: __m128i) -> Self {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe { Avx512(_mm512_sll_epi64(self.0, count)) }
    }

    #[inline(always)]
    unsafe fn shr(self, count: __m128i) -> Self {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe { Avx512(_mm512_srl_epi64(self.0, count)) }
    }

    #[inline(always)]
    unsafe fn shl32(self) -> Self {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe { Avx512(_mm512_slli_epi64::<32>(self.0)) }
    }

    #[inline(always)]
    unsafe fn shr32(self) -> Self {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe { Avx512(_mm512_srli_epi64::<32>(self.0)) }
    }

    #[inline(always)]
    unsafe fn disjoint_within(self, other: Self, lanes: __mmask8) -> __mmask8 {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe { _mm512_mask_testn_epi64_mask(lanes, self.0, other.0) }
    }

    #[inline(always)]
    unsafe fn meets_within(self, other: Self, lanes: __mmask8) -> __mmask8 {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe { _mm512_mask_test_epi64_mask(lanes, self.0, other.0) }
    }

    #[inline(always)]
    unsafe fn store_packed(self, to: *mut u64, kept: __mmask8) {
        // SAFETY: the caller's promise: 8 writable slots.
        unsafe { _mm512_storeu_epi64(to.cast(), _mm512_maskz_compress_epi64(kept, self.0)) }
    }

    #[inline(always)]
    unsafe fn disjoint_folded(self, test: Self, fold: Self) -> (__mmask8, Self) {
        // SAFETY: AVX-512F instructions on registers only; LaneVector's contract puts the caller
        // on a CPU with AVX-512F and builds it with it.
        unsafe {
            let kept = _mm512_testn_epi64_mask(self.0, test.0);
            (
                kept,
                Avx512(_mm512_mask_or_epi64(fold.0, kept, fold.0, self.0)),
            )
        }
    }

    #[inline(always)]
    unsafe fn fold_lanes(self) -> u64 {
        // SAFETY: as above.
        unsafe { _mm512_reduce_or_epi64(self.0) as u64 }
    }
}

/// [`keep_disjoint_in`](super::keep_disjoint_in) on AVX-512F.
#[target_feature(enable = "avx512f,popcnt")]
pub(super) fn keep_disjoint(values: &[u64], test: u64, out: &mut [u64]) -> Kept {
    // SAFETY: built with AVX-512F and POPCNT, which
    // `keep_disjoint_in::<Avx512>` needs of its caller.
    unsafe { super::keep_disjoint_in::<Avx512>(values, test, out) }
}

/// Eight u64 lanes, free ones first, as `vpermq` indices (one byte each):
/// 256 masks (2 KB).
static PARTITION8: [[u8; 8]; 256] = crate::search::pack::partition_lanes::<8, 256>();

/// [`partition_into`](super::partition_into) on AVX-512F: as the AVX2
/// loop, but eight keys a step, their order looked up by the mask of the
/// taken ones and applied by one `vpermq`, so the step's two whole-vector
/// stores place twice the keys (on Zen 5 a count of N = 28 spent 12% of
/// its time in the AVX2 loop). The gap of keys not yet placed is kept at
/// least sixteen wide; the last keys one at a time. If `masked` (where
/// masked stores are fast) each store writes only its side's lanes, half
/// the bytes: an N = 28 task's partitions write a megabyte a depth, past
/// the first-level cache (Emerald Rapids, `plan 28 --sample 3`: the
/// partitions' profile samples 16% fewer, the whole 2% fewer).
#[target_feature(enable = "avx512f,popcnt")]
pub(super) fn partition_into(from: &[u64], bit: u64, to: &mut [u64], masked: bool) -> Parted {
    let len = from.len();
    assert_eq!(len, to.len(), "a slot for every key");
    let (mut free_end, mut taken_start) = (0, len);
    let mut start = 0;
    let bit_lanes = _mm512_set1_epi64(bit as i64);
    let (mut free_fold, mut taken_fold) = (_mm512_setzero_si512(), _mm512_setzero_si512());
    while len - start >= 16 {
        // SAFETY: the load reads keys start..start + 8 of `from`, and the
        // table row its 8 bytes. The gap taken_start - free_end equals
        // the keys not yet placed, len - start >= 16, so both stores'
        // eight slots lie within `to` and in the gap: the free side's
        // from free_end, the taken side's ending at taken_start, and
        // neither reaches the other's placed keys.
        unsafe {
            let keys = _mm512_loadu_epi64(from.as_ptr().add(start).cast());
            let taken = _mm512_test_epi64_mask(keys, bit_lanes);
            free_fold = _mm512_mask_or_epi64(free_fold, !taken, free_fold, keys);
            taken_fold = _mm512_mask_or_epi64(taken_fold, taken, taken_fold, keys);
            let order = _mm512_cvtepu8_epi64(_mm_loadl_epi64(
                PARTITION8[usize::from(taken)].as_ptr().cast(),
            ));
            let sides = _mm512_permutexvar_epi64(order, keys);
            let took = taken.count_ones() as usize;
            let (free_at, taken_at) = (
                to.as_mut_ptr().add(free_end).cast(),
                to.as_mut_ptr().add(taken_start - 8).cast(),
            );
            if masked {
                let free_lanes = ((1u16 << (8 - took)) - 1) as u8;
                _mm512_mask_storeu_epi64(free_at, free_lanes, sides);
                _mm512_mask_storeu_epi64(taken_at, !free_lanes, sides);
            } else {
                _mm512_storeu_epi64(free_at, sides);
                _mm512_storeu_epi64(taken_at, sides);
            }
            free_end += 8 - took;
            taken_start -= took;
        }
        start += 8;
    }
    let placed = Parted {
        free: free_end,
        free_bits: _mm512_reduce_or_epi64(free_fold) as u64,
        taken_bits: _mm512_reduce_or_epi64(taken_fold) as u64,
    };
    super::partition_from(from, start, placed, bit, to)
}

/// Sixteen 32-bit lanes in reverse order, as `vpermd` indices.
const REVERSE16: [i32; 16] = [15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0];

/// [`partition_words`](super::partition_words) on AVX-512F: sixteen
/// 32-bit keys a step, the free ones compressed to the front of one
/// vector and the taken ones to the front of another, reversed so they
/// end it; each stored whole at its side's end, the other lanes landing
/// in the gap of keys not yet placed, which a step keeps at least 32
/// wide. The last keys one at a time.
#[target_feature(enable = "avx512f,popcnt")]
pub(super) fn partition_words(from: &[u32], bit: u32, to: &mut [u32]) -> Parted {
    let len = from.len();
    assert_eq!(len, to.len(), "a slot for every key");
    let (mut free_end, mut taken_start) = (0, len);
    let mut start = 0;
    let bit_lanes = _mm512_set1_epi32(bit as i32);
    let (mut free_fold, mut taken_fold) = (_mm512_setzero_si512(), _mm512_setzero_si512());
    // SAFETY: reads the 16 values of the array.
    let reverse = unsafe { _mm512_loadu_si512(REVERSE16.as_ptr().cast()) };
    while len - start >= 32 {
        // SAFETY: the load reads keys start..start + 16 of `from`. The
        // gap taken_start - free_end equals the keys not yet placed,
        // len - start >= 32, so both stores' sixteen slots lie within
        // `to` and in the gap: the free side's from free_end, the taken
        // side's ending at taken_start, and neither reaches the other's
        // placed keys.
        unsafe {
            let keys = _mm512_loadu_si512(from.as_ptr().add(start).cast());
            let taken = _mm512_test_epi32_mask(keys, bit_lanes);
            free_fold = _mm512_mask_or_epi32(free_fold, !taken, free_fold, keys);
            taken_fold = _mm512_mask_or_epi32(taken_fold, taken, taken_fold, keys);
            let free_keys = _mm512_maskz_compress_epi32(!taken, keys);
            let taken_keys =
                _mm512_permutexvar_epi32(reverse, _mm512_maskz_compress_epi32(taken, keys));
            _mm512_storeu_si512(to.as_mut_ptr().add(free_end).cast(), free_keys);
            _mm512_storeu_si512(to.as_mut_ptr().add(taken_start - 16).cast(), taken_keys);
            let took = taken.count_ones() as usize;
            free_end += 16 - took;
            taken_start -= took;
        }
        start += 16;
    }
    let placed = Parted {
        free: free_end,
        free_bits: u64::from(_mm512_reduce_or_epi32(free_fold) as u32),
        taken_bits: u64::from(_mm512_reduce_or_epi32(taken_fold) as u32),
    };
    super::partition_from(from, start, placed, bit, to)
}

/// [`keep_disjoint_entries`](super::keep_disjoint_entries) on AVX-512F:
/// sixteen values a step, the kept ones compressed to the front and
/// stored whole; the last few one at a time.
#[target_feature(enable = "avx512f,popcnt")]
pub(super) fn keep_disjoint_entries(entries: &[u32], test: u32, out: &mut [u32]) -> Kept {
    let (steps, rest) = entries.as_chunks::<16>();
    let mut len = 0;
    let test_lanes = _mm512_set1_epi32(test as i32);
    let mut fold = _mm512_setzero_si512();
    for step in steps {
        // SAFETY: the step's 16 values are read; the store writes 16 slots
        // from `len`, at most the values before this step, so within
        // `out` (as long as `entries`).
        unsafe {
            let lanes = _mm512_loadu_si512(step.as_ptr().cast());
            let kept = _mm512_testn_epi32_mask(lanes, test_lanes);
            fold = _mm512_mask_or_epi32(fold, kept, fold, lanes);
            _mm512_storeu_si512(
                out.as_mut_ptr().add(len).cast(),
                _mm512_maskz_compress_epi32(kept, lanes),
            );
            len += kept.count_ones() as usize;
        }
    }
    let tail = super::keep_disjoint_portable(rest, test, &mut out[len..]);
    Kept {
        len: len + tail.len,
        bits: u64::from(_mm512_reduce_or_epi32(fold) as u32) | tail.bits,
    }
}

/// [`super::bits_taken`] compiled for this path's vectors.
#[target_feature(enable = "avx512f")]
pub(super) fn bits_taken<T: super::Fold>(keys: &[T]) -> u64 {
    super::bits_taken_portable(keys)
}
