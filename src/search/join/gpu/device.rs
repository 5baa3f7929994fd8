//! One GPU, opened: its context, the pair-counting kernel compiled for it,
//! and the buffers a join's parts and batches are copied into.

use std::ffi::c_void;
use std::time::Instant;

use super::boards::{BoardsJob, Placements};
use super::buckets::{QueryLayout, StoredLayout};
use crate::gpu::driver::{CuContext, CuFunction, Cuda, DeviceInfo, DevicePtr, Nvrtc};
use crate::search::join::PairCounter;

/// The kernel's source, the same text the host build compiles.
pub(super) const KERNEL_SOURCE: &str = concat!(
    include_str!("pairs.cuh"),
    include_str!("boards.cuh"),
    include_str!("layout.cuh"),
    include_str!("cells.cuh")
);

/// Oldest GPUs taken: compute capability 6.0 (Pascal), whose 64-bit
/// atomics and integer throughput the kernel relies on.
const MIN_CAPABILITY: (u32, u32) = (6, 0);

/// Threads per block of a launch.
pub(super) const BLOCK_THREADS: u32 = 256;

/// Memory a counter needs on the GPU at most: one part of stored keys
/// and one batch of queries, with their buckets and patterns.
pub(super) fn bytes_needed(stored_keys: usize, query_keys: usize) -> u64 {
    let buckets = (1usize << super::buckets::MAX_CUTS) + 1;
    (stored_keys * 8 + buckets * 4 + query_keys * 12 + 8) as u64
}

/// An opened GPU.
pub struct GpuDevice {
    pub(super) cuda: Cuda,
    context: CuContext,
    function: CuFunction,
    /// The kernels that make half boards (`boards.cuh`) and lay keys out
    /// in buckets (`layout.cuh`).
    pub(super) place: CuFunction,
    pub(super) boards: CuFunction,
    pub(super) sample: CuFunction,
    pub(super) histogram: CuFunction,
    pub(super) scatter: CuFunction,
    /// The grid's pair-counting kernel (`nq_grid`).
    pub(super) grid: CuFunction,
    /// The kernel that builds a row set's quadrant cells (`cells.cuh`).
    pub(super) cells: CuFunction,
    info: DeviceInfo,
    /// Bytes of quadrant cells each feeder keeps on the GPU.
    pub(super) cells_budget: u64,
    /// Half boards a chunk of query groups may make at most.
    pub(super) chunk_boards: u64,
    /// Placements a board maker moves onto the board in one launch.
    pub(super) placed_at_once: u64,
    /// Query groups of a grid whose cells are on the GPU at once.
    pub(super) query_window: usize,
    /// The first design's batches of queries (`GpuPairCounter`) on the GPU
    /// one at a time: the host threads that feed it make their half boards
    /// side by side and take turns here. Whole tasks need no turns: each
    /// feeder has its own buffers and its own stream.
    pub(super) turn: std::sync::Mutex<()>,
}

// SAFETY: the context and function handles are process-wide driver
// objects; every thread that uses them makes the context current first
// (`GpuDevice::enter`), and the counters that use them are behind a lock.
unsafe impl Send for GpuDevice {}
// SAFETY: as for Send.
unsafe impl Sync for GpuDevice {}

impl GpuDevice {
    /// Opens GPU `index`: loads the driver and NVRTC, checks the GPU and
    /// its free memory, and compiles the kernel for it. Every failure is
    /// one line saying what is missing.
    pub fn open(index: u32) -> Result<GpuDevice, String> {
        let cuda = Cuda::load()?;
        let count = cuda.device_count()?;
        if count == 0 {
            return Err("the NVIDIA driver sees no GPU".to_string());
        }
        if index >= count {
            return Err(format!(
                "there is no GPU {index}: the driver sees {count} (numbered 0 to {})",
                count - 1
            ));
        }
        let (device, info) = cuda.device(index)?;
        if info.capability < MIN_CAPABILITY {
            return Err(format!(
                "{} has compute capability {}.{}; the join kernel needs {}.{} or later",
                info.describe(),
                info.capability.0,
                info.capability.1,
                MIN_CAPABILITY.0,
                MIN_CAPABILITY.1
            ));
        }
        let context = cuda.context(device)?;
        // The largest parts any N takes.
        let parts = crate::search::join::Parts::DEFAULT;
        let needed = bytes_needed(parts.stored_keys, parts.query_keys);
        let (free, _) = cuda.memory()?;
        if free < needed {
            return Err(format!(
                "{} has {} MiB free; a join counter needs {} MiB",
                info.describe(),
                free >> 20,
                needed.div_ceil(1 << 20)
            ));
        }
        let cells_budget = match std::env::var("NQUEENS_GPU_CELLS_MIB") {
            Err(_) => super::cells::DEVICE_CELLS_BUDGET,
            Ok(text) => text
                .trim()
                .parse::<u64>()
                .map(|mib| mib << 20)
                .map_err(|_| {
                    format!(
                        "NQUEENS_GPU_CELLS_MIB={text}: expected a whole number of MiB \
                     (GPU memory for each feeder's quadrant cells)"
                    )
                })?,
        };
        let chunk_boards = match std::env::var("NQUEENS_GPU_CHUNK_BOARDS") {
            Err(_) => super::whole::CHUNK_BOARDS,
            Ok(text) => text.trim().parse::<u64>().map_err(|_| {
                format!(
                    "NQUEENS_GPU_CHUNK_BOARDS={text}: expected a whole number \
                     (half boards a chunk of query groups may make at most)"
                )
            })?,
        };
        let placed_at_once = match std::env::var("NQUEENS_GPU_PLACED_AT_ONCE") {
            Err(_) => PLACED_AT_ONCE,
            Ok(text) => text.trim().parse::<u64>().map_err(|_| {
                format!(
                    "NQUEENS_GPU_PLACED_AT_ONCE={text}: expected a whole number \
                     (placements moved onto the board in one launch at most)"
                )
            })?,
        };
        let query_window = match std::env::var("NQUEENS_GPU_QUERY_WINDOW") {
            Err(_) => super::whole::QUERY_WINDOW,
            Ok(text) => text
                .trim()
                .parse::<usize>()
                .ok()
                .filter(|&groups| groups > 0)
                .ok_or_else(|| {
                    format!(
                        "NQUEENS_GPU_QUERY_WINDOW={text}: expected a whole number from 1 \
                         (query groups whose cells are on the GPU at once)"
                    )
                })?,
        };
        let nvrtc = Nvrtc::load()?;
        let image = nvrtc.compile(KERNEL_SOURCE, info.capability)?;
        let [function, place, boards, sample, histogram, scatter, grid, cells] = cuda.functions(
            &image,
            [
                "nq_pairs",
                "nq_place",
                "nq_boards",
                "nq_sample",
                "nq_histogram",
                "nq_scatter",
                "nq_grid",
                "nq_cells",
            ],
        )?;
        Ok(GpuDevice {
            cuda,
            context,
            function,
            place,
            boards,
            sample,
            histogram,
            scatter,
            grid,
            cells,
            info,
            cells_budget,
            chunk_boards,
            placed_at_once,
            query_window,
            turn: std::sync::Mutex::new(()),
        })
    }

    /// What the GPU is.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// Makes the GPU's context current on the calling thread.
    pub(super) fn enter(&self) -> Result<(), String> {
        self.cuda.make_current(self.context)
    }

    /// Free and total memory now.
    pub fn memory(&self) -> Result<(u64, u64), String> {
        self.enter()?;
        self.cuda.memory()
    }
}

/// A GPU buffer that grows as needed.
#[derive(Default)]
pub(super) struct Buffer {
    pub(super) pointer: DevicePtr,
    bytes: usize,
}

impl Buffer {
    /// A buffer of exactly `bytes` (one that is kept, not grown).
    pub(super) fn exact(cuda: &Cuda, bytes: usize) -> Result<Buffer, String> {
        Ok(Buffer {
            pointer: cuda.alloc(bytes)?,
            bytes,
        })
    }

    /// Holds at least `bytes`.
    pub(super) fn reserve(&mut self, cuda: &Cuda, bytes: usize) -> Result<(), String> {
        if bytes > self.bytes {
            cuda.free(self.pointer);
            self.pointer = 0;
            self.bytes = 0;
            let bytes = bytes.next_power_of_two();
            self.pointer = cuda.alloc(bytes)?;
            self.bytes = bytes;
        }
        Ok(())
    }

    /// Holds at least `words` 32-bit words, all zero (without waiting for
    /// the GPU).
    pub(super) fn zeroed(&mut self, cuda: &Cuda, words: usize) -> Result<(), String> {
        self.reserve(cuda, words * 4)?;
        cuda.zero(self.pointer, words)
    }

    /// Copies `data` in, growing first.
    pub(super) fn put<T: Copy>(&mut self, cuda: &Cuda, data: &[T]) -> Result<(), String> {
        self.reserve(cuda, std::mem::size_of_val(data))?;
        cuda.upload(self.pointer, data)
    }
}

/// Counts a join's pairs on a GPU (the join's pair-counter seam): each part of
/// stored keys is laid out in buckets and copied once, each batch of
/// queries copied and matched by one launch.
pub struct GpuPairCounter<'a> {
    device: &'a GpuDevice,
    stored: StoredLayout,
    queries: QueryLayout,
    stored_buffer: Buffer,
    buckets_buffer: Buffer,
    queries_buffer: Buffer,
    patterns_buffer: Buffer,
    total_buffer: Buffer,
    /// The first failure, if the GPU failed.
    pub error: Option<String>,
    /// Pairs the GPU decided (those its buckets let each query meet).
    pub pairs_decided: u64,
    /// The loaded part's keys within each pattern.
    keys_within: Vec<u64>,
    /// Seconds this host thread spent laying out buckets: with the task's
    /// wall time and [`GpuPairCounter::device_seconds`], what bounds a
    /// feeder.
    pub layout_seconds: f64,
    /// Seconds it spent in the driver: copies, launches and waiting for
    /// the GPU.
    pub device_seconds: f64,
}

impl<'a> GpuPairCounter<'a> {
    /// A counter on `device`; its context must be current on this thread.
    pub fn new(device: &'a GpuDevice) -> GpuPairCounter<'a> {
        GpuPairCounter {
            device,
            stored: StoredLayout::default(),
            queries: QueryLayout::default(),
            stored_buffer: Buffer::default(),
            buckets_buffer: Buffer::default(),
            queries_buffer: Buffer::default(),
            patterns_buffer: Buffer::default(),
            total_buffer: Buffer::default(),
            error: None,
            pairs_decided: 0,
            keys_within: Vec::new(),
            layout_seconds: 0.0,
            device_seconds: 0.0,
        }
    }

    fn fail(&mut self, error: String) {
        self.error.get_or_insert(error);
    }

    fn sum(&mut self, queries: &[u64], extra: u64) -> Result<u64, String> {
        let cuda = &self.device.cuda;
        let count = u32::try_from(queries.len()).map_err(|_| "a batch past 2^32 queries")?;
        let started = Instant::now();
        self.queries.fill(queries, extra, &self.stored);
        let mask = (1u32 << self.stored.cut_count()) - 1;
        self.pairs_decided += self
            .queries
            .patterns
            .iter()
            .map(|&pattern| self.keys_within[(!pattern & mask) as usize])
            .sum::<u64>();
        let laid_out = Instant::now();
        self.layout_seconds += (laid_out - started).as_secs_f64();
        let _turn = self
            .device
            .turn
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        self.queries_buffer.put(cuda, &self.queries.keys)?;
        self.patterns_buffer.put(cuda, &self.queries.patterns)?;
        self.total_buffer.zeroed(cuda, 2)?;
        let blocks = count.div_ceil(BLOCK_THREADS).clamp(1, 1 << 20);
        let mut stored = self.stored_buffer.pointer;
        let mut buckets = self.buckets_buffer.pointer;
        let mut cuts = self.stored.cut_count();
        let mut query_keys = self.queries_buffer.pointer;
        let mut patterns = self.patterns_buffer.pointer;
        let mut query_count = count;
        let mut total = self.total_buffer.pointer;
        let mut params: [*mut c_void; 7] = [
            (&mut stored as *mut DevicePtr).cast(),
            (&mut buckets as *mut DevicePtr).cast(),
            (&mut cuts as *mut u32).cast(),
            (&mut query_keys as *mut DevicePtr).cast(),
            (&mut patterns as *mut DevicePtr).cast(),
            (&mut query_count as *mut u32).cast(),
            (&mut total as *mut DevicePtr).cast(),
        ];
        cuda.launch(self.device.function, blocks, BLOCK_THREADS, &mut params)?;
        let mut sum = [0u64];
        cuda.download(&mut sum, self.total_buffer.pointer)?;
        self.device_seconds += laid_out.elapsed().as_secs_f64();
        Ok(sum[0])
    }
}

impl PairCounter for GpuPairCounter<'_> {
    fn load(&mut self, stored: &[u64], cuts: &[u64]) -> bool {
        if self.error.is_some() {
            return false;
        }
        let started = Instant::now();
        self.stored.fill(stored, cuts);
        self.stored.keys_within(&mut self.keys_within);
        let laid_out = Instant::now();
        self.layout_seconds += (laid_out - started).as_secs_f64();
        let cuda = &self.device.cuda;
        let loaded = self
            .stored_buffer
            .put(cuda, &self.stored.keys)
            .and_then(|()| self.buckets_buffer.put(cuda, self.stored.bucket_start()));
        self.device_seconds += laid_out.elapsed().as_secs_f64();
        match loaded {
            Ok(()) => true,
            Err(error) => {
                self.fail(error);
                false
            }
        }
    }

    fn sum_disjoint(&mut self, queries: &[u64], extra: u64) -> Option<u64> {
        if self.error.is_some() {
            return None;
        }
        match self.sum(queries, extra) {
            Ok(sum) => Some(sum),
            Err(error) => {
                self.fail(error);
                None
            }
        }
    }
}

impl Drop for GpuPairCounter<'_> {
    fn drop(&mut self) {
        let cuda = &self.device.cuda;
        for buffer in [
            &self.stored_buffer,
            &self.buckets_buffer,
            &self.queries_buffer,
            &self.patterns_buffer,
            &self.total_buffer,
        ] {
            cuda.free(buffer.pointer);
        }
    }
}

/// Placements a board maker moves onto the board in one launch at most
/// (their checks and keys: 512 MiB); a job with more takes a launch alone.
pub(super) const PLACED_AT_ONCE: u64 = 1 << 25;

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
    /// job, kept or not. A batch of jobs (up to [`PLACED_AT_ONCE`]
    /// placements, or `NQUEENS_GPU_PLACED_AT_ONCE`) has its tables sent in one copy and every placement
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
                if end > first && placements + more > self.device.placed_at_once {
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

/// A kernel argument: a pointer to its value.
pub(super) fn arg<T>(value: &mut T) -> *mut c_void {
    (value as *mut T).cast()
}

/// Launches `function` with a thread for each of `items` (at least one
/// block), without waiting for it (see `Cuda::launch`).
pub(super) fn launch_over(
    device: &GpuDevice,
    function: CuFunction,
    items: u32,
    params: &mut [*mut c_void],
) -> Result<(), String> {
    device.cuda.launch(
        function,
        items.div_ceil(BLOCK_THREADS).max(1),
        BLOCK_THREADS,
        params,
    )
}
