//! The quadrant table: every non-attacking placement of queens on an h x h
//! square, grouped by the rows and columns it uses, from which the `join`
//! builds its half boards, and the memory it takes.

use std::sync::{Arc, Mutex};

use rayon::prelude::*;

/// Bytes a quadrant placement takes in the table (its two diagonal masks).
pub(crate) const BYTES_PER_PLACEMENT: u64 = 8;

/// Every non-attacking placement of 0..=h queens on an h x h square, grouped
/// by (rows used, columns used): built once per h and shared read-only by
/// all four quadrants of every task.
pub struct QuadrantTable {
    side: u32,
    /// `starts[cell]..starts[cell + 1]` indexes `diagonals` for the cell
    /// `rows << side | cols`.
    starts: Vec<u32>,
    /// Per placement, its local diagonal masks: index i - j + side - 1 in
    /// the low half, i + j in the high half.
    diagonals: Vec<u64>,
}

impl QuadrantTable {
    /// Builds the table for squares of `side` (at most 12), on the calling
    /// thread's rayon pool: the placements are enumerated in
    /// [`BUILD_GROUPS`] interleaved groups of subtrees, each counted and then
    /// written into its own slots of every cell (a counting sort per group,
    /// so the layout does not depend on the number of threads).
    pub fn build(side: u32) -> QuadrantTable {
        assert!(side <= 12, "quadrant side {side} is past the supported 12");
        let cells = 1usize << (2 * side);
        let prefixes = build_prefixes(side);
        let group = |index: usize| prefixes.iter().skip(index).step_by(BUILD_GROUPS);
        // Pass 1: placements per cell, per group.
        let mut counts: Vec<Vec<u32>> = (0..BUILD_GROUPS)
            .into_par_iter()
            .map(|index| {
                let mut count = vec![0u32; cells];
                for prefix in group(index) {
                    each_placement_below(side, prefix, &mut |rows, cols, _| {
                        count[cell(side, rows, cols)] += 1
                    });
                }
                count
            })
            .collect();
        // Cell starts, and each group's first slot in every cell (the counts
        // are turned into cursors in place).
        let mut starts = vec![0u32; cells + 1];
        let mut total = 0u32;
        for index in 0..cells {
            starts[index] = total;
            for count in counts.iter_mut() {
                let here = count[index];
                count[index] = total;
                total += here;
            }
        }
        starts[cells] = total;
        let mut diagonals = vec![0u64; total as usize];
        let out = SlotWriter(diagonals.as_mut_ptr());
        // Pass 2: every group writes its placements at its own cursors.
        counts
            .par_iter_mut()
            .enumerate()
            .for_each(|(index, cursor)| {
                let out = &out;
                for prefix in group(index) {
                    each_placement_below(side, prefix, &mut |rows, cols, diag| {
                        let slot = &mut cursor[cell(side, rows, cols)];
                        // SAFETY: the cursors of the groups partition the
                        // slots (pass 1 counted exactly these placements),
                        // so each slot is written once, by one group, and
                        // stays below `total`, the length of `diagonals`.
                        unsafe { out.0.add(*slot as usize).write(diag) };
                        *slot += 1;
                    });
                }
            });
        QuadrantTable {
            side,
            starts,
            diagonals,
        }
    }

    /// Side of the squares.
    pub fn side(&self) -> u32 {
        self.side
    }

    /// Placements stored.
    pub fn placements(&self) -> usize {
        self.diagonals.len()
    }

    /// Bytes the table holds.
    pub fn bytes(&self) -> u64 {
        table_bytes(self.side, self.diagonals.len() as u64)
    }

    /// The placements using exactly `rows` and `cols` (local bit masks).
    #[inline(always)]
    pub fn cell(&self, rows: u32, cols: u32) -> &[u64] {
        let index = cell(self.side, rows, cols);
        &self.diagonals[self.starts[index] as usize..self.starts[index + 1] as usize]
    }
}

fn cell(side: u32, rows: u32, cols: u32) -> usize {
    ((rows as usize) << side) | cols as usize
}

fn table_bytes(side: u32, placements: u64) -> u64 {
    placements * BYTES_PER_PLACEMENT + ((1u64 << (2 * side)) + 1) * 4
}

/// Groups the table build is split into: enough to keep a few threads busy
/// with interleaved subtrees; each costs one cell index of memory.
pub const BUILD_GROUPS: usize = 4;

/// Where the build splits the enumeration: every state of the first two
/// rows (each empty or holding a non-attacking queen).
#[derive(Clone, Copy, Debug)]
struct Partial {
    row: u32,
    rows: u32,
    cols: u32,
    diag: u64,
}

impl Partial {
    const EMPTY: Partial = Partial {
        row: 0,
        rows: 0,
        cols: 0,
        diag: 0,
    };

    /// This state with row `row` left empty, then with a queen on each
    /// column it may take.
    fn children(self, side: u32, visit: &mut dyn FnMut(Partial)) {
        let row = self.row;
        visit(Partial {
            row: row + 1,
            ..self
        });
        for col in 0..side {
            let d1 = 1u64 << (row + side - 1 - col);
            let d2 = 1u64 << (32 + row + col);
            if self.cols & (1 << col) == 0 && self.diag & (d1 | d2) == 0 {
                visit(Partial {
                    row: row + 1,
                    rows: self.rows | 1 << row,
                    cols: self.cols | 1 << col,
                    diag: self.diag | d1 | d2,
                });
            }
        }
    }
}

/// The states of the first rows the build starts its subtrees from.
fn build_prefixes(side: u32) -> Vec<Partial> {
    let mut prefixes = vec![Partial::EMPTY];
    for _ in 0..side.min(2) {
        let mut next = Vec::new();
        for prefix in prefixes {
            prefix.children(side, &mut |child| next.push(child));
        }
        prefixes = next;
    }
    prefixes
}

/// Calls `visit(rows, cols, diagonals)` for every non-attacking placement on
/// a `side` square that extends `start`, in a fixed order.
fn each_placement_below(side: u32, start: &Partial, visit: &mut dyn FnMut(u32, u32, u64)) {
    fn below(side: u32, state: Partial, visit: &mut dyn FnMut(u32, u32, u64)) {
        if state.row == side {
            visit(state.rows, state.cols, state.diag);
            return;
        }
        state.children(side, &mut |child| below(side, child, visit));
    }
    below(side, *start, visit);
}

/// Calls `visit(rows, cols, diagonals)` for every non-attacking placement on
/// a `side` square, in a fixed order.
fn each_placement(side: u32, visit: &mut dyn FnMut(u32, u32, u64)) {
    each_placement_below(side, &Partial::EMPTY, visit);
}

/// A raw pointer the build's groups write through, each to its own slots.
struct SlotWriter(*mut u64);

// SAFETY: the groups write disjoint slots (see `QuadrantTable::build`), and
// the vector outlives the parallel pass that uses the pointer.
unsafe impl Sync for SlotWriter {}

/// Placements in the table for `side`, counted without storing them.
pub fn count_placements(side: u32) -> u64 {
    let mut total = 0u64;
    each_placement(side, &mut |_, _, _| total += 1);
    total
}

/// Peak bytes a `join` count of an `n` board needs: the quadrant table while
/// it is built (its index, plus one cell count per build group), plus
/// per-thread scratch, which is small.
pub fn memory_needed(n: u32) -> u64 {
    let side = n / 2;
    table_bytes(side, count_placements(side)) + BUILD_GROUPS as u64 * index_bytes(side)
}

/// An upper bound of [`memory_needed`] computed without enumerating the
/// placements (k queens on a side x side square: at most C(side, k)^2 k!
/// ways), so the guard costs nothing when even the bound fits.
pub fn memory_bound(n: u32) -> u64 {
    let side = u64::from(n / 2);
    // k = 0: the empty placement.
    let mut placements: u64 = 1;
    let mut choose: u64 = 1; // C(side, k)
    let mut factorial: u64 = 1; // k!
    for k in 1..=side {
        choose = choose * (side - k + 1) / k;
        factorial *= k;
        placements =
            placements.saturating_add(choose.saturating_mul(choose).saturating_mul(factorial));
    }
    table_bytes(n / 2, placements).saturating_add(BUILD_GROUPS as u64 * index_bytes(n / 2))
}

fn index_bytes(side: u32) -> u64 {
    ((1u64 << (2 * side)) + 1) * 4
}

/// The table most recently asked for, shared by all threads.
static TABLE: Mutex<Option<Arc<QuadrantTable>>> = Mutex::new(None);

/// The shared table for `side`, built by the first thread that asks.
///
/// The build runs on the caller's rayon pool without holding the lock: a
/// worker waiting for its parts may steal another task that asks for the
/// table, and must not block on itself. The engine builds the table before
/// it hands out tasks ([`prepare`]), so only direct library callers can race
/// to build it twice; the first table stored wins.
pub fn shared_table(side: u32) -> Arc<QuadrantTable> {
    let stored = |slot: &Option<Arc<QuadrantTable>>| {
        slot.as_ref()
            .filter(|table| table.side == side)
            .map(Arc::clone)
    };
    let lock = || {
        TABLE
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    };
    {
        let mut slot = lock();
        if let Some(table) = stored(&slot) {
            return table;
        }
        // Drop an old table of another side before building.
        *slot = None;
    }
    let built = Arc::new(QuadrantTable::build(side));
    let mut slot = lock();
    if let Some(table) = stored(&slot) {
        return table;
    }
    *slot = Some(Arc::clone(&built));
    built
}

/// Builds the shared table for an `n` count, if it is not built yet, with
/// every thread of the current rayon pool.
pub fn prepare(n: u32) {
    drop(shared_table(n / 2));
}
