//! Half boards made from quadrant cells: every split of the open columns
//! between the north and south quadrants, placed and joined by the glue.

use super::cells::{MadeCells, RowCells};
use super::geometry::Geometry;
use super::glue::{Glue, Move, Placed};
use super::specs::HalfSpec;

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

/// The north columns of every split of `spec`'s open columns between the
/// quadrants with `north_queens` queens in the north, as [`half_boards`]
/// takes them (from all the columns down).
#[cfg_attr(not(feature = "gpu"), allow(dead_code))]
pub(super) fn north_splits(spec: &HalfSpec, north_queens: u32) -> impl Iterator<Item = u32> {
    let open = spec.cols;
    let mut next = Some(open);
    std::iter::from_fn(move || {
        let cols = next?;
        next = (cols != 0).then(|| (cols - 1) & open);
        Some(cols)
    })
    .filter(move |cols| cols.count_ones() == north_queens)
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
    north: &mut [Placed; 2],
    south: &mut [Placed; 2],
    keys: &mut [Vec<u64>; 3],
    cursor: &mut Cursor,
    limit: usize,
) {
    let north_queens = north_cells.rows().count_ones();
    let moves = moves(geo, spec);
    let made = |keys: &[Vec<u64>; 3]| keys.iter().map(Vec::len).sum::<usize>();
    let start = made(keys);
    // Every way to split the open columns between the two quadrants, from
    // all of them to the north down to none.
    while !cursor.finished {
        let north_cols = cursor.cols;
        let mut group_done = true;
        if north_cols.count_ones() == north_queens {
            let cell = north_cells.cell_in(north_cols, cells_made);
            glue.place(&moves[0], cell, north);
            let north_total = north[0].len() + north[1].len();
            if north_total > cursor.north_done {
                let south_cols = spec.cols & !north_cols;
                let cell = south_cells.cell_in(south_cols, cells_made);
                glue.place(&moves[1], cell, south);
                let south_total = south[0].len() + south[1].len();
                // The north placements that fit what is left of the limit,
                // at least one; of the two classes in a row. (No south
                // placement: nothing to join.)
                let left = limit.saturating_sub(made(keys) - start);
                if let Some(room) = left.checked_div(south_total) {
                    let room = room.max(1);
                    let from = cursor.north_done;
                    let to = from.saturating_add(room).min(north_total);
                    let first = north[0].len();
                    let parts = [
                        (&north[0], from.min(first)..to.min(first)),
                        (&north[1], from.max(first) - first..to.max(first) - first),
                    ];
                    for (north_class, (north, range)) in parts.into_iter().enumerate() {
                        let (checks, north_keys) =
                            (&north.checks[range.clone()], &north.keys[range]);
                        for (south_class, south) in south.iter().enumerate() {
                            let keys = &mut keys[north_class + south_class];
                            glue.join(checks, north_keys, south, left, keys);
                        }
                    }
                    cursor.north_done = to;
                    group_done = to == north_total;
                }
            }
        }
        if group_done {
            cursor.north_done = 0;
            if north_cols == 0 {
                cursor.finished = true;
            } else {
                cursor.cols = (north_cols - 1) & spec.cols;
            }
        }
        if made(keys) - start >= limit {
            return;
        }
    }
}
