//! The AVX-512 leaf loop: a line is one register, popcounted per lane.

use std::arch::x86_64::*;

use super::super::{Layout, Line};
use super::{position, Leaf, Routed};

/// A query's line offsets, read for a loop with `CHUNKS` of them unrolled
/// as whole u64 words and cut by shifts: on Zen 5 a 512-bit load takes two
/// of the core's four load slots a cycle, so 7 offsets loaded one by one
/// cost what 3.5 lines do, where the shifts run on idle integer units
/// (the leaves alone 10% faster there). With `CHUNKS` 0 (a count the loops
/// do not unroll) the offsets are read one by one. The AVX-512 loop only:
/// the AVX2 loop, passed these, ran 26% slower on Zen 5 even reading them
/// one by one (its adders hold many registers), so it keeps its slices.
#[derive(Clone, Copy)]
struct QueryOffsets<'a, const S: usize, const CHUNKS: usize> {
    row: &'a [u16; S],
    words: [u64; 4],
}

impl<'a, const S: usize, const CHUNKS: usize> QueryOffsets<'a, S, CHUNKS> {
    #[inline(always)]
    fn of(row: &'a [u16; S], chunks: usize) -> Self {
        let mut words = [0u64; 4];
        if CHUNKS > 0 {
            debug_assert!(chunks == CHUNKS && CHUNKS <= S && S <= 16);
            for (index, word) in words.iter_mut().enumerate().take(CHUNKS.div_ceil(4)) {
                let quad = &row[4 * index..4 * index + 4];
                *word = u64::from(quad[0])
                    | u64::from(quad[1]) << 16
                    | u64::from(quad[2]) << 32
                    | u64::from(quad[3]) << 48;
            }
        }
        Self { row, words }
    }

    /// The byte offset of chunk `chunk`'s line.
    #[inline(always)]
    fn at(&self, chunk: usize) -> usize {
        if CHUNKS > 0 {
            (self.words[chunk / 4] >> (16 * (chunk % 4)) & 0xffff) as usize
        } else {
            usize::from(self.row[chunk])
        }
    }
}

/// A line as a leaf visit reads it: whole (one 512-bit register), or its
/// low half (256 bits) for a block whose keys fill at most its low half,
/// the high halves being zeros. Zen 4 loads a 512-bit line as two 256-bit
/// halves, so a half costs it one load slot of two (a sixth of the visits
/// at N = 28 and a fifth at N = 18 are to such a block); Zen 5 and Intel
/// load either in one.
trait LineRead: Copy {
    /// The line at `at`, or its low half.
    ///
    /// # Safety
    /// `at` points to a 64-byte aligned line, and the CPU runs AVX2 and
    /// AVX-512F (the leaf loop's features).
    unsafe fn read(at: *const __m512i) -> Self;

    /// The bits set in both.
    ///
    /// # Safety
    /// As [`LineRead::read`].
    unsafe fn and(self, other: Self) -> Self;

    /// The set bits of each u64 lane, as a whole register.
    ///
    /// # Safety
    /// The CPU runs AVX-512F and VPOPCNTDQ.
    unsafe fn counts(self) -> __m512i;
}

impl LineRead for __m512i {
    #[inline(always)]
    unsafe fn read(at: *const __m512i) -> Self {
        // SAFETY: as the trait says.
        unsafe { _mm512_load_si512(at) }
    }

    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        // SAFETY: as the trait says.
        unsafe { _mm512_and_si512(self, other) }
    }

    #[inline(always)]
    unsafe fn counts(self) -> __m512i {
        // SAFETY: as the trait says.
        unsafe { _mm512_popcnt_epi64(self) }
    }
}

impl LineRead for __m256i {
    #[inline(always)]
    unsafe fn read(at: *const __m512i) -> Self {
        // SAFETY: as the trait says; the low half of an aligned line is
        // 32-byte aligned.
        unsafe { _mm256_load_si256(at.cast()) }
    }

    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        // SAFETY: as the trait says.
        unsafe { _mm256_and_si256(self, other) }
    }

    #[inline(always)]
    unsafe fn counts(self) -> __m512i {
        // Widened with zeros: no AVX-512VL needed for the 256-bit count.
        // SAFETY: as the trait says.
        unsafe { _mm512_popcnt_epi64(_mm512_zextsi256_si512(self)) }
    }
}

impl Leaf {
    /// The sum over the routed queries of the stored keys disjoint from
    /// each: a line is one register, popcounted per u64 lane.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,avx512f,avx512vpopcntdq")]
    pub(super) fn sum_avx512<const S: usize, const CHUNKS: usize>(
        &self,
        layout: &Layout,
        routed: Routed,
    ) -> u64 {
        let chunks = if CHUNKS > 0 {
            CHUNKS
        } else {
            layout.chunks.len()
        };
        let rows = routed.offset_rows::<S>();
        // A half-empty last block is read by halves, in a pair or alone.
        let per_block = layout.lines_per_block;
        let runs = self.block_runs(per_block);
        let mut sums = _mm512_setzero_si512();
        // Pairs: their tables still fit the first-level cache.
        for pair in runs.pairs.chunks_exact(2 * per_block) {
            // SAFETY: the pair's two blocks of `per_block` lines each.
            let pair_sums = unsafe {
                pair_sum::<__m512i, S, CHUNKS>(pair, per_block, rows, routed.entries, chunks)
            };
            sums = _mm512_add_epi64(sums, pair_sums);
        }
        if !runs.half_pair.is_empty() {
            // SAFETY: as above.
            let pair_sums = unsafe {
                pair_sum::<__m256i, S, CHUNKS>(
                    runs.half_pair,
                    per_block,
                    rows,
                    routed.entries,
                    chunks,
                )
            };
            sums = _mm512_add_epi64(sums, pair_sums);
        }
        for block in runs.lone.chunks_exact(per_block) {
            // SAFETY: the block's `per_block` lines.
            let block_sums = unsafe {
                if runs.lone_half {
                    block_sum::<__m256i, S, CHUNKS>(block, rows, routed.entries, chunks)
                } else {
                    block_sum::<__m512i, S, CHUNKS>(block, rows, routed.entries, chunks)
                }
            };
            sums = _mm512_add_epi64(sums, block_sums);
        }
        _mm512_reduce_add_epi64(sums) as u64
    }
}

/// The sums per u64 lane over the queries of `entries` of a pair of
/// blocks (`pair`: two blocks of `per_block` lines), the second read as
/// `Second` (whole lines or their low halves).
///
/// # Safety
/// The CPU runs AVX2, AVX-512F and VPOPCNTDQ; every offset of `rows` is a
/// line's byte offset below `per_block` lines (a chunk's first line plus
/// a pattern of its own bits), so each line lies in its block, and the
/// lines are 64-byte aligned as the aligned loads need.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512vpopcntdq")]
unsafe fn pair_sum<Second: LineRead, const S: usize, const CHUNKS: usize>(
    pair: &[Line],
    per_block: usize,
    rows: &[[u16; S]],
    entries: &[u32],
    chunks: usize,
) -> __m512i {
    let offsets_of = |entry: u32| QueryOffsets::<S, CHUNKS>::of(&rows[position(entry)], chunks);
    let first = pair.as_ptr().cast::<__m512i>();
    let second = pair[per_block..].as_ptr().cast::<__m512i>();
    // SAFETY: the caller's features, and every line read lies in its
    // block (the caller's offsets).
    unsafe {
        let mut sums = _mm512_setzero_si512();
        // Four queries a step, their eight chains of ANDs side by side,
        // each into its own sums (Zen 5: the leaves alone 5.7 to 5.8
        // cycles a visit against 6.1 to 6.3 one query a step).
        let (fours, rest) = entries.as_chunks::<4>();
        let mut first_fours = [_mm512_setzero_si512(); 4];
        let mut second_fours = [_mm512_setzero_si512(); 4];
        for &four in fours {
            let offsets = four.map(offsets_of);
            let mut first_acc = offsets.map(|at| __m512i::read(first.byte_add(at.at(0))));
            let mut second_acc = offsets.map(|at| Second::read(second.byte_add(at.at(0))));
            for chunk in 1..chunks {
                for query in 0..4 {
                    let at = offsets[query].at(chunk);
                    first_acc[query] = first_acc[query].and(__m512i::read(first.byte_add(at)));
                    second_acc[query] = second_acc[query].and(Second::read(second.byte_add(at)));
                }
            }
            for query in 0..4 {
                first_fours[query] =
                    _mm512_add_epi64(first_fours[query], first_acc[query].counts());
                second_fours[query] =
                    _mm512_add_epi64(second_fours[query], second_acc[query].counts());
            }
        }
        for (first_sum, second_sum) in first_fours.into_iter().zip(second_fours) {
            sums = _mm512_add_epi64(sums, _mm512_add_epi64(first_sum, second_sum));
        }
        let mut second_sums = _mm512_setzero_si512();
        for &entry in rest {
            let offsets = offsets_of(entry);
            let at = offsets.at(0);
            let mut acc = __m512i::read(first.byte_add(at));
            let mut second_acc = Second::read(second.byte_add(at));
            for chunk in 1..chunks {
                let at = offsets.at(chunk);
                acc = acc.and(__m512i::read(first.byte_add(at)));
                second_acc = second_acc.and(Second::read(second.byte_add(at)));
            }
            sums = _mm512_add_epi64(sums, acc.counts());
            second_sums = _mm512_add_epi64(second_sums, second_acc.counts());
        }
        _mm512_add_epi64(sums, second_sums)
    }
}

/// [`pair_sum`] of one block, read as `Lines`, one query a step.
///
/// # Safety
/// As [`pair_sum`], for the one block.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512vpopcntdq")]
unsafe fn block_sum<Lines: LineRead, const S: usize, const CHUNKS: usize>(
    block: &[Line],
    rows: &[[u16; S]],
    entries: &[u32],
    chunks: usize,
) -> __m512i {
    let base = block.as_ptr().cast::<__m512i>();
    let mut sums = _mm512_setzero_si512();
    for &entry in entries {
        let offsets = QueryOffsets::<S, CHUNKS>::of(&rows[position(entry)], chunks);
        // SAFETY: as the caller promises.
        unsafe {
            let mut acc = Lines::read(base.byte_add(offsets.at(0)));
            for chunk in 1..chunks {
                acc = acc.and(Lines::read(base.byte_add(offsets.at(chunk))));
            }
            sums = _mm512_add_epi64(sums, acc.counts());
        }
    }
    sums
}
