//! The lane vector of AVX2: 4 values, lane flags as mask bits, the kept
//! values packed by a shuffle from a table ([`crate::search::pack`]); and
//! the filters' entry points built with it.

use std::arch::x86_64::*;

use super::{Kept, LaneVector, Parted};
use crate::search::pack::{pack4, pack8, partition4, partition_lanes};

/// Four lanes of 64 bits.
#[derive(Clone, Copy)]
pub(crate) struct Avx2(__m256i);

impl Avx2 {
    /// Mask bits of the lanes that are zero.
    #[inline(always)]
    unsafe fn zero_lanes(self) -> usize {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe {
            let zero = _mm256_cmpeq_epi64(self.0, _mm256_setzero_si256());
            _mm256_movemask_pd(_mm256_castsi256_pd(zero)) as usize
        }
    }
}

impl LaneVector for Avx2 {
    const WIDTH: usize = 4;
    /// Mask bits, lane i in bit i.
    type Lanes = usize;
    const ALL: usize = 0xf;

    #[inline(always)]
    fn first_lanes(left: usize) -> usize {
        if left >= 4 {
            0xf
        } else {
            (1 << left) - 1
        }
    }

    #[inline(always)]
    fn and_not(first: usize, second: usize) -> usize {
        first & !second
    }

    #[inline(always)]
    fn count(lanes: usize) -> usize {
        lanes.count_ones() as usize
    }

    #[inline(always)]
    fn bits(lanes: usize) -> u32 {
        lanes as u32
    }

    #[inline(always)]
    unsafe fn splat(word: u64) -> Self {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe { Avx2(_mm256_set1_epi64x(word as i64)) }
    }

    #[inline(always)]
    unsafe fn load(from: *const u64) -> Self {
        // SAFETY: the caller's promise: 4 readable slots.
        Avx2(unsafe { _mm256_loadu_si256(from.cast()) })
    }

    #[inline(always)]
    unsafe fn splat_pair(first: u64, second: u64) -> Self {
        // SAFETY: AVX2 on registers only (the caller's promise).
        Avx2(unsafe {
            _mm256_setr_epi64x(first as i64, second as i64, first as i64, second as i64)
        })
    }

    #[inline(always)]
    unsafe fn load_doubled(from: *const u64, count: usize) -> Self {
        // SAFETY: the caller's promise: `count` (at least one) readable
        // slots, of which the loads read at most two.
        Avx2(unsafe {
            let values = if count >= 2 {
                _mm_loadu_si128(from.cast())
            } else {
                _mm_loadl_epi64(from.cast())
            };
            _mm256_permute4x64_epi64::<0b01_01_00_00>(_mm256_castsi128_si256(values))
        })
    }

    #[inline(always)]
    unsafe fn load_within(from: *const u64, lanes: usize) -> Self {
        // SAFETY: the caller's promise: the slots of `lanes` are readable;
        // the masked load reads no other.
        Avx2(unsafe {
            if lanes == 0xf {
                _mm256_loadu_si256(from.cast())
            } else {
                let mask = _mm256_setr_epi64x(
                    -i64::from(lanes & 1 != 0),
                    -i64::from(lanes & 2 != 0),
                    -i64::from(lanes & 4 != 0),
                    0,
                );
                _mm256_maskload_epi64(from.cast(), mask)
            }
        })
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
    unsafe fn shl(self, count: __m128i) -> Self {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe { Avx2(_mm256_sll_epi64(self.0, count)) }
    }

    #[inline(always)]
    unsafe fn shr(self, count: __m128i) -> Self {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe { Avx2(_mm256_srl_epi64(self.0, count)) }
    }

    #[inline(always)]
    unsafe fn shl32(self) -> Self {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe { Avx2(_mm256_slli_epi64::<32>(self.0)) }
    }

    #[inline(always)]
    unsafe fn shr32(self) -> Self {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe { Avx2(_mm256_srli_epi64::<32>(self.0)) }
    }

    #[inline(always)]
    unsafe fn disjoint_within(self, other: Self, lanes: usize) -> usize {
        // SAFETY: the caller's promise (AVX2).
        unsafe { self.and(other).zero_lanes() & lanes }
    }

    #[inline(always)]
    unsafe fn meets_within(self, other: Self, lanes: usize) -> usize {
        // SAFETY: the caller's promise (AVX2), as LaneVector's contract
        // asks of it.
        unsafe { !self.and(other).zero_lanes() & lanes }
    }

    #[inline(always)]
    unsafe fn store_packed(self, to: *mut u64, kept: usize) {
        // SAFETY: the caller's promise: 4 writable slots, and AVX2.
        unsafe { _mm256_storeu_si256(to.cast(), pack4(self.0, kept)) }
    }

    #[inline(always)]
    unsafe fn disjoint_folded(self, test: Self, fold: Self) -> (usize, Self) {
        // SAFETY: AVX2 instructions on registers only; LaneVector's contract puts the caller on a
        // CPU with AVX2 and builds it with it.
        unsafe {
            let zero = _mm256_setzero_si256();
            let disjoint = _mm256_cmpeq_epi64(_mm256_and_si256(self.0, test.0), zero);
            let kept = _mm256_movemask_pd(_mm256_castsi256_pd(disjoint)) as usize;
            (
                kept,
                Avx2(_mm256_or_si256(fold.0, _mm256_and_si256(self.0, disjoint))),
            )
        }
    }

    #[inline(always)]
    unsafe fn fold_lanes(self) -> u64 {
        // SAFETY: as above.
        unsafe { fold_lanes(self.0) }
    }
}

/// The four u64 lanes of `lanes` ORed together.
#[inline(always)]
unsafe fn fold_lanes(lanes: __m256i) -> u64 {
    // SAFETY: AVX2 on registers only; the caller is built with it.
    unsafe {
        let half = _mm_or_si128(
            _mm256_castsi256_si128(lanes),
            _mm256_extracti128_si256::<1>(lanes),
        );
        (_mm_cvtsi128_si64(half) | _mm_extract_epi64::<1>(half)) as u64
    }
}

/// [`keep_disjoint_in`](super::keep_disjoint_in) on AVX2.
#[target_feature(enable = "avx2,popcnt")]
pub(super) fn keep_disjoint(values: &[u64], test: u64, out: &mut [u64]) -> Kept {
    // SAFETY: built with AVX2 and POPCNT, which
    // `keep_disjoint_in::<Avx2>` needs of its caller.
    unsafe { super::keep_disjoint_in::<Avx2>(values, test, out) }
}

/// [`partition_into`](super::partition_into) on AVX2: four keys a step,
/// shuffled free ones first and taken ones last by one lookup, and stored
/// whole at both sides' ends (the free keys' end and below the taken
/// keys' start): the lanes of the other side land in the gap of keys not
/// yet placed, which a step keeps at least eight wide. The last keys one
/// at a time.
#[target_feature(enable = "avx2,popcnt")]
pub(super) fn partition_into(from: &[u64], bit: u64, to: &mut [u64]) -> Parted {
    let len = from.len();
    assert_eq!(len, to.len(), "a slot for every key");
    let (mut free_end, mut taken_start) = (0, len);
    let mut start = 0;
    let bit_lanes = _mm256_set1_epi64x(bit as i64);
    let zero = _mm256_setzero_si256();
    let (mut free_fold, mut taken_fold) = (zero, zero);
    while len - start >= 8 {
        // SAFETY: the load reads keys start..start + 4 of `from`. The
        // gap taken_start - free_end equals the keys not yet placed,
        // len - start >= 8, so both stores' four slots lie within `to`
        // and in the gap: the free side's from free_end, the taken side's
        // ending at taken_start, and neither reaches the other's placed
        // keys.
        unsafe {
            let keys = _mm256_loadu_si256(from.as_ptr().add(start).cast());
            let free = _mm256_cmpeq_epi64(_mm256_and_si256(keys, bit_lanes), zero);
            free_fold = _mm256_or_si256(free_fold, _mm256_and_si256(keys, free));
            taken_fold = _mm256_or_si256(taken_fold, _mm256_andnot_si256(free, keys));
            let taken = !_mm256_movemask_pd(_mm256_castsi256_pd(free)) as usize & 0xf;
            let sides = partition4(keys, taken);
            _mm256_storeu_si256(to.as_mut_ptr().add(free_end).cast(), sides);
            _mm256_storeu_si256(to.as_mut_ptr().add(taken_start - 4).cast(), sides);
            let took = taken.count_ones() as usize;
            free_end += 4 - took;
            taken_start -= took;
        }
        start += 4;
    }
    // SAFETY: AVX2, which this function is built with.
    let placed = unsafe {
        Parted {
            free: free_end,
            free_bits: fold_lanes(free_fold),
            taken_bits: fold_lanes(taken_fold),
        }
    };
    super::partition_from(from, start, placed, bit, to)
}

/// [`keep_disjoint_entries`](super::keep_disjoint_entries) on AVX2: eight
/// 32-bit entries a step, the kept ones packed by a shuffle from a table;
/// the last few entries one at a time.
#[target_feature(enable = "avx2,popcnt")]
pub(super) fn keep_disjoint_entries(entries: &[u32], test: u32, out: &mut [u32]) -> Kept {
    let (steps, rest) = entries.as_chunks::<8>();
    let mut len = 0;
    let test_lanes = _mm256_set1_epi32(test as i32);
    let zero = _mm256_setzero_si256();
    let mut fold = zero;
    for step in steps {
        // SAFETY: the step's 8 entries are read; the store writes 8 slots
        // from `len`, at most the entries before this step, so within
        // `out` (as long as `entries`).
        unsafe {
            let lanes = _mm256_loadu_si256(step.as_ptr().cast());
            let disjoint = _mm256_cmpeq_epi32(_mm256_and_si256(lanes, test_lanes), zero);
            fold = _mm256_or_si256(fold, _mm256_and_si256(lanes, disjoint));
            let kept = _mm256_movemask_ps(_mm256_castsi256_ps(disjoint)) as usize;
            _mm256_storeu_si256(out.as_mut_ptr().add(len).cast(), pack8(lanes, kept));
            len += kept.count_ones() as usize;
        }
    }
    let tail = super::keep_disjoint_portable(rest, test, &mut out[len..]);
    // SAFETY: AVX2, which this function is built with.
    let folded = unsafe { fold_words(fold) };
    Kept {
        len: len + tail.len,
        bits: folded | tail.bits,
    }
}

/// The eight u32 lanes of `lanes` ORed together.
#[inline(always)]
unsafe fn fold_words(lanes: __m256i) -> u64 {
    // SAFETY: AVX2 on registers only; the caller is built with it.
    let both = unsafe { fold_lanes(lanes) };
    (both | both >> 32) & u64::from(u32::MAX)
}

/// Eight 32-bit lanes, free ones first, as `vpermd` indices (one byte
/// each): 256 masks (2 KB).
static PARTITION8: [[u8; 8]; 256] = partition_lanes::<8, 256>();

/// [`partition_words`](super::partition_words) on AVX2: as
/// [`partition_into`], eight 32-bit keys a step, their order looked up by
/// the mask of the taken ones.
#[target_feature(enable = "avx2,popcnt")]
pub(super) fn partition_words(from: &[u32], bit: u32, to: &mut [u32]) -> Parted {
    let len = from.len();
    assert_eq!(len, to.len(), "a slot for every key");
    let (mut free_end, mut taken_start) = (0, len);
    let mut start = 0;
    let bit_lanes = _mm256_set1_epi32(bit as i32);
    let zero = _mm256_setzero_si256();
    let (mut free_fold, mut taken_fold) = (zero, zero);
    while len - start >= 16 {
        // SAFETY: the load reads keys start..start + 8 of `from`, and the
        // table row its 8 bytes. The gap taken_start - free_end equals
        // the keys not yet placed, len - start >= 16, so both stores'
        // eight slots lie within `to` and in the gap: the free side's
        // from free_end, the taken side's ending at taken_start, and
        // neither reaches the other's placed keys.
        unsafe {
            let keys = _mm256_loadu_si256(from.as_ptr().add(start).cast());
            let free = _mm256_cmpeq_epi32(_mm256_and_si256(keys, bit_lanes), zero);
            free_fold = _mm256_or_si256(free_fold, _mm256_and_si256(keys, free));
            taken_fold = _mm256_or_si256(taken_fold, _mm256_andnot_si256(free, keys));
            let taken = !_mm256_movemask_ps(_mm256_castsi256_ps(free)) as usize & 0xff;
            let order = _mm256_cvtepu8_epi32(_mm_loadl_epi64(PARTITION8[taken].as_ptr().cast()));
            let sides = _mm256_permutevar8x32_epi32(keys, order);
            _mm256_storeu_si256(to.as_mut_ptr().add(free_end).cast(), sides);
            _mm256_storeu_si256(to.as_mut_ptr().add(taken_start - 8).cast(), sides);
            let took = taken.count_ones() as usize;
            free_end += 8 - took;
            taken_start -= took;
        }
        start += 8;
    }
    // SAFETY: AVX2, which this function is built with.
    let placed = unsafe {
        Parted {
            free: free_end,
            free_bits: fold_words(free_fold),
            taken_bits: fold_words(taken_fold),
        }
    };
    super::partition_from(from, start, placed, bit, to)
}

/// [`super::bits_taken`] compiled for this path's vectors.
#[target_feature(enable = "avx2")]
pub(super) fn bits_taken<T: super::Fold>(keys: &[T]) -> u64 {
    super::bits_taken_portable(keys)
}
