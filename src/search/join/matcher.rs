//! Counts, for each query key q, the stored keys k with k & q == 0: the
//! inner loop of the `join` method, where half boards with disjoint
//! diagonal sets are paired.
//!
//! A loop over the stored keys decides one pair per step. The bit-sliced
//! layout decides 512 at once: the stored keys are taken in blocks of 512,
//! and for every key bit j a 512-bit line says which keys leave j free.
//! The key bits are cut into chunks of up to [`CHUNK_BITS`], and for every
//! chunk and every pattern of its bits the AND of those bits' lines is
//! precomputed. A query then ANDs one line per chunk and popcounts: a few
//! cache-line loads per 512 pairs. On CPUs with AVX-512 (and its popcount)
//! a line is one register; elsewhere it is eight u64s.
//!
//! The chunks are a [`Layout`] of their own, which the leaves of a split
//! share: a query's line offsets are computed once for every leaf it
//! meets, and a leaf reads them through the query's route entry.

/// Stored keys per block: one 512-bit line per key bit.
pub const BLOCK_KEYS: usize = 512;

/// Most key bits per precomputed chunk (2^6 lines of 64 bytes each). Six
/// rather than five: one line fewer per query and block at most widths
/// (a chunk fewer for keys of 34 to 46 bits), which outweighs building
/// twice the lines per chunk: `count 18 -j1` 2% faster, samples of N = 22
/// and 24 7% faster (AVX2).
pub const CHUNK_BITS: u32 = 6;

/// Most bytes of one block's tables: a query reads lines from all over
/// them for each block, so they should stay in a 32 KB first-level cache
/// with room; wide keys take more, narrower chunks instead.
pub const BLOCK_TABLE_BYTES: usize = 28 << 10;

/// Below this many stored keys a plain loop is cheaper than building
/// the tables.
pub const SMALL_SET: usize = 48;

/// Queries a matcher takes at a time: enough that a block's lines, read
/// once per batch, stay in the first-level cache for hundreds of queries.
pub const QUERY_BATCH: usize = 256;

const WORDS: usize = BLOCK_KEYS / 64;

/// Bytes of a line, and its log: the AVX2 loop's offsets are in bytes,
/// saving a shift per line read.
const LINE_BYTES: usize = std::mem::size_of::<Line>();
const LINE_SHIFT: i32 = LINE_BYTES.trailing_zeros() as i32;
// Byte offsets within a block's tables fit the u16 offsets.
const _: () = assert!(BLOCK_TABLE_BYTES <= 1 << 16);

/// Offsets a query takes: 8, or 16 for layouts of 9 to 16 chunks (keys of
/// 64 bits take at most 13), so the vector fills store whole registers
/// and the loops read fixed-size arrays.
const NARROW: usize = 8;
const WIDE: usize = 16;

/// Carries whose byte counts the AVX2 loop adds up before widening them:
/// each adds at most 8 to a byte, and 31 x 8 = 248 still fits.
const AVX2_BYTE_ROUNDS: u32 = 31;

/// 512 bits, one per key of a block, aligned to a cache line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
struct Line([u64; WORDS]);

impl Line {
    const ZERO: Line = Line([0; WORDS]);
}

/// A chunk of key bits: where it starts, how wide it is, and where its
/// 2^bits lines start within a block's tables.
#[derive(Clone, Copy, Debug)]
struct Chunk {
    shift: u32,
    mask: u64,
    first_line: usize,
}

/// How key bits are cut into chunks, and the loop that reads them. The
/// leaves of a split share one layout, so each query's offsets (its line
/// in every chunk) are computed once for all the leaves it meets rather
/// than once per leaf: a leaf holds one or two blocks, and the offsets had
/// cost nearly as much as the sums.
#[derive(Clone, Debug, Default)]
pub struct Layout {
    chunks: Vec<Chunk>,
    lines_per_block: usize,
    /// The loop the sums take, decided at each [`Layout::set`] (not per
    /// batch of queries: deciding it there cost 2.5% at N = 18).
    path: Option<MatcherPath>,
}

impl Layout {
    /// Cuts the key bits up to the highest set in `used` into chunks.
    pub fn set(&mut self, used: u64) {
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
    pub fn path(&self) -> MatcherPath {
        self.path.unwrap_or(MatcherPath::Portable)
    }

    /// Sets the loop the sums take, returning the one it replaces: for
    /// tests that hold every loop against the others.
    pub fn replace_path(&mut self, path: Option<MatcherPath>) -> Option<MatcherPath> {
        std::mem::replace(&mut self.path, path)
    }

    /// Each query's byte offset in every chunk, [`Layout::stride`] a query
    /// (the unused ones 0), into `offsets`.
    pub fn fill(&self, queries: &[u64], offsets: &mut Vec<u16>) {
        let stride = self.stride();
        // Every fill writes every offset (the unused ones 0), so only a
        // growth is zeroed first (zeroing the whole batch had been 1.5% of
        // a count of N = 20).
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
                    // SAFETY: as above, and the CPU has VBMI and BW.
                    return unsafe { self.fill_vbmi(queries, offsets) };
                }
                // SAFETY: as above.
                return unsafe { self.fill_avx512(queries, offsets) };
            }
            // SAFETY: as above, AVX2 is present.
            MatcherPath::Avx2 if stride == NARROW => {
                return unsafe { self.fill_avx2(queries, offsets) }
            }
            // SAFETY: as above.
            MatcherPath::Avx2 => return unsafe { self.fill_avx2_wide(queries, offsets) },
            MatcherPath::Portable => {}
        }
        for (lines, &query) in offsets.chunks_exact_mut(stride).zip(queries) {
            for (line, chunk) in lines.iter_mut().zip(&self.chunks) {
                let pattern = (query >> chunk.shift) & chunk.mask;
                *line = ((chunk.first_line + pattern as usize) * LINE_BYTES) as u16;
            }
            lines[self.chunks.len()..].fill(0);
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
        // SAFETY (the loads): each array holds the 8 i64 a load reads.
        let load = |values: [i64; LANES]| unsafe { _mm512_loadu_si512(values.as_ptr().cast()) };
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

/// Stored keys in bit-sliced blocks laid out by a [`Layout`]; reused
/// across loads so a leaf keeps its allocations.
#[derive(Default)]
pub struct Leaf {
    /// The keys when there are fewer than [`SMALL_SET`].
    small: Vec<u64>,
    lines: Vec<Line>,
    blocks: usize,
}

/// The queries a leaf sums over: `entries` name them by position (the
/// low 32 bits of each), in `queries` and in `offsets` (a layout's
/// stride apart).
#[derive(Clone, Copy)]
pub struct Routed<'a> {
    pub queries: &'a [u64],
    pub offsets: &'a [u16],
    pub entries: &'a [u64],
}

impl Routed<'_> {
    /// The offsets of each query, as arrays of `S`.
    fn offset_rows<const S: usize>(&self) -> &[[u16; S]] {
        self.offsets.as_chunks::<S>().0
    }
}

/// The position an entry names.
#[inline(always)]
fn position(entry: u64) -> usize {
    entry as u32 as usize
}

impl Leaf {
    /// Replaces the stored keys with `keys`, in `layout`'s chunks (which
    /// must cover every bit the keys use).
    pub fn load(&mut self, keys: &[u64], layout: &Layout) {
        self.small.clear();
        self.blocks = 0;
        if keys.len() < SMALL_SET {
            self.lines.clear();
            self.small.reserve_exact(keys.len());
            self.small.extend_from_slice(keys);
            return;
        }
        debug_assert!(layout.chunks.last().is_some_and(|chunk| {
            let used = keys.iter().fold(0, |all, key| all | key);
            used >> chunk.shift <= chunk.mask
        }));
        self.blocks = keys.len().div_ceil(BLOCK_KEYS);
        let lines = self.blocks * layout.lines_per_block;
        // Exactly: the memory bound counts the lines a load uses, not a
        // doubling past them.
        // Every line is written by the fill, so only a growth is zeroed
        // (zeroing them all had cost a tenth of a load).
        if self.lines.len() < lines {
            self.lines.reserve_exact(lines - self.lines.len());
            self.lines.resize(lines, Line::ZERO);
        } else {
            self.lines.truncate(lines);
        }
        match layout.path() {
            // SAFETY: a path is chosen only if the CPU runs it.
            #[cfg(target_arch = "x86_64")]
            MatcherPath::Avx512 => unsafe { fill_blocks_avx512(layout, keys, &mut self.lines) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            MatcherPath::Avx2 => unsafe { fill_blocks_avx2(layout, keys, &mut self.lines) },
            _ => fill_blocks(layout, keys, &mut self.lines),
        }
    }

    /// Bytes the current load uses.
    pub fn used_bytes(&self) -> u64 {
        (self.small.len() * 8 + self.lines.len() * LINE_BYTES) as u64
    }

    /// Gives back the buffers' room past the current load.
    pub fn shrink_to_fit(&mut self) {
        self.small.shrink_to_fit();
        self.lines.shrink_to_fit();
    }

    /// Bytes the buffers hold (their capacity).
    pub fn bytes(&self) -> u64 {
        (self.small.capacity() * 8 + self.lines.capacity() * LINE_BYTES) as u64
    }

    /// The sum over the routed queries of the stored keys disjoint from
    /// each; `routed.offsets` filled by `layout`, the layout of the load.
    pub fn sum(&self, layout: &Layout, routed: Routed) -> u64 {
        if self.blocks == 0 {
            return routed
                .entries
                .iter()
                .map(|&entry| count_disjoint_naive(&self.small, routed.queries[position(entry)]))
                .sum();
        }
        // Unrolled for the usual chunk counts (keys of 25 to 60 bits); any
        // other count takes the general loops (0).
        macro_rules! by_chunks {
            ($loop:ident) => {
                match layout.chunks.len() {
                    5 => self.$loop::<NARROW, 5>(layout, routed),
                    6 => self.$loop::<NARROW, 6>(layout, routed),
                    7 => self.$loop::<NARROW, 7>(layout, routed),
                    8 => self.$loop::<NARROW, 8>(layout, routed),
                    9 => self.$loop::<WIDE, 9>(layout, routed),
                    10 => self.$loop::<WIDE, 10>(layout, routed),
                    chunks if chunks <= NARROW => self.$loop::<NARROW, 0>(layout, routed),
                    _ => self.$loop::<WIDE, 0>(layout, routed),
                }
            };
        }
        match layout.path() {
            // SAFETY: a path is chosen only if the CPU runs it (checked
            // once, in `matcher_path`).
            #[cfg(target_arch = "x86_64")]
            MatcherPath::Avx512 => unsafe { by_chunks!(sum_avx512) },
            // SAFETY: as above, popcnt and AVX2 are present.
            #[cfg(target_arch = "x86_64")]
            MatcherPath::Avx2 => unsafe { by_chunks!(sum_avx2) },
            _ => by_chunks!(sum_portable),
        }
    }

    /// Blocks outside, queries inside: a block's tables (a few KB) stay in
    /// the first-level cache while every query passes over them. `S`
    /// offsets a query, `CHUNKS` of them used (0: the layout's count).
    #[inline(always)]
    fn sum_portable<const S: usize, const CHUNKS: usize>(
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
        let mut total = 0u64;
        for block in self.lines.chunks_exact(layout.lines_per_block) {
            for &entry in routed.entries {
                let offsets = &rows[position(entry)][..chunks];
                let line = |offset: u16| &block[usize::from(offset) / LINE_BYTES];
                let mut acc = *line(offsets[0]);
                for &offset in &offsets[1..] {
                    for (word, other) in acc.0.iter_mut().zip(line(offset).0) {
                        *word &= other;
                    }
                }
                total += acc
                    .0
                    .iter()
                    .map(|word| u64::from(word.count_ones()))
                    .sum::<u64>();
            }
        }
        total
    }

    /// The AVX2 loop. A line is two 256-bit halves, and only the total
    /// over all queries is wanted, so the ANDs are not counted one by one:
    /// carry-save adders (Harley and Seal) fold the halves of two queries
    /// into running ones, twos and fours, and only their weight-8 carry is
    /// counted per byte (a nibble table lookup); the byte counts of up to
    /// [`AVX2_BYTE_ROUNDS`] carries are
    /// summed before one `vpsadbw` widens them. Counting every half by
    /// lookup had been 28 of the 44 vector steps of a query and block pair.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,avx2")]
    fn sum_avx2<const S: usize, const CHUNKS: usize>(
        &self,
        layout: &Layout,
        routed: Routed,
    ) -> u64 {
        use std::arch::x86_64::*;
        let chunks = if CHUNKS > 0 {
            CHUNKS
        } else {
            layout.chunks.len()
        };
        let rows = routed.offset_rows::<S>();
        let lookup = _mm256_setr_epi8(
            0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2,
            3, 3, 4,
        );
        let nibbles = _mm256_set1_epi8(0x0f);
        let zero = _mm256_setzero_si256();
        let count_bytes = |words: __m256i| {
            let low = _mm256_and_si256(words, nibbles);
            let high = _mm256_and_si256(_mm256_srli_epi16::<4>(words), nibbles);
            _mm256_add_epi8(
                _mm256_shuffle_epi8(lookup, low),
                _mm256_shuffle_epi8(lookup, high),
            )
        };
        // A carry-save adder: the bits of a + b + c as (carry, sum).
        let add3 = |a: __m256i, b: __m256i, c: __m256i| {
            let partial = _mm256_xor_si256(a, b);
            let carry = _mm256_or_si256(_mm256_and_si256(a, b), _mm256_and_si256(partial, c));
            (carry, _mm256_xor_si256(partial, c))
        };
        // The AND of a query's lines at `base`: two halves.
        let and_lines = |base: *const __m256i, offsets: &[u16]| {
            // SAFETY: every offset is the byte offset of a line below
            // lines_per_block (a chunk's first line plus a pattern of its
            // own bits), so each line and its two halves lie in the block
            // at `base`, and lines are 64-byte aligned as the aligned loads
            // need.
            unsafe {
                let line = base.byte_add(usize::from(offsets[0]));
                let (mut low, mut high) = (_mm256_load_si256(line), _mm256_load_si256(line.add(1)));
                for &offset in &offsets[1..] {
                    let line = base.byte_add(usize::from(offset));
                    low = _mm256_and_si256(low, _mm256_load_si256(line));
                    high = _mm256_and_si256(high, _mm256_load_si256(line.add(1)));
                }
                (low, high)
            }
        };
        let (mut ones, mut twos, mut fours) = (zero, zero, zero);
        // Four halves into the running ones and twos; returns their
        // weight-4 carry.
        let mut add4 = |a: __m256i, b: __m256i, c: __m256i, d: __m256i| {
            let (two_ab, one) = add3(ones, a, b);
            let (two_cd, one) = add3(one, c, d);
            ones = one;
            let (four, two) = add3(twos, two_ab, two_cd);
            twos = two;
            four
        };
        // Two weight-4 carries into the running fours; the weight-8 carry
        // is counted per byte, and the byte counts widened every
        // AVX2_BYTE_ROUNDS carries.
        let (mut eights_bytes, mut eights_sums, mut rounds) = (zero, zero, 0);
        let mut add_fours = |four_first: __m256i, four_second: __m256i| {
            let (eight, four) = add3(fours, four_first, four_second);
            fours = four;
            eights_bytes = _mm256_add_epi8(eights_bytes, count_bytes(eight));
            rounds += 1;
            if rounds == AVX2_BYTE_ROUNDS {
                eights_sums = _mm256_add_epi64(eights_sums, _mm256_sad_epu8(eights_bytes, zero));
                (eights_bytes, rounds) = (zero, 0);
            }
        };
        // Blocks in pairs, as in the AVX-512 loop: a query's offsets, read
        // once, serve both; and queries in twos, for the adders (a lone
        // query's partner is zeros).
        let per_block = layout.lines_per_block;
        let paired = self.blocks / 2 * 2 * per_block;
        let (twos_of_entries, lone_entry) = routed.entries.as_chunks::<2>();
        for pair in self.lines[..paired].chunks_exact(2 * per_block) {
            let first = pair.as_ptr().cast::<__m256i>();
            let second = pair[per_block..].as_ptr().cast::<__m256i>();
            // A query's four halves, through the adders.
            let mut add_query = |entry: u64| {
                let offsets = &rows[position(entry)][..chunks];
                let (a, b) = and_lines(first, offsets);
                let (c, d) = and_lines(second, offsets);
                add4(a, b, c, d)
            };
            for &[first_entry, second_entry] in twos_of_entries {
                let four_first = add_query(first_entry);
                add_fours(four_first, add_query(second_entry));
            }
            for &entry in lone_entry {
                add_fours(add_query(entry), zero);
            }
        }
        for block in self.lines[paired..].chunks_exact(per_block) {
            let base = block.as_ptr().cast::<__m256i>();
            let halves = |entry: Option<u64>| {
                entry.map_or((zero, zero), |entry| {
                    and_lines(base, &rows[position(entry)][..chunks])
                })
            };
            // Two queries' halves a step.
            let lone = lone_entry.iter().map(|&entry| [Some(entry), None]);
            let entry_twos = twos_of_entries
                .iter()
                .map(|&[first, second]| [Some(first), Some(second)]);
            for [first_entry, second_entry] in entry_twos.chain(lone) {
                let (a, b) = halves(first_entry);
                let (c, d) = halves(second_entry);
                add_fours(add4(a, b, c, d), zero);
            }
        }
        let widen = |bytes: __m256i| _mm256_sad_epu8(bytes, zero);
        let sums = _mm256_add_epi64(
            _mm256_add_epi64(
                _mm256_slli_epi64::<3>(_mm256_add_epi64(eights_sums, widen(eights_bytes))),
                _mm256_slli_epi64::<2>(widen(count_bytes(fours))),
            ),
            _mm256_add_epi64(
                _mm256_slli_epi64::<1>(widen(count_bytes(twos))),
                widen(count_bytes(ones)),
            ),
        );
        let mut lanes = [0u64; 4];
        // SAFETY: `lanes` holds the 4 u64 the unaligned store writes.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), sums) };
        lanes.iter().sum()
    }

    /// The AVX-512 loop. A line is one register; each query's AND is
    /// popcounted per u64 lane.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512vpopcntdq")]
    fn sum_avx512<const S: usize, const CHUNKS: usize>(
        &self,
        layout: &Layout,
        routed: Routed,
    ) -> u64 {
        use std::arch::x86_64::*;
        let chunks = if CHUNKS > 0 {
            CHUNKS
        } else {
            layout.chunks.len()
        };
        let rows = routed.offset_rows::<S>();
        let mut sums = _mm512_setzero_si512();
        // Blocks in pairs: a query's offsets, read once, serve both (the
        // offsets are half the loads), and the pair's tables still fit the
        // first-level cache.
        let per_block = layout.lines_per_block;
        let paired = self.blocks / 2 * 2 * per_block;
        for pair in self.lines[..paired].chunks_exact(2 * per_block) {
            let first = pair.as_ptr().cast::<__m512i>();
            let second = pair[per_block..].as_ptr().cast::<__m512i>();
            let mut second_sums = _mm512_setzero_si512();
            for &entry in routed.entries {
                let offsets = &rows[position(entry)][..chunks];
                // SAFETY: as below, in each block of the pair.
                unsafe {
                    let at = usize::from(offsets[0]);
                    let mut acc = _mm512_load_si512(first.byte_add(at));
                    let mut second_acc = _mm512_load_si512(second.byte_add(at));
                    for &offset in &offsets[1..] {
                        let at = usize::from(offset);
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
        for block in self.lines[paired..].chunks_exact(per_block) {
            let base = block.as_ptr().cast::<__m512i>();
            for &entry in routed.entries {
                let offsets = &rows[position(entry)][..chunks];
                // SAFETY: every offset is the byte offset of a line below
                // lines_per_block (a chunk's first line plus a pattern of
                // its own bits), so each line lies in this block, and lines
                // are 64-byte aligned as the aligned loads need.
                unsafe {
                    let mut acc = _mm512_load_si512(base.byte_add(usize::from(offsets[0])));
                    for &offset in &offsets[1..] {
                        let line = _mm512_load_si512(base.byte_add(usize::from(offset)));
                        acc = _mm512_and_si512(acc, line);
                    }
                    sums = _mm512_add_epi64(sums, _mm512_popcnt_epi64(acc));
                }
            }
        }
        _mm512_reduce_add_epi64(sums) as u64
    }
}

/// Stored keys, ready to be queried: one leaf with its own layout.
/// Reused across loads so a worker keeps its allocations.
#[derive(Default)]
pub struct Matcher {
    layout: Layout,
    leaf: Leaf,
    /// A batch of queries with their shared diagonals, their offsets and
    /// their entries (each its own position).
    queries: Vec<u64>,
    offsets: Vec<u16>,
    entries: Vec<u64>,
}

impl Matcher {
    /// Replaces the stored keys with `keys`.
    pub fn load(&mut self, keys: &[u64]) {
        self.layout.set(keys.iter().fold(0, |all, key| all | key));
        self.leaf.load(keys, &self.layout);
    }

    /// Stored keys `k` with `k & query == 0`.
    pub fn count_disjoint(&mut self, query: u64) -> u64 {
        self.sum_disjoint(&[query], 0)
    }

    /// The sum over `queries` of the stored keys disjoint from
    /// `query | extra` (`extra`: diagonals every query shares), taken
    /// [`QUERY_BATCH`] queries at a time.
    pub fn sum_disjoint(&mut self, queries: &[u64], extra: u64) -> u64 {
        let mut total = 0;
        for batch in queries.chunks(QUERY_BATCH) {
            self.queries.clear();
            self.queries
                .extend(batch.iter().map(|&query| query | extra));
            if self.leaf.blocks > 0 {
                self.layout.fill(&self.queries, &mut self.offsets);
            }
            self.entries.clear();
            self.entries.extend(0..batch.len() as u64);
            total += self.leaf.sum(
                &self.layout,
                Routed {
                    queries: &self.queries,
                    offsets: &self.offsets,
                    entries: &self.entries,
                },
            );
        }
        total
    }

    /// [`Matcher::sum_disjoint`] on the loop `path` whatever the CPU
    /// would choose, so tests can hold every loop against the others;
    /// `None` if this CPU cannot run it.
    pub fn sum_disjoint_on(
        &mut self,
        path: MatcherPath,
        queries: &[u64],
        extra: u64,
    ) -> Option<u64> {
        if !path.runs_here() {
            return None;
        }
        let chosen = self.layout.replace_path(Some(path));
        let sum = self.sum_disjoint(queries, extra);
        self.layout.replace_path(chosen);
        Some(sum)
    }
}

/// The environment variable that forces a matcher loop: `avx512`, `avx2`
/// or `portable` (for comparing them on one CPU; counts never change).
pub const MATCHER_VARIABLE: &str = "NQUEENS_MATCHER";

/// The loops of the bit-sliced matcher.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatcherPath {
    /// One 512-bit register per line, with its popcount (AVX-512F and
    /// VPOPCNTDQ).
    Avx512,
    /// Two 256-bit halves per line (AVX2 and popcnt).
    Avx2,
    /// Eight u64 words per line, on any CPU.
    Portable,
}

impl MatcherPath {
    /// Every path, fastest first.
    pub const ALL: [MatcherPath; 3] = [
        MatcherPath::Avx512,
        MatcherPath::Avx2,
        MatcherPath::Portable,
    ];

    /// The path's name, as [`MATCHER_VARIABLE`] takes it.
    pub fn name(self) -> &'static str {
        match self {
            MatcherPath::Avx512 => "avx512",
            MatcherPath::Avx2 => "avx2",
            MatcherPath::Portable => "portable",
        }
    }

    /// Whether this CPU runs the path.
    pub fn runs_here(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            MatcherPath::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
            }
            #[cfg(target_arch = "x86_64")]
            MatcherPath::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("popcnt")
            }
            #[cfg(not(target_arch = "x86_64"))]
            MatcherPath::Avx512 | MatcherPath::Avx2 => false,
            MatcherPath::Portable => true,
        }
    }
}

/// What [`MATCHER_VARIABLE`] asks for: `Ok(None)` when unset or empty; an
/// error naming the value and what is accepted for a path that is not one
/// or that this CPU cannot run.
pub fn requested_matcher() -> Result<Option<MatcherPath>, String> {
    let Some(value) = std::env::var_os(MATCHER_VARIABLE) else {
        return Ok(None);
    };
    let value = value.to_string_lossy();
    if value.is_empty() {
        return Ok(None);
    }
    let here: Vec<&str> = MatcherPath::ALL
        .into_iter()
        .filter(|path| path.runs_here())
        .map(MatcherPath::name)
        .collect();
    match MatcherPath::ALL.into_iter().find(|path| path.name() == value) {
        Some(path) if path.runs_here() => Ok(Some(path)),
        Some(path) => Err(format!(
            "{MATCHER_VARIABLE}={} asks for a loop this CPU cannot run: accepted here are {}",
            path.name(),
            here.join(", ")
        )),
        None => Err(format!(
            "{MATCHER_VARIABLE}={value} is not a matcher loop: accepted values are avx512, avx2, portable"
        )),
    }
}

/// The loop the matcher uses: the one [`MATCHER_VARIABLE`] asks for, else
/// the fastest this CPU runs. Decided once per process.
pub fn matcher_path() -> MatcherPath {
    static CHOICE: std::sync::OnceLock<MatcherPath> = std::sync::OnceLock::new();
    *CHOICE.get_or_init(|| match requested_matcher() {
        Ok(Some(path)) => path,
        // The binary refuses a bad value before counting; a library user
        // gets the detected loop.
        Ok(None) | Err(_) => MatcherPath::ALL
            .into_iter()
            .find(|path| path.runs_here())
            .unwrap_or(MatcherPath::Portable),
    })
}

/// Builds the tables of every block of `keys` into `lines`.
#[inline(always)]
fn fill_blocks(layout: &Layout, keys: &[u64], lines: &mut [Line]) {
    for (block_keys, tables) in keys
        .chunks(BLOCK_KEYS)
        .zip(lines.chunks_exact_mut(layout.lines_per_block))
    {
        fill_block(&layout.chunks, block_keys, tables);
    }
}

/// [`fill_blocks`] built for AVX-512: a line is one register.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn fill_blocks_avx512(layout: &Layout, keys: &[u64], lines: &mut [Line]) {
    fill_blocks(layout, keys, lines);
}

/// [`fill_blocks`] built for AVX2: a line is two registers.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn fill_blocks_avx2(layout: &Layout, keys: &[u64], lines: &mut [Line]) {
    fill_blocks(layout, keys, lines);
}

/// Builds one block's tables from its (up to 512) keys: every line.
#[inline(always)]
fn fill_block(chunks: &[Chunk], keys: &[u64], tables: &mut [Line]) {
    // free[j] = which keys leave bit j free; padding keys leave nothing.
    let mut free = [Line::ZERO; 64];
    let mut valid = Line::ZERO;
    for (word, group) in keys.chunks(64).enumerate() {
        let mut rows = [0u64; 64];
        for (row, &key) in rows.iter_mut().zip(group) {
            *row = !key;
        }
        let columns = transpose64(rows);
        for (bit, &column) in columns.iter().enumerate() {
            free[bit].0[word] = column & low_bits(group.len());
        }
        valid.0[word] = low_bits(group.len());
    }
    for chunk in chunks {
        let table = &mut tables[chunk.first_line..chunk.first_line + chunk.mask as usize + 1];
        table[0] = valid;
        for pattern in 1..table.len() {
            let lowest = pattern.trailing_zeros() as usize;
            let mut line = table[pattern & (pattern - 1)];
            for (word, other) in line.0.iter_mut().zip(free[chunk.shift as usize + lowest].0) {
                *word &= other;
            }
            table[pattern] = line;
        }
    }
}

/// Chunks of keys of `width` bits: as few as fit a block's tables in
/// [`BLOCK_TABLE_BYTES`].
pub fn chunk_count(width: u32) -> u32 {
    let mut count = width.div_ceil(CHUNK_BITS);
    while table_lines(width, count) * LINE_BYTES > BLOCK_TABLE_BYTES {
        count += 1;
    }
    count
}

/// Bits of chunk `index` when `width` key bits are cut into `count`
/// chunks: spread evenly, the first chunks taking the remainder.
fn chunk_bits(width: u32, count: u32, index: u32) -> u32 {
    width / count + u32::from(index < width % count)
}

/// Lines of one block's tables for `width` key bits in `count` chunks.
fn table_lines(width: u32, count: u32) -> usize {
    (0..count)
        .map(|index| 1usize << chunk_bits(width, count, index))
        .sum()
}

/// A u64 with the lowest `count` bits set (count <= 64).
fn low_bits(count: usize) -> u64 {
    if count >= 64 {
        u64::MAX
    } else {
        (1 << count) - 1
    }
}

/// The 64 x 64 bit matrix transposed: bit i of output j is bit j of input i.
/// Swaps ever smaller blocks across the diagonal (6 rounds of 32 swaps).
#[inline(always)]
pub fn transpose64(mut rows: [u64; 64]) -> [u64; 64] {
    let mut width = 32;
    let mut mask: u64 = 0x0000_0000_ffff_ffff;
    while width != 0 {
        let mut start = 0;
        while start < 64 {
            for row in start..start + width {
                let swapped = ((rows[row] >> width) ^ rows[row + width]) & mask;
                rows[row] ^= swapped << width;
                rows[row + width] ^= swapped;
            }
            start += 2 * width;
        }
        width /= 2;
        mask ^= mask << width;
    }
    rows
}

/// The naive twin of [`transpose64`].
pub fn transpose64_naive(rows: &[u64; 64]) -> [u64; 64] {
    let mut out = [0u64; 64];
    for (i, row) in rows.iter().enumerate() {
        for (j, column) in out.iter_mut().enumerate() {
            *column |= ((row >> j) & 1) << i;
        }
    }
    out
}

/// The naive twin of [`Matcher::count_disjoint`]: one pair per step.
pub fn count_disjoint_naive(keys: &[u64], query: u64) -> u64 {
    keys.iter().filter(|&&key| key & query == 0).count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_fills_the_offsets_of_the_portable_fill() {
        let mut state = 0x7f4a_7c15_9e37_79b9u64;
        let mut layout = Layout::default();
        for width in 1..=64u32 {
            let used = u64::MAX >> (64 - width);
            layout.set(used);
            for len in [0, 1, 7, 8, 9, 31, 100] {
                let queries: Vec<u64> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        state & used
                    })
                    .collect();
                let mut expected = Vec::new();
                layout.replace_path(Some(MatcherPath::Portable));
                layout.fill(&queries, &mut expected);
                // Into buffers holding stale offsets, shorter and longer
                // than the fill: every offset is written, the unused 0.
                let stale = [vec![7; 3], vec![7; len * WIDE + 5]];
                for (path, stale) in MatcherPath::ALL
                    .into_iter()
                    .filter(|path| path.runs_here())
                    .flat_map(|path| stale.iter().map(move |stale| (path, stale)))
                {
                    let mut offsets = stale.clone();
                    layout.replace_path(Some(path));
                    layout.fill(&queries, &mut offsets);
                    assert_eq!(offsets, expected, "{path:?}, width {width}, {len} queries");
                }
            }
        }
    }

    #[test]
    fn transpose_moves_one_bit_across_the_diagonal() {
        let mut rows = [0u64; 64];
        rows[3] = 1 << 40;
        let columns = transpose64(rows);
        assert_eq!(columns[40], 1 << 3);
        assert_eq!(columns.iter().filter(|&&c| c != 0).count(), 1);
    }
}
