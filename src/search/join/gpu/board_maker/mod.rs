//! Half boards made on a GPU by the kernels of `boards.cuh`, their keys
//! left there by class for the layout and the matching (`whole/`), or
//! read back for the tests and the timing of the board kernels; a batch of
//! small jobs staged (`staged.rs`).

use super::boards::{BoardsJob, Placements};
use super::device::{arg, launch_over, Buffer, GpuDevice};
use super::laid::starts_of;
use crate::cuda::driver::{Cuda, DevicePtr};

mod staged;

use staged::{job_words, JOB_WORDS};

/// Makes half boards on a GPU with the kernels of `boards.cuh`: a job's
/// placements copied over, moved onto the board (`nq_place`) and paired
/// (`nq_boards`), the keys left on the GPU by class.
pub struct GpuBoardMaker<'a> {
    device: &'a GpuDevice,
    kept: BoardBuffers,
}

/// A board maker's GPU buffers, kept from one batch of tasks to the next
/// ([`GpuBoardMaker::with_buffers`]): a buffer made and freed every batch
/// costs an allocation and a free, and a free waits for the whole GPU.
#[derive(Default)]
pub(super) struct BoardBuffers {
    /// The host's placements (where a job has them), then every
    /// placement's check and key.
    placed: [Buffer; 3],
    /// The jobs' tables: each one's splits and their threads' starts.
    splits: Buffer,
    /// The class counts after each job.
    after: Buffer,
    out: Buffer,
    counts: Buffer,
    /// A staged batch's boards, a region a job; its counts (four words a
    /// job); its cursors in the class lists (three a job) and where each
    /// job's staged boards start among them all.
    stage: Buffer,
    stage_counts: Buffer,
    cursors: Buffer,
    /// Keys a class holds at most on the GPU (the last job's).
    capacity: u32,
}

impl BoardBuffers {
    /// Frees them (the GPU's context current on this thread); they are
    /// then empty.
    pub(super) fn free(&mut self, cuda: &Cuda) {
        for buffer in self
            .placed
            .iter()
            .chain([&self.splits, &self.after, &self.out, &self.counts])
            .chain([&self.stage, &self.stage_counts, &self.cursors])
        {
            cuda.free(buffer.pointer);
        }
        *self = BoardBuffers::default();
    }
}

impl<'a> GpuBoardMaker<'a> {
    /// A maker on `device`; its context must be current on this thread.
    pub fn new(device: &'a GpuDevice) -> GpuBoardMaker<'a> {
        Self::with_buffers(device, BoardBuffers::default())
    }

    /// A maker on `device` that starts from `kept` (from
    /// [`GpuBoardMaker::into_buffers`]); what it holds when dropped is
    /// freed.
    pub(super) fn with_buffers(device: &'a GpuDevice, kept: BoardBuffers) -> GpuBoardMaker<'a> {
        GpuBoardMaker { device, kept }
    }

    /// Its buffers, to keep for the next maker (this one then holds none).
    pub(super) fn into_buffers(mut self) -> BoardBuffers {
        std::mem::take(&mut self.kept)
    }

    /// Makes `job`'s boards, keeping up to `capacity` keys a class on
    /// the GPU: how many keys each class has (past the capacity, those
    /// were made and counted but not kept).
    pub(super) fn make(&mut self, job: &BoardsJob<'_>, capacity: u32) -> Result<[u32; 3], String> {
        self.reset(capacity)?;
        self.append(job, 0)
    }

    /// Empties the class lists, each to hold at least `capacity` keys:
    /// as many as the buffer has room for, so that a later task's larger
    /// lists seldom have to be made again in a larger buffer (a round
    /// trip more).
    pub(super) fn reset(&mut self, capacity: u32) -> Result<(), String> {
        let cuda = &self.device.cuda;
        self.kept
            .out
            .reserve(cuda, 3 * (capacity as usize).max(1) * 8)?;
        let room = u32::try_from(self.kept.out.bytes() / 24).unwrap_or(u32::MAX);
        self.kept.capacity = room.max(capacity);
        self.kept.counts.zeroed(cuda, 3)
    }

    /// Appends `job`'s boards (each key with `extra` added) to the class
    /// lists: how many keys each list has now, kept or not.
    pub(super) fn append(&mut self, job: &BoardsJob<'_>, extra: u64) -> Result<[u32; 3], String> {
        let after = self.append_all(&[(job, extra)])?;
        Ok(after[0])
    }

    /// Appends each job's boards (each key with its extra added) to the
    /// class lists, job after job: how many keys each list has after each
    /// job, kept or not. A batch of jobs (up to
    /// [`GpuSettings::placed_at_once`] placements and
    /// [`GpuSettings::staged_boards`] boards by their bound) has its
    /// tables sent in one copy, every placement of its row sets moved
    /// onto the board by one `nq_place` launch, and all its boards made by
    /// one `nq_boards_staged` launch, a region a job, then put in the
    /// lists job after job (the jobs' boards must follow each other there)
    /// by `nq_stage_scan_kernel` and `nq_unstage`. A job past the staging
    /// bound is a batch alone, made by `nq_boards` straight into the lists.
    /// The counts come back in one copy at the end; only the copies from
    /// the host wait for the GPU.
    ///
    /// [`GpuSettings::placed_at_once`]: super::settings::GpuSettings
    /// [`GpuSettings::staged_boards`]: super::settings::GpuSettings
    pub(super) fn append_all(
        &mut self,
        jobs: &[(&BoardsJob<'_>, u64)],
    ) -> Result<Vec<[u32; 3]>, String> {
        // No turn taken: each feeder has its own buffers and stream.
        let cuda = &self.device.cuda;
        self.kept.after.reserve(cuda, jobs.len().max(1) * 12)?;
        let settings = self.device.settings;
        // A stage is indexed in 32 bits.
        let stage_limit = settings.staged_boards.min(u64::from(u32::MAX));
        let mut first = 0;
        while first < jobs.len() {
            let staged = jobs[first].0.boards_bound() <= stage_limit;
            let mut end = first;
            let (mut placements, mut bound) = (0u64, 0u64);
            while end < jobs.len() {
                let job = jobs[end].0;
                let more = u64::from(job.north.count() + job.south.count());
                let job_bound = job.boards_bound();
                if end > first
                    && (!staged
                        || placements + more > settings.placed_at_once
                        || bound + job_bound > stage_limit)
                {
                    break;
                }
                placements += more;
                bound += job_bound;
                end += 1;
            }
            let stage = staged.then_some(bound);
            self.append_batch(&jobs[first..end], first, placements, stage)?;
            first = end;
        }
        let mut after = vec![0u32; jobs.len() * 3];
        cuda.download(&mut after, self.kept.after.pointer)?;
        Ok(after
            .chunks(3)
            .map(|counts| [counts[0], counts[1], counts[2]])
            .collect())
    }

    /// [`GpuBoardMaker::append_all`]'s jobs from `first` on, `placements`
    /// in all; staged where `stage` gives their boards' bound.
    fn append_batch(
        &mut self,
        jobs: &[(&BoardsJob<'_>, u64)],
        first: usize,
        placements: u64,
        stage: Option<u64>,
    ) -> Result<(), String> {
        let cuda = &self.device.cuda;
        // The placements the host holds (the tests' and the timing's
        // jobs), in one copy.
        let host: Vec<u64> = jobs
            .iter()
            .flat_map(|(job, _)| [job.north, job.south])
            .flat_map(|placements| match placements {
                Placements::Host(diags) => diags,
                Placements::Device { .. } => &[],
            })
            .copied()
            .collect();
        self.kept.placed[0].put(cuda, &host)?;
        // One table: each list's address, its move, where its items start
        // (and the total); then each job's splits and where each split's
        // threads start.
        let lists = 2 * jobs.len();
        let mut table: Vec<u8> = Vec::new();
        let mut host_at = 0u64;
        let mut moves: Vec<u8> = Vec::with_capacity(lists * 48);
        for (job, _) in jobs {
            for (placements, how) in [(job.north, &job.moves[0]), (job.south, &job.moves[1])] {
                let at = match placements {
                    Placements::Host(diags) => {
                        let at = self.kept.placed[0].pointer + host_at * 8;
                        host_at += diags.len() as u64;
                        at
                    }
                    Placements::Device { at, .. } => at,
                };
                table.extend_from_slice(&at.to_le_bytes());
                moves.extend_from_slice(&how.bytes());
            }
        }
        let item_start = starts_of(
            jobs.iter()
                .flat_map(|(job, _)| [job.north.count(), job.south.count()]),
        )
        .expect("a batch's placements are counted in 32 bits");
        table.extend_from_slice(&moves);
        let item_start_at = table.len();
        for start in &item_start {
            table.extend_from_slice(&start.to_le_bytes());
        }
        let mut splits_at = Vec::with_capacity(jobs.len());
        for (job, _) in jobs {
            splits_at.push(table.len());
            for word in job.splits.iter().chain(&job.item_start) {
                table.extend_from_slice(&word.to_le_bytes());
            }
        }
        // A staged batch's jobs (NQ_JOB_WORDS words each) and where each
        // one's threads start.
        let jobs_at = table.len();
        if stage.is_some() {
            let mut stage_at = 0u64;
            for (index, ((job, extra), &at)) in jobs.iter().zip(&splits_at).enumerate() {
                // The kernel finds a job's item starts after its splits.
                debug_assert_eq!(job.splits.len(), 3 * job.split_count() as usize);
                let starts = [item_start[2 * index], item_start[2 * index + 1]];
                for word in job_words(job, starts, (at / 4) as u32, stage_at, *extra) {
                    table.extend_from_slice(&word.to_le_bytes());
                }
                stage_at += job.boards_bound();
            }
            let job_items = starts_of(jobs.iter().map(|(job, _)| job.items()))
                .expect("a batch's placements are counted in 32 bits");
            for word in job_items {
                table.extend_from_slice(&word.to_le_bytes());
            }
        }
        self.kept.splits.put(cuda, &table)?;
        let table_at = self.kept.splits.pointer;
        let placed = placements as usize;
        let [_, checks, keys, ..] = &mut self.kept.placed;
        checks.reserve(cuda, placed.max(1) * 8)?;
        keys.reserve(cuda, placed.max(1) * 8)?;
        let (checks_at, keys_at) = (checks.pointer, keys.pointer);
        if placements > 0 {
            let (mut lists_at, mut item_start_ptr, mut list_count, mut moves_at) = (
                table_at,
                table_at + item_start_at as DevicePtr,
                lists as u32,
                table_at + (lists * 8) as DevicePtr,
            );
            let (mut checks_arg, mut keys_arg) = (checks_at, keys_at);
            let mut params = [
                arg(&mut lists_at),
                arg(&mut item_start_ptr),
                arg(&mut list_count),
                arg(&mut moves_at),
                arg(&mut checks_arg),
                arg(&mut keys_arg),
            ];
            launch_over(
                self.device,
                self.device.place,
                placements as u32,
                &mut params,
            )?;
        }
        if let Some(bound) = stage {
            let jobs_at = table_at + jobs_at as DevicePtr;
            let job_items_at = jobs_at + (jobs.len() * JOB_WORDS * 4) as DevicePtr;
            return self.make_staged(
                jobs,
                first,
                bound,
                checks_at,
                keys_at,
                table_at,
                jobs_at,
                job_items_at,
            );
        }
        for (index, ((job, extra), &at)) in jobs.iter().zip(&splits_at).enumerate() {
            let items = job.items();
            if items > 0 {
                let (north, south) = (
                    u64::from(item_start[2 * index]) * 8,
                    u64::from(item_start[2 * index + 1]) * 8,
                );
                let splits = table_at + at as DevicePtr;
                let mut pointers = [
                    checks_at + north,
                    keys_at + north,
                    checks_at + south,
                    keys_at + south,
                    splits,
                    splits + (job.splits.len() * 4) as DevicePtr,
                ];
                let (mut split_count, mut extra, mut out, mut capacity, mut counts) = (
                    job.split_count(),
                    *extra,
                    self.kept.out.pointer,
                    self.kept.capacity,
                    self.kept.counts.pointer,
                );
                let [p0, p1, p2, p3, p4, p5] = &mut pointers;
                let mut params = [
                    arg(p0),
                    arg(p1),
                    arg(p2),
                    arg(p3),
                    arg(p4),
                    arg(p5),
                    arg(&mut split_count),
                    arg(&mut extra),
                    arg(&mut out),
                    arg(&mut capacity),
                    arg(&mut counts),
                ];
                launch_over(self.device, self.device.boards, items, &mut params)?;
            }
            // The counts after this job (the next appends to them).
            cuda.copy_on_device(
                self.kept.after.pointer + ((first + index) * 12) as DevicePtr,
                self.kept.counts.pointer,
                12,
            )?;
        }
        Ok(())
    }

    /// Keys a class holds at most.
    pub(super) fn capacity(&self) -> u32 {
        self.kept.capacity
    }

    /// Where class `class`'s keys start on the GPU.
    pub(super) fn class_keys(&self, class: usize) -> DevicePtr {
        self.kept.out.pointer + (class * self.kept.capacity as usize * 8) as DevicePtr
    }

    /// The keys the last job kept, by class (`counts` as it returned).
    pub(super) fn keys(&self, counts: [u32; 3]) -> Result<[Vec<u64>; 3], String> {
        let mut keys: [Vec<u64>; 3] = Default::default();
        for (class, list) in keys.iter_mut().enumerate() {
            list.resize(counts[class].min(self.kept.capacity) as usize, 0);
            if !list.is_empty() {
                self.device.cuda.download(list, self.class_keys(class))?;
            }
        }
        Ok(keys)
    }
}

impl Drop for GpuBoardMaker<'_> {
    fn drop(&mut self) {
        self.kept.free(&self.device.cuda);
    }
}
