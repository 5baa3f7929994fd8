//! How key bits are cut into chunks, and each query's line offsets in
//! them, on every matcher path.

use super::{
    chunk_bits, chunk_count, matcher_path, Chunk, MatcherPath, LINE_BYTES, LINE_SHIFT, NARROW, WIDE,
};

/// How key bits are cut into chunks, and the loop that reads them. The
/// leaves of a split share one layout, so each query's offsets (its line
/// in every chunk) are computed once for all the leaves it meets rather
/// than once per leaf: a leaf holds one or two blocks, and the offsets had
/// cost nearly as much as the sums.
#[derive(Clone, Debug, Default)]
pub(crate) struct Layout {
    pub(super) chunks: Vec<Chunk>,
    pub(super) lines_per_block: usize,
    /// The loop the sums take, decided at each [`Layout::set`] (not per
    /// batch of queries: deciding it there cost 2.5% at N = 18).
    path: Option<MatcherPath>,
}

impl Layout {
    /// Cuts the key bits up to the highest set in `used` into chunks.
    pub(crate) fn set(&mut self, used: u64) {
        self.path = Some(matcher_path());
        let width = (64 - used.leading_zeros()).max(1);
        let chunk_count = chunk_count(width);
        // 64 bits take at most 13 chunks within the bytes above.
        debug_assert!(chunk_count as usize <= WIDE);
        self.chunks.clear();
        let mut shift = 0;
        let mut first_line = 0;
        for index in 0..chunk_count {
            let bits = chunk_bits(width, chunk_count, index);
            self.chunks.push(Chunk {
                shift,
                mask: (1 << bits) - 1,
                first_line,
            });
            shift += bits;
            first_line += 1 << bits;
        }
        self.lines_per_block = first_line;
    }

    /// Offsets per query: [`NARROW`] or [`WIDE`].
    fn stride(&self) -> usize {
        if self.chunks.len() <= NARROW {
            NARROW
        } else {
            WIDE
        }
    }

    /// The loop the sums take.
    pub(crate) fn path(&self) -> MatcherPath {
        self.path.unwrap_or(MatcherPath::Portable)
    }

    /// Sets the loop the sums take, returning the one it replaces: for
    /// tests that hold every loop against the others.
    pub(crate) fn replace_path(&mut self, path: Option<MatcherPath>) -> Option<MatcherPath> {
        std::mem::replace(&mut self.path, path)
    }

    /// Each query's byte offset in every chunk, [`Layout::stride`] a query
    /// (the unused ones 0), into `offsets`.
    pub(crate) fn fill(&self, queries: &[u64], offsets: &mut Vec<u16>) {
        let stride = self.stride();
        // Every fill writes every offset (the unused ones 0), so only a
        // growth is zeroed first (zeroing the whole batch costs 1.5% of a
        // count of N = 20).
        let len = queries.len() * stride;
        if offsets.len() < len {
            offsets.resize(len, 0);
        } else {
            offsets.truncate(len);
        }
        #[cfg(target_arch = "x86_64")]
        match self.path() {
            // SAFETY: a path is chosen only if the CPU runs it (checked
            // once, in `matcher_path`).
            MatcherPath::Avx512 => {
                if stride == NARROW
                    && std::arch::is_x86_feature_detected!("avx512vbmi")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                {
                    // SAFETY: the AVX-512 path is chosen only on a CPU
                    // with AVX-512F, and VBMI and BW were just found.
                    return unsafe { self.fill_vbmi(queries, offsets) };
                }
                // SAFETY: the AVX-512 path is chosen only on a CPU with
                // AVX-512F (`matcher_path`).
                return unsafe { self.fill_avx512(queries, offsets) };
            }
            MatcherPath::Avx2 if stride == NARROW => {
                // SAFETY: the AVX2 path is chosen only on a CPU with AVX2
                // (`matcher_path`).
                return unsafe { self.fill_avx2(queries, offsets) };
            }
            // SAFETY: the AVX2 path is chosen only on a CPU with AVX2.
            MatcherPath::Avx2 => return unsafe { self.fill_avx2_wide(queries, offsets) },
            MatcherPath::Portable => {}
        }
        if stride == NARROW {
            self.fill_portable::<NARROW>(queries, offsets);
        } else {
            self.fill_portable::<WIDE>(queries, offsets);
        }
    }

    /// [`Layout::fill`] in plain Rust, `S` offsets a query: every chunk
    /// slot is computed, the unused ones from shift, mask and start 0, so
    /// the loop over a query's slots has a fixed length and unrolls.
    fn fill_portable<const S: usize>(&self, queries: &[u64], offsets: &mut [u16]) {
        let (mut shifts, mut masks, mut firsts) = ([0u32; S], [0u64; S], [0u16; S]);
        for (index, chunk) in self.chunks.iter().enumerate() {
            shifts[index] = chunk.shift;
            masks[index] = chunk.mask;
            // A block's tables take at most BLOCK_TABLE_BYTES < 2^16.
            firsts[index] = (chunk.first_line * LINE_BYTES) as u16;
        }
        for (lines, &query) in offsets.as_chunks_mut::<S>().0.iter_mut().zip(queries) {
            for (line, ((&shift, &mask), &first)) in
                lines.iter_mut().zip(shifts.iter().zip(&masks).zip(&firsts))
            {
                *line = first + (((query >> shift) & mask) as u16) * LINE_BYTES as u16;
            }
        }
    }

    /// [`Layout::fill`] for up to [`NARROW`] chunks with AVX2: all chunks
    /// of a query in a few vector steps.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn fill_avx2(&self, queries: &[u64], offsets: &mut [u16]) {
        use std::arch::x86_64::*;
        debug_assert!(self.chunks.len() <= NARROW);
        // The two vectors' lanes take chunks 0, 1, 4, 5 and 2, 3, 6, 7:
        // the packing below then leaves the offsets in chunk order.
        let mut shifts = [[0i64; 4]; 2];
        let mut masks = [[0i64; 4]; 2];
        let mut firsts = [[0i64; 4]; 2];
        for (index, chunk) in self.chunks.iter().enumerate() {
            let (vector, lane) = ((index / 2) % 2, index % 2 + 2 * (index / 4));
            shifts[vector][lane] = i64::from(chunk.shift);
            masks[vector][lane] = chunk.mask as i64;
            firsts[vector][lane] = (chunk.first_line * LINE_BYTES) as i64;
        }
        let load =
            |values: [i64; 4]| _mm256_setr_epi64x(values[0], values[1], values[2], values[3]);
        let (shift_low, shift_high) = (load(shifts[0]), load(shifts[1]));
        let (mask_low, mask_high) = (load(masks[0]), load(masks[1]));
        let (first_low, first_high) = (load(firsts[0]), load(firsts[1]));
        for (lines, &query) in offsets.chunks_exact_mut(NARROW).zip(queries) {
            let query = _mm256_set1_epi64x(query as i64);
            let pattern = |shift, mask| {
                _mm256_slli_epi64::<LINE_SHIFT>(_mm256_and_si256(
                    _mm256_srlv_epi64(query, shift),
                    mask,
                ))
            };
            let low = _mm256_add_epi64(pattern(shift_low, mask_low), first_low);
            let high = _mm256_add_epi64(pattern(shift_high, mask_high), first_high);
            // Every offset is below 2^16 (a block's tables take at most
            // BLOCK_TABLE_BYTES): the packs narrow without saturating, u64
            // lanes to u32 and then to u16; the u64 lanes 0 and 2 then hold
            // the 8 offsets.
            let words = _mm256_packus_epi32(low, high);
            let halves = _mm256_packus_epi32(words, words);
            let ordered = _mm256_permute4x64_epi64::<0b1000>(halves);
            // SAFETY: `lines` holds NARROW u16, the 16 bytes the unaligned
            // store writes.
            unsafe { _mm_storeu_si128(lines.as_mut_ptr().cast(), _mm256_castsi256_si128(ordered)) };
        }
    }

    /// [`Layout::fill_avx2`] for up to [`WIDE`] chunks.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn fill_avx2_wide(&self, queries: &[u64], offsets: &mut [u16]) {
        use std::arch::x86_64::*;
        debug_assert!(self.chunks.len() <= WIDE);
        // Vector v's lanes take chunks 2v, 2v+1, 2v+8, 2v+9: the packing
        // below then leaves the offsets in chunk order, chunks 0..8 in the
        // low 128 bits and 8..16 in the high.
        let mut shifts = [[0i64; 4]; 4];
        let mut masks = [[0i64; 4]; 4];
        let mut firsts = [[0i64; 4]; 4];
        for (index, chunk) in self.chunks.iter().enumerate() {
            let (vector, lane) = ((index % 8) / 2, index % 2 + 2 * (index / 8));
            shifts[vector][lane] = i64::from(chunk.shift);
            masks[vector][lane] = chunk.mask as i64;
            firsts[vector][lane] = (chunk.first_line * LINE_BYTES) as i64;
        }
        let load =
            |values: [i64; 4]| _mm256_setr_epi64x(values[0], values[1], values[2], values[3]);
        let shifts = shifts.map(load);
        let masks = masks.map(load);
        let firsts = firsts.map(load);
        for (lines, &query) in offsets.chunks_exact_mut(WIDE).zip(queries) {
            let query = _mm256_set1_epi64x(query as i64);
            let offset = |vector: usize| {
                _mm256_add_epi64(
                    _mm256_slli_epi64::<LINE_SHIFT>(_mm256_and_si256(
                        _mm256_srlv_epi64(query, shifts[vector]),
                        masks[vector],
                    )),
                    firsts[vector],
                )
            };
            // As in the narrow fill: offsets below 2^16 narrow without
            // saturating, u64 to u32 to u16.
            let low = _mm256_packus_epi32(offset(0), offset(1));
            let high = _mm256_packus_epi32(offset(2), offset(3));
            let ordered = _mm256_packus_epi32(low, high);
            // SAFETY: `lines` holds WIDE u16, the 32 bytes the unaligned
            // store writes.
            unsafe { _mm256_storeu_si256(lines.as_mut_ptr().cast(), ordered) };
        }
    }

    /// [`Layout::fill`] for up to [`NARROW`] chunks with AVX-512 VBMI: a
    /// multishift cuts every chunk's bits of 8 queries at once, one byte
    /// each, widened to the u16 offsets in two steps (a seventh of the
    /// instructions of a query at a time).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn fill_vbmi(&self, queries: &[u64], offsets: &mut [u16]) {
        use std::arch::x86_64::*;
        debug_assert!(self.chunks.len() <= NARROW);
        // Unused chunks take shift and mask 0: their offsets are 0.
        let (mut shifts, mut masks, mut firsts) = ([0u8; NARROW], [0u8; NARROW], [0u16; NARROW]);
        for (index, chunk) in self.chunks.iter().enumerate() {
            shifts[index] = chunk.shift as u8;
            // Chunks take at most CHUNK_BITS < 8 bits.
            masks[index] = chunk.mask as u8;
            firsts[index] = (chunk.first_line * LINE_BYTES) as u16;
        }
        let shifts = _mm512_set1_epi64(i64::from_le_bytes(shifts));
        let masks = _mm512_set1_epi64(i64::from_le_bytes(masks));
        // SAFETY: `firsts` holds the 16 bytes the load reads.
        let firsts = _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(firsts.as_ptr().cast()) });
        let (steps, _) = queries.as_chunks::<8>();
        for (step, eight) in steps.iter().enumerate() {
            // SAFETY: the load reads the step's 8 queries, and the stores
            // write their 8 rows of NARROW offsets, within `offsets`.
            unsafe {
                let lanes = _mm512_loadu_epi64(eight.as_ptr().cast());
                // Byte j of lane i: 8 bits of query i from chunk j's shift
                // (wrapping past bit 63), masked to the chunk's bits.
                let patterns = _mm512_and_si512(_mm512_multishift_epi64_epi8(shifts, lanes), masks);
                let offsets_of = |bytes: __m256i| {
                    let words = _mm512_cvtepu8_epi16(bytes);
                    _mm512_add_epi16(_mm512_slli_epi16::<{ LINE_SHIFT as u32 }>(words), firsts)
                };
                let at = offsets.as_mut_ptr().add(step * 8 * NARROW);
                _mm512_storeu_epi16(at.cast(), offsets_of(_mm512_castsi512_si256(patterns)));
                _mm512_storeu_epi16(
                    at.add(4 * NARROW).cast(),
                    offsets_of(_mm512_extracti64x4_epi64::<1>(patterns)),
                );
            }
        }
        let done = steps.len() * 8;
        self.fill_avx512(&queries[done..], &mut offsets[done * NARROW..]);
    }

    /// [`Layout::fill`] with AVX-512: a query's 8 chunk offsets in one
    /// register, narrowed to u16 in one step (two registers past 8
    /// chunks).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn fill_avx512(&self, queries: &[u64], offsets: &mut [u16]) {
        use std::arch::x86_64::*;
        const LANES: usize = 8;
        debug_assert!(self.chunks.len() <= WIDE);
        let mut shifts = [[0i64; LANES]; 2];
        let mut masks = [[0i64; LANES]; 2];
        let mut firsts = [[0i64; LANES]; 2];
        for (index, chunk) in self.chunks.iter().enumerate() {
            let (vector, lane) = (index / LANES, index % LANES);
            shifts[vector][lane] = i64::from(chunk.shift);
            masks[vector][lane] = chunk.mask as i64;
            firsts[vector][lane] = (chunk.first_line * LINE_BYTES) as i64;
        }
        let load = |values: [i64; LANES]| {
            // SAFETY: each array holds the 8 i64 a load reads.
            unsafe { _mm512_loadu_si512(values.as_ptr().cast()) }
        };
        let (shifts, masks, firsts) = (shifts.map(load), masks.map(load), firsts.map(load));
        let offsets_of = |query: __m512i, vector: usize| {
            let pattern = _mm512_and_si512(_mm512_srlv_epi64(query, shifts[vector]), masks[vector]);
            // Every offset is below 2^16 (a block's tables take at most
            // BLOCK_TABLE_BYTES), so the narrowing to u16 keeps it whole.
            _mm512_cvtepi64_epi16(_mm512_add_epi64(
                _mm512_slli_epi64::<{ LINE_SHIFT as u32 }>(pattern),
                firsts[vector],
            ))
        };
        if self.stride() == NARROW {
            for (lines, &query) in offsets.chunks_exact_mut(NARROW).zip(queries) {
                let query = _mm512_set1_epi64(query as i64);
                // SAFETY: `lines` holds 8 u16, the 16 bytes the store
                // writes.
                unsafe { _mm_storeu_si128(lines.as_mut_ptr().cast(), offsets_of(query, 0)) };
            }
        } else {
            for (lines, &query) in offsets.chunks_exact_mut(WIDE).zip(queries) {
                let query = _mm512_set1_epi64(query as i64);
                // SAFETY: `lines` holds 16 u16, the 32 bytes the two
                // stores write.
                unsafe {
                    _mm_storeu_si128(lines.as_mut_ptr().cast(), offsets_of(query, 0));
                    _mm_storeu_si128(lines.as_mut_ptr().add(LANES).cast(), offsets_of(query, 1));
                }
            }
        }
    }
}
