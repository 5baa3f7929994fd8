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

mod fill;
mod layout;
mod leaf;

#[cfg(target_arch = "x86_64")]
pub(crate) use fill::gfni_fill_runs_here;
pub(crate) use fill::{FillScratch, FILL_SCRATCH_BYTES};
pub(crate) use layout::Layout;
#[cfg(feature = "testing")]
pub use leaf::{take_leaf_work, LeafWork};
pub(crate) use leaf::{Leaf, Routed};

/// Stored keys per block: one 512-bit line per key bit.
pub const BLOCK_KEYS: usize = 512;

/// Most key bits per precomputed chunk (2^6 lines of 64 bytes each). Six
/// rather than five: one line fewer per query and block at most widths
/// (a chunk fewer for keys of 34 to 46 bits), which outweighs building
/// twice the lines per chunk: `count 18 -j1` 2% faster, samples of N = 22
/// and 24 7% faster (AVX2).
pub(crate) const CHUNK_BITS: u32 = 6;

/// Most bytes of one block's tables: a query reads lines from all over
/// them for each block, so they should stay in a 32 KB first-level cache
/// with room; wide keys take more, narrower chunks instead.
pub(crate) const BLOCK_TABLE_BYTES: usize = 28 << 10;

/// Below this many stored keys a plain loop is cheaper than building
/// the tables.
pub(crate) const SMALL_SET: usize = 48;

/// Queries a matcher takes at a time: enough that a block's lines, read
/// once per batch, stay in the first-level cache for hundreds of queries.
pub(crate) const QUERY_BATCH: usize = 256;

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

/// Stored keys, ready to be queried: one leaf with its own layout.
/// Reused across loads so a worker keeps its allocations.
#[derive(Default)]
pub struct Matcher {
    layout: Layout,
    leaf: Leaf,
    scratch: FillScratch,
    /// A batch of queries with their shared diagonals, their offsets and
    /// their entries (each its own position).
    queries: Vec<u64>,
    offsets: Vec<u16>,
    entries: Vec<u32>,
}

impl Matcher {
    /// Replaces the stored keys with `keys`.
    pub fn load(&mut self, keys: &[u64]) {
        self.layout.set(super::bits_taken(matcher_path(), keys));
        self.leaf.load(keys, &self.layout, &mut self.scratch);
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
            total += sum_whole_batch(
                &self.leaf,
                &self.layout,
                &self.queries,
                &mut self.offsets,
                &mut self.entries,
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
        on_path(
            self,
            |matcher| &mut matcher.layout,
            path,
            |matcher| matcher.sum_disjoint(queries, extra),
        )
    }
}

/// The sum over one batch of `queries` of the keys `leaf` stores (laid
/// out by `layout`) disjoint from each, every query met by the whole
/// leaf: their offsets and entries (each its own position) made in
/// `offsets` and `entries`.
pub(crate) fn sum_whole_batch(
    leaf: &Leaf,
    layout: &Layout,
    queries: &[u64],
    offsets: &mut Vec<u16>,
    entries: &mut Vec<u32>,
) -> u64 {
    if leaf.blocks > 0 {
        layout.fill(queries, offsets);
    }
    entries.clear();
    entries.extend(0..queries.len() as u32);
    leaf.sum(
        layout,
        Routed {
            queries,
            offsets,
            entries,
        },
    )
}

/// Runs `sum` on `matcher` with its layout's loop (reached by `layout`)
/// forced to `path`, then puts the chosen loop back: the one body of
/// every matcher's `sum_disjoint_on`. `None` if this CPU cannot run
/// `path`.
pub(super) fn on_path<M, T>(
    matcher: &mut M,
    layout: fn(&mut M) -> &mut Layout,
    path: MatcherPath,
    sum: impl FnOnce(&mut M) -> T,
) -> Option<T> {
    if !path.runs_here() {
        return None;
    }
    let chosen = layout(matcher).replace_path(Some(path));
    let result = sum(matcher);
    layout(matcher).replace_path(chosen);
    Some(result)
}

/// The environment variable that forces a matcher loop: `avx512`, `avx2`
/// or `portable` (for comparing them on one CPU; counts never change).
pub(crate) const MATCHER_VARIABLE: &str = "NQUEENS_MATCHER";

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
            // AVX2 too, which every CPU with AVX-512 has: its loads fill
            // their blocks with the AVX2 build of the fill.
            MatcherPath::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
                    && std::arch::is_x86_feature_detected!("avx2")
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

/// What [`MATCHER_VARIABLE`] asks for: `Ok(None)` when unset or empty,
/// else as [`parse_matcher`] reads its value.
pub(crate) fn requested_matcher() -> Result<Option<MatcherPath>, String> {
    match std::env::var_os(MATCHER_VARIABLE) {
        Some(value) if !value.is_empty() => {
            parse_matcher(&value.to_string_lossy(), &format!("{MATCHER_VARIABLE}=")).map(Some)
        }
        _ => Ok(None),
    }
}

/// The loop `value` names, if this CPU runs it; an error naming `label`
/// and the value, and what is accepted, otherwise.
pub(crate) fn parse_matcher(value: &str, label: &str) -> Result<MatcherPath, String> {
    let here: Vec<&str> = MatcherPath::ALL
        .into_iter()
        .filter(|path| path.runs_here())
        .map(MatcherPath::name)
        .collect();
    match MatcherPath::ALL
        .into_iter()
        .find(|path| path.name() == value)
    {
        Some(path) if path.runs_here() => Ok(path),
        Some(path) => Err(format!(
            "{label}{} asks for a loop this CPU cannot run: accepted here are {}",
            path.name(),
            here.join(", ")
        )),
        None => Err(format!(
            "{label}{value} is not a matcher loop: accepted values are avx512, avx2, portable"
        )),
    }
}

/// The loop the matcher on the calling thread uses: the one its count
/// chose ([`crate::CodePaths`]), else the one [`MATCHER_VARIABLE`] asks
/// for, else the fastest this CPU runs.
pub fn matcher_path() -> MatcherPath {
    CHOSEN.get().unwrap_or_else(default_matcher)
}

thread_local! {
    /// The loop the calling thread's count chose (`None`: the default).
    static CHOSEN: std::cell::Cell<Option<MatcherPath>> = const { std::cell::Cell::new(None) };
}

/// Makes `choice` the matcher loop of the calling thread (`None`: the
/// default).
pub(crate) fn enter_matcher(choice: Option<MatcherPath>) {
    CHOSEN.set(choice);
}

/// The process's default loop, decided once.
fn default_matcher() -> MatcherPath {
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

/// Chunks of keys of `width` bits: as few as fit a block's tables in
/// [`BLOCK_TABLE_BYTES`].
pub(crate) fn chunk_count(width: u32) -> u32 {
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
        let mut random = crate::random::SplitMix64(0x7f4a_7c15_9e37_79b9);
        let mut layout = Layout::default();
        for width in 1..=64u32 {
            let used = u64::MAX >> (64 - width);
            layout.set(used);
            for len in [0, 1, 7, 8, 9, 31, 100] {
                let queries: Vec<u64> = (0..len).map(|_| random.next() & used).collect();
                let mut expected = Vec::new();
                layout.replace_path(Some(MatcherPath::Portable));
                layout.fill(&queries, &mut expected);
                // The portable fill against the definition: chunk i's
                // pattern, shifted down and masked, is line i's index.
                let stride = expected.len().checked_div(len).unwrap_or(NARROW);
                for (query, lines) in queries.iter().zip(expected.chunks(stride)) {
                    for (index, &line) in lines.iter().enumerate() {
                        let wanted = layout.chunks.get(index).map_or(0, |chunk| {
                            (chunk.first_line + ((query >> chunk.shift) & chunk.mask) as usize)
                                * LINE_BYTES
                        });
                        assert_eq!(usize::from(line), wanted, "width {width}, chunk {index}");
                    }
                }
                // Into buffers holding stale offsets, shorter and longer
                // than the fill: every offset of the batch is written, the
                // unused 0.
                let stale = [vec![7; 3], vec![7; len * WIDE + 5]];
                for (path, stale) in MatcherPath::ALL
                    .into_iter()
                    .filter(|path| path.runs_here())
                    .flat_map(|path| stale.iter().map(move |stale| (path, stale)))
                {
                    let mut offsets = stale.clone();
                    layout.replace_path(Some(path));
                    layout.fill(&queries, &mut offsets);
                    assert!(offsets.len() >= expected.len(), "{path:?}");
                    let filled = &offsets[..expected.len()];
                    assert_eq!(filled, expected, "{path:?}, width {width}, {len} queries");
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
