//! Keys laid out in buckets on the GPU by the kernels of `layout.cuh`:
//! many ranges of keys at once, each range in buckets of its own on the
//! cut bits, with one histogram and one scatter launch and one round trip
//! for the counts (the host's scan turns them into bucket starts).

use super::device::{arg, launch_over, Buffer, GpuDevice};
use crate::cuda::driver::DevicePtr;

/// Keys laid out in buckets on the GPU.
#[derive(Default)]
pub(super) struct Laid {
    pub(super) patterns: Buffer,
    /// Per range, its bucket starts (2^cuts + 1 words a range, offsets
    /// into `sorted`), then the same again as the scatter's cursors;
    /// during a layout, the keys per bucket.
    pub(super) starts: Buffer,
    pub(super) sorted: Buffer,
    pub(super) sorted_patterns: Buffer,
}

impl Laid {
    pub(super) fn buffers(&self) -> [&Buffer; 4] {
        [
            &self.patterns,
            &self.starts,
            &self.sorted,
            &self.sorted_patterns,
        ]
    }
}

/// The words a layout's launches read for `ranges` (a start and a length,
/// in keys): where each range's items start (one more word, the total),
/// then each range's start.
pub(super) fn range_words(ranges: &[(u32, u32)]) -> Vec<u32> {
    let mut words = starts_of(ranges.iter().map(|&(_, count)| count))
        .expect("a chunk's keys are counted in 32 bits");
    words.extend(ranges.iter().map(|&(from, _)| from));
    words
}

/// Where each of `counts` items starts in a table of them all, then the
/// total (one more word than `counts`); `None` where the total passes
/// 32 bits.
pub(super) fn starts_of(counts: impl IntoIterator<Item = u32>) -> Option<Vec<u32>> {
    let counts = counts.into_iter();
    let mut starts = Vec::with_capacity(counts.size_hint().0 + 1);
    let mut total = 0u32;
    starts.push(0);
    for count in counts {
        total = total.checked_add(count)?;
        starts.push(total);
    }
    Some(starts)
}

/// Lays out the keys at `keys` in buckets by their bits under
/// `cut_mask`, each range (a start and a length, in keys) in buckets of
/// its own, with one histogram and one scatter launch: `laid.sorted` the
/// keys, range after range and bucket after bucket (with their patterns
/// in `laid.sorted_patterns` where `with_patterns`), and `laid.starts`
/// each range's bucket starts (2^cuts + 1 words a range, offsets into
/// `laid.sorted`). `table` is where the GPU holds [`range_words`] of the
/// ranges. Returns each range's keys per bucket.
pub(super) fn lay_out(
    device: &GpuDevice,
    laid: &mut Laid,
    keys: DevicePtr,
    ranges: &[(u32, u32)],
    table: DevicePtr,
    cut_mask: u64,
    with_patterns: bool,
) -> Result<Vec<Vec<u32>>, String> {
    let cuda = &device.cuda;
    let cuts = cut_mask.count_ones();
    let buckets = 1usize << cuts;
    let stride = buckets + 1;
    let total: u32 = ranges.iter().map(|&(_, count)| count).sum();
    let range_count = ranges.len() as u32;
    let from_at = table + u64::from(range_count + 1) * 4;
    laid.patterns.reserve(cuda, total.max(1) as usize * 4)?;
    laid.starts.zeroed(cuda, ranges.len() * stride)?;
    {
        let (mut keys_at, mut range_count, mut item_start, mut from, mut mask, mut cuts_arg) =
            (keys, range_count, table, from_at, cut_mask, cuts);
        let (mut patterns, mut counts) = (laid.patterns.pointer, laid.starts.pointer);
        let mut params = [
            arg(&mut keys_at),
            arg(&mut range_count),
            arg(&mut item_start),
            arg(&mut from),
            arg(&mut mask),
            arg(&mut cuts_arg),
            arg(&mut patterns),
            arg(&mut counts),
        ];
        launch_over(device, device.histogram, total, &mut params)?;
    }
    let mut counts = vec![0u32; ranges.len() * stride];
    cuda.download(&mut counts, laid.starts.pointer)?;
    // Starts range after range, bucket after bucket: a running sum.
    let mut in_bucket = Vec::with_capacity(ranges.len());
    let mut starts = Vec::with_capacity(2 * ranges.len() * stride);
    let mut next = 0u32;
    for range in counts.chunks(stride) {
        in_bucket.push(range[..buckets].to_vec());
        for &keys in &range[..buckets] {
            starts.push(next);
            next += keys;
        }
        starts.push(next);
    }
    // The starts, and after them the same again as the scatter's cursors,
    // in one copy.
    let words = starts.len();
    starts.extend_from_within(..);
    laid.starts.put(cuda, &starts)?;
    let next_at = laid.starts.pointer + (words * 4) as DevicePtr;
    laid.sorted.reserve(cuda, total.max(1) as usize * 8)?;
    if with_patterns {
        laid.sorted_patterns
            .reserve(cuda, total.max(1) as usize * 4)?;
    }
    let (mut keys_at, mut range_count_arg, mut item_start, mut from, mut cuts_arg) =
        (keys, range_count, table, from_at, cuts);
    let (mut patterns, mut next_arg, mut sorted) =
        (laid.patterns.pointer, next_at, laid.sorted.pointer);
    let mut sorted_patterns = if with_patterns {
        laid.sorted_patterns.pointer
    } else {
        0
    };
    let mut params = [
        arg(&mut keys_at),
        arg(&mut range_count_arg),
        arg(&mut item_start),
        arg(&mut from),
        arg(&mut cuts_arg),
        arg(&mut patterns),
        arg(&mut next_arg),
        arg(&mut sorted),
        arg(&mut sorted_patterns),
    ];
    launch_over(device, device.scatter, total, &mut params)?;
    Ok(in_bucket)
}
