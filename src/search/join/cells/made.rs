//! Cells made one at a time, for row sets too large to hold whole.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;

use super::super::recent::CellKeyHasher;
use super::fill_cell;

/// Cells made on demand, kept within a byte budget and dropped least
/// recently used first. A grid's groups ask for the same cells again and
/// again: at N = 28 a task made each cell about 3x, most of them of row
/// sets that query groups share; a 16 MiB store leaves a third of the
/// placements to make again (replayed on 5 sampled tasks), and the 4
/// tasks above took 56.5 s against 59.2 s (one AVX-512 core, Zen 4 or 5).
pub struct MadeCells {
    /// Per cell (side, rows, columns as one key), its placements and the
    /// tick of its last use.
    held: HashMap<u64, (Vec<u64>, u64), BuildHasherDefault<CellKeyHasher>>,
    tick: u64,
    bytes: u64,
    budget: u64,
    /// A cell too large to keep, and its key.
    spare: (Option<u64>, Vec<u64>),
}

impl Default for MadeCells {
    fn default() -> MadeCells {
        MadeCells::with_budget(MadeCells::DEFAULT_BUDGET)
    }
}

impl MadeCells {
    /// Bytes of made cells a thread keeps by default.
    pub const DEFAULT_BUDGET: u64 = 16 << 20;

    /// An empty store that keeps about `budget` bytes of cells at most.
    pub fn with_budget(budget: u64) -> MadeCells {
        MadeCells {
            held: HashMap::default(),
            tick: 0,
            bytes: 0,
            budget,
            spare: (None, Vec::new()),
        }
    }

    /// Bytes the store holds.
    pub fn bytes(&self) -> u64 {
        self.bytes + self.spare.1.capacity() as u64 * 8
    }

    /// The cell of `rows` and `cols` on a `side` square, of `size`
    /// placements: kept, or made now.
    pub(super) fn cell(&mut self, side: u32, rows: u32, cols: u32, size: usize) -> &[u64] {
        let key = (u64::from(side) << 40) | (u64::from(rows) << 20) | u64::from(cols);
        self.tick += 1;
        let bytes = size as u64 * 8;
        if bytes > self.budget / 4 {
            // Made alone, kept until another such cell is asked for.
            let (held_key, spare) = &mut self.spare;
            if *held_key != Some(key) {
                spare.clear();
                spare.reserve_exact(size);
                fill_cell(side, rows, cols, spare);
                *held_key = Some(key);
            }
            return &self.spare.1;
        }
        if !self.held.contains_key(&key) {
            if self.bytes + bytes > self.budget {
                self.drop_oldest((self.budget * 3 / 4).saturating_sub(bytes));
            }
            let mut placements = Vec::with_capacity(size);
            fill_cell(side, rows, cols, &mut placements);
            self.bytes += placements.capacity() as u64 * 8;
            self.held.insert(key, (placements, 0));
        }
        let (placements, used) = self.held.get_mut(&key).expect("held just now");
        *used = self.tick;
        placements
    }

    /// Drops the least recently used cells until at most `keep` bytes are
    /// held: in one sweep, so a cell made costs a sort only once per
    /// quarter of the budget.
    fn drop_oldest(&mut self, keep: u64) {
        let mut ages: Vec<(u64, u64, u64)> = self
            .held
            .iter()
            .map(|(key, (placements, used))| (*used, *key, placements.capacity() as u64 * 8))
            .collect();
        ages.sort_unstable();
        for (_, key, bytes) in ages {
            if self.bytes <= keep {
                break;
            }
            self.held.remove(&key);
            self.bytes -= bytes;
        }
    }
}
