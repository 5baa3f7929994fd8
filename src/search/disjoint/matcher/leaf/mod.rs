//! Stored keys as bit-sliced blocks, and the sums of queries over them
//! on every matcher path: the portable loop here, the AVX2 and AVX-512
//! loops in their own files.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;

use super::fill::{fill_blocks, FillScratch};
#[cfg(target_arch = "x86_64")]
use super::fill::{fill_blocks_avx2, gfni_fill_runs_here};
use super::{
    count_disjoint_naive, Layout, Line, MatcherPath, BLOCK_KEYS, LINE_BYTES, NARROW, SMALL_SET,
    WIDE, WORDS,
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

/// A leaf's tables cut for the vector loops ([`Leaf::block_runs`]).
#[cfg(target_arch = "x86_64")]
struct BlockRuns<'a> {
    /// Pairs of whole blocks.
    pairs: &'a [Line],
    /// A last pair whose second block is half empty, or nothing.
    half_pair: &'a [Line],
    /// A last block without a partner, or nothing.
    lone: &'a [Line],
    /// Whether that lone block is half empty.
    lone_half: bool,
}

/// The position an entry names.
#[inline(always)]
fn position(entry: u32) -> usize {
    entry as u16 as usize
}

impl Leaf {
    /// Replaces the stored keys with `keys`, in `layout`'s chunks (which
    /// must cover every bit the keys use), with `scratch` for the fill.
    pub(crate) fn load(&mut self, keys: &[u64], layout: &Layout, scratch: &mut FillScratch) {
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
        let free = scratch.lines();
        match layout.path() {
            // SAFETY: a path is chosen only if the CPU runs it: AVX2 on
            // both (`MatcherPath::runs_here`).
            #[cfg(target_arch = "x86_64")]
            MatcherPath::Avx512 | MatcherPath::Avx2 => unsafe {
                // SAFETY: with GFNI only where the CPU has it and the
                // AVX-512 features it takes.
                if layout.path() == MatcherPath::Avx512 && gfni_fill_runs_here() {
                    fill_blocks_avx2::<true>(layout, keys, tables, free)
                } else {
                    fill_blocks_avx2::<false>(layout, keys, tables, free)
                }
            },
            _ => fill_blocks::<false, false, false>(layout, keys, tables, free),
        }
    }

    /// Asks for the current load's tables in the second-level cache.
    pub(crate) fn prefetch(&self) {
        #[cfg(target_arch = "x86_64")]
        for line in self.tables() {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T1};
            // SAFETY: a prefetch reads nothing, and the line is this
            // leaf's own.
            unsafe { _mm_prefetch::<_MM_HINT_T1>((line as *const Line).cast()) };
        }
    }

    /// The current load's tables as the vector loops read them, blocks of
    /// `per_block` lines in pairs: a query's offsets, read once, serve
    /// both. A last block of at most half its keys has zeros in its
    /// lines' high halves, which those loops skip.
    #[cfg(target_arch = "x86_64")]
    fn block_runs(&self, per_block: usize) -> BlockRuns<'_> {
        let half_last = self.last_is_half();
        let paired_blocks = self.blocks / 2 * 2;
        let full_pairs = if half_last && paired_blocks == self.blocks {
            paired_blocks - 2
        } else {
            paired_blocks
        };
        let tables = self.tables();
        BlockRuns {
            pairs: &tables[..full_pairs * per_block],
            half_pair: &tables[full_pairs * per_block..paired_blocks * per_block],
            lone: &tables[paired_blocks * per_block..],
            lone_half: half_last,
        }
    }

    /// Whether the last block holds at most half its keys: its lines'
    /// high halves are zeros, which every loop skips.
    fn last_is_half(&self) -> bool {
        self.last_keys <= BLOCK_KEYS / 2
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
    /// A block is taken as two halves of its keys (four words of each
    /// line), so that four queries' halves and the adders' running sums
    /// fit x86-64's sixteen SSE2 registers (whole lines spilled them). A
    /// last block of at most half its keys has zeros in its lines' high
    /// words, so only its low half is read (as the vector loops do).
    #[inline(always)]
    fn sum_portable<const S: usize, const CHUNKS: usize>(
        &self,
        layout: &Layout,
        routed: Routed,
    ) -> u64 {
        let per_block = layout.lines_per_block;
        let tables = self.tables();
        let whole = if self.last_is_half() {
            tables.len() - per_block
        } else {
            tables.len()
        };
        self.sum_halves_portable::<S, CHUNKS, 2>(layout, routed, &tables[..whole])
            + self.sum_halves_portable::<S, CHUNKS, 1>(layout, routed, &tables[whole..])
    }

    /// [`Leaf::sum_portable`] over `blocks`, reading the first `HALVES`
    /// halves of each line (the others are zeros in every one of these
    /// blocks).
    #[inline(always)]
    fn sum_halves_portable<const S: usize, const CHUNKS: usize, const HALVES: usize>(
        &self,
        layout: &Layout,
        routed: Routed,
        blocks: &[Line],
    ) -> u64 {
        const HALF: usize = WORDS / 2;
        let chunks = if CHUNKS > 0 {
            CHUNKS
        } else {
            layout.chunks.len()
        };
        let rows = routed.offset_rows::<S>();
        let (fours_of_entries, rest) = routed.entries.as_chunks::<4>();
        let (mut ones, mut twos, mut total) = ([0u64; HALF], [0u64; HALF], 0u64);
        for block in blocks.chunks_exact(layout.lines_per_block) {
            for half in 0..HALVES {
                let and_lines = |entry: u32| {
                    let offsets = &rows[position(entry)][..chunks];
                    // SAFETY: every offset is the byte offset of a line
                    // below lines_per_block (a chunk's first line plus a
                    // pattern of its own bits), so each line lies in this
                    // block, and a half is HALF of its words.
                    let words = |offset: u16| unsafe {
                        &*block
                            .as_ptr()
                            .byte_add(usize::from(offset))
                            .cast::<[u64; HALF]>()
                            .add(half)
                    };
                    let mut acc: [u64; HALF] = *words(offsets[0]);
                    for &offset in &offsets[1..] {
                        for (word, other) in acc.iter_mut().zip(words(offset)) {
                            *word &= other;
                        }
                    }
                    acc
                };
                // Four queries' halves through carry-save adders (Harley
                // and Seal), as in the AVX2 loop: without a popcount
                // instruction a line's count costs more than its ANDs, and
                // only the weight-4 carry is counted.
                for &[first, second, third, fourth] in fours_of_entries {
                    let two_first = carry_save(&mut ones, &and_lines(first), &and_lines(second));
                    let two_second = carry_save(&mut ones, &and_lines(third), &and_lines(fourth));
                    total += 4 * words_count(&carry_save(&mut twos, &two_first, &two_second));
                }
                for &entry in rest {
                    total += words_count(&and_lines(entry));
                }
            }
        }
        total + 2 * words_count(&twos) + words_count(&ones)
    }
}

/// Adds `a` and `b` into the running `sum`, bit by bit: returns the carry.
#[inline(always)]
fn carry_save<const W: usize>(sum: &mut [u64; W], a: &[u64; W], b: &[u64; W]) -> [u64; W] {
    let mut carry = [0u64; W];
    for ((word, carry), (a, b)) in sum.iter_mut().zip(&mut carry).zip(a.iter().zip(b)) {
        let partial = *word ^ a;
        *carry = (*word & a) | (partial & b);
        *word = partial ^ b;
    }
    carry
}

/// The set bits of some words.
#[inline(always)]
fn words_count<const W: usize>(words: &[u64; W]) -> u64 {
    words.iter().map(|word| u64::from(word.count_ones())).sum()
}
