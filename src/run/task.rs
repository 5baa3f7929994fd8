//! One task run: counted by its method, timed, reported to the hooks and
//! turned into totals (unless skipped or cancelled). The engine's threads
//! and the batch workers' CPU threads run tasks through here.

use std::sync::atomic::{AtomicBool, Ordering};

use super::hooks::{RunHooks, RunTotals, TaskOutcome};
use crate::plan::{Task, TaskList};
use crate::search::method::TaskCount;

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
    let started = hooks.on_task.map(|_| task_clock::start());
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
            seconds: (task_clock::end() - started).max(0.0),
        });
    }
    RunTotals::of_task(task.id, &count)
}

/// A task's CPU time from one read of its thread's clock rather than two:
/// the read is a system call (1 to 2 µs on a VM, against 57 µs for a mean
/// task of N = 18), and a task that starts right after its thread's last
/// task ended starts from that task's reading. What ran between (the
/// scheduler's split, the last task's report) is counted in the new task;
/// a gap longer than [`task_clock::FRESH_AFTER`] on the wall clock (an idle
/// thread, a journal's write) takes a fresh reading.
mod task_clock {
    use std::cell::Cell;
    use std::time::{Duration, Instant};

    /// The longest gap between two tasks that reuses the reading.
    pub(super) const FRESH_AFTER: Duration = Duration::from_micros(20);

    thread_local! {
        /// When the thread's last task ended, and its CPU clock then.
        static LAST_END: Cell<Option<(Instant, f64)>> = const { Cell::new(None) };
    }

    /// The thread's CPU clock as a task starts.
    pub(super) fn start() -> f64 {
        let recent = LAST_END
            .get()
            .filter(|&(ended, _)| ended.elapsed() <= FRESH_AFTER);
        match recent {
            Some((_, cpu)) => cpu,
            None => crate::system::thread_cpu_seconds(),
        }
    }

    /// The thread's CPU clock as a task ends, kept for the next.
    pub(super) fn end() -> f64 {
        let cpu = crate::system::thread_cpu_seconds();
        LAST_END.set(Some((Instant::now(), cpu)));
        cpu
    }
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
