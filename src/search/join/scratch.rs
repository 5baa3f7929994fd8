//! A worker thread's reusable join buffers, and what they hold.

use std::cell::RefCell;
use std::sync::Arc;

use super::geometry::Geometry;
use super::grid::task_row_sets;
use super::halves::Placing;
use super::{
    shared_cells, CellCache, JoinTask, MadeCells, Parts, SharedCells, SHARED_MAX_SIDE,
    WHOLE_PLACEMENTS,
};
use crate::search::disjoint::{DualSplit, SplitMatcher};

impl Scratch {
    /// Bytes this thread's buffers hold by part, the shared cells not
    /// included.
    fn parts(&self) -> ScratchBytes {
        let placed = self.placing.bytes();
        let keys: usize = self
            .stored
            .iter()
            .chain(&self.queries)
            .map(Vec::capacity)
            .sum();
        ScratchBytes {
            cells: self.cells.bytes(),
            made: self.made.bytes(),
            placed,
            keys: keys as u64 * 8,
            matcher: self.matcher.bytes() + self.dual.bytes(),
            held: self.held.bytes(),
        }
    }

    /// Takes the cells shared by all threads for quadrants of `side`, if
    /// such quadrants are shared.
    pub(super) fn share_cells(&mut self, side: u32) {
        if side <= SHARED_MAX_SIDE
            && self
                .shared
                .as_ref()
                .is_none_or(|shared| shared.side() != side)
        {
            self.shared = Some(shared_cells(side));
        }
    }
}

/// Leaves the calling thread's quadrant cells as counting `task` of an `n`
/// board would leave them, without counting it: for an estimate, which
/// meets each sampled task warm, as a count does, at the cost of the cells
/// of the task before it rather than its whole count (at N = 28 a task is
/// minutes of work; its cells take under a second).
pub(crate) fn prepare_cells(n: u32, task: &JoinTask) {
    SCRATCH.with(|scratch| {
        let mut scratch = scratch.borrow_mut();
        let geo = Geometry::new(n);
        scratch.share_cells(geo.h);
        if geo.h > SHARED_MAX_SIDE {
            scratch.cells.set_whole_placements(WHOLE_PLACEMENTS);
            // In the order a count loads them, a spec at a time.
            for (rows, open) in task_row_sets(&geo, task) {
                scratch.cells.load(geo.h, &rows, open);
            }
        }
    })
}

/// The calling thread's join buffers by part, in bytes held now: the
/// terms of [`thread_bytes`]'s bound, for measuring how near it runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScratchBytes {
    /// The row-set cache (past the shared cells' sides).
    pub cells: u64,
    /// Cells made of row sets not held whole.
    pub made: u64,
    /// The placements of the quadrants being joined.
    pub placed: u64,
    /// Stored and query keys.
    pub keys: u64,
    /// The split matcher: routing, sorted keys and leaves.
    pub matcher: u64,
    /// A grid's boards held whole.
    pub held: u64,
}

impl ScratchBytes {
    /// Each part the larger of the two.
    pub fn max(self, other: ScratchBytes) -> ScratchBytes {
        ScratchBytes {
            cells: self.cells.max(other.cells),
            made: self.made.max(other.made),
            placed: self.placed.max(other.placed),
            keys: self.keys.max(other.keys),
            matcher: self.matcher.max(other.matcher),
            held: self.held.max(other.held),
        }
    }

    /// Each part with its name, in the order above.
    pub fn named(self) -> [(&'static str, u64); 6] {
        [
            ("cells", self.cells),
            ("made", self.made),
            ("placed", self.placed),
            ("keys", self.keys),
            ("matcher", self.matcher),
            ("held", self.held),
        ]
    }

    /// All parts together.
    pub fn total(self) -> u64 {
        self.cells + self.made + self.placed + self.keys + self.matcher + self.held
    }
}

/// Bytes the calling thread's join buffers hold now by part (the cells
/// shared by all threads not included): for tests of the memory bound.
pub fn thread_scratch_parts() -> ScratchBytes {
    SCRATCH.with(|scratch| scratch.borrow().parts())
}

/// Reusable buffers of one worker thread.
#[derive(Default)]
pub(super) struct Scratch {
    /// The quadrant cells of every row set, shared by all threads, for
    /// sides up to [`SHARED_MAX_SIDE`].
    pub(super) shared: Option<Arc<SharedCells>>,
    /// Past that, the quadrant cells of the row sets the last tasks used.
    pub(super) cells: CellCache,
    /// The cells made of row sets not held whole.
    pub(super) made: MadeCells,
    /// Placements of the quadrants being joined, moved onto the board.
    pub(super) placing: Placing,
    /// Keys of the stored half boards, and of a batch of queries, by
    /// class.
    pub(super) stored: [Vec<u64>; 3],
    pub(super) queries: [Vec<u64>; 3],
    pub(super) matcher: SplitMatcher,
    /// A grid's meetings: both sides cut.
    pub(super) dual: DualSplit,
    /// A grid's boards held whole.
    pub(super) held: Held,
}

/// The boards a grid's count holds whole: every stored group's keys (and
/// where each group ends), and a few query groups' by class, one after
/// another.
#[derive(Default)]
pub(super) struct Held {
    pub(super) east: [Vec<u64>; 3],
    pub(super) ends: Vec<usize>,
    pub(super) west: [Vec<u64>; 3],
    /// The stored keys each query group held meets, a part at a time.
    pub(super) parts: Vec<Vec<u64>>,
    /// The most keys each list of `east` then `west` has held since it
    /// was made: its pages that are resident (a list cleared keeps them),
    /// which the grid's limits keep within its share.
    touched: [usize; 6],
}

impl Held {
    /// Resident bytes: the keys' pages the lists have touched, and the
    /// group ends.
    fn bytes(&self) -> u64 {
        let parts: usize = self.parts.iter().map(Vec::capacity).sum();
        ((self.touched_keys() + parts) * 8 + self.ends.capacity() * 8) as u64
    }

    /// Starts a grid's holds: the stored lists and the group ends
    /// cleared, and every list's memory given back first where the lists
    /// have touched more than one side's cap together (a rare large task),
    /// so that no side's room ([`Held::room`]) stays cut for good.
    pub(super) fn begin_grid(&mut self, parts: &Parts) {
        if self.touched_keys() > parts.held_keys {
            *self = Held::default();
        }
        self.east[0].clear();
        self.ends.clear();
    }

    /// Keys all the lists have touched: their resident pages.
    pub(super) fn touched_keys(&self) -> usize {
        self.touched.iter().sum()
    }

    /// Notes the lists' lengths in their high-water marks.
    pub(super) fn note_touched(&mut self) {
        let lists = self.east.iter().chain(&self.west);
        for (touched, list) in self.touched.iter_mut().zip(lists) {
            *touched = (*touched).max(list.len());
        }
    }

    /// Keys the stored (`east`) or the query (`west`) lists have touched.
    fn touched(&self, east: bool) -> usize {
        let (east_lists, west_lists) = self.touched.split_at(3);
        if east { east_lists } else { west_lists }.iter().sum()
    }

    /// Most keys the stored (`east`) or the query lists may hold now:
    /// a side's cap, within what the other side's lists have touched
    /// left of their share ([`Parts::held_share`]).
    pub(super) fn room(&self, parts: &Parts, east: bool) -> usize {
        parts
            .held_keys
            .min(parts.held_share().saturating_sub(self.touched(!east)))
    }
}

thread_local! {
    pub(super) static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}
