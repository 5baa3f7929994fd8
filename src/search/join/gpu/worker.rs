//! The GPU as one more worker of a count ([`BatchWorker`]): it takes a
//! batch of join tasks, makes their half boards on its host thread as a CPU
//! thread would, and counts their pairs on the GPU. Each task's count is the
//! CPU's, so journals, shards and `compare` see no difference.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use super::device::{GpuDevice, GpuPairCounter};
use crate::plan::Task;
use crate::run::engine::TaskCount;
use crate::run::workers::{BatchCount, BatchWorker};
use crate::search::join::{count_task_on, JoinTask};

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
}

impl GpuJoinWorker {
    /// The one worker of `device`.
    pub fn new(device: GpuDevice) -> GpuJoinWorker {
        GpuJoinWorker {
            device: Arc::new(device),
            feeder: (0, 1),
        }
    }

    /// `count` workers (at least 1) feeding `device` together.
    pub fn feeders(device: GpuDevice, count: usize) -> Vec<GpuJoinWorker> {
        let device = Arc::new(device);
        let count = count.max(1);
        (0..count)
            .map(|feeder| GpuJoinWorker {
                device: Arc::clone(&device),
                feeder: (feeder, count),
            })
            .collect()
    }

    /// The GPU.
    pub fn device(&self) -> &GpuDevice {
        &self.device
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
        let mut counts = Vec::with_capacity(tasks.len());
        for task in tasks {
            let Some(join_task) = JoinTask::of(task) else {
                return Err(format!(
                    "task {} is not a join task; the GPU counts join tasks only",
                    task.id
                ));
            };
            let started = Instant::now();
            let tally = count_task_on(n, &join_task, &mut counter, cancel);
            if let Some(error) = counter.error.take() {
                return Err(error);
            }
            counts.push(tally.map(|tally| BatchCount {
                count: TaskCount::of_join(tally),
                micros: (started.elapsed().as_secs_f64() * 1e6).round() as u64,
            }));
        }
        Ok(counts)
    }
}
