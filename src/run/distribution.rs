//! A count spread over processes (the ranks of an MPI job), as
//! [`super::tracked::Tracked`] sees it: where this process's chunks of
//! tasks come from, where its finished tasks go, and how the parts'
//! totals come together. Everything else (the journal, the stop and its
//! grace, batch workers beside the threads, the report) is the tracked
//! count's, the same as on one machine.

use std::ops::Range;
use std::sync::atomic::AtomicBool;

use super::hooks::{RunTotals, TaskOutcome};

/// One process's part of a count spread over several. Exactly one process
/// [`reports`](Distribution::reports): it holds the journal, hands out the
/// chunks and gets the combined totals.
pub trait Distribution: Send + Sync {
    /// The positions (task ids) of the next chunk for the calling thread
    /// or batch worker of this process; `None` once no chunk is left for
    /// this process or `cancel` is set. It may be called again after
    /// `None` (it stays `None`). A process whose `cancel` is set tells the
    /// others, so that no process starts a new chunk.
    fn next_chunk(&self, cancel: &AtomicBool) -> Option<Range<usize>>;

    /// A task finished on this process: sent to the reporting process,
    /// which journals it, where the count keeps a journal (the reporting
    /// process journals its own tasks itself).
    fn finished(&self, outcome: &TaskOutcome);

    /// The reporting process: runs beside its count, on a thread of its
    /// own, handing out chunks to the others and telling `record` of each
    /// task they finish, until every other process has finished its part
    /// (a `cancel` set meanwhile hands out no more chunks). Other
    /// processes return at once.
    fn serve(&self, cancel: &AtomicBool, record: &(dyn Fn(&TaskOutcome) + Sync));

    /// Whether this is the reporting process (which alone searches for
    /// the symmetric counts P and R a unique count needs).
    fn reports(&self) -> bool;

    /// Called by every process once its own threads are done (and, on the
    /// reporting process, [`serve`](Distribution::serve) has returned):
    /// this process's totals and threads summed over every process, on
    /// the reporting process; `None` on the others.
    fn combine(&self, totals: RunTotals, threads: usize) -> Option<(RunTotals, usize)>;
}

/// A distribution as the engine's [`super::hooks::Dispatch`], with the
/// run's cancel flag.
pub(super) struct Chunked<'a> {
    pub(super) distribution: &'a dyn Distribution,
    pub(super) cancel: &'a AtomicBool,
}

impl super::hooks::Dispatch for Chunked<'_> {
    fn next_chunk(&self) -> Option<Range<usize>> {
        self.distribution.next_chunk(self.cancel)
    }
}
