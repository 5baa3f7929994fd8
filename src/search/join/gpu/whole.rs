//! A join task counted wholly on the GPU: its quadrant cells built there
//! (and kept, `cells.rs`), its half boards made there by the board
//! kernels, laid out in buckets there, matched there; the host sends a
//! table of column splits a spec and reads back a count a query group and
//! class.
//!
//! Every task is a grid (a join is a grid of one group a side): the
//! stored groups' boards are made into one list, each group laid out in
//! its own buckets on cut bits chosen once a task; each query group's
//! boards are made and laid out in turn, and one launch a class matches
//! them against every stored group whose queens its own leave alone
//! (`nq_grid` in `pairs.cuh`), a query meeting a group only where it
//! leaves that group's queens alone, and a stored key only where it
//! leaves the query group's queens alone, as the CPU's grid filters them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::super::cells::SHARED_MAX_SIDE;
use super::super::geometry::{even_weights, Geometry};
use super::super::grid::{task_grid, Grid};
use super::super::specs::{even_specs, odd_join, quadrant_rows, HalfSpec};
use super::super::split::{choose_cuts, MAX_CUTS};
use super::super::{JoinTally, JoinTask, Parts};
use super::boards::{BoardsJob, Placements};
use super::buckets::{cuts_for, gather, keys_within};
use super::cells::DeviceCells;
use super::device::{arg, launch_over, Buffer, GpuBoardMaker, GpuDevice};
use crate::gpu::driver::DevicePtr;

/// Keys sampled a side to choose the cut bits (as the CPU's split does).
const SAMPLE: u32 = 256;

/// Keys laid out in buckets on the GPU.
#[derive(Default)]
struct Laid {
    patterns: Buffer,
    /// Per range, its bucket starts (2^cuts + 1 words a range, offsets
    /// into `sorted`), then the same again as the scatter's cursors;
    /// during a layout, the keys per bucket.
    starts: Buffer,
    sorted: Buffer,
    sorted_patterns: Buffer,
}

impl Laid {
    fn buffers(&self) -> [&Buffer; 4] {
        [
            &self.patterns,
            &self.starts,
            &self.sorted,
            &self.sorted_patterns,
        ]
    }
}

/// Counts tasks wholly on one GPU.
pub(super) struct GpuTaskCounter<'a> {
    device: &'a GpuDevice,
    stored: GpuBoardMaker<'a>,
    queries: GpuBoardMaker<'a>,
    stored_laid: Laid,
    query_laid: Laid,
    sample: Buffer,
    total: Buffer,
    group_keys: Buffer,
    meeting: Buffer,
    /// The quadrant cells this counter's feeder keeps on the GPU.
    cells: &'a mut DeviceCells,
    /// Pairs the GPU decided (those its buckets let each query meet).
    pub(super) pairs_decided: u64,
    /// Tasks it counted wholly.
    pub(super) tasks: u64,
    /// Seconds this host thread spent on its own work for them: the
    /// cells' prefixes and starts and the tables of splits (the rest is
    /// the driver's).
    pub(super) host_seconds: f64,
}

impl<'a> GpuTaskCounter<'a> {
    /// A counter on `device` building its cells into `cells`; the
    /// device's context must be current on this thread.
    pub(super) fn new(device: &'a GpuDevice, cells: &'a mut DeviceCells) -> GpuTaskCounter<'a> {
        GpuTaskCounter {
            device,
            stored: GpuBoardMaker::new(device),
            queries: GpuBoardMaker::new(device),
            stored_laid: Laid::default(),
            query_laid: Laid::default(),
            sample: Buffer::default(),
            total: Buffer::default(),
            group_keys: Buffer::default(),
            meeting: Buffer::default(),
            cells,
            pairs_decided: 0,
            tasks: 0,
            host_seconds: 0.0,
        }
    }

    /// Counts `task` of an `n` board on the GPU: `Ok(None)` where it
    /// cannot (a row set or a spec's boards past 2^32), for the host's half
    /// boards to take it; `Ok(Some(None))` where `stop` was set. A task
    /// a grid cuts reports as its pairs those of its meeting groups
    /// before the grid's filters (the CPU's count after them): a work
    /// measure, which `compare` leaves aside.
    pub(super) fn count(
        &mut self,
        n: u32,
        task: &JoinTask,
        stop: Option<&AtomicBool>,
    ) -> Result<Option<Option<JoinTally>>, String> {
        let geo = Geometry::new(n);
        let parts = Parts::of(n);
        let grids: Vec<Grid> = match task_grid(&geo, task, parts.levels, parts.east_levels) {
            Some(grid) => vec![grid],
            None if n.is_multiple_of(2) => even_specs(&geo, task, even_weights(task.east_rows, n))
                .into_iter()
                .map(|(east, west, weights)| Grid::of_join(vec![(east, 0)], west, weights))
                .collect(),
            None => {
                let (east, west, weight) = odd_join(&geo, task);
                vec![Grid::of_join(east, west, [weight, 0, 0])]
            }
        };
        let mut tally = JoinTally::default();
        for grid in &grids {
            match self.count_grid(&geo, grid, stop)? {
                Some(Some(grid)) => tally += grid,
                Some(None) => return Ok(Some(None)),
                None => return Ok(None),
            }
        }
        self.tasks += 1;
        Ok(Some(Some(tally)))
    }

    /// Makes the boards of `specs` into `maker`'s lists (each spec's with
    /// its extra key), growing them until they hold every board: the
    /// class counts after each spec, or `None` where the GPU cannot (see
    /// [`GpuTaskCounter::count`]).
    fn make(
        device: &GpuDevice,
        maker: &mut GpuBoardMaker<'_>,
        cells: &mut DeviceCells,
        geo: &Geometry,
        specs: &[(HalfSpec, u64)],
        host_seconds: &mut f64,
    ) -> Result<Option<Vec<[u32; 3]>>, String> {
        let mut capacity = maker.capacity();
        loop {
            maker.reset(capacity)?;
            let mut after = Vec::with_capacity(specs.len());
            let mut counts = [0u32; 3];
            for (spec, extra) in specs {
                let rows = quadrant_rows(geo, spec);
                // Up to the side whose cells the CPU's threads share, a row
                // set's cells in every column serve every task (a split
                // asks only for cells within its spec's open columns);
                // above it, as the CPU builds them, within those columns
                // (each fixed column cuts a queen's choices).
                let open = if geo.h <= SHARED_MAX_SIDE {
                    (1 << geo.h) - 1
                } else {
                    spec.cols
                };
                let cells_host = cells.host_seconds;
                let loaded = cells.load(device, geo.h, &rows, open)?;
                *host_seconds += cells.host_seconds - cells_host;
                if loaded.is_none() {
                    return Ok(None);
                }
                let started = Instant::now();
                let [north, south] = rows.map(|rows| cells.get(rows, open));
                let job = BoardsJob::of_spans(
                    geo,
                    spec,
                    north.rows().count_ones(),
                    [north, south].map(|side| Placements::Device {
                        at: side.at(),
                        count: side.count(),
                    }),
                    [&|cols| north.cell_span(cols), &|cols| south.cell_span(cols)],
                );
                *host_seconds += started.elapsed().as_secs_f64();
                let Some(job) = job else {
                    return Ok(None);
                };
                counts = maker.append(&job, *extra)?;
                after.push(counts);
            }
            let wanted = counts.iter().copied().max().unwrap_or(0);
            if wanted <= capacity {
                return Ok(Some(after));
            }
            capacity = wanted;
        }
    }

    /// One grid's count: `None` where a row set is not held whole,
    /// `Some(None)` where stopped.
    fn count_grid(
        &mut self,
        geo: &Geometry,
        grid: &Grid,
        stop: Option<&AtomicBool>,
    ) -> Result<Option<Option<JoinTally>>, String> {
        // Every stored group's boards, in one list, group after group.
        let stored_specs: Vec<(HalfSpec, u64)> = grid
            .stored
            .iter()
            .flat_map(|(_, specs)| specs.iter().copied())
            .collect();
        let Some(after) = Self::make(
            self.device,
            &mut self.stored,
            self.cells,
            geo,
            &stored_specs,
            &mut self.host_seconds,
        )?
        else {
            return Ok(None);
        };
        let mut ranges = Vec::with_capacity(grid.stored.len());
        let mut spec_index = 0;
        let mut from = 0u32;
        for (_, specs) in &grid.stored {
            spec_index += specs.len();
            let to = if spec_index == 0 {
                0
            } else {
                after[spec_index - 1][0]
            };
            ranges.push((from, to - from));
            from = to;
        }
        let stored_count = from;
        let group_keys: Vec<u64> = grid
            .stored
            .iter()
            .map(|(queen, _)| geo.key(queen.0, queen.1))
            .collect();
        self.group_keys.put(&self.device.cuda, &group_keys)?;
        let stored_keys = self.stored.class_keys(0);
        let mut tally = JoinTally::default();
        // Chosen at the first query group with boards to match.
        let mut layout: Option<(u64, Vec<Vec<u64>>)> = None;
        for (west_queen, query, weights) in &grid.queries {
            if stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                return Ok(Some(None));
            }
            let west_key = geo.key(west_queen.0, west_queen.1);
            let meeting: Vec<u32> = (0..grid.stored.len() as u32)
                .filter(|&g| group_keys[g as usize] & west_key == 0 && ranges[g as usize].1 > 0)
                .collect();
            if meeting.is_empty() || stored_count == 0 {
                continue;
            }
            let Some(after) = Self::make(
                self.device,
                &mut self.queries,
                self.cells,
                geo,
                &[(*query, 0)],
                &mut self.host_seconds,
            )?
            else {
                return Ok(None);
            };
            let query_counts = after[0];
            let classes: Vec<usize> = (0..3)
                .filter(|&class| weights[class] != 0 && query_counts[class] != 0)
                .collect();
            let Some(&first) = classes.first() else {
                continue;
            };
            if layout.is_none() {
                // The cut bits, from samples of both sides (as the CPU's
                // split chooses them), and every stored group laid out.
                let stored_sample = self.sample_of(stored_keys, stored_count)?;
                let query_sample =
                    self.sample_of(self.queries.class_keys(first), query_counts[first])?;
                let offered = choose_cuts(&stored_sample, &query_sample, MAX_CUTS);
                let largest = ranges.iter().map(|&(_, count)| count).max().unwrap_or(0);
                let cut_mask = offered[..cuts_for(largest as usize, offered.len())]
                    .iter()
                    .fold(0, |mask, cut| mask | cut);
                let in_bucket = lay_out(
                    self.device,
                    &mut self.stored_laid,
                    stored_keys,
                    &ranges,
                    cut_mask,
                    false,
                )?;
                let within = in_bucket.iter().map(|counts| keys_within(counts)).collect();
                layout = Some((cut_mask, within));
            }
            let (cut_mask, within) = layout.as_ref().expect("laid out above");
            let cuts = cut_mask.count_ones();
            let all = (1usize << cuts) - 1;
            let west_pattern = gather(west_key, *cut_mask);
            // The stored keys each query pattern may meet, over the
            // meeting groups (the work measure of the buckets).
            let mut met = vec![0u64; all + 1];
            for &g in &meeting {
                for (sum, keys) in met.iter_mut().zip(&within[g as usize]) {
                    *sum += keys;
                }
            }
            let meeting_keys: u64 = meeting
                .iter()
                .map(|&g| u64::from(ranges[g as usize].1))
                .sum();
            self.meeting.put(&self.device.cuda, &meeting)?;
            for &class in &classes {
                let count = query_counts[class];
                let query_keys = self.queries.class_keys(class);
                let query_buckets = lay_out(
                    self.device,
                    &mut self.query_laid,
                    query_keys,
                    &[(0, count)],
                    *cut_mask,
                    true,
                )?;
                self.pairs_decided += query_buckets[0]
                    .iter()
                    .enumerate()
                    .map(|(pattern, &queries)| {
                        u64::from(queries) * met[!(pattern | west_pattern as usize) & all]
                    })
                    .sum::<u64>();
                let sum = self.match_grid(*cut_mask, meeting.len() as u32, count, west_key)?;
                tally.solutions += weights[class] * sum;
                tally.pairs += meeting_keys * u64::from(count);
            }
        }
        Ok(Some(Some(tally)))
    }

    /// The pairs of the laid-out queries (`count` of them) and the stored
    /// keys of the meeting groups (see `nq_grid`).
    fn match_grid(
        &mut self,
        cut_mask: u64,
        meeting: u32,
        count: u32,
        west_key: u64,
    ) -> Result<u64, String> {
        self.total.zeroed(&self.device.cuda, 2)?;
        let (mut stored_at, mut starts_at, mut group_keys_at, mut meeting_at) = (
            self.stored_laid.sorted.pointer,
            self.stored_laid.starts.pointer,
            self.group_keys.pointer,
            self.meeting.pointer,
        );
        let (mut meeting_count, mut cuts) = (meeting, cut_mask.count_ones());
        let (mut queries_at, mut patterns_at, mut count_arg) = (
            self.query_laid.sorted.pointer,
            self.query_laid.sorted_patterns.pointer,
            count,
        );
        let (mut west, mut west_pattern, mut total_at) =
            (west_key, gather(west_key, cut_mask), self.total.pointer);
        let mut params = [
            arg(&mut stored_at),
            arg(&mut starts_at),
            arg(&mut group_keys_at),
            arg(&mut meeting_at),
            arg(&mut meeting_count),
            arg(&mut cuts),
            arg(&mut queries_at),
            arg(&mut patterns_at),
            arg(&mut count_arg),
            arg(&mut west),
            arg(&mut west_pattern),
            arg(&mut total_at),
        ];
        launch_over(self.device, self.device.grid, count, &mut params)?;
        let mut sum = [0u64];
        self.device.cuda.download(&mut sum, self.total.pointer)?;
        Ok(sum[0])
    }

    /// Every step-th of `count` keys at `keys` (the CPU split's sample).
    fn sample_of(&mut self, keys: DevicePtr, count: u32) -> Result<Vec<u64>, String> {
        let step = count.div_ceil(SAMPLE).max(1);
        let taken = count.div_ceil(step);
        self.sample.reserve(&self.device.cuda, taken as usize * 8)?;
        let (mut keys_at, mut step_arg, mut taken_arg, mut out) =
            (keys, step, taken, self.sample.pointer);
        let mut params = [
            arg(&mut keys_at),
            arg(&mut step_arg),
            arg(&mut taken_arg),
            arg(&mut out),
        ];
        launch_over(self.device, self.device.sample, taken, &mut params)?;
        let mut sample = vec![0u64; taken as usize];
        self.device
            .cuda
            .download(&mut sample, self.sample.pointer)?;
        Ok(sample)
    }
}

impl Drop for GpuTaskCounter<'_> {
    fn drop(&mut self) {
        // A worker makes a counter a batch: what it took goes back.
        let cuda = &self.device.cuda;
        for buffer in self
            .stored_laid
            .buffers()
            .into_iter()
            .chain(self.query_laid.buffers())
            .chain([&self.sample, &self.total, &self.group_keys, &self.meeting])
        {
            cuda.free(buffer.pointer);
        }
    }
}

/// Lays out the keys at `keys` in buckets by their bits under
/// `cut_mask`, each range (a start and a length, in keys) in buckets of
/// its own: `laid.sorted` the keys, range after range and bucket after
/// bucket (with their patterns in `laid.sorted_patterns` where
/// `with_patterns`), and `laid.starts` each range's bucket starts
/// (2^cuts + 1 words a range, offsets into `laid.sorted`). Returns each
/// range's keys per bucket.
fn lay_out(
    device: &GpuDevice,
    laid: &mut Laid,
    keys: DevicePtr,
    ranges: &[(u32, u32)],
    cut_mask: u64,
    with_patterns: bool,
) -> Result<Vec<Vec<u32>>, String> {
    let cuda = &device.cuda;
    let buckets = 1usize << cut_mask.count_ones();
    let stride = buckets + 1;
    let total: usize = ranges.iter().map(|&(_, count)| count as usize).sum();
    let end = ranges
        .iter()
        .map(|&(from, count)| (from + count) as usize)
        .max()
        .unwrap_or(0);
    laid.patterns.reserve(cuda, end.max(1) * 4)?;
    laid.starts.zeroed(cuda, ranges.len() * stride)?;
    for (r, &(from, count)) in ranges.iter().enumerate() {
        if count == 0 {
            continue;
        }
        let (mut keys_at, mut count_arg, mut mask, mut patterns, mut counts) = (
            keys + u64::from(from) * 8,
            count,
            cut_mask,
            laid.patterns.pointer + u64::from(from) * 4,
            laid.starts.pointer + (r * stride * 4) as u64,
        );
        let mut params = [
            arg(&mut keys_at),
            arg(&mut count_arg),
            arg(&mut mask),
            arg(&mut patterns),
            arg(&mut counts),
        ];
        launch_over(device, device.histogram, count, &mut params)?;
    }
    let mut counts = vec![0u32; ranges.len() * stride];
    cuda.download(&mut counts, laid.starts.pointer)?;
    // Starts range after range, bucket after bucket: a running sum.
    let mut in_bucket = Vec::with_capacity(ranges.len());
    let mut starts = Vec::with_capacity(ranges.len() * stride);
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
    laid.sorted.reserve(cuda, total.max(1) * 8)?;
    if with_patterns {
        laid.sorted_patterns.reserve(cuda, total.max(1) * 4)?;
    }
    for (r, &(from, count)) in ranges.iter().enumerate() {
        if count == 0 {
            continue;
        }
        let (mut keys_at, mut patterns, mut count_arg, mut next_at, mut sorted) = (
            keys + u64::from(from) * 8,
            laid.patterns.pointer + u64::from(from) * 4,
            count,
            next_at + (r * stride * 4) as u64,
            laid.sorted.pointer,
        );
        let mut sorted_patterns = if with_patterns {
            laid.sorted_patterns.pointer
        } else {
            0
        };
        let mut params = [
            arg(&mut keys_at),
            arg(&mut patterns),
            arg(&mut count_arg),
            arg(&mut next_at),
            arg(&mut sorted),
            arg(&mut sorted_patterns),
        ];
        launch_over(device, device.scatter, count, &mut params)?;
    }
    Ok(in_bucket)
}
