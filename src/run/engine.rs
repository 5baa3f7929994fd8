//! Runs a plan's tasks on a rayon pool and reduces their counts.
//!
//! Tasks are many more than threads and uneven in cost, so they are handed
//! out by work stealing, or, when a [`Dispatch`] hands out chunks (MPI
//! ranks sharing one plan), by every worker asking for its own. The engine
//! knows nothing of terminals or files: a front end watches it through
//! [`RunHooks`] (progress, per-task results), steers it with a skip filter
//! (checkpoints, shards) and stops it with a cancel flag.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};

use rayon::prelude::*;

pub use super::spread::{SpreadOrder, MIN_SPREAD_RUNS, SPREAD_RUN};
use super::workers::{BatchWorker, WorkerFailure};
use crate::error::Error;
use crate::plan::{Task, TaskList};

pub use crate::search::method::TaskCount;

/// Counts one task of an `n` plan, whatever its kind.
pub fn count_task(n: u32, task: &Task) -> TaskCount {
    task.kind
        .counting()
        .count(n, task, None)
        .expect("a count without a stop flag runs to its end")
}

/// [`count_task`], abandoned (`None`) when `cancel` is set while it runs.
/// Only tasks of minutes look at the flag (the join's, between batches of
/// queries, from N = 26); the depth-first tasks run to their end.
pub(crate) fn count_task_until(
    n: u32,
    task: &Task,
    cancel: Option<&AtomicBool>,
) -> Option<TaskCount> {
    task.kind.counting().count(n, task, cancel)
}

/// What one finished task contributed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TaskOutcome {
    /// The task's id in its plan.
    pub id: u64,
    /// What it counted.
    pub count: TaskCount,
    /// Seconds the task took: its thread's CPU time (a batch worker's
    /// share of its batch's time), as journals and `--profile` record it.
    pub seconds: f64,
}

/// Hands out a plan's tasks in chunks, one request at a time: each worker
/// asks for its own, so none waits for another's chunk to finish.
pub trait Dispatch: Sync {
    /// The positions in the plan of the next tasks for the calling worker;
    /// `None` when every task is handed out.
    fn next_chunk(&self) -> Option<Range<usize>>;
}

/// Hooks a front end may set; all are called from worker threads. Built
/// from [`RunHooks::new`] (none set) by the setters, so that a hook added
/// later breaks no caller.
#[derive(Clone, Copy, Default)]
#[non_exhaustive]
pub struct RunHooks<'a> {
    /// Tasks whose id this returns true for are not run (held by a
    /// checkpoint, or belonging to another shard). It takes the id alone,
    /// asked before the task is looked up: a join plan makes each task
    /// from its id, which costs more than the check (an empty shard of
    /// N = 26 had taken a minute making tasks only to skip them).
    pub skip: Option<&'a (dyn Fn(u64) -> bool + Sync)>,
    /// Called once per finished task, as soon as it finishes.
    pub on_task: Option<&'a (dyn Fn(&TaskOutcome) + Sync)>,
    /// When set, no further task is started; `join` tasks in flight are
    /// abandoned at their next batch of queries (not reported finished),
    /// the others finish.
    pub cancel: Option<&'a AtomicBool>,
    /// Where the workers take their tasks from; `None`: every task of the
    /// plan, by work stealing.
    pub dispatch: Option<&'a dyn Dispatch>,
    /// `(first, step)`: only the ids `first`, `first + step`, ... are
    /// handed out (a shard's), the others counted as skipped without being
    /// looked at: an empty shard of N = 26's 62 million tasks had taken
    /// seconds only to skip them. `None`: every id. A `dispatch` hands out
    /// its own ids instead.
    pub ids: Option<(u64, u64)>,
    /// Workers beside the CPU threads that count a batch of tasks at a
    /// time (a GPU): see [`crate::run::workers`]. Empty: the CPU threads
    /// alone, by work stealing. Not used with a `dispatch`.
    pub workers: &'a [&'a dyn BatchWorker],
    /// Told when a batch worker fails and its batch goes back to the CPU
    /// threads.
    pub on_worker_failed: Option<&'a (dyn Fn(&WorkerFailure) + Sync)>,
    /// With `workers`: the CPU threads count only batches a failed worker
    /// handed back (a device timed or checked alone).
    pub workers_only: bool,
}

impl<'a> RunHooks<'a> {
    /// No hook: every task run, nothing told, never cancelled.
    pub fn new() -> RunHooks<'a> {
        RunHooks::default()
    }

    /// Tasks whose id `skip` returns true for are not run.
    pub fn skip(self, skip: &'a (dyn Fn(u64) -> bool + Sync)) -> RunHooks<'a> {
        RunHooks {
            skip: Some(skip),
            ..self
        }
    }

    /// `on_task` is told of every finished task, as soon as it finishes.
    pub fn on_task(self, on_task: &'a (dyn Fn(&TaskOutcome) + Sync)) -> RunHooks<'a> {
        RunHooks {
            on_task: Some(on_task),
            ..self
        }
    }

    /// Once `cancel` is set no task starts (see [`RunHooks::cancel`]).
    pub fn cancel(self, cancel: &'a AtomicBool) -> RunHooks<'a> {
        RunHooks {
            cancel: Some(cancel),
            ..self
        }
    }

    /// Only the ids `first`, `first + step`, ... are handed out (see
    /// [`RunHooks::ids`]); `step` is at least 1.
    pub fn only_ids(self, first: u64, step: u64) -> RunHooks<'a> {
        RunHooks {
            ids: Some((first, step.max(1))),
            ..self
        }
    }

    /// `workers` count batches of tasks beside the CPU threads.
    pub fn workers(self, workers: &'a [&'a dyn BatchWorker]) -> RunHooks<'a> {
        RunHooks { workers, ..self }
    }

    /// With `workers`, the CPU threads count only what a failed worker
    /// hands back.
    pub fn workers_only(self, workers_only: bool) -> RunHooks<'a> {
        RunHooks {
            workers_only,
            ..self
        }
    }

    /// `on_failed` is told of a batch worker that failed.
    pub fn on_worker_failed(self, on_failed: &'a (dyn Fn(&WorkerFailure) + Sync)) -> RunHooks<'a> {
        RunHooks {
            on_worker_failed: Some(on_failed),
            ..self
        }
    }

    /// The workers take their tasks from `dispatch`.
    pub fn dispatch(self, dispatch: &'a dyn Dispatch) -> RunHooks<'a> {
        RunHooks {
            dispatch: Some(dispatch),
            ..self
        }
    }
}

/// The reduced result of running a plan.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunTotals {
    /// Sum of weight x solutions over the tasks run.
    pub solutions: u128,
    /// Classes of solutions under symmetry counted (`d4` plans).
    pub orbits: u128,
    /// Of those classes, how many have 2, 4 and 8 boards (`d4` plans).
    pub orbit_sizes: [u128; 3],
    /// Queens placed by the kernel over the tasks run (not weighted).
    pub nodes: u128,
    /// Tasks run to the end.
    pub tasks_run: u64,
    /// Tasks skipped by the filter.
    pub tasks_skipped: u64,
    /// Tasks not started, or abandoned, because the run was cancelled.
    pub tasks_cancelled: u64,
    /// Wrapping sum of [`TaskCount::digest`] over the tasks run: two runs
    /// of the same tasks agree on it task by task, not just in total
    /// (shard files carry it, for `nqueens compare`).
    pub digest: u64,
}

impl RunTotals {
    /// The totals of task `id` alone, run to its end.
    pub(crate) fn of_task(id: u64, count: &TaskCount) -> RunTotals {
        let mut one = RunTotals::default();
        one.add_task(id, count);
        one
    }

    /// Adds task `id`, counted earlier (a checkpoint's), as if run now.
    pub fn add_task(&mut self, id: u64, count: &TaskCount) {
        self.digest = self.digest.wrapping_add(count.digest(id));
        self.solutions += u128::from(count.solutions);
        self.orbits += u128::from(count.orbits);
        for (sum, part) in self.orbit_sizes.iter_mut().zip(count.orbit_sizes) {
            *sum += u128::from(part);
        }
        self.nodes += u128::from(count.nodes);
        self.tasks_run += 1;
    }

    /// The sum of two totals.
    pub fn merge(self, other: RunTotals) -> RunTotals {
        RunTotals {
            solutions: self.solutions + other.solutions,
            orbits: self.orbits + other.orbits,
            orbit_sizes: [0, 1, 2].map(|i| self.orbit_sizes[i] + other.orbit_sizes[i]),
            nodes: self.nodes + other.nodes,
            tasks_run: self.tasks_run + other.tasks_run,
            tasks_skipped: self.tasks_skipped + other.tasks_skipped,
            tasks_cancelled: self.tasks_cancelled + other.tasks_cancelled,
            digest: self.digest.wrapping_add(other.digest),
        }
    }
}

/// A pool of `threads` workers for [`run_tasks`].
pub fn worker_pool(threads: usize) -> Result<rayon::ThreadPool, Error> {
    if threads == 0 {
        return Err(Error::ZeroThreads);
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|index| format!("nqueens-worker-{index}"))
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
        if !hooks.workers.is_empty() {
            return super::workers::run_with_workers(pool, n, tasks, hooks, hooks.workers).0;
        }
        let len = tasks.len() as u64;
        let (first, step) = hooks.ids.unwrap_or((0, 1));
        let handed = if first < len {
            (len - 1 - first) / step + 1
        } else {
            0
        };
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

/// Runs the task at `index` of `tasks`, unless `hooks` skip its id.
pub(crate) fn run_index(n: u32, tasks: &TaskList, index: usize, hooks: &RunHooks<'_>) -> RunTotals {
    if hooks.skip.is_some_and(|skip| skip(index as u64)) {
        return RunTotals {
            tasks_skipped: 1,
            ..RunTotals::default()
        };
    }
    run_task(n, &tasks.get(index), hooks)
}

fn run_task(n: u32, task: &Task, hooks: &RunHooks<'_>) -> RunTotals {
    if hooks
        .cancel
        .is_some_and(|cancel| cancel.load(Ordering::Relaxed))
    {
        return RunTotals {
            tasks_cancelled: 1,
            ..RunTotals::default()
        };
    }
    // The thread's CPU time, as the estimate times its tasks: a wall clock
    // runs on while the thread waits for a core, and read 2x the CPU time
    // on a busy machine.
    let started = hooks.on_task.map(|_| crate::system::thread_cpu_seconds());
    let Some(count) = count_task_until(n, task, hooks.cancel) else {
        // Abandoned when the run was cancelled: counted again on resume.
        return RunTotals {
            tasks_cancelled: 1,
            ..RunTotals::default()
        };
    };
    #[cfg(feature = "failpoints")]
    let count = injected_fault(task.id, count);
    if let (Some(on_task), Some(started)) = (hooks.on_task, started) {
        on_task(&TaskOutcome {
            id: task.id,
            count,
            seconds: (crate::system::thread_cpu_seconds() - started).max(0.0),
        });
    }
    RunTotals::of_task(task.id, &count)
}

/// Fault injection (feature `failpoints`): with
/// `FAILPOINTS='task-count=return(ID)'`, task ID counts one solution too
/// many, as a faulty machine would; tests catch it with `nqueens compare`.
#[cfg(feature = "failpoints")]
fn injected_fault(id: u64, mut count: TaskCount) -> TaskCount {
    if faulty_task() == Some(id) {
        count.solutions += 1;
    }
    count
}

/// The task that `FAILPOINTS='task-count=return(ID)'` makes count wrong.
#[cfg(feature = "failpoints")]
pub(crate) fn faulty_task() -> Option<u64> {
    fail::eval("task-count", |arg| {
        arg.and_then(|text| text.trim().parse::<u64>().ok())
    })
    .flatten()
}
