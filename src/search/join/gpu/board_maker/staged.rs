//! A batch of board jobs staged: every job's boards made by one launch
//! into a region of its own (`nq_boards_staged`), then put in the class
//! lists job after job (`nq_stage_scan_kernel`, `nq_unstage`), so that a
//! batch of small jobs costs a few launches, not a few a job.

use super::super::boards::BoardsJob;
use super::super::device::{arg, launch_over};
use super::GpuBoardMaker;
use crate::cuda::driver::DevicePtr;

/// Words of a staged batch's table a job (`NQ_JOB_WORDS`).
pub(super) const JOB_WORDS: usize = 8;

/// Threads of an `nq_unstage` launch at most (each moves every so many
/// staged boards).
const UNSTAGE_THREADS: u64 = 1 << 20;

impl GpuBoardMaker<'_> {
    /// A staged batch's boards (`bound` at most), its placements moved
    /// and its tables on the GPU: made by one launch into a region a job,
    /// then put in the class lists job after job.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn make_staged(
        &mut self,
        jobs: &[(&BoardsJob<'_>, u64)],
        first: usize,
        bound: u64,
        checks_at: DevicePtr,
        keys_at: DevicePtr,
        table_at: DevicePtr,
        jobs_at: DevicePtr,
        job_items_at: DevicePtr,
    ) -> Result<(), String> {
        let cuda = &self.device.cuda;
        let job_count = jobs.len() as u32;
        self.kept.stage.reserve(cuda, (bound as usize).max(1) * 8)?;
        self.kept.stage_counts.zeroed(cuda, jobs.len() * 4)?;
        self.kept.cursors.reserve(cuda, (jobs.len() * 4 + 1) * 4)?;
        // Checked, as the table's job starts were (a wrapped sum would
        // launch too few threads and lose boards silently).
        let items = jobs
            .iter()
            .try_fold(0u32, |sum, (job, _)| sum.checked_add(job.items()))
            .ok_or("a staged batch's items overflow 32 bits")?;
        let (stage_at, stage_counts_at) = (self.kept.stage.pointer, self.kept.stage_counts.pointer);
        if items > 0 {
            let (mut checks, mut keys, mut table, mut jobs_arg, mut job_items, mut count) = (
                checks_at,
                keys_at,
                table_at,
                jobs_at,
                job_items_at,
                job_count,
            );
            let (mut stage_arg, mut counts_arg) = (stage_at, stage_counts_at);
            let mut params = [
                arg(&mut checks),
                arg(&mut keys),
                arg(&mut table),
                arg(&mut jobs_arg),
                arg(&mut job_items),
                arg(&mut count),
                arg(&mut stage_arg),
                arg(&mut counts_arg),
            ];
            launch_over(self.device, self.device.boards_staged, items, &mut params)?;
        }
        let cursors_at = self.kept.cursors.pointer;
        let unstage_start_at = cursors_at + (jobs.len() * 12) as DevicePtr;
        {
            let (mut counts_arg, mut count, mut list_counts, mut after, mut cursors, mut starts) = (
                stage_counts_at,
                job_count,
                self.kept.counts.pointer,
                self.kept.after.pointer + (first * 12) as DevicePtr,
                cursors_at,
                unstage_start_at,
            );
            let mut params = [
                arg(&mut counts_arg),
                arg(&mut count),
                arg(&mut list_counts),
                arg(&mut after),
                arg(&mut cursors),
                arg(&mut starts),
            ];
            launch_over(self.device, self.device.stage_scan, 1, &mut params)?;
        }
        if bound > 0 {
            let (mut stage_arg, mut jobs_arg, mut starts, mut count, mut cursors) =
                (stage_at, jobs_at, unstage_start_at, job_count, cursors_at);
            let (mut out, mut capacity) = (self.kept.out.pointer, self.kept.capacity);
            let mut params = [
                arg(&mut stage_arg),
                arg(&mut jobs_arg),
                arg(&mut starts),
                arg(&mut count),
                arg(&mut cursors),
                arg(&mut out),
                arg(&mut capacity),
            ];
            // Threads enough for most stages; each takes every so many
            // boards past its own.
            let threads = bound.min(UNSTAGE_THREADS) as u32;
            launch_over(self.device, self.device.unstage, threads, &mut params)?;
        }
        Ok(())
    }
}

/// A staged job's words in its batch's table (`NQ_JOB_WORDS`, read by
/// `nq_boards_staged` and `nq_unstage`): where its north and south
/// placements start, where its splits lie (in words), how many, where
/// its region of the stage starts, and its extra's two halves.
pub(super) fn job_words(
    job: &BoardsJob<'_>,
    item_starts: [u32; 2],
    splits_at: u32,
    stage_at: u64,
    extra: u64,
) -> [u32; JOB_WORDS] {
    [
        item_starts[0],
        item_starts[1],
        splits_at,
        job.split_count(),
        stage_at as u32,
        extra as u32,
        (extra >> 32) as u32,
        0,
    ]
}

#[cfg(test)]
extern "C" {
    #[allow(clippy::too_many_arguments)]
    fn nq_boards_staged_host(
        checks: *const u64,
        keys: *const u64,
        table: *const u32,
        jobs: *const u32,
        job_items: *const u32,
        job_count: u32,
        stage: *mut u64,
        stage_counts: *mut u32,
        counts: *mut u32,
        after: *mut u32,
        cursors: *mut u32,
        unstage_start: *mut u32,
        out: *mut u64,
        capacity: u32,
    );
}

#[cfg(test)]
mod tests {
    use super::super::super::super::cells::CellCache;
    use super::super::super::super::geometry::Geometry;
    use super::super::super::super::specs::{even_specs, quadrant_rows};
    use super::super::super::super::JoinTasks;
    use super::super::super::boards::{boards_on_host, place_on_host, Placements};
    use super::super::super::laid::starts_of;
    use super::*;

    #[test]
    fn staged_jobs_make_each_jobs_boards_in_its_own_ranges() {
        // Every spec of a few even tasks in one staged batch (each with an
        // extra of its own), against each made alone by the direct code.
        for (n, task_ids) in [(10u32, [0u64, 5]), (12, [3, 40]), (14, [7, 100])] {
            let geo = Geometry::new(n);
            let tasks = JoinTasks::new(n);
            let specs: Vec<_> = task_ids
                .iter()
                .flat_map(|&id| even_specs(&geo, &tasks.get(id % tasks.len()), [1, 1, 1]))
                .flat_map(|(east, west, _)| [east, west])
                .collect();
            let mut caches: Vec<CellCache> = specs.iter().map(|_| CellCache::default()).collect();
            let mut jobs = Vec::new();
            for (spec, cache) in specs.iter().zip(&mut caches) {
                let rows = quadrant_rows(&geo, spec);
                cache.load(geo.h, &rows, spec.cols);
            }
            for (spec, cache) in specs.iter().zip(&caches) {
                let rows = quadrant_rows(&geo, spec);
                let cells = rows.map(|rows| cache.get(rows, spec.cols));
                jobs.push(BoardsJob::new(&geo, spec, cells).expect("held whole"));
            }
            let extras: Vec<u64> = (0..jobs.len() as u64).map(|j| (j % 3) << 58).collect();
            // The direct code's boards of each job, by class.
            let direct: Vec<[Vec<u64>; 3]> = jobs
                .iter()
                .map(|job| boards_on_host(job, u32::MAX >> 4).0)
                .collect();
            // The staged inputs: every job's placements placed, one table.
            let (mut checks, mut keys) = (Vec::new(), Vec::new());
            let (mut table, mut job_words) = (Vec::new(), Vec::new());
            let mut stage_at = 0u64;
            for (job, extra) in jobs.iter().zip(&extras) {
                let mut starts = [0u32; 2];
                for ((placements, how), start) in [job.north, job.south]
                    .iter()
                    .zip(&job.moves)
                    .zip(&mut starts)
                {
                    let Placements::Host(diags) = placements else {
                        unreachable!("host cells")
                    };
                    *start = checks.len() as u32;
                    let (placed_checks, placed_keys) = place_on_host(diags, how);
                    checks.extend(placed_checks);
                    keys.extend(placed_keys);
                }
                let splits_at = table.len() as u32;
                table.extend(job.splits.iter().chain(&job.item_start));
                job_words.extend(super::job_words(job, starts, splits_at, stage_at, *extra));
                stage_at += job.boards_bound();
            }
            let job_items = starts_of(jobs.iter().map(BoardsJob::items)).unwrap();
            let job_count = jobs.len() as u32;
            let capacity = stage_at as u32 + 1;
            let mut stage = vec![0u64; stage_at as usize + 1];
            let mut stage_counts = vec![0u32; 4 * jobs.len()];
            // Lists that already hold some keys: the batch appends.
            let held = [5u32, 0, 2];
            let mut counts = held;
            let mut after = vec![0u32; 3 * jobs.len()];
            let mut cursors = vec![0u32; 3 * jobs.len()];
            let mut unstage_start = vec![0u32; jobs.len() + 1];
            let mut out = vec![u64::MAX; 3 * capacity as usize];
            // SAFETY: every buffer is as long as the kernels' code reads
            // and writes: the table holds each job's splits and item
            // starts where its words say, the stage each job's bound, the
            // lists `capacity` keys a class.
            unsafe {
                nq_boards_staged_host(
                    checks.as_ptr(),
                    keys.as_ptr(),
                    table.as_ptr(),
                    job_words.as_ptr(),
                    job_items.as_ptr(),
                    job_count,
                    stage.as_mut_ptr(),
                    stage_counts.as_mut_ptr(),
                    counts.as_mut_ptr(),
                    after.as_mut_ptr(),
                    cursors.as_mut_ptr(),
                    unstage_start.as_mut_ptr(),
                    out.as_mut_ptr(),
                    capacity,
                );
            }
            let mut boards = 0;
            for class in 0..3 {
                let mut from = held[class];
                for (index, (expected, extra)) in direct.iter().zip(&extras).enumerate() {
                    let to = after[3 * index + class];
                    let start = class * capacity as usize;
                    let mut made = out[start + from as usize..start + to as usize].to_vec();
                    let mut wanted: Vec<u64> =
                        expected[class].iter().map(|key| key | extra).collect();
                    made.sort_unstable();
                    wanted.sort_unstable();
                    assert_eq!(made, wanted, "N = {n}, job {index}, class {class}");
                    boards += made.len();
                    from = to;
                }
                assert_eq!(counts[class], from, "N = {n}: the lists' counts move on");
            }
            assert!(boards > 10, "N = {n}: {boards} boards");
        }
    }
}
