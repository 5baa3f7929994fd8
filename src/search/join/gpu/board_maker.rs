//! Half boards made on a GPU by the kernels of `boards.cuh`, their keys
//! left there by class for the layout and the matching (`whole.rs`), or
//! read back for the tests and the timing of the board kernels.

use super::boards::{BoardsJob, Placements};
use super::device::{arg, launch_over, Buffer, GpuDevice};
use crate::gpu::driver::DevicePtr;

/// Makes half boards on a GPU with the kernels of `boards.cuh`: a job's
/// placements copied over, moved onto the board (`nq_place`) and paired
/// (`nq_boards`), the keys left on the GPU by class.
pub struct GpuBoardMaker<'a> {
    device: &'a GpuDevice,
    /// The host's placements (where a job has them), then every
    /// placement's check and key.
    placed: [Buffer; 3],
    /// The jobs' tables: each one's splits and their threads' starts.
    splits: Buffer,
    /// The class counts after each job.
    after: Buffer,
    out: Buffer,
    counts: Buffer,
    /// Keys a class holds at most on the GPU (the last job's).
    capacity: u32,
}

impl<'a> GpuBoardMaker<'a> {
    /// A maker on `device`; its context must be current on this thread.
    pub fn new(device: &'a GpuDevice) -> GpuBoardMaker<'a> {
        GpuBoardMaker {
            device,
            placed: Default::default(),
            splits: Buffer::default(),
            after: Buffer::default(),
            out: Buffer::default(),
            counts: Buffer::default(),
            capacity: 0,
        }
    }

    /// Makes `job`'s boards, keeping up to `capacity` keys a class on
    /// the GPU: how many keys each class has (past the capacity, those
    /// were made and counted but not kept).
    pub(super) fn make(&mut self, job: &BoardsJob<'_>, capacity: u32) -> Result<[u32; 3], String> {
        self.reset(capacity)?;
        self.append(job, 0)
    }

    /// Empties the class lists, each to hold up to `capacity` keys.
    pub(super) fn reset(&mut self, capacity: u32) -> Result<(), String> {
        let cuda = &self.device.cuda;
        self.out.reserve(cuda, 3 * (capacity as usize).max(1) * 8)?;
        self.capacity = capacity;
        self.counts.zeroed(cuda, 3)
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
    /// [`GpuSettings::placed_at_once`] placements) has its tables sent in one copy and every placement
    /// of its row sets moved onto the board by one `nq_place` launch, then
    /// one `nq_boards` launch a job and a copy of the counts on the GPU
    /// after each (the jobs' boards must follow each other in the lists);
    /// the counts come back in one copy at the end. Only the copies from
    /// the host wait for the GPU.
    pub(super) fn append_all(
        &mut self,
        jobs: &[(&BoardsJob<'_>, u64)],
    ) -> Result<Vec<[u32; 3]>, String> {
        // No turn taken: each feeder has its own buffers and stream.
        let cuda = &self.device.cuda;
        self.after.reserve(cuda, jobs.len().max(1) * 12)?;
        let mut first = 0;
        while first < jobs.len() {
            let mut end = first;
            let mut placements = 0u64;
            while end < jobs.len() {
                let more = u64::from(jobs[end].0.north.count() + jobs[end].0.south.count());
                if end > first && placements + more > self.device.settings.placed_at_once {
                    break;
                }
                placements += more;
                end += 1;
            }
            self.append_batch(&jobs[first..end], first, placements)?;
            first = end;
        }
        let mut after = vec![0u32; jobs.len() * 3];
        cuda.download(&mut after, self.after.pointer)?;
        Ok(after
            .chunks(3)
            .map(|counts| [counts[0], counts[1], counts[2]])
            .collect())
    }

    /// [`GpuBoardMaker::append_all`]'s jobs from `first` on, `placements`
    /// in all.
    fn append_batch(
        &mut self,
        jobs: &[(&BoardsJob<'_>, u64)],
        first: usize,
        placements: u64,
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
        self.placed[0].put(cuda, &host)?;
        // One table: each list's address, its move, where its items start
        // (and the total); then each job's splits and where each split's
        // threads start.
        let lists = 2 * jobs.len();
        let mut table: Vec<u8> = Vec::new();
        let mut host_at = 0u64;
        let mut item_start = vec![0u32];
        let mut moves: Vec<u8> = Vec::with_capacity(lists * 48);
        for (job, _) in jobs {
            for (placements, how) in [(job.north, &job.moves[0]), (job.south, &job.moves[1])] {
                let at = match placements {
                    Placements::Host(diags) => {
                        let at = self.placed[0].pointer + host_at * 8;
                        host_at += diags.len() as u64;
                        at
                    }
                    Placements::Device { at, .. } => at,
                };
                table.extend_from_slice(&at.to_le_bytes());
                moves.extend_from_slice(&how.bytes());
                let last = *item_start.last().expect("starts at 0");
                item_start.push(last + placements.count());
            }
        }
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
        self.splits.put(cuda, &table)?;
        let table_at = self.splits.pointer;
        let placed = placements as usize;
        let [_, checks, keys, ..] = &mut self.placed;
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
                    self.out.pointer,
                    self.capacity,
                    self.counts.pointer,
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
                self.after.pointer + ((first + index) * 12) as DevicePtr,
                self.counts.pointer,
                12,
            )?;
        }
        Ok(())
    }

    /// Keys a class holds at most.
    pub(super) fn capacity(&self) -> u32 {
        self.capacity
    }

    /// Where class `class`'s keys start on the GPU.
    pub(super) fn class_keys(&self, class: usize) -> DevicePtr {
        self.out.pointer + (class * self.capacity as usize * 8) as DevicePtr
    }

    /// The keys the last job kept, by class (`counts` as it returned).
    pub(super) fn keys(&self, counts: [u32; 3]) -> Result<[Vec<u64>; 3], String> {
        let mut keys: [Vec<u64>; 3] = Default::default();
        for (class, list) in keys.iter_mut().enumerate() {
            list.resize(counts[class].min(self.capacity) as usize, 0);
            if !list.is_empty() {
                self.device.cuda.download(list, self.class_keys(class))?;
            }
        }
        Ok(keys)
    }
}

impl Drop for GpuBoardMaker<'_> {
    fn drop(&mut self) {
        let cuda = &self.device.cuda;
        for buffer in self
            .placed
            .iter()
            .chain([&self.splits, &self.after, &self.out, &self.counts])
        {
            cuda.free(buffer.pointer);
        }
    }
}
