//! The cells of every row set of a small side, shared by all threads.

use std::sync::{Arc, Mutex, OnceLock};

use super::RowCells;

/// Largest quadrant side whose cells are shared by all threads, each row
/// set built once by the first thread that needs it: the whole table is
/// ~7 MB at side 9, ~60 MB at 10, ~570 MB at 11 (N = 22, 23) and ~5 GB at
/// 12, where each thread builds what its tasks need instead.
pub(crate) const SHARED_MAX_SIDE: u32 = 11;

/// The cells of every row set of one quadrant side, each built on first
/// use and then shared read-only.
pub(crate) struct SharedCells {
    side: u32,
    entries: Vec<OnceLock<RowCells>>,
}

impl SharedCells {
    /// An empty set for squares of `side` (at most [`SHARED_MAX_SIDE`]).
    pub(crate) fn new(side: u32) -> SharedCells {
        assert!(side <= SHARED_MAX_SIDE, "side {side} is too large to share");
        SharedCells {
            side,
            entries: (0..1u32 << side).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Side of the squares.
    pub(crate) fn side(&self) -> u32 {
        self.side
    }

    /// The cells of `rows`, built now if no thread has yet (a thread
    /// asking for the same row set meanwhile waits for them).
    #[inline]
    pub(crate) fn get(&self, rows: u32) -> &RowCells {
        self.entries[rows as usize].get_or_init(|| RowCells::build(self.side, rows))
    }
}

/// The shared cells most recently asked for: a cache, the library's one
/// piece of process-wide state besides the code paths' defaults. Cells
/// depend on the side alone, never on a count's options, so counts that
/// run at once (on their own pools) share them safely; a count of another
/// side replaces them, and the last user of the old set frees it. Taken
/// once per task, not in the hot loops.
static SHARED: Mutex<Option<Arc<SharedCells>>> = Mutex::new(None);

/// The cells shared by every thread for `side`; a set of another side is
/// dropped once its last user lets go of it.
pub(crate) fn shared_cells(side: u32) -> Arc<SharedCells> {
    let mut slot = SHARED
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    match &*slot {
        Some(shared) if shared.side == side => Arc::clone(shared),
        _ => {
            let shared = Arc::new(SharedCells::new(side));
            *slot = Some(Arc::clone(&shared));
            shared
        }
    }
}
