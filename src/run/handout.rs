//! The one cursor that the CPU threads and the batch workers of a run
//! draw their tasks from (see [`super::workers`]), with the batches that
//! went back to the threads and the workers still taking batches.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};

use super::hooks::{Dispatch, RunHooks};
use super::spread::SpreadOrder;

/// Batches that went back, how many are still out with their workers,
/// and how many workers still take batches.
#[derive(Default)]
pub(super) struct Outstanding {
    pub(super) returned: Vec<u64>,
    pub(super) batches_out: usize,
    pub(super) workers_live: usize,
}

/// The one cursor every participant draws from: positions in the spread
/// order of the ids handed out (`first`, `first + step`, ...), or, with a
/// `dispatch` (MPI ranks sharing one plan), the chunks it hands this
/// process, whose positions are the task ids.
pub(super) struct Handout<'a> {
    dispatch: Option<&'a dyn Dispatch>,
    order: SpreadOrder,
    first: u64,
    step: u64,
    /// Positions handed out in all: this run's ids.
    pub(super) handed: u64,
    next: AtomicU64,
    participants: u64,
    outstanding: Mutex<Outstanding>,
    /// Notified whenever `outstanding` changes.
    pub(super) changed: Condvar,
}

impl<'a> Handout<'a> {
    /// The cursor over a plan of `len` tasks that `hooks` hand out, for
    /// `participants` (threads and workers), `workers` of them batch
    /// workers.
    pub(super) fn new(
        len: u64,
        hooks: &RunHooks<'a>,
        participants: usize,
        workers: usize,
    ) -> Handout<'a> {
        let (first, step) = hooks.ids.unwrap_or((0, 1));
        let handed = if hooks.dispatch.is_some() {
            // The dispatch decides which ids this process counts; those it
            // hands elsewhere are no skip of this run's.
            len
        } else {
            hooks.ids_handed(len)
        };
        Handout {
            dispatch: hooks.dispatch,
            order: SpreadOrder::new(handed),
            first,
            step,
            handed,
            next: AtomicU64::new(0),
            participants: participants as u64,
            outstanding: Mutex::new(Outstanding {
                workers_live: workers,
                ..Outstanding::default()
            }),
            changed: Condvar::new(),
        }
    }

    /// The task id at position `k`.
    pub(super) fn id_at(&self, k: u64) -> u64 {
        if self.dispatch.is_some() {
            return k;
        }
        self.first + self.order.at(k) * self.step
    }

    /// The next `most` positions or fewer (a dispatch's next chunk,
    /// whatever its size); `None` when all are handed out.
    pub(super) fn take(&self, most: u64) -> Option<Range<u64>> {
        if let Some(dispatch) = self.dispatch {
            return dispatch
                .next_chunk()
                .map(|chunk| chunk.start as u64..chunk.end as u64);
        }
        let start = self
            .next
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |next| {
                (next < self.handed).then(|| (next + most.max(1)).min(self.handed))
            })
            .ok()?;
        Some(start..(start + most.max(1)).min(self.handed))
    }

    /// How many consecutive positions a CPU thread takes now: a run of
    /// the spread order while there is plenty left, fewer as the plan
    /// ends, one at the last, so no thread holds a long tail alone.
    pub(super) fn cpu_chunk(&self) -> u64 {
        let left = self
            .handed
            .saturating_sub(self.next.load(Ordering::Relaxed));
        (left / (4 * self.participants)).clamp(1, self.order.run_len())
    }

    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Outstanding> {
        self.outstanding
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
