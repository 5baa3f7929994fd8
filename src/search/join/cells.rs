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

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::{Arc, Mutex, OnceLock};

use super::recent::{slot_key, CellKeyHasher, Recent};

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
    /// them (past that, or below [`MEET_MIN_ROWS`] rows, a search builds
    /// the cells).
    pub fn rebuild_meeting(
        &mut self,
        side: u32,
        rows: u32,
        open: u32,
        most_placements: u64,
        lower_most: u64,
    ) {
        self.start(side, rows, open);
        self.whole = build_cells(
            side,
            rows,
            open,
            most_placements,
            lower_most,
            &mut self.starts,
            &mut self.diagonals,
        );
        if !self.whole {
            // Give back what a held row set left.
            self.diagonals.shrink_to_fit();
        }
    }

    /// [`RowCells::rebuild_open`] by a search of every row in turn, each
    /// placement found once to count and once to write: the naive twin of
    /// the meeting in the middle, the same cells in the same order.
    pub fn rebuild_by_search(&mut self, side: u32, rows: u32, open: u32, most_placements: u64) {
        self.start(side, rows, open);
        self.whole = search_cells(
            side,
            rows,
            open,
            most_placements,
            &mut self.starts,
            &mut self.diagonals,
        );
        if !self.whole {
            self.diagonals.shrink_to_fit();
        }
    }

    fn start(&mut self, side: u32, rows: u32, open: u32) {
        assert!(side <= 16, "quadrant side {side} is past the supported 16");
        assert!(rows >> side == 0, "rows {rows:#x} outside a {side} square");
        assert!(
            open >> side == 0,
            "columns {open:#x} outside a {side} square"
        );
        self.side = side;
        self.rows = rows;
        self.open = open;
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
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
    pub(crate) fn diagonals(&self) -> &[u64] {
        assert!(self.whole, "placements of a row set not held");
        &self.diagonals
    }

    /// Where the cell of the columns `cols` starts among
    /// [`RowCells::diagonals`], and its length.
    #[cfg_attr(not(feature = "gpu"), allow(dead_code))]
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
    fn cell(&mut self, side: u32, rows: u32, cols: u32, size: usize) -> &[u64] {
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

/// Calls `visit(cols, diagonals)` for every non-attacking placement on a
/// `side` square with one queen on each row of `rows` and none elsewhere,
/// in a fixed order.
fn each_placement_on(side: u32, rows: u32, visit: &mut impl FnMut(u32, u64)) {
    each_placement_within(side, rows, (1 << side) - 1, visit);
}

/// [`each_placement_on`] with the queens on the columns of `open` only,
/// in the same order: a cell's placements when `open` has as many columns
/// as `rows` has rows.
fn each_placement_within(side: u32, rows: u32, open: u32, visit: &mut impl FnMut(u32, u64)) {
    /// `left` and `right`: columns of the current row attacked along each
    /// diagonal direction; `row`: the row they are for.
    #[allow(clippy::too_many_arguments)]
    fn below(
        side: u32,
        open: u32,
        rows_left: u32,
        row: u32,
        cols: u32,
        left: u32,
        right: u32,
        diag: u64,
        visit: &mut impl FnMut(u32, u64),
    ) {
        if rows_left == 0 {
            visit(cols, diag);
            return;
        }
        let next = rows_left.trailing_zeros();
        let gap = next - row;
        // An anti-diagonal (i + j) attack moves one column left per row,
        // a diagonal (i - j) one right.
        let left = left >> gap;
        let right = (right << gap) & ((1 << side) - 1);
        let mut free = !(cols | left | right) & open;
        while free != 0 {
            let col = free.trailing_zeros();
            free &= free - 1;
            let bit = 1 << col;
            let d1 = 1u64 << (next + side - 1 - col);
            let d2 = 1u64 << (32 + next + col);
            below(
                side,
                open,
                rows_left & (rows_left - 1),
                next,
                cols | bit,
                left | bit,
                right | bit,
                diag | d1 | d2,
                visit,
            );
        }
    }
    below(side, open, rows, 0, 0, 0, 0, 0, visit);
}

/// Fewest rows whose cells are built by meeting in the middle: below it a
/// search is as fast.
pub(super) const MEET_MIN_ROWS: u32 = 4;

/// Most placements of the lower rows held while a row set is built (2
/// MiB): the 9- and 10-row sets of N = 28 hold 30 to 200 thousand. Past
/// it the row set is searched instead.
pub(super) const MEET_LOWER_MOST: u64 = 1 << 18;

/// Fills `starts` (one slot per column set of a `side` square and one for
/// the total) with where each cell of `rows` within `open` starts and,
/// if there are at most `most` placements, `diagonals` with the cells
/// themselves: whether it did. Each placement is found once to count and
/// once to write, in the order of [`each_placement_within`].
///
/// A search of every row in turn finds the last rows' placements again
/// for every placement of the first ones (at N = 28, 20 to 50 ns a
/// placement on Zen 3). From [`MEET_MIN_ROWS`] rows, the placements of the
/// lower two thirds of the rows are built first (the same way, grouped
/// by their columns) and each placement of the upper third meets the
/// groups whose columns it leaves free, one AND per pair on the
/// diagonals: 3.3 to 3.6x faster on the 8- to 10-row sets of N = 28 (1.1
/// to 1.6x on 6 rows). Within a cell the placements come out in
/// the search's order: the upper rows' in their order, each followed by
/// its lower rows' in theirs.
fn build_cells(
    side: u32,
    rows: u32,
    open: u32,
    most: u64,
    lower_most: u64,
    starts: &mut Vec<u32>,
    diagonals: &mut Vec<u64>,
) -> bool {
    let Some(lower) = Lower::build(side, rows, open, lower_most) else {
        return search_cells(side, rows, open, most, starts, diagonals);
    };
    let cells = 1usize << side;
    starts.clear();
    starts.resize(cells + 1, 0);
    lower.each_meeting(side, open, &mut |cols, upper, group| {
        starts[cols as usize] += group.iter().filter(|&&lower| lower & upper == 0).count() as u32;
    });
    let Some(total) = place_starts(starts, most, diagonals) else {
        return false;
    };
    debug_assert_eq!(diagonals.len(), total);
    // Branch-free into a small buffer (about half the pairs meet), then
    // copied to the cell; zeroed once, not per group (a memset per group
    // took 3% of a sampled N = 28 task's profile).
    let mut met = [0u64; 64];
    lower.each_meeting(side, open, &mut |cols, upper, group| {
        let cursor = &mut starts[cols as usize];
        for chunk in group.chunks(64) {
            let mut count = 0;
            for &lower in chunk {
                met[count & 63] = lower | upper;
                count += usize::from(lower & upper == 0);
            }
            let at = *cursor as usize;
            diagonals[at..at + count].copy_from_slice(&met[..count]);
            *cursor += count as u32;
        }
    });
    back_to_starts(starts);
    true
}

/// [`build_cells`] by a search of every row in turn.
fn search_cells(
    side: u32,
    rows: u32,
    open: u32,
    most: u64,
    starts: &mut Vec<u32>,
    diagonals: &mut Vec<u64>,
) -> bool {
    let cells = 1usize << side;
    starts.clear();
    starts.resize(cells + 1, 0);
    each_placement_within(side, rows, open, &mut |cols, _| starts[cols as usize] += 1);
    if place_starts(starts, most, diagonals).is_none() {
        return false;
    }
    each_placement_within(side, rows, open, &mut |cols, diag| {
        let cursor = &mut starts[cols as usize];
        diagonals[*cursor as usize] = diag;
        *cursor += 1;
    });
    back_to_starts(starts);
    true
}

/// Turns counts per cell into each cell's start (the extra slot holds the
/// total) and sizes `diagonals` to the total, if it is at most `most`:
/// the total, or `None` (and `diagonals` emptied).
fn place_starts(starts: &mut [u32], most: u64, diagonals: &mut Vec<u64>) -> Option<usize> {
    let mut total = 0u32;
    for slot in starts.iter_mut() {
        let here = *slot;
        *slot = total;
        total += here;
    }
    diagonals.clear();
    if u64::from(total) > most {
        return None;
    }
    // Exactly: a doubling would hold up to twice the row set, past what
    // the memory bound counts.
    diagonals.reserve_exact(total as usize);
    diagonals.resize(total as usize, 0);
    Some(total as usize)
}

/// After the writes, whose cursors (the starts) ended at each cell's end:
/// back to starts, cell c starting where cell c - 1 ended.
fn back_to_starts(starts: &mut [u32]) {
    let cells = starts.len() - 1;
    starts.copy_within(0..cells, 1);
    starts[0] = 0;
}

/// The placements of a row set's lower rows grouped by their columns,
/// which each placement of its upper rows meets.
struct Lower {
    upper_rows: u32,
    starts: Vec<u32>,
    diagonals: Vec<u64>,
    /// The column sets of the groups that are not empty, in order.
    groups: Vec<u32>,
}

impl Lower {
    /// The lower rows of `rows` built (the upper third are the first rows,
    /// at least one: fewer placements to meet the groups, each group
    /// larger), or `None` below [`MEET_MIN_ROWS`] rows or past `most`
    /// lower placements.
    fn build(side: u32, rows: u32, open: u32, most: u64) -> Option<Lower> {
        let count = rows.count_ones();
        if count < MEET_MIN_ROWS {
            return None;
        }
        let mut upper_rows = 0;
        let mut left = rows;
        for _ in 0..(count / 3).max(1) {
            upper_rows |= left & left.wrapping_neg();
            left &= left - 1;
        }
        let (mut starts, mut diagonals) = (Vec::new(), Vec::new());
        if !build_cells(side, left, open, most, most, &mut starts, &mut diagonals) {
            return None;
        }
        let groups = (0..1u32 << side)
            .filter(|&cols| starts[cols as usize] != starts[cols as usize + 1])
            .collect();
        Some(Lower {
            upper_rows,
            starts,
            diagonals,
            groups,
        })
    }

    /// Calls `visit(cols, upper, group)` for each placement of the upper
    /// rows (its diagonals `upper`) and each group whose columns it leaves
    /// free (`cols` the union), in the search's order of the upper
    /// placements and the groups' order of columns.
    fn each_meeting(&self, side: u32, open: u32, visit: &mut impl FnMut(u32, u64, &[u64])) {
        each_placement_within(side, self.upper_rows, open, &mut |cols, upper| {
            for &group in &self.groups {
                if group & cols == 0 {
                    let (from, to) = (self.starts[group as usize], self.starts[group as usize + 1]);
                    visit(
                        cols | group,
                        upper,
                        &self.diagonals[from as usize..to as usize],
                    );
                }
            }
        });
    }
}

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
