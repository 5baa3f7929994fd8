//! A task as joins of half boards: the specs of each side (rows, open
//! columns, forbidden diagonals) and the weights of their pairs.

use super::geometry::{centre_weight, union, Geometry};
use super::tasks::west_beside_rows;
use super::JoinTask;

/// The joins of an even-N task, each a pair of halves and the weights of
/// the west boards by class (see the module notes). A whole row set is one
/// join: the east boards with both long diagonals free, and the west
/// boards. A task with its east queen beside the middle line (column
/// h - 1) is one join per place of the west queen beside the middle line
/// (column h): the halves without those two queens, each forbidden both
/// queens' diagonals (so that each side holds only the boards the other
/// side's queen leaves alone; the east boards keep both long diagonals
/// free too), the class weights shifted by one where the west queen
/// stands on a long diagonal itself. The two queens are never on adjacent
/// rows.
pub(super) fn even_specs(
    geo: &Geometry,
    task: &JoinTask,
    weights: [u64; 3],
) -> Vec<(HalfSpec, HalfSpec, [u64; 3])> {
    let quadrant_cols = (1u32 << geo.h) - 1;
    let main = 1u64 << (geo.n - 1);
    let west_rows = geo.all_rows() & !task.east_rows;
    let class_keys = geo.key(main, main);
    if task.middle == 0 {
        let east = HalfSpec::new(task.east_rows, quadrant_cols, false, (main, main));
        let west = HalfSpec {
            class_keys,
            ..HalfSpec::new(west_rows, quadrant_cols, true, (0, 0))
        };
        return vec![(east, west, weights)];
    }
    // One join per place of the west queen beside the middle line: the
    // join of the task that fixes it too.
    let east_row = task.east_beside().expect("a cut task fixes its east queen");
    let west_places = match task.west_beside() {
        Some(west_row) => 1 << west_row,
        None => west_beside_rows(geo, task.east_rows, east_row),
    };
    (0..geo.n)
        .filter(|&row| west_places & (1 << row) != 0)
        .map(|west_row| {
            let both_fixed = JoinTask {
                east_rows: task.east_rows,
                middle: (1 + east_row) | (1 + west_row) << 8,
            };
            even_join(geo, &both_fixed, weights)
        })
        .collect()
}

/// The join of an even-N task cut beside the middle line, with only the
/// queens it fixes: the east boards with their queen beside the middle
/// (both forbidden its diagonals, and the west one's when the task fixes
/// it too; the east boards keep both long diagonals free), the west boards
/// and their class weights (shifted by one where the west queen stands on
/// a long diagonal).
pub(super) fn even_join(
    geo: &Geometry,
    task: &JoinTask,
    weights: [u64; 3],
) -> (HalfSpec, HalfSpec, [u64; 3]) {
    let quadrant_cols = (1u32 << geo.h) - 1;
    let main = 1u64 << (geo.n - 1);
    let west_rows = geo.all_rows() & !task.east_rows;
    let east_row = task.east_beside().expect("a cut task fixes its east queen");
    let east_queen = geo.queen_diagonals(east_row, geo.h - 1);
    let (west_rows, west_cols, forbid, weights) = match task.west_beside() {
        None => (west_rows, quadrant_cols, east_queen, weights),
        Some(west_row) => {
            let west_queen = geo.queen_diagonals(west_row, geo.h);
            let both = union(east_queen, west_queen);
            let on_long_diagonal = west_row == geo.h - 1 || west_row == geo.h;
            let weights = if on_long_diagonal {
                [weights[1], weights[2], 0]
            } else {
                weights
            };
            (
                west_rows & !(1 << west_row),
                quadrant_cols & !1,
                both,
                weights,
            )
        }
    };
    let east = HalfSpec::new(
        task.east_rows & !(1 << east_row),
        quadrant_cols & !(1 << (geo.h - 1)),
        false,
        (forbid.0 | main, forbid.1 | main),
    );
    let west = HalfSpec {
        class_keys: geo.key(main, main),
        ..HalfSpec::new(west_rows, west_cols, true, forbid)
    };
    (east, west, weights)
}

/// One half board's part of the board: its rows, its open quadrant
/// columns, which half, and the diagonals it must leave alone.
#[derive(Clone, Copy, Debug)]
pub(super) struct HalfSpec {
    pub(super) rows: u32,
    pub(super) cols: u32,
    pub(super) west: bool,
    pub(super) forbid: (u64, u64),
    /// Keys of the long diagonals, whose queens set a west board's weight
    /// (even N; 0 otherwise): the board's class is how many it holds.
    pub(super) class_keys: u64,
}

impl HalfSpec {
    /// A half with no class diagonals.
    pub(super) fn new(rows: u32, cols: u32, west: bool, forbid: (u64, u64)) -> HalfSpec {
        HalfSpec {
            rows,
            cols,
            west,
            forbid,
            class_keys: 0,
        }
    }
}

/// The join of an odd-N task (which [`grid_levels`] may cut): the stored east specs with the extra key of the
/// middle row's queen at each of its places (none for a queen on the
/// centre square), the west spec that queries them and the weight of a
/// pair.
pub(super) fn odd_join(geo: &Geometry, task: &JoinTask) -> (Vec<(HalfSpec, u64)>, HalfSpec, u64) {
    let h = geo.h;
    let quadrant_cols = (1u32 << h) - 1;
    let (column_queen, west_rows, weight) = odd_middle(geo, task);
    let east = if task.middle == 0 {
        vec![(
            HalfSpec::new(task.east_rows, quadrant_cols, false, column_queen),
            0,
        )]
    } else {
        // The middle row's queen, at each place a, is on the east side of
        // the join: the west boards it attacks are excluded through its
        // crossing diagonals, added to the east keys of that a. The east
        // keys of every a together are stored, and the west keys query
        // them once: the east side holds about half as many keys as the
        // west (N = 19..23), and a stored key costs more than a query
        // (0.95 of the time at N = 23).
        (1..task.middle)
            .map(|a| {
                let queen = geo.queen_diagonals(h, h - a);
                let forbid = union(column_queen, queen);
                let spec = HalfSpec::new(
                    task.east_rows,
                    quadrant_cols & !(1 << (h - a)),
                    false,
                    forbid,
                );
                (spec, geo.key(queen.0, queen.1))
            })
            .collect()
    };
    let west = HalfSpec::new(west_rows, quadrant_cols, true, column_queen);
    (east, west, weight)
}

/// The middle column's queen of an odd-N task (its diagonals), the rows
/// of the west half and the weight of a pair.
pub(super) fn odd_middle(geo: &Geometry, task: &JoinTask) -> ((u64, u64), u32, u64) {
    let h = geo.h;
    let open = geo.half_rows();
    let (row, weight) = match task.middle {
        0 => (h, centre_weight(task.east_rows, open, geo.n)),
        b => (h - b, 8),
    };
    let west_rows = open & !(1 << row) & !task.east_rows;
    (geo.queen_diagonals(row, h), west_rows, weight)
}

/// The specs whose half boards a task's joins pair, before any grid cuts
/// them into groups (the grid's groups hold the same boards, by the
/// queens of the next columns).
pub(super) fn task_specs(geo: &Geometry, task: &JoinTask) -> Vec<HalfSpec> {
    if geo.n.is_multiple_of(2) {
        even_specs(geo, task, [1, 1, 1])
            .into_iter()
            .flat_map(|(east, west, _)| [east, west])
            .collect()
    } else {
        let (east, west, _) = odd_join(geo, task);
        east.into_iter()
            .map(|(spec, _)| spec)
            .chain([west])
            .collect()
    }
}

/// The local rows of a half's north and south quadrants.
pub(super) fn quadrant_rows(geo: &Geometry, spec: &HalfSpec) -> [u32; 2] {
    let quadrant = (1u32 << geo.h) - 1;
    [spec.rows & quadrant, (spec.rows >> geo.lo) & quadrant]
}
