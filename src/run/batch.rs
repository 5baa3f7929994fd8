//! The seam a batch worker plugs into: a worker beside the CPU threads (a
//! GPU, a remote node) takes a batch of task ids and returns their counts
//! and times (see [`super::workers`] for how batches are handed out).

use std::sync::atomic::AtomicBool;

use crate::plan::Task;
use crate::search::method::TaskCount;

/// What a batch worker counted of one task.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchCount {
    /// The task's counts, as [`super::engine::count_task`] gives them.
    pub count: TaskCount,
    /// Microseconds of the worker's time the task took (a device's share
    /// of its batch's time), as a journal records it.
    pub micros: u64,
}

/// A worker that counts tasks a batch at a time, beside the CPU threads.
pub trait BatchWorker: Sync {
    /// Names the worker in messages (`cuda:0, NVIDIA H100`).
    fn name(&self) -> String;

    /// How many tasks it takes at once (at least 1).
    fn batch_len(&self) -> usize;

    /// Counts `tasks` of an `n` plan, one entry per task in order: `None`
    /// for a task abandoned because `cancel` was set. An error means the
    /// worker failed (a device lost, out of memory): none of the batch's
    /// counts is used, the batch goes back to the CPU threads and the
    /// worker gets no more.
    fn count_batch(
        &self,
        n: u32,
        tasks: &[Task],
        cancel: Option<&AtomicBool>,
    ) -> Result<Vec<Option<BatchCount>>, String>;

    /// A line on the worker's run, said when a count ends (a GPU's peak
    /// memory in use); `None` where there is nothing to say.
    fn closing_note(&self) -> Option<String> {
        None
    }
}

/// Why a batch worker stopped taking batches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkerFailure {
    /// The worker's name.
    pub worker: String,
    /// What it said.
    pub reason: String,
    /// Tasks of its last batch handed back to the CPU threads.
    pub returned: usize,
}
