//! The stored keys of a grid bit-sliced on the GPU (`sliced.cuh`), the
//! matcher `NQUEENS_GPU_MATCHER=sliced` chooses: each bucket of the
//! stored groups' layout cut into blocks of 32 keys, each block's words
//! built by one launch, and the chunk masks they are built on.
//! The host computes where the blocks lie (from the buckets' counts it
//! already holds) and sends it in one copy.

use super::buckets::keys_within;
use super::device::{arg, launch_over, Buffer, GpuDevice};
use crate::cuda::driver::DevicePtr;

/// Stored keys a block (`NQ_BLOCK_KEYS`): the bits of a word.
pub(super) const BLOCK_KEYS: u32 = 32;

/// Key bits a chunk (`NQ_CHUNK_BITS`), and the words of one chunk in a
/// block, a word a pattern of its bits (one 128-byte line).
const CHUNK_BITS: u32 = 5;
const CHUNK_WORDS: u64 = 32;

/// A grid's stored keys sliced on the GPU.
#[derive(Default)]
pub(super) struct SlicedBuffers {
    /// The chunk masks (two words each), each block's first key and key
    /// count, and each group's block starts (2^cuts + 1 words a group).
    pub(super) table: Buffer,
    /// Every block's words.
    pub(super) words: Buffer,
}

impl SlicedBuffers {
    pub(super) fn buffers(&self) -> [&Buffer; 2] {
        [&self.table, &self.words]
    }
}

/// Where a grid's slices lie on the GPU, and their chunks.
pub(super) struct Slices {
    /// The key bits of each chunk, lowest first.
    pub(super) chunk_masks: Vec<u64>,
    /// Where the chunk masks and the groups' block starts are.
    pub(super) chunk_masks_at: DevicePtr,
    pub(super) block_starts_at: DevicePtr,
}

/// The bits of `slice_mask` in chunks of up to five, lowest first; one
/// chunk (of no bits) where there are none, since a query ANDs at least
/// one word a block (which says which slots hold a key).
pub(super) fn chunk_masks(slice_mask: u64) -> Vec<u64> {
    let mut chunks = Vec::new();
    let mut rest = slice_mask;
    while rest != 0 {
        let mut chunk = 0;
        for _ in 0..CHUNK_BITS {
            let low = rest & rest.wrapping_neg();
            chunk |= low;
            rest ^= low;
        }
        chunks.push(chunk);
    }
    if chunks.is_empty() {
        chunks.push(0);
    }
    chunks
}

/// The blocks of buckets holding `in_bucket` keys each (group after
/// group, bucket after bucket, the keys laid out in that order): each
/// block's first key and key count, and each group's block starts (one
/// more than its buckets).
pub(super) fn blocks_of(in_bucket: &[Vec<u32>]) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let (mut from, mut count, mut starts) = (Vec::new(), Vec::new(), Vec::new());
    let mut key = 0u32;
    for group in in_bucket {
        for &keys in group {
            starts.push(from.len() as u32);
            let mut left = keys;
            while left > 0 {
                let taken = left.min(BLOCK_KEYS);
                from.push(key);
                count.push(taken);
                key += taken;
                left -= taken;
            }
        }
        starts.push(from.len() as u32);
    }
    (from, count, starts)
}

/// For each group and each pattern `m` of its buckets, the pairs a query
/// decides in the buckets within `m`: 32 a block (every slot of a block
/// is ANDed, a key in it or not).
pub(super) fn pairs_within(in_bucket: &[Vec<u32>]) -> Vec<Vec<u64>> {
    in_bucket
        .iter()
        .map(|group| {
            let blocks: Vec<u32> = group
                .iter()
                .map(|&keys| keys.div_ceil(BLOCK_KEYS) * BLOCK_KEYS)
                .collect();
            keys_within(&blocks)
        })
        .collect()
}

/// Slices the stored keys at `sorted`, laid out in buckets holding
/// `in_bucket` keys each (each group's buckets on `cut_mask`), on the
/// bits of `key_mask` outside the cuts: their chunk masks and blocks sent
/// in one copy, their tables built by one launch.
pub(super) fn slice(
    device: &GpuDevice,
    buffers: &mut SlicedBuffers,
    sorted: DevicePtr,
    in_bucket: &[Vec<u32>],
    key_mask: u64,
    cut_mask: u64,
) -> Result<Slices, String> {
    let cuda = &device.cuda;
    let chunk_masks = chunk_masks(key_mask & !cut_mask);
    let chunks = chunk_masks.len() as u32;
    let (from, count, starts) = blocks_of(in_bucket);
    let blocks = from.len() as u32;
    let mut words: Vec<u32> = chunk_masks
        .iter()
        .flat_map(|&mask| [mask as u32, (mask >> 32) as u32])
        .collect();
    let from_at = words.len();
    words.extend_from_slice(&from);
    let count_at = words.len();
    words.extend_from_slice(&count);
    let starts_at = words.len();
    words.extend_from_slice(&starts);
    buffers.table.put(cuda, &words)?;
    let word = |at: usize| buffers.table.pointer + (at * 4) as DevicePtr;
    let line_words = u64::from(blocks.max(1)) * u64::from(chunks) * CHUNK_WORDS;
    buffers.words.reserve(cuda, (line_words * 4) as usize)?;
    let items = u64::from(blocks) * u64::from(chunks);
    let items = u32::try_from(items)
        .map_err(|_| format!("{blocks} blocks of sliced keys are more than one launch takes"))?;
    if items > 0 {
        let (mut sorted_at, mut from_ptr, mut count_ptr, mut block_count) =
            (sorted, word(from_at), word(count_at), blocks);
        let (mut masks_at, mut chunks_arg, mut words_at) = (word(0), chunks, buffers.words.pointer);
        let mut params = [
            arg(&mut sorted_at),
            arg(&mut from_ptr),
            arg(&mut count_ptr),
            arg(&mut block_count),
            arg(&mut masks_at),
            arg(&mut chunks_arg),
            arg(&mut words_at),
        ];
        launch_over(device, device.slice, items, &mut params)?;
    }
    Ok(Slices {
        chunk_masks_at: word(0),
        block_starts_at: word(starts_at),
        chunk_masks,
    })
}

#[cfg(test)]
mod tests {
    use super::super::buckets::{gather, keys, QueryLayout, StoredLayout};
    use super::*;
    use crate::random::SplitMix64;

    extern "C" {
        fn nq_sliced_host(
            sorted: *const u64,
            from: *const u32,
            count: *const u32,
            block_count: u32,
            block_start: *const u32,
            cuts: u32,
            chunk_masks: *const u64,
            chunks: u32,
            queries: *const u64,
            query_patterns: *const u32,
            query_count: u32,
        ) -> u64;
    }

    /// The pairs of `queries` and `stored` through the sliced kernels'
    /// code on the host, laid out on `cuts` and sliced on every other bit
    /// the stored keys have.
    fn sliced_pairs(stored: &[u64], cuts: &[u64], queries: &[u64]) -> u64 {
        let mut layout = StoredLayout::default();
        layout.fill(stored, cuts);
        let mut query_layout = QueryLayout::default();
        query_layout.fill(queries, 0, &layout);
        let in_bucket: Vec<u32> = layout
            .bucket_start()
            .windows(2)
            .map(|bucket| bucket[1] - bucket[0])
            .collect();
        let (from, count, starts) = blocks_of(&[in_bucket]);
        let every = stored.iter().fold(0, |all, key| all | key);
        let cut_mask = layout.cuts.iter().fold(0, |mask, cut| mask | cut);
        let masks = chunk_masks(every & !cut_mask);
        // SAFETY: every pointer is to a live buffer of the length the C
        // code reads: `from` and `count` hold a word a block, `starts`
        // 2^cuts + 1, the queries and their patterns `queries.len()`.
        unsafe {
            nq_sliced_host(
                layout.keys.as_ptr(),
                from.as_ptr(),
                count.as_ptr(),
                from.len() as u32,
                starts.as_ptr(),
                layout.cut_count(),
                masks.as_ptr(),
                masks.len() as u32,
                query_layout.keys.as_ptr(),
                query_layout.patterns.as_ptr(),
                queries.len() as u32,
            )
        }
    }

    extern "C" {
        fn nq_slice_host(
            sorted: *const u64,
            from: *const u32,
            count: *const u32,
            block_count: u32,
            chunk_masks: *const u64,
            chunks: u32,
            tables: *mut u32,
        );
        fn nq_sliced_grid_host(
            tables: *const u32,
            block_starts: *const u32,
            group_keys: *const u64,
            cuts: u32,
            chunk_masks: *const u64,
            chunks: u32,
            queries: *const u64,
            query_patterns: *const u32,
            range_count: u32,
            item_start: *const u32,
            west_keys: *const u64,
            west_patterns: *const u32,
            meeting_start: *const u32,
            meetings: *const u32,
            totals: *mut u64,
            threads: u32,
        );
        fn nq_tiled_host(
            tables: *const u32,
            block_starts: *const u32,
            group_keys: *const u64,
            cuts: u32,
            chunk_masks: *const u64,
            chunks: u32,
            queries: *const u64,
            range_count: u32,
            item_start: *const u32,
            west_keys: *const u64,
            west_patterns: *const u32,
            meeting_start: *const u32,
            meetings: *const u32,
            bucket_lists: *const u32,
            bucket_patterns: *const u32,
            bucket_from: *const u32,
            bucket_count: *const u32,
            totals: *mut u64,
            warps: u32,
        );
    }

    /// A sparse random key: the AND of `density` draws, within `width`.
    fn sparse(random: &mut SplitMix64, density: u32, width: u64) -> u64 {
        (0..density).fold(width, |key, _| key & random.next())
    }

    /// A random grid counted three ways: pair by pair, by the sliced walk
    /// (a thread a query) and by the tiled matcher (a warp a meeting), the
    /// last two through the kernels' code on the host; each range's sum.
    fn grid_three_ways(random: &mut SplitMix64, round: u64) -> [Vec<u64>; 3] {
        let width = u64::MAX >> (random.next() % 40);
        let density = 2 + (round % 4) as u32;
        let cut_mask = (0..64u32)
            .map(|bit| 1u64 << bit)
            .filter(|bit| bit & width != 0)
            .step_by(1 + (random.next() % 6) as usize)
            .take((random.next() % 9) as usize)
            .fold(0, |mask, bit| mask | bit);
        let cuts = cut_mask.count_ones();
        let patterns = 1usize << cuts;
        // Stored groups, each sorted by pattern, with its queen's key.
        let group_count = 1 + (random.next() % 4) as usize;
        let mut sorted = Vec::new();
        let mut in_bucket = Vec::new();
        let mut groups = Vec::new();
        let mut group_keys = Vec::new();
        for _ in 0..group_count {
            let len = (random.next() % 2500) as usize;
            let mut keys: Vec<u64> = (0..len).map(|_| sparse(random, density, width)).collect();
            keys.sort_by_key(|&key| gather(key, cut_mask));
            let mut counts = vec![0u32; patterns];
            for &key in &keys {
                counts[gather(key, cut_mask) as usize] += 1;
            }
            sorted.extend_from_slice(&keys);
            in_bucket.push(counts);
            groups.push(keys);
            group_keys.push(if random.next().is_multiple_of(3) {
                0
            } else {
                sparse(random, 4, width)
            });
        }
        let (from, count, starts) = blocks_of(&in_bucket);
        let every = sorted.iter().fold(0, |all, key| all | key);
        let masks = chunk_masks(every & !cut_mask);
        let mut tables = vec![0u32; from.len().max(1) * masks.len() * CHUNK_WORDS as usize];
        // Ranges of queries, each with its west key and meeting groups,
        // sorted by pattern, with the list of their nonempty buckets.
        let range_count = 1 + (random.next() % 5) as usize;
        let (mut queries, mut query_patterns, mut item_start) =
            (Vec::new(), Vec::new(), vec![0u32]);
        let (mut west_keys, mut west_patterns) = (Vec::new(), Vec::new());
        let (mut meeting_start, mut meetings) = (vec![0u32], Vec::new());
        let (mut bucket_lists, mut bucket_patterns) = (vec![0u32], Vec::new());
        let (mut bucket_from, mut bucket_count) = (Vec::new(), Vec::new());
        let mut expected = vec![0u64; range_count];
        for expected in &mut expected {
            let west_key = if random.next().is_multiple_of(3) {
                0
            } else {
                sparse(random, 5, width)
            };
            let len = (random.next() % 150) as usize;
            let mut keys: Vec<u64> = (0..len)
                .map(|_| sparse(random, density + 1, width))
                .collect();
            keys.sort_by_key(|&key| gather(key, cut_mask));
            for (k, &key) in keys.iter().enumerate() {
                let pattern = gather(key, cut_mask);
                if k == 0 || pattern != gather(keys[k - 1], cut_mask) {
                    bucket_patterns.push(pattern);
                    bucket_from.push(queries.len() as u32);
                    bucket_count.push(0);
                }
                *bucket_count.last_mut().unwrap() += 1;
                queries.push(key);
                query_patterns.push(pattern);
            }
            bucket_lists.push(bucket_patterns.len() as u32);
            item_start.push(queries.len() as u32);
            west_keys.push(west_key);
            west_patterns.push(gather(west_key, cut_mask));
            for group in 0..group_count {
                if !random.next().is_multiple_of(4) {
                    meetings.push(group as u32);
                    *expected += keys
                        .iter()
                        .filter(|&&query| query & group_keys[group] == 0)
                        .map(|&query| {
                            groups[group]
                                .iter()
                                .filter(|&&key| key & (query | west_key) == 0)
                                .count() as u64
                        })
                        .sum::<u64>();
                }
            }
            meeting_start.push(meetings.len() as u32);
        }
        let (mut sliced, mut tiled) = (vec![0u64; range_count], vec![0u64; range_count]);
        let threads = (queries.len() as u32).div_ceil(256).max(1) * 256;
        let warps = (meetings.len() as u32).div_ceil(8).max(1) * 8;
        // SAFETY: every pointer is to a live buffer of the length the C
        // code reads: a word a block (`from`, `count`), 2^cuts + 1 block
        // starts a group, a word a chunk and pattern a block of tables,
        // an item's key and pattern a query, range_count + 1 starts
        // (items, meetings, bucket lists) and a word a range or bucket.
        unsafe {
            nq_slice_host(
                sorted.as_ptr(),
                from.as_ptr(),
                count.as_ptr(),
                from.len() as u32,
                masks.as_ptr(),
                masks.len() as u32,
                tables.as_mut_ptr(),
            );
            nq_sliced_grid_host(
                tables.as_ptr(),
                starts.as_ptr(),
                group_keys.as_ptr(),
                cuts,
                masks.as_ptr(),
                masks.len() as u32,
                queries.as_ptr(),
                query_patterns.as_ptr(),
                range_count as u32,
                item_start.as_ptr(),
                west_keys.as_ptr(),
                west_patterns.as_ptr(),
                meeting_start.as_ptr(),
                meetings.as_ptr(),
                sliced.as_mut_ptr(),
                threads,
            );
            nq_tiled_host(
                tables.as_ptr(),
                starts.as_ptr(),
                group_keys.as_ptr(),
                cuts,
                masks.as_ptr(),
                masks.len() as u32,
                queries.as_ptr(),
                range_count as u32,
                item_start.as_ptr(),
                west_keys.as_ptr(),
                west_patterns.as_ptr(),
                meeting_start.as_ptr(),
                meetings.as_ptr(),
                bucket_lists.as_ptr(),
                bucket_patterns.as_ptr(),
                bucket_from.as_ptr(),
                bucket_count.as_ptr(),
                tiled.as_mut_ptr(),
                warps,
            );
        }
        [expected, sliced, tiled]
    }

    #[test]
    fn the_tiled_matcher_on_the_host_counts_each_range_as_the_walk_and_pair_by_pair() {
        let mut random = SplitMix64(53);
        for round in 0..40u64 {
            let [expected, sliced, tiled] = grid_three_ways(&mut random, round);
            assert_eq!(sliced, expected, "round {round}: the sliced walk");
            assert_eq!(tiled, expected, "round {round}: the tiled matcher");
        }
    }

    fn naive(stored: &[u64], queries: &[u64]) -> u64 {
        queries
            .iter()
            .map(|query| stored.iter().filter(|&&key| key & query == 0).count() as u64)
            .sum()
    }

    #[test]
    fn chunks_take_six_bits_each_lowest_first() {
        assert_eq!(chunk_masks(0), vec![0]);
        assert_eq!(chunk_masks(0b1011), vec![0b1011]);
        let masks = chunk_masks(u64::MAX);
        assert_eq!(masks.len(), 13);
        assert_eq!(masks[0], 0x1f);
        assert_eq!(masks[12], 0xf << 60);
        assert_eq!(masks.iter().fold(0, |all, mask| all | mask), u64::MAX);
        let sparse = 0x8421_0842_1084_2108u64;
        let masks = chunk_masks(sparse);
        assert!(masks.iter().all(|mask| mask.count_ones() <= 5));
        assert_eq!(masks.iter().fold(0, |all, mask| all ^ mask), sparse);
    }

    #[test]
    fn buckets_are_cut_into_blocks_of_at_most_32_keys() {
        let groups = vec![vec![0, 32, 33, 3], vec![64, 0]];
        let (from, count, starts) = blocks_of(&groups);
        assert_eq!(count, vec![32, 32, 1, 3, 32, 32]);
        assert_eq!(from, vec![0, 32, 64, 65, 68, 100]);
        assert_eq!(starts, vec![0, 0, 1, 3, 4, 4, 6, 6]);
        let within = pairs_within(&groups);
        // The whole mask of group 0 meets every block: 4, of 32 slots.
        assert_eq!(within[0][3], 4 * 32);
        assert_eq!(within[0][0], 0);
        assert_eq!(within[0][2], 2 * 32);
        assert_eq!(within[1], vec![64, 64]);
    }

    #[test]
    fn the_sliced_kernel_on_the_host_counts_every_disjoint_pair() {
        let mut random = SplitMix64(41);
        for round in 0..37u64 {
            // Up to a few hundred blocks a bucket, keys of a few densities
            // and widths, 0 to 8 cuts; first every count of chunks (1 to
            // 13, each its own loop in the kernel), uncut.
            let stored_len = (random.next() % 5000) as usize + if round < 13 { 1000 } else { 0 };
            let query_len = 1 + (random.next() % 300) as usize;
            let density = 2 + (round % 5) as u32;
            let width_mask = match round {
                0..13 => u64::MAX >> 64u64.saturating_sub(5 * (round + 1)),
                _ => u64::MAX >> (random.next() % 40),
            };
            let stored: Vec<u64> = keys(round, stored_len, density)
                .into_iter()
                .map(|key| key & width_mask)
                .collect();
            let queries: Vec<u64> = keys(round + 1000, query_len, density + 2)
                .into_iter()
                .map(|key| key & width_mask)
                .collect();
            let cut_count = if round < 13 {
                0
            } else {
                (random.next() % 9) as usize
            };
            let cuts: Vec<u64> = (0..64u32)
                .map(|bit| 1u64 << bit)
                .filter(|bit| bit & width_mask != 0)
                .step_by(5)
                .take(cut_count)
                .collect();
            assert_eq!(
                sliced_pairs(&stored, &cuts, &queries),
                naive(&stored, &queries),
                "round {round}: {stored_len} stored, {query_len} queries, {} cuts",
                cuts.len()
            );
        }
    }
}
