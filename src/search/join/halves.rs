//! Half boards made from quadrant cells: every split of the open columns
//! between the north and south quadrants, placed and joined by the glue.

use super::cells::{MadeCells, RowCells};
use super::geometry::Geometry;
use super::glue::{by_class, Glue, Move, Placed, PlacedRows, SouthCell};
use super::specs::HalfSpec;
use super::tasks::takes_blocks;

/// Where [`half_boards`] stopped: the north column set being joined and
/// how many of its north placements are done, or that all are.
#[derive(Clone, Copy, Debug)]
pub(super) struct Cursor {
    cols: u32,
    north_done: usize,
    pub(super) finished: bool,
}

impl Cursor {
    /// Before the first half board of `spec`.
    pub(super) fn start(spec: &HalfSpec) -> Cursor {
        Cursor {
            cols: spec.cols,
            north_done: 0,
            finished: false,
        }
    }
}

/// How the north and south quadrants' placements move onto the board for
/// `spec`'s half.
#[inline(always)]
pub(super) fn moves(geo: &Geometry, spec: &HalfSpec) -> [Move; 2] {
    // Two placements of a half can only meet on the diagonals both
    // quadrants reach; those fit one u64 (each direction in 32 bits),
    // so a pair is checked with one AND.
    let overlap = geo.shifts(true, spec.west);
    [false, true].map(|south| Move {
        shifts: geo.shifts(south, spec.west),
        overlap,
        forbid: spec.forbid,
        geo: *geo,
        class_keys: spec.class_keys,
    })
}

/// The north columns of every split of the `open` columns (a spec's)
/// between the quadrants with `north_queens` queens in the north, as
/// [`half_boards`] takes them (from all the columns down).
#[cfg_attr(not(feature = "gpu"), allow(dead_code))]
pub(super) fn north_splits(open: u32, north_queens: u32) -> impl Iterator<Item = u32> {
    let mut next = Some(open).filter(|cols| cols.count_ones() == north_queens);
    next = next.or_else(|| next_split(open, open, north_queens));
    std::iter::from_fn(move || {
        let cols = next?;
        next = next_split(cols, open, north_queens);
        Some(cols)
    })
}

/// The split after `cols` in [`north_splits`]' order: the largest subset
/// of `open` below `cols` with `queens` columns (from `open` itself, the
/// largest such subset), if any. Stepping through every subset and
/// keeping those of `queens` columns visited about five times as many at
/// N = 18, each a branch the CPU could not foresee.
#[inline(always)]
fn next_split(cols: u32, open: u32, queens: u32) -> Option<u32> {
    debug_assert_eq!(cols & !open, 0);
    if cols.count_ones() != queens {
        // Only `open` itself, at the start: its highest `queens` columns.
        debug_assert_eq!(cols, open);
        return (open.count_ones() > queens).then(|| highest_bits(open, queens));
    }
    // `cols` is P 1 0.. 0 1.. 1 over the open columns (t ones at the
    // bottom); the one before it is P 0 1.. 1 0.. 0, with t + 1 ones
    // right below the cleared column.
    let free = open & !cols;
    let bottom = cols & (free & free.wrapping_neg()).wrapping_sub(1);
    let above = cols & !bottom;
    let cleared = above & above.wrapping_neg();
    (above != 0)
        .then(|| (above ^ cleared) | highest_bits(open & (cleared - 1), bottom.count_ones() + 1))
}

/// The `count` highest bits of `bits` (which has at least that many).
#[inline(always)]
fn highest_bits(bits: u32, count: u32) -> u32 {
    let (mut rest, mut highest) = (bits, 0);
    for _ in 0..count {
        let top = 1 << (31 - rest.leading_zeros());
        highest |= top;
        rest ^= top;
    }
    highest
}

/// Most placements of a row set placed whole ([`Placing`]); larger row
/// sets are placed a cell at a time, as [`half_boards`] meets their cells.
pub(crate) const PLACED_ROWS_MOST: usize = 1 << 13;

/// Row sets placed whole that a thread keeps where tasks are cut beside
/// the middle line: the north and south of a stored spec and of a query
/// spec, whose boards a count makes in turn.
pub(crate) const PLACED_ROWS_HELD: usize = 4;

/// Row sets placed whole that a thread keeps where the tasks are taken in
/// blocks of 8 south halves (see `tasks::tile_key`): the 16 south halves
/// of a block, east and west, the two north ones of the task, and those
/// of the tasks before. Counting N = 18 in blocks, 24 held place 0.58 row
/// sets a task again, as 36 do. Where there are no blocks, the 4 held
/// stay in the core's caches: 24 held cost N = 14 4% (runs of 6 tasks,
/// few held again).
pub(crate) const PLACED_ROWS_TILED: usize = 24;

/// Row sets placed whole that a thread keeps for a count of `n`.
pub(crate) fn placed_rows_held(n: u32) -> usize {
    if takes_blocks(n) {
        PLACED_ROWS_TILED
    } else {
        PLACED_ROWS_HELD
    }
}

/// What a row set placed whole was placed for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PlaceTag {
    n: u32,
    rows: u32,
    open: u32,
    shifts: (u32, u32),
    overlap: (u32, u32),
    forbid: (u64, u64),
    class_keys: u64,
}

impl PlaceTag {
    fn of(how: &Move, cells: &RowCells) -> PlaceTag {
        PlaceTag {
            n: how.geo.n,
            rows: cells.rows(),
            open: cells.open(),
            shifts: how.shifts,
            overlap: how.overlap,
            forbid: how.forbid,
            class_keys: how.class_keys,
        }
    }
}

/// A thread's placements moved onto the board: the north and south
/// cells being joined, placed a cell at a time, and the row sets small
/// enough to place whole, each in one pass (a call per cell cost more
/// than its placements at N = 18, whose cells hold 17 on average).
pub(crate) struct Placing {
    north: [Placed; 2],
    south: [Placed; 2],
    /// Row sets placed whole, each with when it was last used (a
    /// `clock` reading): the least recently used is placed over, in
    /// place.
    rows: Vec<(PlaceTag, PlacedRows, u64)>,
    clock: u64,
    /// The most placements of a row set placed whole (tests set 0, to
    /// place every cell alone).
    whole_most: usize,
    /// The most row sets placed whole held at once.
    held_most: usize,
}

impl Default for Placing {
    fn default() -> Placing {
        Placing {
            north: Default::default(),
            south: Default::default(),
            rows: Vec::new(),
            clock: 0,
            whole_most: PLACED_ROWS_MOST,
            held_most: PLACED_ROWS_HELD,
        }
    }
}

impl Placing {
    /// Holds at most `most` row sets placed whole from now on (the least
    /// recently used let go).
    pub(super) fn hold_at_most(&mut self, most: usize) {
        let most = most.max(2);
        if self.rows.len() > most {
            self.rows
                .sort_by_key(|&(_, _, used)| std::cmp::Reverse(used));
            self.rows.truncate(most);
        }
        self.held_most = most;
    }

    /// Bytes the buffers hold.
    pub(crate) fn bytes(&self) -> u64 {
        let cells: u64 = self
            .north
            .iter()
            .chain(&self.south)
            .map(Placed::bytes)
            .sum();
        cells
            + self
                .rows
                .iter()
                .map(|(_, rows, _)| rows.bytes())
                .sum::<u64>()
    }

    /// Holds `cells` placed whole by `how` (placing them unless held
    /// already), if the row set is held whole and within
    /// [`PLACED_ROWS_MOST`]; where it is held.
    fn hold<G: Glue>(&mut self, glue: G, how: &Move, cells: &RowCells) -> Option<usize> {
        if !cells.is_whole() || cells.placements() > self.whole_most {
            return None;
        }
        self.clock += 1;
        let tag = PlaceTag::of(how, cells);
        if let Some(at) = self.rows.iter().position(|(held, _, _)| *held == tag) {
            self.rows[at].2 = self.clock;
            return Some(at);
        }
        let at = if self.rows.len() < self.held_most {
            self.rows.push((tag, PlacedRows::default(), 0));
            self.rows.len() - 1
        } else {
            let least = self
                .rows
                .iter()
                .enumerate()
                .min_by_key(|(_, (_, _, used))| *used);
            least.map_or(0, |(at, _)| at)
        };
        let entry = &mut self.rows[at];
        (entry.0, entry.2) = (tag, self.clock);
        glue.place_rows(how, cells.diagonals(), &mut entry.1);
        Some(at)
    }
}

/// A cell's placements of both classes as lists: checks and keys.
type CellLists<'a> = [(&'a [u64], &'a [u64]); 2];

/// The lists of the cell that starts at `start` among a row set's
/// placements and holds `len`, in its placements placed whole.
#[inline(always)]
fn cell_lists(rows: &PlacedRows, start: usize, len: usize) -> [(usize, usize); 2] {
    let (from, to) = (rows.position(start), rows.position(start + len));
    by_class(|class| (from[class], to[class] - from[class]))
}

/// Appends to `keys[class]` the key of half boards of `spec`: a north
/// and a south quadrant placement on the spec's rows, together using every
/// open column once, not attacking each other or the forbidden diagonals.
/// Goes on from `cursor` and stops once `limit` keys are made (at most one
/// north placement's pairs more); the cursor then says where to go on, or
/// that every board is made.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn half_boards<G: Glue>(
    glue: G,
    [north_cells, south_cells]: [&RowCells; 2],
    cells_made: &mut MadeCells,
    geo: &Geometry,
    spec: &HalfSpec,
    placing: &mut Placing,
    keys: &mut [Vec<u64>; 3],
    cursor: &mut Cursor,
    limit: usize,
) {
    let north_queens = north_cells.rows().count_ones();
    let moves = moves(geo, spec);
    let made = |keys: &[Vec<u64>; 3]| keys.iter().map(Vec::len).sum::<usize>();
    let start = made(keys);
    // Held north, then south: the south's hold places over the least
    // recently used, never the north just held.
    let held = (!cursor.finished)
        .then(|| placing.hold(glue, &moves[0], north_cells))
        .flatten()
        .and_then(|north_at| Some([north_at, placing.hold(glue, &moves[1], south_cells)?]));
    let Placing {
        north, south, rows, ..
    } = placing;
    let whole_rows = held.map(|[north_at, south_at]| [&rows[north_at].1, &rows[south_at].1]);
    // Every way to split the open columns between the two quadrants, from
    // all of them to the north down to none.
    while !cursor.finished {
        let north_cols = cursor.cols;
        let mut group_done = true;
        if north_cols.count_ones() == north_queens {
            let north_lists: CellLists = match whole_rows {
                Some([north_rows, _]) => {
                    let (at, len) = north_cells.cell_span(north_cols);
                    let spans = cell_lists(north_rows, at as usize, len as usize);
                    by_class(|class| {
                        let (from, len) = spans[class];
                        let list = &north_rows.lists[class];
                        (&list.checks[from..from + len], &list.keys[from..from + len])
                    })
                }
                None => {
                    let cell = north_cells.cell_in(north_cols, cells_made);
                    glue.place(&moves[0], cell, north);
                    by_class(|class| (&north[class].checks[..], &north[class].keys[..]))
                }
            };
            let north_total = north_lists[0].0.len() + north_lists[1].0.len();
            if north_total > cursor.north_done {
                let south_cols = spec.cols & !north_cols;
                let south_lists: [SouthCell; 2] = match whole_rows {
                    Some([_, south_rows]) => {
                        let (at, len) = south_cells.cell_span(south_cols);
                        let spans = cell_lists(south_rows, at as usize, len as usize);
                        // SAFETY: a cell's span lies within its list, and
                        // the place wrote the padding past the list.
                        by_class(|class| unsafe {
                            let (from, len) = spans[class];
                            SouthCell::within(&south_rows.lists[class], from, len)
                        })
                    }
                    None => {
                        let cell = south_cells.cell_in(south_cols, cells_made);
                        glue.place(&moves[1], cell, south);
                        by_class(|class| SouthCell::of(&south[class]))
                    }
                };
                let south_total = south_lists[0].len() + south_lists[1].len();
                // The north placements that fit what is left of the limit,
                // at least one; of the two classes in a row. (No south
                // placement: nothing to join.)
                let left = limit.saturating_sub(made(keys) - start);
                if south_total > 0 {
                    let from = cursor.north_done;
                    // Most groups fit whole: no division for them.
                    let to = if left >= (north_total - from).saturating_mul(south_total) {
                        north_total
                    } else {
                        from.saturating_add((left / south_total).max(1))
                            .min(north_total)
                    };
                    let first = north_lists[0].0.len();
                    let ranges = [
                        from.min(first)..to.min(first),
                        from.max(first) - first..to.max(first) - first,
                    ];
                    for (north_class, range) in ranges.into_iter().enumerate() {
                        let (checks, north_keys) = north_lists[north_class];
                        let (checks, north_keys) = (&checks[range.clone()], &north_keys[range]);
                        // An empty list makes no pairs (every east half's
                        // second class is one), and a join over it would
                        // still walk the other.
                        if checks.is_empty() {
                            continue;
                        }
                        for (south_class, south) in south_lists.iter().enumerate() {
                            if south.len() > 0 {
                                let keys = &mut keys[north_class + south_class];
                                glue.join(checks, north_keys, *south, left, keys);
                            }
                        }
                    }
                    cursor.north_done = to;
                    group_done = to == north_total;
                }
            }
        }
        if group_done {
            cursor.north_done = 0;
            match next_split(north_cols, spec.cols, north_queens) {
                Some(cols) => cursor.cols = cols,
                None => cursor.finished = true,
            }
        }
        if made(keys) - start >= limit {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::cells::CellCache;
    use super::super::glue::PortableGlue;
    use super::super::specs::{quadrant_rows, task_specs};
    use super::super::JoinTasks;
    use super::*;

    /// Every half board of `spec`, made `limit` keys at a time.
    fn boards(
        geo: &Geometry,
        spec: &HalfSpec,
        cells: &mut CellCache,
        placing: &mut Placing,
        limit: usize,
    ) -> [Vec<u64>; 3] {
        let rows = quadrant_rows(geo, spec);
        cells.load(geo.h, &rows, spec.cols);
        let quadrants = rows.map(|rows| cells.get(rows, spec.cols));
        let mut made = MadeCells::default();
        let mut keys: [Vec<u64>; 3] = Default::default();
        let mut cursor = Cursor::start(spec);
        while !cursor.finished {
            half_boards(
                PortableGlue,
                quadrants,
                &mut made,
                geo,
                spec,
                placing,
                &mut keys,
                &mut cursor,
                limit,
            );
        }
        keys
    }

    /// Every split of `open` with `queens` columns.
    fn splits(open: u32, queens: u32) -> Vec<u32> {
        north_splits(open, queens).collect()
    }

    /// The splits stepped through by exact count are every subset of the
    /// open columns with that many columns, from the largest down, as
    /// stepping through all subsets and keeping those finds them: for
    /// every count, on random open sets (up to 16 columns of 24) and the
    /// edge ones (none open, one, the top column, all 32).
    #[test]
    fn splits_stepped_by_count_are_the_subsets_of_that_count() {
        let mut random = crate::random::SplitMix64(0x9e37_79b9_7f4a_7c15);
        let mut opens = vec![0, 1, 0b1011, 0x8000_0000, 0xffff, 0x8000_8001];
        while opens.len() < 300 {
            let state = random.next();
            let open = (state as u32 | (state >> 40) as u32) & 0x00ff_ffff;
            if open.count_ones() <= 16 {
                opens.push(open);
            }
        }
        for open in opens {
            for queens in 0..=open.count_ones() + 1 {
                let mut next = Some(open);
                let expected: Vec<u32> = std::iter::from_fn(|| {
                    let cols = next?;
                    next = (cols != 0).then(|| (cols - 1) & open);
                    Some(cols)
                })
                .filter(|cols| cols.count_ones() == queens)
                .collect();
                assert_eq!(
                    splits(open, queens),
                    expected,
                    "open {open:#x}, {queens} queens"
                );
            }
        }
        // All 32 columns: too many subsets to step through one by one.
        assert_eq!(splits(u32::MAX, 32), [u32::MAX]);
        let ones = splits(u32::MAX, 1);
        assert_eq!(
            ones,
            (0..32).rev().map(|bit| 1 << bit).collect::<Vec<u32>>()
        );
        let thirty_ones = splits(u32::MAX, 31);
        assert_eq!(
            thirty_ones,
            (0..32).map(|bit| !(1 << bit)).collect::<Vec<u32>>()
        );
        assert_eq!(splits(u32::MAX, 2).len(), 32 * 31 / 2);
    }

    /// The half boards of row sets placed whole are those of their cells
    /// placed one at a time, in the same order, whether made at once or a
    /// few keys at a time (each call going on from the cursor), for
    /// specs of even and odd tasks.
    #[test]
    fn row_sets_placed_whole_make_the_boards_of_their_cells() {
        let mut whole_uses = 0;
        for n in [8, 9, 12, 13, 16] {
            let geo = Geometry::new(n);
            let tasks = JoinTasks::new(n);
            let mut cells = CellCache::default();
            let mut whole = Placing::default();
            let mut alone = Placing {
                whole_most: 0,
                ..Placing::default()
            };
            for k in 0..40u64 {
                let task = tasks.get((k * 7_919 + u64::from(n)) % tasks.len());
                for spec in task_specs(&geo, &task) {
                    for limit in [usize::MAX, 7] {
                        let expected = boards(&geo, &spec, &mut cells, &mut alone, limit);
                        let made = boards(&geo, &spec, &mut cells, &mut whole, limit);
                        assert_eq!(made, expected, "N = {n}, {spec:?}, limit {limit}");
                        whole_uses += usize::from(!whole.rows.is_empty());
                    }
                }
            }
            assert!(alone.rows.is_empty());
        }
        assert!(whole_uses > 100);
    }
}
