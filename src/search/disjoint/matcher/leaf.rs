//! Stored keys as bit-sliced blocks, and the sums of queries over them
//! on every matcher path.

use super::fill::fill_blocks;
#[cfg(target_arch = "x86_64")]
use super::fill::fill_blocks_avx2;
use super::{
    count_disjoint_naive, Layout, Line, MatcherPath, AVX2_BYTE_ROUNDS, BLOCK_KEYS, LINE_BYTES,
    NARROW, SMALL_SET, WIDE,
};
use crate::search::disjoint::grow_to;

/// Stored keys in bit-sliced blocks laid out by a [`Layout`]; reused
/// across loads so a leaf keeps its allocations.
#[derive(Default)]
pub(crate) struct Leaf {
    /// The keys when there are fewer than [`SMALL_SET`].
    small: Vec<u64>,
    /// The blocks' tables: the first `used_lines`. The lines past them
    /// are stale, kept written so that a later, larger load need not zero
    /// them first.
    lines: Vec<Line>,
    used_lines: usize,
    pub(super) blocks: usize,
    /// Keys in the last block (the others are full).
    last_keys: usize,
}

/// The queries a leaf sums over: `entries` name them by position (the
/// low 16 bits of each), in `queries` and in `offsets` (a layout's
/// stride apart).
#[derive(Clone, Copy)]
pub(crate) struct Routed<'a> {
    pub queries: &'a [u64],
    pub offsets: &'a [u16],
    pub entries: &'a [u32],
}

impl Routed<'_> {
    /// The offsets of each query, as arrays of `S`.
    fn offset_rows<const S: usize>(&self) -> &[[u16; S]] {
        self.offsets.as_chunks::<S>().0
    }
}

/// What the calling thread's leaves did since [`take_leaf_work`] last
/// asked: the work a roofline divides the time by (built with the
/// `testing` feature only; a release build counts nothing).
#[cfg(feature = "testing")]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LeafWork {
    /// Visits of a query to a block of [`BLOCK_KEYS`] stored keys: 512
    /// pairs decided by one AND of lines and one popcount.
    pub visits: u64,
    /// Lines (64 bytes) read by those visits: one per chunk.
    pub lines: u64,
    /// Pairs decided one by one (leaves of fewer than `SMALL_SET` keys).
    pub naive_pairs: u64,
}

#[cfg(feature = "testing")]
thread_local! {
    static LEAF_WORK: std::cell::Cell<LeafWork> = const {
        std::cell::Cell::new(LeafWork {
            visits: 0,
            lines: 0,
            naive_pairs: 0,
        })
    };
}

/// The calling thread's leaf work since the last call, reset to zero.
#[cfg(feature = "testing")]
pub fn take_leaf_work() -> LeafWork {
    LEAF_WORK.with(|work| work.replace(LeafWork::default()))
}

/// The position an entry names.
#[inline(always)]
fn position(entry: u32) -> usize {
    entry as u16 as usize
}

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
    /// Replaces the stored keys with `keys`, in `layout`'s chunks (which
    /// must cover every bit the keys use).
    pub(crate) fn load(&mut self, keys: &[u64], layout: &Layout) {
        self.small.clear();
        self.blocks = 0;
        if keys.len() < SMALL_SET {
            self.used_lines = 0;
            self.small.reserve_exact(keys.len());
            self.small.extend_from_slice(keys);
            return;
        }
        debug_assert!(layout.chunks.last().is_some_and(|chunk| {
            let used = keys.iter().fold(0, |all, key| all | key);
            used >> chunk.shift <= chunk.mask
        }));
        self.blocks = keys.len().div_ceil(BLOCK_KEYS);
        self.last_keys = keys.len() - (self.blocks - 1) * BLOCK_KEYS;
        let lines = self.blocks * layout.lines_per_block;
        // Every line is written by the fill, so only lines never held
        // before are zeroed (zeroing them all costs a tenth of a load;
        // zeroing what a smaller load had cut off, as a leaf's loads go
        // from one block to two and back, cost 1.5 to 2% of an N = 28
        // task in `memset`).
        grow_to(&mut self.lines, lines, Line::ZERO);
        self.used_lines = lines;
        let tables = &mut self.lines[..lines];
        match layout.path() {
            // SAFETY: a path is chosen only if the CPU runs it: AVX2 on
            // both (`MatcherPath::runs_here`).
            #[cfg(target_arch = "x86_64")]
            MatcherPath::Avx512 | MatcherPath::Avx2 => unsafe {
                fill_blocks_avx2(layout, keys, tables)
            },
            _ => fill_blocks::<false>(layout, keys, tables),
        }
    }

    /// The tables of the current load.
    fn tables(&self) -> &[Line] {
        &self.lines[..self.used_lines]
    }

    /// Bytes the current load uses.
    pub(crate) fn used_bytes(&self) -> u64 {
        (self.small.len() * 8 + self.used_lines * LINE_BYTES) as u64
    }

    /// Gives back the buffers' room past the current load.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.small.shrink_to_fit();
        self.lines.truncate(self.used_lines);
        self.lines.shrink_to_fit();
    }

    /// Bytes the buffers hold (their capacity).
    pub(crate) fn bytes(&self) -> u64 {
        (self.small.capacity() * 8 + self.lines.capacity() * LINE_BYTES) as u64
    }

    /// The sum over the routed queries of the stored keys disjoint from
    /// each; `routed.offsets` filled by `layout`, the layout of the load.
    pub(crate) fn sum(&self, layout: &Layout, routed: Routed) -> u64 {
        #[cfg(feature = "testing")]
        LEAF_WORK.with(|work| {
            let mut counted = work.get();
            let queries = routed.entries.len() as u64;
            if self.blocks == 0 {
                counted.naive_pairs += queries * self.small.len() as u64;
            } else {
                counted.visits += queries * self.blocks as u64;
                counted.lines += queries * (self.blocks * layout.chunks.len()) as u64;
            }
            work.set(counted);
        });
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
            // SAFETY: the AVX2 path is chosen only on a CPU with AVX2 and
            // POPCNT (`matcher_path`).
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
        let (fours_of_entries, rest) = routed.entries.as_chunks::<4>();
        let (mut ones, mut twos, mut total) = (Line::ZERO, Line::ZERO, 0u64);
        for block in self.tables().chunks_exact(layout.lines_per_block) {
            let and_lines = |entry: u32| {
                let offsets = &rows[position(entry)][..chunks];
                // SAFETY: every offset is the byte offset of a line below
                // lines_per_block (a chunk's first line plus a pattern of
                // its own bits), so each line lies in this block.
                let line = |offset: u16| unsafe { &*block.as_ptr().byte_add(usize::from(offset)) };
                let mut acc: Line = *line(offsets[0]);
                for &offset in &offsets[1..] {
                    for (word, other) in acc.0.iter_mut().zip(line(offset).0) {
                        *word &= other;
                    }
                }
                acc
            };
            // Four queries' lines through carry-save adders (Harley and
            // Seal), as in the AVX2 loop: without a popcount instruction a
            // line's count costs more than its ANDs, and only the weight-4
            // carry is counted.
            for &[first, second, third, fourth] in fours_of_entries {
                let two_first = carry_save(&mut ones, &and_lines(first), &and_lines(second));
                let two_second = carry_save(&mut ones, &and_lines(third), &and_lines(fourth));
                total += 4 * line_count(&carry_save(&mut twos, &two_first, &two_second));
            }
            for &entry in rest {
                total += line_count(&and_lines(entry));
            }
        }
        total + 2 * line_count(&twos) + line_count(&ones)
    }

    /// The AVX2 loop. A line is two 256-bit halves, and only the total
    /// over all queries is wanted, so the ANDs are not counted one by one:
    /// carry-save adders (Harley and Seal) fold the halves of two queries
    /// into running ones, twos and fours, and only their weight-8 carry is
    /// counted per byte (a nibble table lookup); the byte counts of up to
    /// [`AVX2_BYTE_ROUNDS`] carries are
    /// summed before one `vpsadbw` widens them. Counting every half by
    /// lookup takes 28 of the 44 vector steps of a query and block pair.
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
        // The AND of a query's lines' low halves at `base`: all a block
        // needs whose keys fill at most its low half (the high halves of
        // its lines are zeros). A quarter of the visits at N = 18 to 24
        // are to such a block, the last of its leaf.
        let and_low_halves = |base: *const __m256i, offsets: &[u16]| {
            // SAFETY: as `and_lines`.
            unsafe {
                let mut low = _mm256_load_si256(base.byte_add(usize::from(offsets[0])));
                for &offset in &offsets[1..] {
                    low = _mm256_and_si256(
                        low,
                        _mm256_load_si256(base.byte_add(usize::from(offset))),
                    );
                }
                low
            }
        };
        let half_last = self.last_keys <= BLOCK_KEYS / 2;
        // Blocks in pairs, as in the AVX-512 loop: a query's offsets, read
        // once, serve both; and queries in twos, for the adders (a lone
        // query's partner is zeros). A last pair whose second block is
        // half empty reads three halves a line.
        let per_block = layout.lines_per_block;
        let paired_blocks = self.blocks / 2 * 2;
        let full_pairs = if half_last && paired_blocks == self.blocks {
            paired_blocks - 2
        } else {
            paired_blocks
        };
        let (twos_of_entries, lone_entry) = routed.entries.as_chunks::<2>();
        // Every query's weight-4 carry from `add_query`, two queries a
        // step into the running fours.
        macro_rules! each_query {
            ($add_query:expr) => {{
                let mut add_query = $add_query;
                for &[first_entry, second_entry] in twos_of_entries {
                    let four_first = add_query(first_entry);
                    add_fours(four_first, add_query(second_entry));
                }
                for &entry in lone_entry {
                    add_fours(add_query(entry), zero);
                }
            }};
        }
        for pair in self.tables()[..full_pairs * per_block].chunks_exact(2 * per_block) {
            let first = pair.as_ptr().cast::<__m256i>();
            let second = pair[per_block..].as_ptr().cast::<__m256i>();
            // A query's four halves, through the adders.
            each_query!(|entry: u32| {
                let offsets = &rows[position(entry)][..chunks];
                let (a, b) = and_lines(first, offsets);
                let (c, d) = and_lines(second, offsets);
                add4(a, b, c, d)
            });
        }
        let last_pair = &self.tables()[full_pairs * per_block..paired_blocks * per_block];
        if !last_pair.is_empty() {
            let first = last_pair.as_ptr().cast::<__m256i>();
            let second = last_pair[per_block..].as_ptr().cast::<__m256i>();
            // A query's three halves (the fourth is zeros).
            each_query!(|entry: u32| {
                let offsets = &rows[position(entry)][..chunks];
                let (a, b) = and_lines(first, offsets);
                add4(a, b, and_low_halves(second, offsets), zero)
            });
        }
        for block in self.tables()[paired_blocks * per_block..].chunks_exact(per_block) {
            let base = block.as_ptr().cast::<__m256i>();
            if half_last {
                // The low halves only, four queries a step.
                let (fours_of_entries, rest) = routed.entries.as_chunks::<4>();
                let low = |entry: u32| and_low_halves(base, &rows[position(entry)][..chunks]);
                for &[e0, e1, e2, e3] in fours_of_entries {
                    add_fours(add4(low(e0), low(e1), low(e2), low(e3)), zero);
                }
                for &entry in rest {
                    add_fours(add4(low(entry), zero, zero, zero), zero);
                }
                continue;
            }
            let halves = |entry: Option<u32>| {
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

/// Adds `a` and `b` into the running `sum`, bit by bit: returns the carry.
#[inline(always)]
fn carry_save(sum: &mut Line, a: &Line, b: &Line) -> Line {
    let mut carry = Line::ZERO;
    for ((word, carry), (a, b)) in sum.0.iter_mut().zip(&mut carry.0).zip(a.0.iter().zip(b.0)) {
        let partial = *word ^ a;
        *carry = (*word & a) | (partial & b);
        *word = partial ^ b;
    }
    carry
}

/// The set bits of a line.
#[inline(always)]
fn line_count(line: &Line) -> u64 {
    line.0.iter().map(|word| u64::from(word.count_ones())).sum()
}
