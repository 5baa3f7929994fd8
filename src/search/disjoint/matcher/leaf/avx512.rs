//! The AVX-512 leaf loop: a line is one register, popcounted per lane.

use std::arch::x86_64::*;

use super::super::Layout;
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

impl Leaf {
    /// popcounted per u64 lane.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512vpopcntdq")]
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
        let offsets_of = |entry: u32| QueryOffsets::<S, CHUNKS>::of(&rows[position(entry)], chunks);
        let mut sums = _mm512_setzero_si512();
        // Blocks in pairs: a query's offsets, read once, serve both (the
        // offsets are half the loads), and the pair's tables still fit the
        // first-level cache.
        let per_block = layout.lines_per_block;
        let paired = self.blocks / 2 * 2 * per_block;
        for pair in self.tables()[..paired].chunks_exact(2 * per_block) {
            let first = pair.as_ptr().cast::<__m512i>();
            let second = pair[per_block..].as_ptr().cast::<__m512i>();
            let mut second_sums = _mm512_setzero_si512();
            // Four queries a step, their eight chains of ANDs side by
            // side, each into its own sums (Zen 5: the leaves alone 5.7 to
            // 5.8 cycles a visit against 6.1 to 6.3 one query a step).
            let (fours, rest) = routed.entries.as_chunks::<4>();
            let mut first_fours = [_mm512_setzero_si512(); 4];
            let mut second_fours = [_mm512_setzero_si512(); 4];
            for &four in fours {
                let offsets = four.map(offsets_of);
                // SAFETY: as below, in each block of the pair.
                unsafe {
                    let mut first_acc =
                        offsets.map(|at| _mm512_load_si512(first.byte_add(at.at(0))));
                    let mut second_acc =
                        offsets.map(|at| _mm512_load_si512(second.byte_add(at.at(0))));
                    for chunk in 1..chunks {
                        for query in 0..4 {
                            let at = offsets[query].at(chunk);
                            first_acc[query] = _mm512_and_si512(
                                first_acc[query],
                                _mm512_load_si512(first.byte_add(at)),
                            );
                            second_acc[query] = _mm512_and_si512(
                                second_acc[query],
                                _mm512_load_si512(second.byte_add(at)),
                            );
                        }
                    }
                    for query in 0..4 {
                        first_fours[query] = _mm512_add_epi64(
                            first_fours[query],
                            _mm512_popcnt_epi64(first_acc[query]),
                        );
                        second_fours[query] = _mm512_add_epi64(
                            second_fours[query],
                            _mm512_popcnt_epi64(second_acc[query]),
                        );
                    }
                }
            }
            for (first_sum, second_sum) in first_fours.into_iter().zip(second_fours) {
                sums = _mm512_add_epi64(sums, _mm512_add_epi64(first_sum, second_sum));
            }
            for &entry in rest {
                let offsets = offsets_of(entry);
                // SAFETY: as below, in each block of the pair.
                unsafe {
                    let at = offsets.at(0);
                    let mut acc = _mm512_load_si512(first.byte_add(at));
                    let mut second_acc = _mm512_load_si512(second.byte_add(at));
                    for chunk in 1..chunks {
                        let at = offsets.at(chunk);
                        acc = _mm512_and_si512(acc, _mm512_load_si512(first.byte_add(at)));
                        second_acc =
                            _mm512_and_si512(second_acc, _mm512_load_si512(second.byte_add(at)));
                    }
                    sums = _mm512_add_epi64(sums, _mm512_popcnt_epi64(acc));
                    second_sums = _mm512_add_epi64(second_sums, _mm512_popcnt_epi64(second_acc));
                }
            }
            sums = _mm512_add_epi64(sums, second_sums);
        }
        for block in self.tables()[paired..].chunks_exact(per_block) {
            let base = block.as_ptr().cast::<__m512i>();
            for &entry in routed.entries {
                let offsets = offsets_of(entry);
                // SAFETY: every offset is the byte offset of a line below
                // lines_per_block (a chunk's first line plus a pattern of
                // its own bits), so each line lies in this block, and lines
                // are 64-byte aligned as the aligned loads need.
                unsafe {
                    let mut acc = _mm512_load_si512(base.byte_add(offsets.at(0)));
                    for chunk in 1..chunks {
                        let line = _mm512_load_si512(base.byte_add(offsets.at(chunk)));
                        acc = _mm512_and_si512(acc, line);
                    }
                    sums = _mm512_add_epi64(sums, _mm512_popcnt_epi64(acc));
                }
            }
        }
        _mm512_reduce_add_epi64(sums) as u64
    }
}
