//! The GPU as one more worker of a count ([`BatchWorker`]): it takes a
//! batch of join tasks, makes their half boards on its host thread as a CPU
//! thread would, and counts their pairs on the GPU. Each task's count is the
//! CPU's, so journals, shards and `compare` see no difference.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::cells::DeviceCells;
use super::device::{GpuDevice, GpuPairCounter};
use super::whole::{GpuTaskCounter, TaskBuffers};
use crate::plan::Task;
use crate::run::engine::TaskCount;
use crate::run::workers::{BatchCount, BatchWorker};
use crate::search::join::{count_task_on, JoinTally, JoinTask};
use crate::units::human_bytes;

/// Tasks a GPU worker takes at once.
pub const GPU_BATCH: usize = 16;

/// A GPU counting join tasks beside the CPU threads, fed by one host
/// thread. Several feeders may share one GPU ([`GpuJoinWorker::feeders`]):
/// each makes its tasks' half boards on its own thread, and they take turns
/// on the GPU, so the GPU is kept busier than one host thread can keep it.
pub struct GpuJoinWorker {
    device: Arc<GpuDevice>,
    /// Which of the GPU's feeders this is (from 0), and how many there are.
    feeder: (usize, usize),
    /// The quadrant cells and the task counter's buffers this feeder
    /// keeps on the GPU from batch to batch (only this feeder's thread
    /// takes the lock).
    kept: Mutex<(DeviceCells, TaskBuffers)>,
    /// The most GPU memory in use after a task, shared by the GPU's
    /// feeders (bytes; 0 before the first task).
    peak_in_use: Arc<AtomicU64>,
}

impl GpuJoinWorker {
    /// The one worker of `device`.
    pub fn new(device: GpuDevice) -> GpuJoinWorker {
        let mut one = Self::feeders(device, 1);
        one.pop().expect("feeders makes at least one worker")
    }

    /// `count` workers (at least 1) feeding `device` together.
    pub fn feeders(device: GpuDevice, count: usize) -> Vec<GpuJoinWorker> {
        let device = Arc::new(device);
        let count = count.max(1);
        let peak_in_use = Arc::default();
        (0..count)
            .map(|feeder| GpuJoinWorker {
                device: Arc::clone(&device),
                feeder: (feeder, count),
                kept: Mutex::new((
                    DeviceCells::with_budget(device.settings.cells_budget),
                    TaskBuffers::default(),
                )),
                peak_in_use: Arc::clone(&peak_in_use),
            })
            .collect()
    }

    /// The GPU.
    pub fn device(&self) -> &GpuDevice {
        &self.device
    }
}

impl Drop for GpuJoinWorker {
    fn drop(&mut self) {
        // The context is the GPU's primary one, kept while the process
        // lives: its memory goes back only when freed.
        if self.device.enter().is_ok() {
            let (cells, buffers) = self
                .kept
                .get_mut()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            cells.free(&self.device.cuda);
            buffers.free(&self.device.cuda);
        }
    }
}

impl BatchWorker for GpuJoinWorker {
    fn name(&self) -> String {
        match self.feeder {
            (_, 1) => self.device.info().describe(),
            (feeder, count) => format!(
                "{}, feeder {} of {count}",
                self.device.info().describe(),
                feeder + 1
            ),
        }
    }

    fn batch_len(&self) -> usize {
        GPU_BATCH
    }

    fn count_batch(
        &self,
        n: u32,
        tasks: &[Task],
        cancel: Option<&AtomicBool>,
    ) -> Result<Vec<Option<BatchCount>>, String> {
        self.device.enter()?;
        let mut counter = GpuPairCounter::new(&self.device);
        let mut kept = self
            .kept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (cells, buffers) = &mut *kept;
        // A failed batch drops the counter, and with it these buffers:
        // the next batch starts afresh.
        let mut whole = GpuTaskCounter::with_buffers(&self.device, cells, std::mem::take(buffers));
        let mut counts = Vec::with_capacity(tasks.len());
        for task in tasks {
            let Some(join_task) = JoinTask::of(task) else {
                return Err(format!(
                    "task {} is not a join task; the GPU counts join tasks only",
                    task.id
                ));
            };
            let started = Instant::now();
            let tally = count_on_gpu(n, &join_task, &mut whole, &mut counter, cancel)?;
            counts.push(tally.map(|tally| BatchCount {
                count: TaskCount::of_join(tally),
                micros: (started.elapsed().as_secs_f64() * 1e6).round() as u64,
            }));
            // In use after each task, with the batch's buffers still
            // held, as `nqueens gpu` reads it (the whole GPU's: other
            // processes' memory counts too). A failed read only loses
            // the note.
            if let Ok((free, total)) = self.device.memory() {
                let in_use = total.saturating_sub(free);
                self.peak_in_use.fetch_max(in_use, Ordering::Relaxed);
            }
        }
        *buffers = whole.into_buffers();
        Ok(counts)
    }

    fn closing_note(&self) -> Option<String> {
        // One note a GPU, from its first feeder, on this count's tasks
        // (the next count of a range starts again from 0).
        if self.feeder.0 != 0 {
            return None;
        }
        let peak = self.peak_in_use.swap(0, Ordering::Relaxed);
        (peak > 0).then(|| {
            format!(
                "gpu: {}: peak GPU memory in use {} of {} (read after each task)",
                self.device.info().describe(),
                human_bytes(peak),
                human_bytes(self.device.info().memory),
            )
        })
    }
}

/// Whether tasks no grid cuts are counted wholly on the GPU (their half
/// boards made there): yes, unless `NQUEENS_GPU_BOARDS=host` asks for the
/// host's half boards (to compare the two).
fn boards_on_gpu() -> bool {
    static ON_GPU: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON_GPU.get_or_init(|| std::env::var("NQUEENS_GPU_BOARDS").as_deref() != Ok("host"))
}

/// Counts `task` on the GPU: wholly there where it can (see
/// [`GpuTaskCounter`]), else with the half boards made on this thread and
/// matched there. `Ok(None)`: stopped.
pub(super) fn count_on_gpu(
    n: u32,
    task: &JoinTask,
    whole: &mut GpuTaskCounter<'_>,
    counter: &mut GpuPairCounter<'_>,
    stop: Option<&AtomicBool>,
) -> Result<Option<JoinTally>, String> {
    if boards_on_gpu() {
        if let Some(tally) = whole.count(n, task, stop)? {
            return Ok(tally);
        }
    }
    let tally = count_task_on(n, task, counter, stop);
    match counter.error.take() {
        Some(error) => Err(error),
        None => Ok(tally),
    }
}
