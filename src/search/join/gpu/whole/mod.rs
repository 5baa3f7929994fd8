//! A join task counted wholly on the GPU: its quadrant cells built there
//! (and kept, `cells.rs`), its half boards made there by the board
//! kernels, laid out in buckets there, matched there; the host sends a
//! table of column splits a spec and reads back a count a query group and
//! class.
//!
//! Every task is a grid (a join is a grid of one group a side): the
//! stored groups' boards are made into one list, each group laid out in
//! its own buckets on cut bits chosen once a grid; the query groups'
//! boards are made a chunk of groups at a time into another list, each
//! group and class laid out as a range of its own, and one launch matches
//! the chunk against every stored group whose queens each query group's
//! leave alone (`nq_grid` in `layout.cuh`), a query meeting a group only
//! where it leaves that group's queens alone, and a stored key only where
//! it leaves the query group's queens alone, as the CPU's grid filters
//! them. Every copy from the host waits for the GPU, so a chunk takes a
//! few: its tables in one, its class counts back in one, its layout's
//! counts back and starts over, its sums back.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::super::cells::SHARED_MAX_SIDE;
use super::super::geometry::{even_weights, Geometry};
use super::super::grid::{task_grid, Grid};
use super::super::specs::{even_specs, odd_join, quadrant_rows, HalfSpec};
use super::super::{JoinTally, JoinTask, Parts};
use super::board_maker::{BoardBuffers, GpuBoardMaker};
use super::boards::{BoardsJob, Placements};
use super::buckets::{cuts_for, keys_within, WALK_KEYS};
use super::cells::DeviceCells;
use super::device::{arg, launch_over, Buffer, GpuDevice};
use super::laid::{lay_out, range_words, Laid};
use super::settings::GpuMatcher;
use super::sliced::{pairs_within, slice, SlicedBuffers, Slices};
use crate::cuda::driver::{Cuda, DevicePtr};
use crate::search::disjoint::choose_cuts;

mod matching;

/// Keys sampled a side to choose the cut bits (as the CPU's split does).
const SAMPLE: u32 = 256;

/// The cut bits chosen for a grid's buckets, each stored group's pairs a
/// bucket pattern may decide, and where the groups' slices lie (the
/// sliced matcher's).
struct GridCuts {
    mask: u64,
    within: Vec<Vec<u64>>,
    slices: Option<Slices>,
}

/// Counts tasks wholly on one GPU.
pub(super) struct GpuTaskCounter<'a> {
    device: &'a GpuDevice,
    stored: GpuBoardMaker<'a>,
    queries: GpuBoardMaker<'a>,
    /// Its other GPU buffers.
    kept: CounterBuffers,
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

/// A task counter's GPU buffers beside its board makers'.
#[derive(Default)]
pub(super) struct CounterBuffers {
    stored_laid: Laid,
    query_laid: Laid,
    /// The stored keys bit-sliced (the sliced matcher's).
    sliced: SlicedBuffers,
    sample: Buffer,
    /// A chunk's sums, one a range.
    sums: Buffer,
    /// The stored groups' queens' keys and their ranges' table.
    stored_table: Buffer,
    /// A chunk's table: its ranges' west keys, item starts, key starts,
    /// west patterns and meeting lists.
    chunk_table: Buffer,
    /// The tiled matcher's: a chunk's lists of each range's nonempty
    /// query buckets, and each query's chunk patterns.
    tile_table: Buffer,
    query_chunks: Buffer,
}

impl CounterBuffers {
    /// Frees them (the GPU's context current on this thread); they are
    /// then empty.
    fn free(&mut self, cuda: &Cuda) {
        for buffer in self
            .stored_laid
            .buffers()
            .into_iter()
            .chain(self.query_laid.buffers())
            .chain(self.sliced.buffers())
            .chain([
                &self.sample,
                &self.sums,
                &self.stored_table,
                &self.chunk_table,
                &self.tile_table,
                &self.query_chunks,
            ])
        {
            cuda.free(buffer.pointer);
        }
        *self = CounterBuffers::default();
    }
}

/// A task counter's GPU buffers, kept from one batch of tasks to the next
/// ([`GpuTaskCounter::with_buffers`]): made again every batch, they cost
/// an allocation and a free each, and a free waits for the whole GPU,
/// every feeder's launches too.
#[derive(Default)]
pub(super) struct TaskBuffers {
    stored: BoardBuffers,
    queries: BoardBuffers,
    rest: CounterBuffers,
}

impl TaskBuffers {
    /// Frees them (the GPU's context current on this thread).
    pub(super) fn free(&mut self, cuda: &Cuda) {
        self.stored.free(cuda);
        self.queries.free(cuda);
        self.rest.free(cuda);
    }
}

impl<'a> GpuTaskCounter<'a> {
    /// A counter on `device` building its cells into `cells`; the
    /// device's context must be current on this thread.
    pub(super) fn new(device: &'a GpuDevice, cells: &'a mut DeviceCells) -> GpuTaskCounter<'a> {
        Self::with_buffers(device, cells, TaskBuffers::default())
    }

    /// A counter that starts from `buffers` (from
    /// [`GpuTaskCounter::into_buffers`]); what it holds when dropped is
    /// freed.
    pub(super) fn with_buffers(
        device: &'a GpuDevice,
        cells: &'a mut DeviceCells,
        buffers: TaskBuffers,
    ) -> GpuTaskCounter<'a> {
        GpuTaskCounter {
            device,
            stored: GpuBoardMaker::with_buffers(device, buffers.stored),
            queries: GpuBoardMaker::with_buffers(device, buffers.queries),
            kept: buffers.rest,
            cells,
            pairs_decided: 0,
            tasks: 0,
            host_seconds: 0.0,
        }
    }

    /// Its buffers, to keep for the next counter (this one then holds
    /// none).
    pub(super) fn into_buffers(mut self) -> TaskBuffers {
        let empty = || GpuBoardMaker::new(self.device);
        TaskBuffers {
            stored: std::mem::replace(&mut self.stored, empty()).into_buffers(),
            queries: std::mem::replace(&mut self.queries, empty()).into_buffers(),
            rest: std::mem::take(&mut self.kept),
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

    /// The board jobs of `specs` (each with its extra key), their row
    /// sets' cells built on the GPU first, all in one batch; `None` where
    /// the GPU cannot (see [`GpuTaskCounter::count`]).
    fn jobs(
        &mut self,
        geo: &Geometry,
        specs: &[(HalfSpec, u64)],
    ) -> Result<Option<Vec<(BoardsJob<'static>, u64)>>, String> {
        // Up to the side whose cells the CPU's threads share, a row set's
        // cells in every column serve every task (a split asks only for
        // cells within its spec's open columns); above it, as the CPU
        // builds them, within those columns (each fixed column cuts a
        // queen's choices).
        let open_of = |spec: &HalfSpec| {
            if geo.h <= SHARED_MAX_SIDE {
                (1 << geo.h) - 1
            } else {
                spec.cols
            }
        };
        let wanted: Vec<(u32, u32)> = specs
            .iter()
            .flat_map(|(spec, _)| quadrant_rows(geo, spec).map(|rows| (rows, open_of(spec))))
            .collect();
        let cells_host = self.cells.host_seconds;
        let loaded = self.cells.load(self.device, geo.h, &wanted)?;
        self.host_seconds += self.cells.host_seconds - cells_host;
        if loaded.is_none() {
            return Ok(None);
        }
        let started = Instant::now();
        let mut jobs = Vec::with_capacity(specs.len());
        for (spec, extra) in specs {
            let open = open_of(spec);
            let [north, south] = quadrant_rows(geo, spec).map(|rows| self.cells.get(rows, open));
            let Some(job) = BoardsJob::of_spans(
                geo,
                spec,
                north.rows().count_ones(),
                [north, south].map(|side| Placements::Device {
                    at: side.at(),
                    count: side.count(),
                }),
                [&|cols| north.cell_span(cols), &|cols| south.cell_span(cols)],
            ) else {
                return Ok(None);
            };
            jobs.push((job, *extra));
        }
        self.host_seconds += started.elapsed().as_secs_f64();
        Ok(Some(jobs))
    }

    /// Makes the boards of `jobs` into `maker`'s lists, growing them until
    /// they hold every board: the class counts after each job.
    fn make(
        maker: &mut GpuBoardMaker<'_>,
        jobs: &[(BoardsJob<'_>, u64)],
    ) -> Result<Vec<[u32; 3]>, String> {
        let jobs: Vec<(&BoardsJob<'_>, u64)> =
            jobs.iter().map(|(job, extra)| (job, *extra)).collect();
        let mut capacity = maker.capacity();
        loop {
            maker.reset(capacity)?;
            let after = maker.append_all(&jobs)?;
            let wanted = after
                .last()
                .map_or(0, |counts| counts.iter().copied().max().unwrap_or(0));
            if wanted <= capacity {
                return Ok(after);
            }
            capacity = wanted;
        }
    }

    /// One grid's count: `None` where the GPU cannot, `Some(None)` where
    /// stopped. A few round trips a chunk of query groups: their boards
    /// made in one list, laid out by one histogram and scatter pass over
    /// all their ranges, matched by a launch each (not waited for), the
    /// sums read back together.
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
        let Some(stored_jobs) = self.jobs(geo, &stored_specs)? else {
            return Ok(None);
        };
        let after = Self::make(&mut self.stored, &stored_jobs)?;
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
        let mut tally = JoinTally::default();
        if stored_count == 0 {
            return Ok(Some(Some(tally)));
        }
        let group_keys: Vec<u64> = grid
            .stored
            .iter()
            .map(|(queen, _)| geo.key(queen.0, queen.1))
            .collect();
        // The query groups that meet a stored group with boards, each with
        // the stored groups it meets.
        let live: Vec<(usize, Vec<u32>)> = grid
            .queries
            .iter()
            .enumerate()
            .filter_map(|(q, (west_queen, _, _))| {
                let west_key = geo.key(west_queen.0, west_queen.1);
                let meeting: Vec<u32> = (0..grid.stored.len() as u32)
                    .filter(|&g| group_keys[g as usize] & west_key == 0 && ranges[g as usize].1 > 0)
                    .collect();
                (!meeting.is_empty()).then_some((q, meeting))
            })
            .collect();
        if live.is_empty() {
            return Ok(Some(Some(tally)));
        }
        // The stored groups' queens' keys, then their ranges' table for
        // the layout, in one copy.
        let mut words: Vec<u32> = group_keys
            .iter()
            .flat_map(|&key| [key as u32, (key >> 32) as u32])
            .collect();
        words.extend(range_words(&ranges));
        self.kept.stored_table.put(&self.device.cuda, &words)?;
        // Chosen at the first chunk: the cut bits, and the stored groups'
        // keys a bucket.
        let mut layout: Option<GridCuts> = None;
        // A window of query groups at a time has its cells on the GPU (the
        // memory a grid's cells take stays bounded), split into chunks of
        // as many groups as fit the boards a chunk may make.
        for window in live.chunks(self.device.settings.query_window) {
            let query_specs: Vec<(HalfSpec, u64)> = window
                .iter()
                .map(|&(q, _)| (grid.queries[q].1, 0))
                .collect();
            let Some(query_jobs) = self.jobs(geo, &query_specs)? else {
                return Ok(None);
            };
            let mut first = 0;
            while first < window.len() {
                if stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                    return Ok(Some(None));
                }
                let mut end = first;
                let mut boards = 0u64;
                while end < window.len()
                    && (end == first
                        || boards + query_jobs[end].0.boards_bound()
                            <= self.device.settings.chunk_boards)
                {
                    boards += query_jobs[end].0.boards_bound();
                    end += 1;
                }
                let counts = Self::make(&mut self.queries, &query_jobs[first..end])?;
                if layout.is_none() {
                    let Some(chosen) =
                        self.choose_layout(geo, &ranges, stored_count, counts.last().copied())?
                    else {
                        first = end;
                        continue;
                    };
                    layout = Some(chosen);
                }
                let cuts = layout.as_ref().expect("laid out above");
                self.match_chunk(
                    geo,
                    grid,
                    &window[first..end],
                    &counts,
                    &ranges,
                    cuts,
                    &mut tally,
                )?;
                first = end;
            }
        }
        Ok(Some(Some(tally)))
    }

    /// The cut bits, from samples of the stored keys and of a chunk's
    /// queries (the class with most: `totals`, its counts), as the CPU's
    /// split chooses them; then every stored group laid out in buckets.
    /// Returns the mask and each stored group's keys a bucket; `None`
    /// where the chunk made no query (the next chunk chooses).
    fn choose_layout(
        &mut self,
        geo: &Geometry,
        ranges: &[(u32, u32)],
        stored_count: u32,
        totals: Option<[u32; 3]>,
    ) -> Result<Option<GridCuts>, String> {
        let totals = totals.unwrap_or_default();
        let class = (0..3).max_by_key(|&class| totals[class]).unwrap_or(0);
        if totals[class] == 0 {
            return Ok(None);
        }
        let stored_keys = self.stored.class_keys(0);
        let query_keys = self.queries.class_keys(class);
        let [stored_sample, query_sample] =
            self.samples_of([(stored_keys, stored_count), (query_keys, totals[class])])?;
        let settings = &self.device.settings;
        let most = settings.cuts;
        let per_bucket = match settings.matcher {
            GpuMatcher::Buckets => WALK_KEYS,
            GpuMatcher::Sliced | GpuMatcher::Tiles => settings.sliced_keys,
        };
        let offered = choose_cuts(&stored_sample, &query_sample, most);
        let largest = ranges.iter().map(|&(_, count)| count).max().unwrap_or(0);
        let cut_mask = offered[..cuts_for(largest as usize, offered.len(), most, per_bucket)]
            .iter()
            .fold(0, |mask, cut| mask | cut);
        let table = self.kept.stored_table.pointer + (ranges.len() * 8) as DevicePtr;
        let in_bucket = lay_out(
            self.device,
            &mut self.kept.stored_laid,
            stored_keys,
            ranges,
            table,
            cut_mask,
            false,
        )?;
        if settings.matcher != GpuMatcher::Buckets {
            // A key's bits: the crossing diagonals of both directions.
            let key_mask = (1u64 << (2 * geo.width)) - 1;
            let slices = slice(
                self.device,
                &mut self.kept.sliced,
                self.kept.stored_laid.sorted.pointer,
                &in_bucket,
                key_mask,
                cut_mask,
            )?;
            return Ok(Some(GridCuts {
                mask: cut_mask,
                within: pairs_within(&in_bucket),
                slices: Some(slices),
            }));
        }
        let within = in_bucket.iter().map(|counts| keys_within(counts)).collect();
        Ok(Some(GridCuts {
            mask: cut_mask,
            within,
            slices: None,
        }))
    }

    /// Every step-th of each side's keys (a start and a count; the CPU
    /// split's sample), both read back in one copy.
    fn samples_of(&mut self, sides: [(DevicePtr, u32); 2]) -> Result<[Vec<u64>; 2], String> {
        let plans = sides.map(|(keys, count)| {
            let step = count.div_ceil(SAMPLE).max(1);
            (keys, step, count.div_ceil(step))
        });
        let total: u32 = plans.iter().map(|&(_, _, taken)| taken).sum();
        self.kept
            .sample
            .reserve(&self.device.cuda, total.max(1) as usize * 8)?;
        let mut out_at = self.kept.sample.pointer;
        for &(keys, step, taken) in &plans {
            let (mut keys_at, mut step_arg, mut taken_arg, mut out) = (keys, step, taken, out_at);
            let mut params = [
                arg(&mut keys_at),
                arg(&mut step_arg),
                arg(&mut taken_arg),
                arg(&mut out),
            ];
            launch_over(self.device, self.device.sample, taken, &mut params)?;
            out_at += u64::from(taken) * 8;
        }
        let mut both = vec![0u64; total as usize];
        self.device
            .cuda
            .download(&mut both, self.kept.sample.pointer)?;
        let query = both.split_off(plans[0].2 as usize);
        Ok([both, query])
    }
}

impl Drop for GpuTaskCounter<'_> {
    fn drop(&mut self) {
        // After `into_buffers` nothing is left here to free.
        self.kept.free(&self.device.cuda);
    }
}
