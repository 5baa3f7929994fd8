//! A chunk of a grid's query groups matched on the GPU: its tables sent
//! in one copy, its queries laid out in buckets, one launch of the
//! matcher (the sliced walk or the bucket walk), its sums read back.

use super::super::super::geometry::Geometry;
use super::super::super::grid::Grid;
use super::super::super::JoinTally;
use super::super::buckets::gather;
use super::super::device::{arg, launch_over};
use super::super::laid::{lay_out, range_words};
use super::super::settings::GpuMatcher;
use super::super::sliced::Slices;
use super::{GpuTaskCounter, GridCuts};
use crate::cuda::driver::DevicePtr;

impl GpuTaskCounter<'_> {
    /// Matches a chunk of query groups (`live`: each group's index and the
    /// stored groups it meets; `counts`: the class counts after each
    /// group's boards) against the stored buckets, adding to `tally`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn match_chunk(
        &mut self,
        geo: &Geometry,
        grid: &Grid,
        live: &[(usize, Vec<u32>)],
        counts: &[[u32; 3]],
        ranges: &[(u32, u32)],
        GridCuts {
            mask: cut_mask,
            within,
            slices,
        }: &GridCuts,
        tally: &mut JoinTally,
    ) -> Result<(), String> {
        let cut_mask = *cut_mask;
        let cuda = &self.device.cuda;
        let capacity = self.queries.capacity();
        // Every (query group, class) with keys and a weight: a range of the
        // class lists (class after class, `capacity` keys each).
        let mut matches = Vec::new();
        let mut query_ranges = Vec::new();
        let mut before = [0u32; 3];
        for (k, (q, _)) in live.iter().enumerate() {
            let weights = grid.queries[*q].2;
            for class in 0..3 {
                let count = counts[k][class] - before[class];
                if weights[class] != 0 && count != 0 {
                    matches.push((k, class));
                    query_ranges.push((class as u32 * capacity + before[class], count));
                }
            }
            before = counts[k];
        }
        if matches.is_empty() {
            return Ok(());
        }
        // One table for the layout and the matching, in one copy: per
        // range its query group's west key (two words), where its items
        // start (and the total), its keys' start, its west key's pattern,
        // where its meeting groups start among the meeting lists (and
        // their end); then the lists.
        let cuts = cut_mask.count_ones();
        let all = (1usize << cuts) - 1;
        let range_count = matches.len();
        let mut west_keys = Vec::with_capacity(range_count);
        let mut west_patterns = Vec::with_capacity(range_count);
        let mut meeting_start = vec![0u32];
        let mut meetings: Vec<u32> = Vec::new();
        for &(k, _) in &matches {
            let (q, meeting) = &live[k];
            let west_queen = grid.queries[*q].0;
            let west_key = geo.key(west_queen.0, west_queen.1);
            west_keys.push(west_key);
            west_patterns.push(gather(west_key, cut_mask));
            meetings.extend_from_slice(meeting);
            meeting_start.push(meetings.len() as u32);
        }
        let mut table: Vec<u32> = west_keys
            .iter()
            .flat_map(|&key| [key as u32, (key >> 32) as u32])
            .collect();
        let ranges_at = table.len();
        table.extend(range_words(&query_ranges));
        let patterns_at = table.len();
        table.extend_from_slice(&west_patterns);
        let meeting_start_at = table.len();
        table.extend_from_slice(&meeting_start);
        let meetings_at = table.len();
        table.extend_from_slice(&meetings);
        self.kept.chunk_table.put(cuda, &table)?;
        let word = |at: usize| self.kept.chunk_table.pointer + (at * 4) as DevicePtr;
        let query_buckets = lay_out(
            self.device,
            &mut self.kept.query_laid,
            self.queries.class_keys(0),
            &query_ranges,
            word(ranges_at),
            cut_mask,
            true,
        )?;
        for (r, &(k, _)) in matches.iter().enumerate() {
            let meeting = &live[k].1;
            // The stored keys each query pattern may meet, over the
            // meeting groups (the work measure of the buckets).
            let mut met = vec![0u64; all + 1];
            for &g in meeting {
                for (sum, keys) in met.iter_mut().zip(&within[g as usize]) {
                    *sum += keys;
                }
            }
            let west_pattern = west_patterns[r] as usize;
            self.pairs_decided += query_buckets[r]
                .iter()
                .enumerate()
                .map(|(pattern, &queries)| {
                    u64::from(queries) * met[!(pattern | west_pattern) & all]
                })
                .sum::<u64>();
            let meeting_keys: u64 = meeting
                .iter()
                .map(|&g| u64::from(ranges[g as usize].1))
                .sum();
            tally.pairs += meeting_keys * u64::from(query_ranges[r].1);
        }
        self.kept.sums.zeroed(cuda, range_count * 2)?;
        let items: u32 = query_ranges.iter().map(|&(_, count)| count).sum();
        let tables = MatchTables {
            queries: self.kept.query_laid.sorted.pointer,
            query_patterns: self.kept.query_laid.sorted_patterns.pointer,
            range_count: range_count as u32,
            item_start: word(ranges_at),
            west_keys: word(0),
            west_patterns: word(patterns_at),
            meeting_start: word(meeting_start_at),
            meetings: word(meetings_at),
            totals: self.kept.sums.pointer,
        };
        match (self.device.settings.matcher, slices) {
            (GpuMatcher::Tiles, Some(slices)) => {
                self.launch_tiled(slices, cuts, &query_buckets, items, tables, meetings.len())?
            }
            _ => self.launch_match(slices.as_ref(), cuts, items, tables)?,
        }
        let mut sums = vec![0u64; range_count];
        cuda.download(&mut sums, self.kept.sums.pointer)?;
        for (&(k, class), sum) in matches.iter().zip(sums) {
            tally.solutions += grid.queries[live[k].0].2[class] * sum;
        }
        Ok(())
    }

    /// A chunk's queries (`items` of them, laid out with their tables at
    /// `tables`) matched against the stored groups, a thread a query: by
    /// the sliced walk where the groups were sliced, else by the bucket
    /// walk. The two kernels differ only in the stored side's arguments.
    fn launch_match(
        &self,
        slices: Option<&Slices>,
        cuts: u32,
        items: u32,
        mut tables: MatchTables,
    ) -> Result<(), String> {
        let (kernel, mut stored_at, mut starts_at) = match slices {
            Some(slices) => (
                self.device.sliced_grid,
                self.kept.sliced.words.pointer,
                slices.block_starts_at,
            ),
            None => (
                self.device.grid,
                self.kept.stored_laid.sorted.pointer,
                self.kept.stored_laid.starts.pointer,
            ),
        };
        let (mut group_keys_at, mut cuts_arg) = (self.kept.stored_table.pointer, cuts);
        let (mut masks_at, mut chunks) = slices.map_or((0, 0), |slices| {
            (slices.chunk_masks_at, slices.chunk_masks.len() as u32)
        });
        let mut params = vec![
            arg(&mut stored_at),
            arg(&mut starts_at),
            arg(&mut group_keys_at),
            arg(&mut cuts_arg),
        ];
        if slices.is_some() {
            params.extend([arg(&mut masks_at), arg(&mut chunks)]);
        }
        params.extend([
            arg(&mut tables.queries),
            arg(&mut tables.query_patterns),
            arg(&mut tables.range_count),
            arg(&mut tables.item_start),
            arg(&mut tables.west_keys),
            arg(&mut tables.west_patterns),
            arg(&mut tables.meeting_start),
            arg(&mut tables.meetings),
            arg(&mut tables.totals),
        ]);
        launch_over(self.device, kernel, items, &mut params)
    }

    /// A chunk's queries (`items` of them, laid out in `query_buckets`,
    /// range after range and bucket after bucket) matched by the tiled
    /// matcher: each range's nonempty query buckets listed in one copy,
    /// each query's chunk patterns made, then a warp for each of the
    /// chunk's `meetings` (a range and a stored group it meets).
    fn launch_tiled(
        &mut self,
        slices: &Slices,
        cuts: u32,
        query_buckets: &[Vec<u32>],
        items: u32,
        mut tables: MatchTables,
        meetings: usize,
    ) -> Result<(), String> {
        let device = self.device;
        let cuda = &device.cuda;
        // Where each range's list starts, then every listed bucket's
        // pattern, first item and query count.
        let mut lists = vec![0u32];
        let (mut patterns, mut froms, mut counts) = (Vec::new(), Vec::new(), Vec::new());
        let mut item = 0u32;
        for buckets in query_buckets {
            for (pattern, &count) in buckets.iter().enumerate() {
                if count != 0 {
                    patterns.push(pattern as u32);
                    froms.push(item);
                    counts.push(count);
                }
                item += count;
            }
            lists.push(patterns.len() as u32);
        }
        let mut table = lists;
        let patterns_at = table.len();
        table.extend(patterns);
        let froms_at = table.len();
        table.extend(froms);
        let counts_at = table.len();
        table.extend(counts);
        self.kept.tile_table.put(cuda, &table)?;
        let word = |at: usize| self.kept.tile_table.pointer + (at * 4) as DevicePtr;
        self.kept
            .query_chunks
            .reserve(cuda, items.max(1) as usize * QUERY_CHUNK_BYTES)?;
        let (mut masks_at, mut chunks) = (slices.chunk_masks_at, slices.chunk_masks.len() as u32);
        let mut chunks_out = self.kept.query_chunks.pointer;
        launch_over(
            device,
            device.query_chunks,
            items,
            &mut [
                arg(&mut tables.queries),
                arg(&mut tables.range_count),
                arg(&mut tables.item_start),
                arg(&mut tables.west_keys),
                arg(&mut masks_at),
                arg(&mut chunks),
                arg(&mut chunks_out),
            ],
        )?;
        let (mut words_at, mut starts_at) =
            (self.kept.sliced.words.pointer, slices.block_starts_at);
        let (mut group_keys_at, mut cuts_arg) = (self.kept.stored_table.pointer, cuts);
        let (mut lists_at, mut patterns_at, mut froms_at, mut counts_at) =
            (word(0), word(patterns_at), word(froms_at), word(counts_at));
        launch_over(
            device,
            device.tiled_grid,
            (meetings as u32).saturating_mul(32),
            &mut [
                arg(&mut words_at),
                arg(&mut starts_at),
                arg(&mut group_keys_at),
                arg(&mut cuts_arg),
                arg(&mut chunks),
                arg(&mut tables.queries),
                arg(&mut chunks_out),
                arg(&mut tables.range_count),
                arg(&mut tables.west_patterns),
                arg(&mut tables.meeting_start),
                arg(&mut tables.meetings),
                arg(&mut lists_at),
                arg(&mut patterns_at),
                arg(&mut froms_at),
                arg(&mut counts_at),
                arg(&mut tables.totals),
            ],
        )
    }
}

/// Bytes of a query's chunk patterns (`NQ_QUERY_CHUNK_WORDS` words of
/// `tiles.cuh`: a byte a chunk, up to 13, in four words).
const QUERY_CHUNK_BYTES: usize = 16;

/// Where a chunk's query tables lie on the GPU, for the matching launch.
struct MatchTables {
    queries: DevicePtr,
    query_patterns: DevicePtr,
    range_count: u32,
    item_start: DevicePtr,
    west_keys: DevicePtr,
    west_patterns: DevicePtr,
    meeting_start: DevicePtr,
    meetings: DevicePtr,
    totals: DevicePtr,
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_query_s_chunk_patterns_take_the_bytes_the_kernel_writes() {
        let words = super::QUERY_CHUNK_BYTES / 4;
        assert!(
            include_str!("../tiles.cuh")
                .contains(&format!("#define NQ_QUERY_CHUNK_WORDS {words}u")),
            "tiles.cuh writes {words} words a query"
        );
    }
}
