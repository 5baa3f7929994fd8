//! Workers beside the CPU threads: a device (a GPU) or a remote node that
//! counts a batch of tasks at a time. They take their batches from the same
//! plan, in the same order, as the CPU threads take theirs, and every task
//! they count is reported and summed as a CPU thread's is: journals,
//! shards, `compare` and `merge` see no difference.
//!
//! With no batch worker the engine keeps its work stealing
//! ([`super::engine::run_tasks`]); with one, every participant draws from
//! one cursor over the plan's spread order ([`super::spread::SpreadOrder`]): the CPU
//! threads a few consecutive tasks at a time (fewer towards the end, so the
//! tail stays short), a batch worker its batch. A batch whose worker fails
//! goes back to the CPU threads, which wait for every batch still out
//! before they end: a failing device loses no task and counts none twice.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

pub use super::batch::{BatchCount, BatchWorker, WorkerFailure};
use super::handout::Handout;
use super::hooks::{RunHooks, RunTotals, TaskOutcome};
use super::task::{count_task_until, run_index};
use crate::plan::{Task, TaskList};

/// A batch worker that counts on the thread that calls it, as a CPU
/// thread would: the model of the seam, and what the tests drive it with.
#[derive(Clone, Copy, Debug)]
pub struct CpuBatchWorker {
    /// Tasks per batch.
    pub batch_len: usize,
}

impl BatchWorker for CpuBatchWorker {
    fn name(&self) -> String {
        format!("cpu (batches of {})", self.batch_len)
    }

    fn batch_len(&self) -> usize {
        self.batch_len.max(1)
    }

    fn count_batch(
        &self,
        n: u32,
        tasks: &[Task],
        cancel: Option<&AtomicBool>,
    ) -> Result<Vec<Option<BatchCount>>, String> {
        Ok(tasks
            .iter()
            .map(|task| {
                // Its thread's CPU time, as a CPU thread's task is timed.
                let started = crate::system::thread_cpu_seconds();
                count_task_until(n, task, cancel).map(|count| BatchCount {
                    count,
                    micros: ((crate::system::thread_cpu_seconds() - started).max(0.0) * 1e6).round()
                        as u64,
                })
            })
            .collect())
    }
}

/// Runs the tasks of `tasks` handed out by `hooks` (every id, a shard's, or
/// its dispatch's chunks) on `pool`'s threads and on `workers` (one thread
/// each, beside the pool), and returns the totals and the workers that
/// failed.
pub(crate) fn run_with_workers(
    pool: &rayon::ThreadPool,
    n: u32,
    tasks: &TaskList,
    hooks: &RunHooks<'_>,
    workers: &[&dyn BatchWorker],
) -> (RunTotals, Vec<WorkerFailure>) {
    let len = tasks.len() as u64;
    let handout = Handout::new(
        len,
        hooks,
        pool.current_num_threads() + workers.len(),
        workers.len(),
    );
    let failures = Mutex::new(Vec::new());
    let totals = std::thread::scope(|scope| {
        let from_workers: Vec<_> = workers
            .iter()
            .map(|worker| {
                let (handout, failures) = (&handout, &failures);
                scope.spawn(move || feed(*worker, n, tasks, hooks, handout, failures))
            })
            .collect();
        let from_threads = pool
            .broadcast(|_| cpu_thread(n, tasks, hooks, &handout))
            .into_iter()
            .fold(RunTotals::default(), RunTotals::merge);
        from_workers
            .into_iter()
            .map(|worker| {
                worker
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .fold(from_threads, RunTotals::merge)
    });
    let totals = RunTotals {
        tasks_skipped: totals.tasks_skipped + (len - handout.handed),
        ..totals
    };
    let failures = failures
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    (totals, failures)
}

/// A CPU thread: batches handed back first, else chunks from the cursor
/// (in a run of workers alone, only once every worker has gone), until
/// none is left and no worker holds one.
fn cpu_thread(n: u32, tasks: &TaskList, hooks: &RunHooks<'_>, handout: &Handout<'_>) -> RunTotals {
    let mut totals = RunTotals::default();
    let run = |k: u64, totals: &mut RunTotals| {
        *totals = totals.merge(run_index(n, tasks, handout.id_at(k) as usize, hooks));
    };
    let mut outstanding = handout.lock();
    loop {
        if let Some(k) = outstanding.returned.pop() {
            drop(outstanding);
            run(k, &mut totals);
            outstanding = handout.lock();
            continue;
        }
        // Once every worker has gone (each failed, in a run of workers
        // alone), the CPU threads count what is left.
        if !hooks.workers_only || outstanding.workers_live == 0 {
            drop(outstanding);
            if let Some(chunk) = handout.take(handout.cpu_chunk()) {
                for k in chunk {
                    run(k, &mut totals);
                }
                outstanding = handout.lock();
                continue;
            }
            outstanding = handout.lock();
            if outstanding.batches_out == 0 && outstanding.returned.is_empty() {
                return totals;
            }
        }
        outstanding = handout
            .changed
            .wait(outstanding)
            .unwrap_or_else(|poisoned| poisoned.into_inner());
    }
}

/// Marks a worker gone, however its thread ends (a panic included), so
/// that no CPU thread waits for it.
struct Leaving<'a>(&'a Handout<'a>);

impl Drop for Leaving<'_> {
    fn drop(&mut self) {
        self.0.lock().workers_live -= 1;
        self.0.changed.notify_all();
    }
}

/// A batch worker's thread: batches from the cursor until none is left,
/// the run is cancelled, or the worker fails.
fn feed(
    worker: &dyn BatchWorker,
    n: u32,
    tasks: &TaskList,
    hooks: &RunHooks<'_>,
    handout: &Handout<'_>,
    failures: &Mutex<Vec<WorkerFailure>>,
) -> RunTotals {
    let cancelled = || {
        hooks
            .cancel
            .is_some_and(|cancel| cancel.load(Ordering::Relaxed))
    };
    let _leaving = Leaving(handout);
    let mut totals = RunTotals::default();
    let mut batch: Vec<Task> = Vec::new();
    let mut positions: Vec<u64> = Vec::new();
    loop {
        // Counted out before the cursor is read: a CPU thread that finds the
        // cursor at its end waits for this batch instead of ending.
        handout.lock().batches_out += 1;
        let taken = if cancelled() {
            None
        } else {
            handout.take(worker.batch_len() as u64)
        };
        let Some(range) = taken else {
            handout.lock().batches_out -= 1;
            handout.changed.notify_all();
            return totals;
        };
        batch.clear();
        positions.clear();
        for k in range {
            let id = handout.id_at(k);
            if hooks.skip.is_some_and(|skip| skip(id)) {
                totals.tasks_skipped += 1;
            } else {
                batch.push(tasks.get(id as usize));
                positions.push(k);
            }
        }
        let counted = if batch.is_empty() {
            Ok(Vec::new())
        } else {
            worker.count_batch(n, &batch, hooks.cancel)
        };
        match counted {
            Ok(counts) if counts.len() == batch.len() => {
                for (task, count) in batch.iter().zip(counts) {
                    totals = totals.merge(report(task, count, hooks));
                }
                handout.lock().batches_out -= 1;
                handout.changed.notify_all();
            }
            failed => {
                let reason = match failed {
                    Err(reason) => reason,
                    Ok(counts) => format!(
                        "returned {} counts for a batch of {} tasks",
                        counts.len(),
                        batch.len()
                    ),
                };
                let failure = WorkerFailure {
                    worker: worker.name(),
                    reason,
                    returned: positions.len(),
                };
                if let Some(on_failed) = hooks.on_worker_failed {
                    on_failed(&failure);
                }
                failures
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner())
                    .push(failure);
                let mut outstanding = handout.lock();
                outstanding.returned.extend(positions.iter().rev());
                outstanding.batches_out -= 1;
                drop(outstanding);
                handout.changed.notify_all();
                return totals;
            }
        }
    }
}

/// Reports one task a batch worker counted (or abandoned) and its totals.
fn report(task: &Task, count: Option<BatchCount>, hooks: &RunHooks<'_>) -> RunTotals {
    let Some(BatchCount { count, micros }) = count else {
        return RunTotals {
            tasks_cancelled: 1,
            ..RunTotals::default()
        };
    };
    if let Some(on_task) = hooks.on_task {
        on_task(&TaskOutcome {
            id: task.id,
            count,
            seconds: micros as f64 * 1e-6,
        });
    }
    RunTotals::of_task(task.id, &count)
}

#[cfg(test)]
mod tests {
    use std::ops::Range;
    use std::sync::atomic::AtomicUsize;

    use super::*;
    use crate::plan::{Method, Plan, SplitDepth};
    use crate::run::engine::{run_tasks, worker_pool};
    use crate::run::hooks::Dispatch;

    /// A worker that counts on the CPU and fails on its `fail_on`th batch
    /// (from 1), or returns one count short when `short` is set.
    struct Flaky {
        inner: CpuBatchWorker,
        batches: AtomicUsize,
        fail_on: usize,
        short: bool,
    }

    impl BatchWorker for Flaky {
        fn name(&self) -> String {
            "flaky".to_string()
        }
        fn batch_len(&self) -> usize {
            self.inner.batch_len()
        }
        fn count_batch(
            &self,
            n: u32,
            tasks: &[Task],
            cancel: Option<&AtomicBool>,
        ) -> Result<Vec<Option<BatchCount>>, String> {
            let batch = self.batches.fetch_add(1, Ordering::SeqCst) + 1;
            let mut counts = self.inner.count_batch(n, tasks, cancel)?;
            if batch == self.fail_on {
                if self.short {
                    counts.pop();
                    return Ok(counts);
                }
                return Err("device lost".to_string());
            }
            Ok(counts)
        }
    }

    fn flaky(batch_len: usize, fail_on: usize, short: bool) -> Flaky {
        Flaky {
            inner: CpuBatchWorker { batch_len },
            batches: AtomicUsize::new(0),
            fail_on,
            short,
        }
    }

    /// Runs `plan` with `workers` beside `threads` threads; the totals, the
    /// ids reported (sorted) and the failures.
    fn run(
        plan: &Plan,
        threads: usize,
        workers: &[&dyn BatchWorker],
        ids: Option<(u64, u64)>,
    ) -> (RunTotals, Vec<u64>, Vec<WorkerFailure>) {
        let pool = worker_pool(threads).unwrap();
        let reported = Mutex::new(Vec::new());
        let on_task = |outcome: &TaskOutcome| reported.lock().unwrap().push(outcome.id);
        let mut hooks = RunHooks::new().on_task(&on_task);
        if let Some((first, step)) = ids {
            hooks = hooks.only_ids(first, step);
        }
        let (totals, failures) = if workers.is_empty() {
            (run_tasks(&pool, plan.n, &plan.tasks, &hooks), Vec::new())
        } else {
            run_with_workers(&pool, plan.n, &plan.tasks, &hooks, workers)
        };
        let mut reported = reported.into_inner().unwrap();
        reported.sort_unstable();
        (totals, reported, failures)
    }

    fn plans() -> Vec<Plan> {
        let mut plans = Vec::new();
        for n in [8, 11, 12, 13] {
            for method in Method::SEARCHING {
                plans.push(Plan::build(n, method, SplitDepth::Auto).unwrap());
            }
        }
        plans
    }

    #[test]
    fn batch_workers_beside_the_threads_count_what_the_threads_alone_count() {
        for plan in plans() {
            let (alone, ids, _) = run(&plan, 2, &[], None);
            let all: Vec<u64> = (0..plan.tasks.len() as u64).collect();
            assert_eq!(ids, all);
            for batch_len in [1, 5, 64] {
                let one = CpuBatchWorker { batch_len };
                let two = CpuBatchWorker { batch_len: 3 };
                let (one, two): (&dyn BatchWorker, &dyn BatchWorker) = (&one, &two);
                for workers in [&[one][..], &[one, two][..]] {
                    let (totals, ids, failures) = run(&plan, 1, workers, None);
                    assert_eq!(totals, alone, "N = {} {}", plan.n, plan.method);
                    assert_eq!(ids, all, "every task once");
                    assert!(failures.is_empty());
                }
            }
        }
    }

    /// Hands out every other chunk of `chunk` tasks, as rank 0 hands one
    /// rank its share and the next chunks to others.
    struct EveryOther {
        len: usize,
        chunk: usize,
        next: AtomicUsize,
    }

    impl Dispatch for EveryOther {
        fn next_chunk(&self) -> Option<Range<usize>> {
            let start = self.next.fetch_add(2 * self.chunk, Ordering::SeqCst);
            (start < self.len).then(|| start..(start + self.chunk).min(self.len))
        }
    }

    #[test]
    fn batch_workers_take_a_dispatchs_chunks_beside_the_threads() {
        // A worker that never fails, to see that the workers took chunks.
        let counting = flaky(4, usize::MAX, false);
        for plan in plans() {
            let len = plan.tasks.len();
            for chunk in [1, 3, 16] {
                // The tasks this process's chunks hold, counted alone.
                let mine: Vec<u64> = (0..len as u64)
                    .filter(|id| (*id as usize / chunk).is_multiple_of(2))
                    .collect();
                let expected = mine.iter().fold(RunTotals::default(), |sum, &id| {
                    let count = count_task_until(plan.n, &plan.tasks.get(id as usize), None)
                        .expect("no stop flag");
                    sum.merge(RunTotals::of_task(id, &count))
                });
                let failing = flaky(4, 2, false);
                let (one, failing): (&dyn BatchWorker, &dyn BatchWorker) = (&counting, &failing);
                for workers in [&[one][..], &[one, failing][..]] {
                    let dispatch = EveryOther {
                        len,
                        chunk,
                        next: AtomicUsize::new(0),
                    };
                    let pool = worker_pool(2).unwrap();
                    let reported = Mutex::new(Vec::new());
                    let on_task = |outcome: &TaskOutcome| reported.lock().unwrap().push(outcome.id);
                    let hooks = RunHooks::new()
                        .on_task(&on_task)
                        .dispatch(&dispatch)
                        .workers(workers);
                    let totals = run_tasks(&pool, plan.n, &plan.tasks, &hooks);
                    let mut reported = reported.into_inner().unwrap();
                    reported.sort_unstable();
                    assert_eq!(
                        reported, mine,
                        "N = {} {} chunk {chunk}",
                        plan.n, plan.method
                    );
                    assert_eq!(
                        totals, expected,
                        "N = {} {} chunk {chunk}",
                        plan.n, plan.method
                    );
                }
            }
        }
        assert!(
            counting.batches.load(Ordering::SeqCst) > 0,
            "the workers took none of the dispatch's chunks"
        );
    }

    #[test]
    fn a_failing_worker_hands_its_batch_back_and_loses_nothing() {
        for plan in plans() {
            let (alone, _, _) = run(&plan, 2, &[], None);
            let all: Vec<u64> = (0..plan.tasks.len() as u64).collect();
            for (fail_on, short) in [(1, false), (2, false), (3, true)] {
                let worker = flaky(4, fail_on, short);
                let (totals, ids, failures) = run(&plan, 2, &[&worker], None);
                assert_eq!(totals, alone, "N = {} {} {fail_on}", plan.n, plan.method);
                assert_eq!(ids, all, "every task reported once");
                // A plan shorter than the failing batch never reaches it.
                let reached = worker.batches.load(Ordering::SeqCst) >= fail_on;
                assert_eq!(failures.len(), usize::from(reached));
                if let Some(failure) = failures.first() {
                    assert_eq!(failure.worker, "flaky");
                    assert!(failure.returned >= 1 && failure.returned <= 4);
                    // The failing batch may be the plan's last, shorter
                    // than the worker's length when the threads took the
                    // rest first: one count short of what it held.
                    let expected = if short {
                        format!(
                            "returned {} counts for a batch of {}",
                            failure.returned - 1,
                            failure.returned
                        )
                    } else {
                        "device lost".to_string()
                    };
                    assert!(failure.reason.contains(&expected), "{}", failure.reason);
                }
            }
        }
    }

    #[test]
    fn workers_alone_count_every_task_and_the_threads_take_over_when_they_fail() {
        // The plan of the method a GPU worker counts: the workers stand in for it.
        let plan = Plan::build(12, Method::on_gpu(), SplitDepth::Auto).unwrap();
        let (alone, _, _) = run(&plan, 2, &[], None);
        let len = plan.tasks.len();
        for fail_on in [0, 3] {
            let worker = flaky(4, fail_on, false);
            let pool = worker_pool(2).unwrap();
            let by_threads = AtomicUsize::new(0);
            let by_workers = AtomicUsize::new(0);
            let on_task = |_: &TaskOutcome| {
                // Workers run on threads of their own, not the pool's.
                match rayon::current_thread_index() {
                    Some(_) => by_threads.fetch_add(1, Ordering::SeqCst),
                    None => by_workers.fetch_add(1, Ordering::SeqCst),
                };
            };
            let hooks = RunHooks::new().on_task(&on_task).workers_only(true);
            let (totals, failures) =
                run_with_workers(&pool, plan.n, &plan.tasks, &hooks, &[&worker]);
            assert_eq!(totals, alone, "fail_on {fail_on}");
            let (threads, workers) = (by_threads.into_inner(), by_workers.into_inner());
            assert_eq!(threads + workers, len);
            if fail_on == 0 {
                assert_eq!((threads, failures.len()), (0, 0), "the worker alone");
            } else {
                // Two batches of 4, then the rest on the threads.
                assert_eq!(workers, 8);
                assert_eq!(failures.len(), 1);
            }
        }
    }

    #[test]
    fn a_shards_ids_are_the_same_with_workers() {
        let plan = Plan::build(13, Method::on_gpu(), SplitDepth::Auto).unwrap();
        for (first, step) in [(0, 3), (2, 3), (5, 7), (10_000, 3)] {
            let (alone, alone_ids, _) = run(&plan, 2, &[], Some((first, step)));
            let worker = CpuBatchWorker { batch_len: 6 };
            let (totals, ids, _) = run(&plan, 1, &[&worker], Some((first, step)));
            assert_eq!(totals, alone, "{first}/{step}");
            assert_eq!(ids, alone_ids);
        }
    }

    #[test]
    fn a_cancelled_run_accounts_for_every_task() {
        // A depth-first plan: hundreds of short tasks to cancel among.
        let depth_first = Method::first_that(Method::uses_split_depth).unwrap();
        let plan = Plan::build(13, depth_first, SplitDepth::Auto).unwrap();
        let pool = worker_pool(2).unwrap();
        let cancel = AtomicBool::new(false);
        let finished = AtomicUsize::new(0);
        let on_task = |_: &TaskOutcome| {
            if finished.fetch_add(1, Ordering::SeqCst) == 20 {
                cancel.store(true, Ordering::SeqCst);
            }
        };
        let hooks = RunHooks::new().on_task(&on_task).cancel(&cancel);
        let worker = CpuBatchWorker { batch_len: 8 };
        let (totals, _) = run_with_workers(&pool, plan.n, &plan.tasks, &hooks, &[&worker]);
        let len = plan.tasks.len() as u64;
        assert!(totals.tasks_cancelled > 0);
        assert_eq!(totals.tasks_run as usize, finished.load(Ordering::SeqCst));
        assert_eq!(
            totals.tasks_run + totals.tasks_cancelled + totals.tasks_skipped,
            len
        );
    }
}
