//! A join task counted wholly on the GPU: its half boards made there by
//! the board kernels, laid out in buckets there, matched there; the host
//! only sends the quadrant cells and a table of column splits a spec, and
//! reads back a count a class. For tasks no grid cuts (N <= 23); the
//! others take the host's half boards ([`super::GpuPairCounter`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::super::cells::{shared_cells, RowCells, SharedCells, SHARED_MAX_SIDE};
use super::super::geometry::Geometry;
use super::super::grid::task_grid;
use super::super::specs::{even_specs, odd_join, quadrant_rows, HalfSpec};
use super::super::split::{choose_cuts, MAX_CUTS};
use super::super::{JoinTally, JoinTask, Parts};
use super::boards::BoardsJob;
use super::buckets::cuts_for;
use super::device::{arg, launch_over, Buffer, GpuBoardMaker, GpuDevice};
use crate::gpu::driver::DevicePtr;

/// Keys sampled a side to choose the cut bits (as the CPU's split does).
const SAMPLE: u32 = 256;

/// One join of a task: the stored specs (each with the key added to its
/// boards), the query spec, and the weight of a query board by class.
type Join = (Vec<(HalfSpec, u64)>, HalfSpec, [u64; 3]);

/// Keys laid out in buckets on the GPU.
#[derive(Default)]
struct Laid {
    patterns: Buffer,
    counts: Buffer,
    next: Buffer,
    sorted: Buffer,
    sorted_patterns: Buffer,
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
    /// The quadrant cells of N's every row set, where they are shared.
    shared: Option<(u32, Arc<SharedCells>)>,
    /// Pairs the GPU decided (those its buckets let each query meet).
    pub(super) pairs_decided: u64,
    /// Tasks it counted wholly.
    pub(super) tasks: u64,
}

impl<'a> GpuTaskCounter<'a> {
    /// A counter on `device`; its context must be current on this thread.
    pub(super) fn new(device: &'a GpuDevice) -> GpuTaskCounter<'a> {
        GpuTaskCounter {
            device,
            stored: GpuBoardMaker::new(device),
            queries: GpuBoardMaker::new(device),
            stored_laid: Laid::default(),
            query_laid: Laid::default(),
            sample: Buffer::default(),
            total: Buffer::default(),
            shared: None,
            pairs_decided: 0,
            tasks: 0,
        }
    }

    /// Counts `task` of an `n` board on the GPU: `Ok(None)` where it
    /// cannot (a grid cuts the task, or a row set is too large to hold
    /// whole), for the host's half boards to take it; `Ok(Some(None))`
    /// where `stop` was set.
    pub(super) fn count(
        &mut self,
        n: u32,
        task: &JoinTask,
        stop: Option<&AtomicBool>,
    ) -> Result<Option<Option<JoinTally>>, String> {
        let geo = Geometry::new(n);
        let parts = Parts::of(n);
        if geo.h > SHARED_MAX_SIDE
            || task_grid(&geo, task, parts.levels, parts.east_levels).is_some()
        {
            return Ok(None);
        }
        let shared = match &self.shared {
            Some((side, cells)) if *side == geo.h => Arc::clone(cells),
            _ => {
                let cells = shared_cells(geo.h);
                self.shared = Some((geo.h, Arc::clone(&cells)));
                cells
            }
        };
        let joins: Vec<Join> = if n.is_multiple_of(2) {
            let weights = super::super::geometry::even_weights(task.east_rows, n);
            even_specs(&geo, task, weights)
                .into_iter()
                .map(|(east, west, weights)| (vec![(east, 0)], west, weights))
                .collect()
        } else {
            let (east, west, weight) = odd_join(&geo, task);
            vec![(east, west, [weight, 0, 0])]
        };
        let mut tally = JoinTally::default();
        for (stored, query, weights) in &joins {
            if stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                return Ok(Some(None));
            }
            match self.count_join(&geo, &shared, stored, query, *weights)? {
                Some(join) => tally += join,
                None => return Ok(None),
            }
        }
        self.tasks += 1;
        Ok(Some(Some(tally)))
    }

    /// One join's count, or `None` where its cells are not held whole.
    fn count_join(
        &mut self,
        geo: &Geometry,
        shared: &SharedCells,
        stored: &[(HalfSpec, u64)],
        query: &HalfSpec,
        weights: [u64; 3],
    ) -> Result<Option<JoinTally>, String> {
        let cells_of = |spec: &HalfSpec| -> [&RowCells; 2] {
            quadrant_rows(geo, spec).map(|rows| shared.get(rows))
        };
        let mut jobs = Vec::with_capacity(stored.len());
        for (spec, extra) in stored {
            match BoardsJob::new(geo, spec, cells_of(spec)) {
                Some(job) => jobs.push((job, *extra)),
                None => return Ok(None),
            }
        }
        let Some(query_job) = BoardsJob::new(geo, query, cells_of(query)) else {
            return Ok(None);
        };
        // The stored boards, every spec's appended to class 0's list (an
        // east half has no class); made again into larger lists where
        // the first try's did not hold them.
        let stored_count = loop {
            let capacity = self.stored.capacity();
            self.stored.reset(capacity)?;
            let mut counts = [0u32; 3];
            for (job, extra) in &jobs {
                counts = self.stored.append(job, *extra)?;
            }
            let wanted = counts.iter().copied().max().unwrap_or(0);
            if wanted <= capacity {
                break counts[0];
            }
            self.stored.reset(wanted)?;
        };
        let query_counts = loop {
            let capacity = self.queries.capacity();
            self.queries.reset(capacity)?;
            let counts = self.queries.append(&query_job, 0)?;
            let wanted = counts.iter().copied().max().unwrap_or(0);
            if wanted <= capacity {
                break counts;
            }
            self.queries.reset(wanted)?;
        };
        let mut tally = JoinTally::default();
        let classes: Vec<usize> = (0..3)
            .filter(|&class| weights[class] != 0 && query_counts[class] != 0)
            .collect();
        if stored_count == 0 || classes.is_empty() {
            return Ok(Some(tally));
        }
        // The cut bits, from samples of both sides (as the CPU's split
        // chooses them).
        let stored_keys = self.stored.class_keys(0);
        let stored_sample = self.sample_of(stored_keys, stored_count)?;
        let query_sample = self.sample_of(
            self.queries.class_keys(classes[0]),
            query_counts[classes[0]],
        )?;
        let offered = choose_cuts(&stored_sample, &query_sample, MAX_CUTS);
        let cut_mask = offered[..cuts_for(stored_count as usize, offered.len())]
            .iter()
            .fold(0, |mask, cut| mask | cut);
        let cuts = cut_mask.count_ones();
        let in_bucket = lay_out(
            self.device,
            &mut self.stored_laid,
            stored_keys,
            stored_count,
            cut_mask,
            false,
        )?;
        let within = keys_within(&in_bucket, cuts);
        let all = (1usize << cuts) - 1;
        for &class in &classes {
            let count = query_counts[class];
            let query_keys = self.queries.class_keys(class);
            let laid = &mut self.query_laid;
            let query_buckets = lay_out(self.device, laid, query_keys, count, cut_mask, true)?;
            self.pairs_decided += query_buckets
                .iter()
                .enumerate()
                .map(|(pattern, &queries)| u64::from(queries) * within[!pattern & all])
                .sum::<u64>();
            self.total.put(&self.device.cuda, &[0u64])?;
            let (mut stored_at, mut starts_at, mut cuts_arg) = (
                self.stored_laid.sorted.pointer,
                self.stored_laid.counts.pointer,
                cuts,
            );
            let (mut queries_at, mut patterns_at, mut count_arg, mut total_at) = (
                laid.sorted.pointer,
                laid.sorted_patterns.pointer,
                count,
                self.total.pointer,
            );
            let mut params = [
                arg(&mut stored_at),
                arg(&mut starts_at),
                arg(&mut cuts_arg),
                arg(&mut queries_at),
                arg(&mut patterns_at),
                arg(&mut count_arg),
                arg(&mut total_at),
            ];
            launch_over(
                self.device,
                self.device.pairs_function(),
                count,
                &mut params,
            )?;
            let mut sum = [0u64];
            self.device.cuda.download(&mut sum, self.total.pointer)?;
            tally.solutions += weights[class] * sum[0];
            tally.pairs += u64::from(stored_count) * u64::from(count);
        }
        Ok(Some(tally))
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

/// Lays out `count` keys at `keys` in buckets by their bits under
/// `cut_mask`: `laid.sorted` the keys bucket after bucket (with their
/// patterns in `laid.sorted_patterns` where `with_patterns`), and
/// `laid.counts` the bucket starts (2^cuts + 1 words). Returns the keys
/// of each bucket.
fn lay_out(
    device: &GpuDevice,
    laid: &mut Laid,
    keys: DevicePtr,
    count: u32,
    cut_mask: u64,
    with_patterns: bool,
) -> Result<Vec<u32>, String> {
    let cuda = &device.cuda;
    let buckets = 1usize << cut_mask.count_ones();
    laid.patterns.reserve(cuda, count as usize * 4)?;
    laid.counts.put(cuda, &vec![0u32; buckets + 1])?;
    {
        let (mut keys_at, mut count_arg, mut mask, mut patterns, mut counts) = (
            keys,
            count,
            cut_mask,
            laid.patterns.pointer,
            laid.counts.pointer,
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
    let mut in_bucket = vec![0u32; buckets];
    cuda.download(&mut in_bucket, laid.counts.pointer)?;
    let mut starts = Vec::with_capacity(buckets + 1);
    starts.push(0u32);
    for &keys in &in_bucket {
        starts.push(starts.last().copied().unwrap_or(0) + keys);
    }
    laid.counts.put(cuda, &starts)?;
    laid.next.put(cuda, &starts[..buckets])?;
    laid.sorted.reserve(cuda, count as usize * 8)?;
    if with_patterns {
        laid.sorted_patterns.reserve(cuda, count as usize * 4)?;
    }
    let (mut keys_at, mut patterns, mut count_arg, mut next, mut sorted, mut sorted_patterns) = (
        keys,
        laid.patterns.pointer,
        count,
        laid.next.pointer,
        laid.sorted.pointer,
        if with_patterns {
            laid.sorted_patterns.pointer
        } else {
            0
        },
    );
    let mut params = [
        arg(&mut keys_at),
        arg(&mut patterns),
        arg(&mut count_arg),
        arg(&mut next),
        arg(&mut sorted),
        arg(&mut sorted_patterns),
    ];
    launch_over(device, device.scatter, count, &mut params)?;
    Ok(in_bucket)
}

/// For each pattern `m` of `cuts` bits, the keys of the buckets whose
/// pattern lies within `m`: a query of pattern `q` decides
/// `within[!q & mask]` pairs.
fn keys_within(in_bucket: &[u32], cuts: u32) -> Vec<u64> {
    let mut within: Vec<u64> = in_bucket.iter().map(|&keys| u64::from(keys)).collect();
    for bit in 0..cuts {
        for pattern in 0..within.len() {
            if pattern & (1 << bit) != 0 {
                within[pattern] += within[pattern ^ (1 << bit)];
            }
        }
    }
    within
}
