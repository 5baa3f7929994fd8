//! One GPU, opened: its context, the pair-counting kernel compiled for it,
//! and the buffers a join's parts and batches are copied into.

use std::ffi::c_void;
use std::time::Instant;

use super::buckets::{QueryLayout, StoredLayout};
use super::settings::GpuSettings;
use crate::cuda::driver::{CuContext, CuFunction, Cuda, DeviceInfo, DevicePtr};
use crate::cuda::nvrtc::Nvrtc;
use crate::search::join::PairCounter;

/// The kernel's source, the same text the host build compiles.
pub(super) const KERNEL_SOURCE: &str = concat!(
    include_str!("pairs.cuh"),
    include_str!("boards.cuh"),
    include_str!("layout.cuh"),
    include_str!("cells.cuh"),
    include_str!("sliced.cuh"),
    include_str!("tiles.cuh")
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
    /// A batch of jobs' boards in one launch (`nq_boards_staged`), then
    /// sorted into the class lists (`nq_stage_scan_kernel`, `nq_unstage`).
    pub(super) boards_staged: CuFunction,
    pub(super) stage_scan: CuFunction,
    pub(super) unstage: CuFunction,
    pub(super) sample: CuFunction,
    pub(super) histogram: CuFunction,
    pub(super) scatter: CuFunction,
    /// The grid's pair-counting kernel (`nq_grid`).
    pub(super) grid: CuFunction,
    /// The kernel that builds a row set's quadrant cells (`cells.cuh`).
    pub(super) cells: CuFunction,
    /// The sliced matcher's kernels (`sliced.cuh`): a grid's tables, and
    /// its pairs.
    pub(super) slice: CuFunction,
    pub(super) sliced_grid: CuFunction,
    /// Each query's chunk patterns (`tiles.cuh`).
    pub(super) query_chunks: CuFunction,
    /// The tiled matcher, a warp a meeting (`tiles.cuh`).
    pub(super) tiled_grid: CuFunction,
    info: DeviceInfo,
    /// How much its counters hold and batch at once.
    pub(super) settings: GpuSettings,
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
        let settings = GpuSettings::from_env()?;
        let nvrtc = Nvrtc::load()?;
        let image = nvrtc.compile(&settings.kernel_source(KERNEL_SOURCE), info.capability)?;
        let [function, place, boards, sample, histogram, scatter, grid, cells, boards_staged, stage_scan, unstage, slice, sliced_grid, query_chunks, tiled_grid] =
            cuda.functions(
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
                    "nq_boards_staged",
                    "nq_stage_scan_kernel",
                    "nq_unstage",
                    "nq_slice",
                    "nq_sliced_grid",
                    "nq_query_chunks",
                    "nq_tiled_grid",
                ],
            )?;
        Ok(GpuDevice {
            cuda,
            context,
            function,
            place,
            boards,
            boards_staged,
            stage_scan,
            unstage,
            sample,
            histogram,
            scatter,
            grid,
            cells,
            slice,
            sliced_grid,
            query_chunks,
            tiled_grid,
            info,
            settings,
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

    /// The bytes it holds.
    pub(super) fn bytes(&self) -> usize {
        self.bytes
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
