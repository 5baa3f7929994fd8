//! The GPU as one more worker of a count ([`BatchWorker`]): it takes a
//! batch of join tasks, makes their half boards on its host thread as a CPU
//! thread would, and counts their pairs on the GPU. Each task's count is the
//! CPU's, so journals, shards and `compare` see no difference.

use std::sync::atomic::AtomicBool;
use std::sync::Mutex;
use std::time::Instant;

use super::device::{GpuDevice, GpuPairCounter};
use crate::plan::{Task, TaskKind};
use crate::run::engine::TaskCount;
use crate::run::workers::{BatchCount, BatchWorker};
use crate::search::join::{count_task_on, JoinTask};

/// Tasks a GPU worker takes at once.
pub const GPU_BATCH: usize = 16;

/// A GPU counting join tasks beside the CPU threads.
pub struct GpuJoinWorker {
    device: GpuDevice,
    /// One batch on the GPU at a time.
    busy: Mutex<()>,
}

impl GpuJoinWorker {
    /// A worker on `device`.
    pub fn new(device: GpuDevice) -> GpuJoinWorker {
        GpuJoinWorker {
            device,
            busy: Mutex::new(()),
        }
    }

    /// The GPU.
    pub fn device(&self) -> &GpuDevice {
        &self.device
    }
}

impl BatchWorker for GpuJoinWorker {
    fn name(&self) -> String {
        self.device.info().describe()
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
        let _busy = self
            .busy
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        self.device.enter()?;
        let mut counter = GpuPairCounter::new(&self.device);
        let mut counts = Vec::with_capacity(tasks.len());
        for task in tasks {
            let TaskKind::Join { east_rows, middle } = task.kind else {
                return Err(format!(
                    "task {} is not a join task; the GPU counts join tasks only",
                    task.id
                ));
            };
            let started = Instant::now();
            let tally = count_task_on(n, &JoinTask { east_rows, middle }, &mut counter, cancel);
            if let Some(error) = counter.error.take() {
                return Err(error);
            }
            counts.push(tally.map(|tally| BatchCount {
                count: TaskCount {
                    solutions: tally.solutions,
                    nodes: tally.pairs,
                    ..TaskCount::default()
                },
                micros: (started.elapsed().as_secs_f64() * 1e6).round() as u64,
            }));
        }
        Ok(counts)
    }
}
