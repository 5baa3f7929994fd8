//! Runs a plan's tasks on a rayon pool and reduces their counts.
//!
//! Tasks are many more than threads and uneven in cost, so they are handed
//! out by work stealing, or, when a [`Dispatch`] hands out chunks (MPI
//! ranks sharing one plan), by every worker asking for its own. The engine
//! knows nothing of terminals or files: a front end watches it through
//! [`RunHooks`] (progress, per-task results), steers it with a skip filter
//! (checkpoints, shards) and stops it with a cancel flag.

use rayon::prelude::*;

pub use super::hooks::{Dispatch, RunHooks, RunTotals, TaskOutcome};
pub use super::spread::SpreadOrder;
pub use super::task::count_task;
pub(crate) use super::task::run_index;
use crate::error::Error;
use crate::plan::TaskList;
use crate::search::paths::CodePaths;

pub use crate::search::method::TaskCount;

/// A pool of `threads` workers for [`run_tasks`].
pub fn worker_pool(threads: usize) -> Result<rayon::ThreadPool, Error> {
    worker_pool_taking(threads, CodePaths::default())
}

/// A pool of `threads` workers whose searches take the builds `paths`.
pub(crate) fn worker_pool_taking(
    threads: usize,
    paths: CodePaths,
) -> Result<rayon::ThreadPool, Error> {
    if threads == 0 {
        return Err(Error::ZeroThreads);
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|index| format!("nqueens-worker-{index}"))
        .start_handler(move |_| paths.enter())
        .build()
        .map_err(|err| Error::ThreadPool {
            threads,
            reason: err.to_string(),
        })
}

/// Runs `tasks` (of an `n` plan) on `pool`: for callers that hand out a
/// plan's tasks in pieces, such as MPI ranks.
pub fn run_tasks(
    pool: &rayon::ThreadPool,
    n: u32,
    tasks: &TaskList,
    hooks: &RunHooks<'_>,
) -> RunTotals {
    pool.install(|| {
        if !hooks.workers.is_empty() {
            return super::workers::run_with_workers(pool, n, tasks, hooks, hooks.workers).0;
        }
        if let Some(dispatch) = hooks.dispatch {
            // Every worker asks for its own chunks until none is left.
            return pool
                .broadcast(|_| {
                    let mut totals = RunTotals::default();
                    while let Some(chunk) = dispatch.next_chunk() {
                        for index in chunk {
                            totals = totals.merge(run_index(n, tasks, index, hooks));
                        }
                    }
                    totals
                })
                .into_iter()
                .fold(RunTotals::default(), RunTotals::merge);
        }
        let len = tasks.len() as u64;
        let (first, step) = hooks.ids.unwrap_or((0, 1));
        let handed = hooks.ids_handed(len);
        let order = SpreadOrder::new(handed);
        let run = (0..handed as usize)
            .into_par_iter()
            // One task per split: tasks are already coarse enough, and
            // finer stealing keeps the tail short.
            .with_max_len(1)
            .map(|k| {
                let k = order.at(k as u64);
                run_index(n, tasks, (first + k * step) as usize, hooks)
            })
            .reduce(RunTotals::default, RunTotals::merge);
        RunTotals {
            tasks_skipped: run.tasks_skipped + (len - handed),
            ..run
        }
    })
}
