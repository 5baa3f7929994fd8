//! A count stopped by a flag (a front end sets it on a signal): no new
//! task starts, the tasks in flight get a grace to finish, and past it
//! they are abandoned once what finished is kept. The library never ends
//! the process: [`StopGrace::abandon`] is where a front end does.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// How a stopped count ends when tasks are still in flight.
pub struct StopGrace<'a> {
    /// How long the tasks in flight get to finish.
    pub grace: Duration,
    /// Told at once when the stop is seen: the tasks in flight (`None`
    /// where they are not known, as on other MPI ranks) and the grace.
    pub stopping: &'a (dyn Fn(Option<u64>, Duration) + Sync),
    /// Told, past the grace, what was kept. A front end ends the process
    /// here (depth-first tasks of large N take minutes); if it returns,
    /// the count goes on until the tasks in flight end.
    pub abandon: &'a (dyn Fn(&Abandoned) + Sync),
}

/// What a stopped count kept when its tasks in flight outlasted the grace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Abandoned {
    /// Tasks counted, this run's and earlier runs'; `None` where that is
    /// not known (rank 0 of an MPI count without a journal).
    pub counted: Option<u64>,
    /// Tasks the count takes (its shard's, or the plan's).
    pub tasks: u64,
    /// Tasks in flight, abandoned (counted again on resume); `None` where
    /// they are not known (on other MPI ranks).
    pub in_flight: Option<u64>,
    /// Whether the journal was synced; `None` without one (nothing was
    /// kept).
    pub journal: Option<Result<(), String>>,
}

/// Tasks started and finished by one run: the difference is in flight.
#[derive(Debug, Default)]
pub(crate) struct InFlight {
    started: AtomicU64,
    finished: AtomicU64,
}

impl InFlight {
    /// A task was handed to a worker.
    pub(crate) fn start(&self) {
        self.started.fetch_add(1, Ordering::Relaxed);
    }

    /// A task ended.
    pub(crate) fn finish(&self) {
        self.finished.fetch_add(1, Ordering::Relaxed);
    }

    /// Tasks that ended in this run.
    pub(crate) fn finished(&self) -> u64 {
        self.finished.load(Ordering::Relaxed)
    }

    /// Tasks started and not ended.
    pub(crate) fn now(&self) -> u64 {
        let started = self.started.load(Ordering::Relaxed);
        started.saturating_sub(self.finished())
    }
}

/// Watches a count until `done`: once `stop` is set, sets `cancel` (the
/// flag the tasks look at; it may be `stop` itself), tells `grace`'s
/// `stopping`, and if the count is not done within the grace, tells its
/// `abandon` what `kept` says was kept. Without `grace` it only passes the
/// stop on. Run it in a thread beside the count, and unpark that thread
/// once `done` is set, so that a count of milliseconds does not wait out
/// a poll.
pub(crate) fn watch(
    done: &AtomicBool,
    stop: &AtomicBool,
    cancel: &AtomicBool,
    grace: Option<&StopGrace<'_>>,
    in_flight: Option<&InFlight>,
    kept: &(dyn Fn() -> Abandoned + Sync),
) {
    while !stop.load(Ordering::SeqCst) {
        if done.load(Ordering::SeqCst) {
            return;
        }
        std::thread::park_timeout(Duration::from_millis(20));
    }
    cancel.store(true, Ordering::SeqCst);
    let Some(grace) = grace else {
        return;
    };
    (grace.stopping)(in_flight.map(InFlight::now), grace.grace);
    let deadline = Instant::now() + grace.grace;
    while Instant::now() < deadline {
        if done.load(Ordering::SeqCst) {
            return;
        }
        std::thread::park_timeout(Duration::from_millis(10));
    }
    (grace.abandon)(&kept());
}
