//! A thread's cache of the row sets it used last.

use super::super::recent::{slot_key, Recent};
use super::{RowCells, WHOLE_PLACEMENTS};

/// The cells of the row sets used last, rebuilt on demand within a byte
/// budget, in one thread's scratch space.
pub struct CellCache {
    side: u32,
    /// Per row set and open columns, its cells.
    entries: Recent<RowCells>,
    bytes: u64,
    budget: u64,
    /// Most placements of a row set held whole.
    whole_placements: u64,
    builds: u64,
}

impl Default for CellCache {
    fn default() -> CellCache {
        CellCache::with_budget(CellCache::DEFAULT_BUDGET)
    }
}

impl CellCache {
    /// Bytes a thread's cache keeps by default (from N = 24, where the
    /// cells are no longer shared). A grid's groups each take another row
    /// set (the task's rows less the rows of their queens), held whole up
    /// to 16 MiB each: at 32 MiB they were built again and again (1,100
    /// builds in 4 sampled N = 28 tasks, a quarter of their time); at 128
    /// MiB the 4 tasks took 47.0 s against 59.2 on one AVX-512 core.
    pub const DEFAULT_BUDGET: u64 = 128 << 20;

    /// An empty cache that keeps at most about `budget` bytes (always at
    /// least the four row sets a task needs).
    pub fn with_budget(budget: u64) -> CellCache {
        CellCache::with_limits(budget, WHOLE_PLACEMENTS)
    }

    /// [`CellCache::with_budget`], holding whole only the row sets of at
    /// most `whole_placements` placements (the others make each cell when
    /// asked for).
    pub fn with_limits(budget: u64, whole_placements: u64) -> CellCache {
        CellCache {
            whole_placements,
            side: 0,
            entries: Recent::default(),
            bytes: 0,
            budget,
            builds: 0,
        }
    }

    /// Holds whole only the row sets of at most `whole_placements` from
    /// now on (the cached ones are dropped if that changes).
    pub fn set_whole_placements(&mut self, whole_placements: u64) {
        if whole_placements != self.whole_placements {
            self.whole_placements = whole_placements;
            // Forces the next load to start afresh.
            self.side = 0;
        }
    }

    /// Makes sure the cells of every row set in `wanted` within the
    /// columns `open` (see [`RowCells::rebuild_open`]) are present for
    /// squares of `side`, kept apart from the same row sets' cells within
    /// other columns, rebuilding the least recently used others once the
    /// budget is spent (the wanted ones are all kept, whatever their
    /// size).
    pub fn load(&mut self, side: u32, wanted: &[u32], open: u32) {
        if side != self.side {
            self.entries.drain().for_each(drop);
            self.side = side;
            self.bytes = 0;
        }
        self.entries.next_tick();
        for &rows in wanted {
            let key = slot_key(rows, open);
            if self.entries.touch(key) {
                continue;
            }
            self.builds += 1;
            // Past the budget an unwanted entry is rebuilt in place (it
            // keeps its buffers); the wanted ones are all kept.
            let reused = if self.bytes < self.budget || self.entries.len() < wanted.len() {
                None
            } else {
                self.entries.oldest_unused()
            };
            match reused {
                Some(slot) => {
                    let cells = self.entries.reuse(slot, key);
                    self.bytes -= cells.bytes();
                    cells.rebuild_open(side, rows, open, self.whole_placements);
                    self.bytes += cells.bytes();
                }
                None => {
                    let mut cells = RowCells::default();
                    cells.rebuild_open(side, rows, open, self.whole_placements);
                    self.bytes += cells.bytes();
                    self.entries.insert(key, cells);
                }
            }
            // A rebuilt entry keeps its largest buffers: drop old entries
            // while that leaves the cache over its budget.
            while self.bytes > self.budget && self.entries.len() > wanted.len() {
                let Some(oldest) = self.entries.oldest_unused() else {
                    break;
                };
                self.bytes -= self.entries.take(oldest).bytes();
            }
        }
    }

    /// The cells of `rows` within `open`, which [`CellCache::load`] must
    /// have made present.
    #[inline]
    pub fn get(&self, rows: u32, open: u32) -> &RowCells {
        self.entries
            .get(slot_key(rows, open))
            .expect("cells loaded before use")
    }

    /// Bytes the cached cells hold.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Row sets built so far (misses).
    pub fn builds(&self) -> u64 {
        self.builds
    }
}
