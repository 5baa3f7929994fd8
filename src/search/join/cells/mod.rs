//! Quadrant cells built on demand: every placement of a quadrant that uses
//! exactly a given set of rows, grouped by the columns it uses.
//!
//! A task needs the cells of four row sets only (north and south, east and
//! west), so they are built when first needed instead of the whole quadrant
//! table, which grows ~9x per two N (5 GB at N = 24). Up to N = 23 every
//! row set is built once and shared by all threads ([`SharedCells`], at
//! most ~570 MB); past that each thread keeps the row sets it used last
//! within a byte budget ([`CellCache`]): a row set is then a few ms to
//! build, against seconds of matching per task. A row set past
//! [`WHOLE_PLACEMENTS`] is not held at all: its cells are made one at a
//! time as the join walks them ([`RowCells::cell_in`]).
//!
//! Each file one part: the cells of a row set here; how they are built
//! (`build.rs`); cells made one at a time (`made.rs`); the shared set of
//! every row set (`shared.rs`); a thread's cache (`cache.rs`).

mod build;
mod cache;
mod made;
mod shared;

use crate::search::disjoint::matcher_path;
pub(in crate::search::join) use build::MEET_LOWER_MOST;
use build::{build_cells, each_placement_on, each_placement_within, search_cells};
pub use cache::CellCache;
pub use made::MadeCells;
pub(crate) use shared::{shared_cells, SharedCells, SHARED_MAX_SIDE};

/// The placements of a quadrant on exactly the rows `rows`, grouped by
/// column set: the same cells as the whole table's row `rows`. A row set
/// with more placements than a cap is not held: its cells are made when
/// asked for ([`RowCells::cell_in`]), so no thread holds hundreds of MB of
/// one row set (29.6 million placements, 236 MB, at side 14).
#[derive(Default)]
pub struct RowCells {
    side: u32,
    rows: u32,
    /// The columns its placements may use: the cells of column sets
    /// outside it are empty.
    open: u32,
    /// Whether `diagonals` holds every placement; else each cell is made
    /// when asked for.
    whole: bool,
    /// `starts[cols]..starts[cols + 1]` indexes `diagonals` (for a row set
    /// not held, the same offsets: each cell's size).
    starts: Vec<u32>,
    /// Per placement, its local diagonal masks (index i - j + side - 1 in
    /// the low half, i + j in the high half), as in the whole table.
    diagonals: Vec<u64>,
}

/// Most placements of a row set held whole by a thread's cache (16 MiB):
/// every row set up to side 12 (N <= 25; the largest has 0.8 million), and
/// the smaller ones of sides 13 and 14, whose largest have 4.7 and 29.6
/// million. Larger row sets make each cell when asked for, ~3x the time
/// of building them whole, which is small against the matching: at N = 24,
/// with every row set made that way, 30 tasks took 2% longer (on a 2-core
/// x86-64 VM whose CPU was not recorded: read it as a ratio).
pub(crate) const WHOLE_PLACEMENTS: u64 = 1 << 21;

impl RowCells {
    /// The cells of `rows` on a `side` square (at most 16), built now.
    pub fn build(side: u32, rows: u32) -> RowCells {
        let mut cells = RowCells::default();
        cells.rebuild(side, rows);
        cells
    }

    /// Rebuilds these cells for `rows` on a `side` square, reusing the
    /// buffers: a counting sort, the placements enumerated twice (once to
    /// count them per column set, once to write them in place).
    pub fn rebuild(&mut self, side: u32, rows: u32) {
        self.rebuild_within(side, rows, u64::MAX);
    }

    /// [`RowCells::rebuild`], holding the placements only if there are at
    /// most `most_placements`; else only their count per column set is
    /// kept, and [`RowCells::cell_in`] makes each cell when asked for.
    pub fn rebuild_within(&mut self, side: u32, rows: u32, most_placements: u64) {
        self.rebuild_open(side, rows, (1 << side) - 1, most_placements);
    }

    /// [`RowCells::rebuild_within`] with the placements on the columns of
    /// `open` only: the cells a half board whose other columns are taken
    /// (by the queens a task or a grid group fixes) can use, at a fraction
    /// of the cost (each fixed column cuts a queen's choices).
    pub fn rebuild_open(&mut self, side: u32, rows: u32, open: u32, most_placements: u64) {
        self.rebuild_meeting(side, rows, open, most_placements, MEET_LOWER_MOST);
    }

    /// [`RowCells::rebuild_open`] with the placements of its lower rows
    /// held for the meeting only while there are at most `lower_most` of
    /// them (past that, or below four rows (`MEET_MIN_ROWS`), a search builds
    /// the cells).
    pub fn rebuild_meeting(
        &mut self,
        side: u32,
        rows: u32,
        open: u32,
        most_placements: u64,
        lower_most: u64,
    ) {
        self.rebuild_with(side, rows, open, |starts, diagonals| {
            build_cells(
                matcher_path(),
                side,
                rows,
                open,
                most_placements,
                lower_most,
                starts,
                diagonals,
            )
        });
    }

    /// [`RowCells::rebuild_open`] by a search of every row in turn, each
    /// placement found once to count and once to write: the naive twin of
    /// the meeting in the middle, the same cells in the same order.
    pub fn rebuild_by_search(&mut self, side: u32, rows: u32, open: u32, most_placements: u64) {
        self.rebuild_with(side, rows, open, |starts, diagonals| {
            search_cells(side, rows, open, most_placements, starts, diagonals)
        });
    }

    /// Rebuilds these cells for `rows` within `open` by `build`, which
    /// fills the starts and, if it holds them, the placements.
    fn rebuild_with(
        &mut self,
        side: u32,
        rows: u32,
        open: u32,
        build: impl FnOnce(&mut Vec<u32>, &mut Vec<u64>) -> bool,
    ) {
        assert!(side <= 16, "quadrant side {side} is past the supported 16");
        assert!(rows >> side == 0, "rows {rows:#x} outside a {side} square");
        assert!(
            open >> side == 0,
            "columns {open:#x} outside a {side} square"
        );
        self.side = side;
        self.rows = rows;
        self.open = open;
        self.whole = build(&mut self.starts, &mut self.diagonals);
        if !self.whole {
            // Give back what a held row set left.
            self.diagonals.shrink_to_fit();
        }
    }

    /// The row set these cells are for.
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// The columns these cells' placements may use.
    pub fn open(&self) -> u32 {
        self.open
    }

    /// Placements of the row set (held or not).
    pub fn placements(&self) -> usize {
        self.starts.last().map_or(0, |&total| total as usize)
    }

    /// Whether every placement is held ([`RowCells::cell`] works).
    pub fn is_whole(&self) -> bool {
        self.whole
    }

    /// Bytes the buffers hold.
    pub fn bytes(&self) -> u64 {
        (self.starts.capacity() * 4 + self.diagonals.capacity() * 8) as u64
    }

    /// The placements using exactly the columns `cols`, of a row set held
    /// whole.
    #[inline(always)]
    pub fn cell(&self, cols: u32) -> &[u64] {
        assert!(self.whole, "cell of a row set not held");
        debug_assert!(cols & !self.open == 0, "cell outside the open columns");
        let index = cols as usize;
        &self.diagonals[self.starts[index] as usize..self.starts[index + 1] as usize]
    }

    /// Every placement of a row set held whole, cell after cell.
    pub(crate) fn diagonals(&self) -> &[u64] {
        assert!(self.whole, "placements of a row set not held");
        &self.diagonals
    }

    /// Where the cell of the columns `cols` starts among
    /// [`RowCells::diagonals`], and its length.
    pub(crate) fn cell_span(&self, cols: u32) -> (u32, u32) {
        let index = cols as usize;
        (
            self.starts[index],
            self.starts[index + 1] - self.starts[index],
        )
    }

    /// The placements using exactly the columns `cols`: held, or made in
    /// `made` (kept there while it has room, so asking again is free).
    #[inline(always)]
    pub fn cell_in<'a>(&'a self, cols: u32, made: &'a mut MadeCells) -> &'a [u64] {
        debug_assert!(cols & !self.open == 0, "cell outside the open columns");
        if self.whole {
            return self.cell(cols);
        }
        let index = cols as usize;
        let size = (self.starts[index + 1] - self.starts[index]) as usize;
        made.cell(self.side, self.rows, cols, size)
    }
}

/// Placements of a `side` square with one queen on each row of `rows` and
/// none elsewhere, counted without storing them.
pub fn count_placements_on(side: u32, rows: u32) -> u64 {
    let mut total = 0;
    each_placement_on(side, rows, &mut |_, _| total += 1);
    total
}

/// Fills `out` with the cell of `rows` and `cols` on a `side` square (the
/// placements with one queen on each row of `rows` and each column of
/// `cols`), as [`RowCells::cell`] holds it, without building the row set.
pub fn fill_cell(side: u32, rows: u32, cols: u32, out: &mut Vec<u64>) {
    out.clear();
    if rows.count_ones() != cols.count_ones() {
        return;
    }
    each_placement_within(side, rows, cols, &mut |_, diag| out.push(diag));
}
