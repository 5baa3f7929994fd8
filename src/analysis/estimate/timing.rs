//! Timing the sampled tasks: workers take the picks in turn until the
//! sample, the time, a signal or the interval's width ends it, and each
//! task is timed whole or probed below its first rows.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::plan::Plan;
use crate::random::SplitMix64;
use crate::search::board::MAX_N;

/// A probe times the subtree it reaches once at most this many rows are
/// left below it: from a few milliseconds to a second of work.
pub(crate) const PROBE_ROWS_LEFT: u32 = 16;

/// Tasks a sample with a time budget times whatever the budget, so that
/// its interval means something.
pub(crate) const MIN_TIMED: usize = 10;

/// Tasks timed before a sample may stop on its interval's width: fewer
/// read the spread too loosely to trust the width (and the batch means
/// need 20).
pub(crate) const CHECK_FROM: usize = 20;

/// Whether the tasks timed so far are enough.
pub(crate) type Enough<'a> = &'a (dyn Fn(&[(usize, f64)]) -> bool + Sync);

/// When a timing of sampled tasks starts no more of them.
#[derive(Clone, Copy)]
pub(crate) struct Until<'a> {
    /// When the timing (or the estimate) began.
    pub(crate) started: Instant,
    /// No task starts past `started + budget` (past the first 10).
    pub(crate) budget: Option<Duration>,
    /// No task starts once it is set.
    pub(crate) stop: Option<&'a AtomicBool>,
    /// No task starts once it says the tasks timed are enough.
    pub(crate) enough: Enough<'a>,
}

/// Times the tasks of `picks` (task, probe seed) on `pool`, each worker
/// taking the next pick in turn, so that the tasks timed are the first
/// picks however far the budget (past the first 10, `MIN_TIMED`) reaches;
/// none starts once the stop flag is set, nor once `enough` says the
/// tasks timed so far are enough (asked from [`CHECK_FROM`] tasks on,
/// then every twentieth of them). Returns (task,
/// thread-seconds) in the order they finished.
pub(crate) fn time_picks(
    plan: &Plan,
    pool: &rayon::ThreadPool,
    picks: &[(usize, u64)],
    until: &Until<'_>,
    progress: &(dyn Fn(usize) + Sync),
) -> Vec<(usize, f64)> {
    let Until {
        started,
        budget,
        stop,
        enough,
    } = *until;
    // The join's shared quadrant cells are built once per count, not per
    // task: built here, untimed, so no sampled task carries their cost
    // times the plan's size (that put N = 19 at +61% and N = 20 at +17%).
    let _shared = plan.method.counting().shared_state(plan.n);
    // Each worker takes the next pick in turn, so the tasks timed are the
    // first picks, however far the budget reaches.
    let next = AtomicUsize::new(0);
    let satisfied = AtomicBool::new(false);
    let stopped = || stop.is_some_and(|stop| stop.load(Ordering::Relaxed));
    let timed = Mutex::new(Vec::with_capacity(picks.len()));
    let lock = || {
        timed
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    };
    let spent = || budget.is_some_and(|budget| started.elapsed() >= budget);
    loop {
        pool.install(|| {
            rayon::broadcast(|_| loop {
                // Checked before a pick is taken, so that a pick taken is
                // a pick timed (unless the time is up or a signal came).
                if stopped() || satisfied.load(Ordering::Relaxed) {
                    break;
                }
                let index = next.fetch_add(1, Ordering::Relaxed);
                let Some(&(task, probe_seed)) = picks.get(index) else {
                    break;
                };
                if index >= MIN_TIMED && spent() {
                    break;
                }
                let Some(cost) = probe(plan, task, probe_seed, stop) else {
                    break;
                };
                let mut timed = lock();
                timed.push((task, cost));
                progress(timed.len());
                let len = timed.len();
                if len >= CHECK_FROM && len % (len / 20).max(1) == 0 && enough(&timed) {
                    satisfied.store(true, Ordering::Relaxed);
                }
            })
        });
        // The tasks other workers finished after the interval was narrow
        // enough are in the sample too, and can widen it again (a CI run
        // read +-42% after stopping at +-40%): go on until the whole
        // sample is narrow enough, or the picks, the time or a signal end.
        let more = next.load(Ordering::Relaxed) < picks.len();
        if !satisfied.load(Ordering::Relaxed) || !more || stopped() || spent() {
            break;
        }
        if enough(&lock()) {
            break;
        }
        satisfied.store(false, Ordering::Relaxed);
    }
    timed
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// The estimated thread-seconds of task `index`: timed whole, or probed
/// below 16 (`PROBE_ROWS_LEFT`) rows with the random stream `seed`; `None`
/// if a `join` task was abandoned because `stop` was set.
fn probe(plan: &Plan, index: usize, seed: u64, stop: Option<&AtomicBool>) -> Option<f64> {
    let n = plan.n;
    let task = plan.tasks.get(index);
    let mut board = task.board;
    let mut prefix = [0u8; MAX_N as usize];
    prefix[..task.prefix_columns().len()].copy_from_slice(task.prefix_columns());
    let mut weight = 1.0;
    let mut rng = SplitMix64(seed);
    let method = task.kind.counting();
    while method.descends() && n - board.row > PROBE_ROWS_LEFT {
        let open = task.kind.open_squares(n, &board);
        if open == 0 {
            // A dead end: this path has no subtree to time.
            return Some(0.0);
        }
        let choices = open.count_ones();
        let mut pick = open;
        for _ in 0..rng.below(choices as usize) {
            pick &= pick - 1;
        }
        let bit = pick & pick.wrapping_neg();
        prefix[board.row as usize] = bit.trailing_zeros() as u8;
        board = board.place(bit);
        weight *= f64::from(choices);
    }
    let search = || {
        if board == task.board {
            std::hint::black_box(method.count(n, &task, stop)).map(|_| ())
        } else {
            let prefix = &prefix[..board.row as usize];
            std::hint::black_box(method.count_below(n, &task, board, prefix));
            Some(())
        }
    };
    method.warm(plan, index);
    // CPU time, not wall time: a task of a millisecond whose thread lost
    // its core for 0.1 s (another process, the VM's host) moves an estimate
    // of N = 21 by up to 20% from run to run of one seed.
    let timing = crate::system::thread_cpu_seconds();
    search()?;
    Some(weight * (crate::system::thread_cpu_seconds() - timing))
}
