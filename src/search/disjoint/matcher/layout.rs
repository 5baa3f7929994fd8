//! How key bits are cut into chunks, and each query's line offsets in
//! them, on every matcher path.

use super::super::grow_to;
use super::{
    chunk_bits, chunk_count, matcher_path, Chunk, MatcherPath, CHUNK_BITS, LINE_BYTES, LINE_SHIFT,
    NARROW, WIDE,
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
    /// (the unused ones 0), into the first slots of `offsets` (which may
    /// hold more, from larger batches before).
    pub(crate) fn fill(&self, queries: &[u64], offsets: &mut Vec<u16>) {
        let stride = self.stride();
        // Every fill writes every offset (the unused ones 0), so only
        // slots never held are zeroed first: zeroing the whole batch cost
        // 1.5% of a count of N = 20, and zeroing what a smaller batch had
        // cut off 0.6% of one of N = 18.
        let len = queries.len() * stride;
        grow_to(offsets, len, 0);
        let offsets = &mut offsets[..len];
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
            // Every AVX2 CPU of note has BMI2; one without, or with a
            // slow pdep (AMD before Zen 3), takes the portable fill.
            MatcherPath::Avx2 if crate::system::fast_bit_gather() => {
                // SAFETY: the AVX2 path is chosen only on a CPU with AVX2
                // (`matcher_path`), and BMI2 was just found (with a fast
                // pdep).
                return unsafe {
                    if stride == NARROW {
                        self.fill_pdep::<NARROW>(queries, offsets)
                    } else {
                        self.fill_pdep::<WIDE>(queries, offsets)
                    }
                };
            }
            MatcherPath::Avx2 | MatcherPath::Portable => {}
        }
        if stride == NARROW {
            self.fill_portable::<NARROW>(queries, offsets);
        } else {
            self.fill_portable::<WIDE>(queries, offsets);
        }
    }

    /// [`Layout::fill`] in plain Rust, `S` offsets a query, built four
    /// at a time in a u64 of u16 lanes: word `w` takes the query shifted
    /// down to chunk `4w`'s first bit, and each of its chunks is masked in
    /// place and shifted left into its lane, the line's bytes included
    /// (lane `j` starts at bit `16j`; the chunks before it in the word
    /// take at most 6 bits each, so every shift is left). The shifts are
    /// the same for every query, so on x86-64 the compiler runs the loop
    /// over queries two at a time in SSE2 registers: by lane (one rotate,
    /// AND, add and store a chunk, each rotate's count moved into `cl`) it
    /// took 12% of a count of N = 18 on this path, now 5% (the count 7%
    /// faster). On aarch64 it stays scalar: three steps a chunk there,
    /// where shifts take their count from any register.
    fn fill_portable<const S: usize>(&self, queries: &[u64], offsets: &mut [u16]) {
        const LANES: usize = 4;
        let (mut downs, mut masks, mut lifts, mut firsts) =
            ([0u32; 4], [0u64; S], [0u32; S], [0u64; 4]);
        for (index, chunk) in self.chunks.iter().enumerate() {
            let (word, lane) = (index / LANES, index % LANES);
            if lane == 0 {
                downs[word] = chunk.shift;
            }
            let within = chunk.shift - downs[word];
            debug_assert!(within as usize <= lane * CHUNK_BITS as usize);
            masks[index] = chunk.mask << within;
            lifts[index] = (16 * lane) as u32 + LINE_SHIFT as u32 - within;
            // A block's tables take at most BLOCK_TABLE_BYTES < 2^16, so
            // lanes do not carry into each other.
            firsts[word] |= ((chunk.first_line * LINE_BYTES) as u64) << (16 * lane);
        }
        for (lines, &query) in offsets.as_chunks_mut::<S>().0.iter_mut().zip(queries) {
            for (word, lines) in lines.as_chunks_mut::<LANES>().0.iter_mut().enumerate() {
                let bits = query >> downs[word];
                let mut packed = firsts[word];
                for lane in 0..LANES {
                    let index = LANES * word + lane;
                    packed += (bits & masks[index]) << lifts[index];
                }
                for (lane, line) in lines.iter_mut().enumerate() {
                    *line = (packed >> (16 * lane)) as u16;
                }
            }
        }
    }

    /// [`Layout::fill`] with BMI2 and AVX2, `S` offsets a query: the
    /// chunks cut the key's bits in order from bit 0, so one `pdep` a
    /// group of 8 chunks spreads a query's patterns into bytes (unused
    /// chunks 0), widened to u16 and made offsets in three vector steps:
    /// half the steps of the shifts by lane.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi2")]
    fn fill_pdep<const S: usize>(&self, queries: &[u64], offsets: &mut [u16]) {
        use std::arch::x86_64::*;
        debug_assert!(self.chunks.len() <= S && (S == NARROW || S == WIDE));
        // Group g's deposit mask puts chunk 8g + j's bits in byte j; the
        // second group starts at chunk 8's shift.
        let (mut deposits, mut firsts) = ([0u64; 2], [0u16; WIDE]);
        for (index, chunk) in self.chunks.iter().enumerate() {
            debug_assert_eq!(
                chunk.shift,
                self.chunks[..index]
                    .iter()
                    .map(|c| c.mask.count_ones())
                    .sum::<u32>(),
                "chunks cut the bits in order from bit 0"
            );
            deposits[index / 8] |= chunk.mask << (8 * (index % 8));
            firsts[index] = (chunk.first_line * LINE_BYTES) as u16;
        }
        let second_shift = self.chunks.get(8).map_or(0, |chunk| chunk.shift);
        // SAFETY: `firsts` holds the 32 bytes the two loads read.
        let (first_low, first_high) = unsafe {
            (
                _mm_loadu_si128(firsts.as_ptr().cast()),
                _mm_loadu_si128(firsts.as_ptr().add(8).cast()),
            )
        };
        let offsets_of = |patterns: u64, first: __m128i| {
            let words = _mm_cvtepu8_epi16(_mm_cvtsi64_si128(patterns as i64));
            _mm_add_epi16(_mm_slli_epi16::<LINE_SHIFT>(words), first)
        };
        for (lines, &query) in offsets.as_chunks_mut::<S>().0.iter_mut().zip(queries) {
            let low = offsets_of(_pdep_u64(query, deposits[0]), first_low);
            // SAFETY: `lines` holds S u16: 16 bytes, or 32 for the two
            // stores of WIDE.
            unsafe {
                _mm_storeu_si128(lines.as_mut_ptr().cast(), low);
                if S == WIDE {
                    let high =
                        offsets_of(_pdep_u64(query >> second_shift, deposits[1]), first_high);
                    _mm_storeu_si128(lines.as_mut_ptr().add(8).cast(), high);
                }
            }
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
