//! What a front end hands the engine and hears back: hooks to watch,
//! steer and stop a run, each task's outcome, and the reduced totals.

use std::ops::Range;
use std::sync::atomic::AtomicBool;

use super::batch::{BatchWorker, WorkerFailure};
use crate::search::method::TaskCount;
use crate::search::paths::CodePaths;

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
    /// N = 26 takes a minute making tasks only to skip them).
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
    /// looked at: an empty shard of N = 26's 62 million tasks takes
    /// seconds only to skip them. `None`: every id. A `dispatch` hands out
    /// its own ids instead.
    pub ids: Option<(u64, u64)>,
    /// Workers beside the CPU threads that count a batch of tasks at a
    /// time (a GPU): see [`crate::run::workers`]. Empty: the CPU threads
    /// alone, by work stealing. With a `dispatch`, every thread and worker
    /// takes the dispatch's chunks.
    pub workers: &'a [&'a dyn BatchWorker],
    /// Told when a batch worker fails and its batch goes back to the CPU
    /// threads.
    pub on_worker_failed: Option<&'a (dyn Fn(&WorkerFailure) + Sync)>,
    /// With `workers`: the CPU threads count only batches a failed worker
    /// handed back (a device timed or checked alone).
    pub workers_only: bool,
    /// The builds of the hot loops the run's threads take.
    pub paths: CodePaths,
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

    /// The run's threads take the builds `paths`.
    pub fn paths(self, paths: CodePaths) -> RunHooks<'a> {
        RunHooks { paths, ..self }
    }

    /// How many ids of a plan of `len` tasks [`RunHooks::ids`] hands out.
    pub(crate) fn ids_handed(&self, len: u64) -> u64 {
        let (first, step) = self.ids.unwrap_or((0, 1));
        if first < len {
            (len - 1 - first) / step + 1
        } else {
            0
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
