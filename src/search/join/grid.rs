//! Joins cut by the queens of the columns beside the middle: the grid of
//! stored and query groups, and how many levels each N takes.

use super::geometry::{even_weights, leaves_alone, rows_in, union, Geometry};
use super::specs::{even_join, odd_join, quadrant_rows, task_specs, HalfSpec};
use super::tasks::BESIDE_MIN_N;
use super::JoinTask;

/// Joins by the places of two more queens, one per side of the middle: a
/// stored group per place of the east one (its diagonals, and the stored
/// specs of the boards that hold it, each with its extra key) and a query
/// group per place of the west one (its diagonals, the query spec and the
/// class weights). Every stored group meets every query group whose queen
/// its own leaves alone, each side keeping only the boards that leave the
/// other side's queen alone: a board's key holds every diagonal it shares
/// with a queen across the middle, so that is one AND per board, and each
/// group's boards are made once however many groups they meet.
pub(super) struct Grid {
    pub(super) stored: Vec<StoredGroup>,
    pub(super) queries: Vec<QueryGroup>,
    /// The west column (0 beside the middle) that would cut the query
    /// groups one level deeper, if any: a count cuts a group by it where
    /// the group is large (`Parts::deepen_pairs`).
    pub(super) next_west: Option<u32>,
}

/// A grid's stored group: its queens' diagonals, and its specs, each with
/// its extra key.
pub(super) type StoredGroup = ((u64, u64), Vec<(HalfSpec, u64)>);

/// A grid's query group: its queens' diagonals, its spec and the class
/// weights.
pub(super) type QueryGroup = ((u64, u64), HalfSpec, [u64; 3]);

impl Grid {
    /// One join as a grid of one group a side.
    pub(super) fn of_join(
        stored: Vec<(HalfSpec, u64)>,
        query: HalfSpec,
        weights: [u64; 3],
    ) -> Grid {
        Grid {
            stored: vec![((0, 0), stored)],
            queries: vec![((0, 0), query, weights)],
            next_west: None,
        }
    }

    /// The grid with every group split by the place of its queen in one
    /// more column a side: `east_col` (a board column) and the west
    /// half's column `west_col` (0 beside the middle). A place is kept if
    /// it leaves the spec's forbidden diagonals alone (its fixed queens,
    /// and for east boards of even N the long diagonals); a spec whose
    /// column a fixed queen of its own holds already (the middle row's)
    /// forms a group of its own, as that queen's place. A west queen on a
    /// long diagonal shifts the class weights by one.
    fn deepen(self, geo: &Geometry, east_col: Option<u32>, west_col: Option<u32>) -> Grid {
        let mut stored = Vec::new();
        let Some(east_col) = east_col else {
            return self.deepen_queries(geo, west_col);
        };
        for (queen, specs) in self.stored {
            // By the row of the new queen; `geo.n` for a column held.
            let mut groups: Vec<(u32, Vec<(HalfSpec, u64)>)> = Vec::new();
            let mut group = |row: u32, spec: (HalfSpec, u64)| match groups
                .iter_mut()
                .find(|(r, _)| *r == row)
            {
                Some((_, specs)) => specs.push(spec),
                None => groups.push((row, vec![spec])),
            };
            for (spec, extra) in specs {
                if spec.cols & (1 << east_col) == 0 {
                    group(geo.n, (spec, extra));
                    continue;
                }
                for row in rows_in(geo, spec.rows) {
                    let new = geo.queen_diagonals(row, east_col);
                    if leaves_alone(spec.forbid, new) {
                        let deeper = HalfSpec {
                            rows: spec.rows & !(1 << row),
                            cols: spec.cols & !(1 << east_col),
                            forbid: union(spec.forbid, new),
                            ..spec
                        };
                        group(row, (deeper, extra));
                    }
                }
            }
            groups.sort_by_key(|(row, _)| *row);
            for (row, specs) in groups {
                let new = if row == geo.n {
                    (0, 0)
                } else {
                    geo.queen_diagonals(row, east_col)
                };
                stored.push((union(queen, new), specs));
            }
        }
        Grid {
            stored,
            queries: self.queries,
            next_west: self.next_west,
        }
        .deepen_queries(geo, west_col)
    }

    /// [`Grid::deepen`] of the query groups only.
    fn deepen_queries(self, geo: &Geometry, west_col: Option<u32>) -> Grid {
        let Some(west_col) = west_col else {
            return self;
        };
        let mut queries = Vec::new();
        for (queen, spec, weights) in self.queries {
            for row in rows_in(geo, spec.rows) {
                let new = geo.queen_diagonals(row, geo.lo + west_col);
                if spec.cols & (1 << west_col) == 0 || !leaves_alone(spec.forbid, new) {
                    continue;
                }
                let deeper = HalfSpec {
                    rows: spec.rows & !(1 << row),
                    cols: spec.cols & !(1 << west_col),
                    forbid: union(spec.forbid, new),
                    ..spec
                };
                let weights = if geo.key(new.0, new.1) & spec.class_keys != 0 {
                    [weights[1], weights[2], 0]
                } else {
                    weights
                };
                queries.push((union(queen, new), deeper, weights));
            }
        }
        Grid {
            stored: self.stored,
            queries,
            next_west: self.next_west,
        }
    }

    /// `group` cut by the place of its queen in the west column
    /// `west_col`, as [`Grid::deepen`] cuts every query group.
    pub(super) fn deepen_group(
        geo: &Geometry,
        group: QueryGroup,
        west_col: u32,
    ) -> Vec<QueryGroup> {
        // A column the group's own queens hold cuts nothing.
        if group.1.cols & (1 << west_col) == 0 {
            return vec![group];
        }
        Grid {
            stored: Vec::new(),
            queries: vec![group],
            next_west: None,
        }
        .deepen_queries(geo, Some(west_col))
        .queries
    }

    /// Every spec, in the order the grid's count makes their boards.
    pub(super) fn specs(&self) -> impl Iterator<Item = HalfSpec> + '_ {
        let stored = self
            .stored
            .iter()
            .flat_map(|(_, specs)| specs.iter().map(|(spec, _)| *spec));
        stored.chain(self.queries.iter().map(|(_, spec, _)| *spec))
    }

    /// The pairs of groups that meet, each as the stored specs (forbidden
    /// the query group's queen, without those whose extra key it takes)
    /// and the query spec (forbidden the stored group's queen): the twin
    /// of the grid's count, and its way when a group is too large to hold.
    pub(super) fn pairs<'a>(
        &'a self,
        geo: &'a Geometry,
        queries: &'a [QueryGroup],
    ) -> impl Iterator<Item = (Vec<(HalfSpec, u64)>, HalfSpec, [u64; 3])> + 'a {
        let key = |(d1, d2): (u64, u64)| geo.key(d1, d2);
        queries
            .iter()
            .flat_map(move |(west_queen, query, weights)| {
                self.stored
                    .iter()
                    .filter(move |(east_queen, _)| key(*east_queen) & key(*west_queen) == 0)
                    .map(move |(east_queen, specs)| {
                        let stored = specs
                            .iter()
                            .filter(|(_, extra)| extra & key(*west_queen) == 0)
                            .map(|(spec, extra)| {
                                let forbid = union(spec.forbid, *west_queen);
                                (HalfSpec { forbid, ..*spec }, *extra)
                            })
                            .collect();
                        let forbid = union(query.forbid, *east_queen);
                        (stored, HalfSpec { forbid, ..*query }, *weights)
                    })
            })
    }
}

/// How many columns a side of the middle a join of an `n` board is cut
/// by, counting those whose queens the task fixes (see the module notes
/// and `Grid`): level k is the east half's column h - k and the west
/// half's k-th from the middle; 0 is no grid, the plain joins. Each level
/// leaves a fraction of the pairs to decide, but every group of one side
/// makes its boards from the cells again (the cells of its rows within
/// its open columns), so a level pays only where pairs outweigh making;
/// [`grid_east_levels`] says which levels cut the east side too.
/// Core-ns per solution predicted by `plan N --estimate` on one AVX-512
/// machine (a 2-core Zen 4 or 5 VM; which was not recorded), one sitting,
/// same tasks (levels / east levels): N = 24 (150
/// tasks) 1/1 1.25, 2/1 1.31, 2/2 1.70; N = 25 (150) 1/1 0.90, 2/1 0.93,
/// 2/2 1.35; N = 26 (100) 2/1 0.81, 2/2 0.89, 3/1 1.20, 1/1 1.30 to 1.47
/// (60, two seeds); N = 27 (30) 2/1 0.68, 2/2 0.80, 1/1 1.10; N = 28 (16
/// tasks, core-years) 2/2 59.9, 3/2 75.9, 3/1 77.1, 2/1 90.2. N = 23
/// without a grid: 0.42 s against 0.65 with one level (sampled tasks on
/// the same machine, before the cells were cut to the open columns).
pub(crate) fn grid_levels(n: u32) -> u32 {
    match n {
        26.. => 2,
        BESIDE_MIN_N.. if n.is_multiple_of(2) => 1,
        25.. if !n.is_multiple_of(2) => 1,
        _ => 0,
    }
}

/// How many of [`grid_levels`] also cut the east side; the others cut
/// the west side only (the query groups), which leaves the stored groups
/// larger but made fewer times: at N = 26 and 27 the second level pays on
/// the west side only, at N = 28 on both (figures at [`grid_levels`]).
pub(crate) fn grid_east_levels(n: u32) -> u32 {
    match n {
        28.. => 2,
        _ => grid_levels(n).min(1),
    }
}

/// A task's join as a grid of `levels` (`None`: [`grid_levels`]), the
/// first `east_levels` of them cutting the east side too (see
/// [`Parts::east_levels`]), or `None` for the plain joins.
pub(super) fn task_grid(
    geo: &Geometry,
    task: &JoinTask,
    levels: Option<u32>,
    east_levels: Option<u32>,
) -> Option<Grid> {
    let (levels, east_levels) = match levels {
        Some(levels) => (levels, east_levels.unwrap_or(levels)),
        None => (
            grid_levels(geo.n),
            east_levels.unwrap_or_else(|| grid_east_levels(geo.n)),
        ),
    };
    let even = geo.n.is_multiple_of(2);
    if levels == 0 || (even && task.middle == 0) {
        return None;
    }
    let mut grid = if even {
        let (east, west, weights) = even_join(geo, task, even_weights(task.east_rows, geo.n));
        Grid::of_join(vec![(east, 0)], west, weights)
    } else {
        let (east, west, weight) = odd_join(geo, task);
        Grid::of_join(east, west, [weight, 0, 0])
    };
    for level in 0..levels.min(geo.h) {
        // An even task fixes the east queen of the first level, and from
        // N = 28 the west one.
        let first = level == 0 && even;
        let east = (!first && level < east_levels).then_some(geo.h - 1 - level);
        let west = (!(first && task.west_beside().is_some())).then_some(level);
        grid = grid.deepen(geo, east, west);
    }
    // The next level's west column, where the west half has one.
    grid.next_west = (levels < geo.h).then_some(levels);
    Some(grid)
}

/// The quadrant row sets of every spec of a task (north and south) with
/// the spec's open columns, in the order a count first makes their boards.
pub(super) fn task_row_sets(geo: &Geometry, task: &JoinTask) -> Vec<([u32; 2], u32)> {
    let specs: Vec<HalfSpec> = match task_grid(geo, task, None, None) {
        Some(grid) => grid.specs().collect(),
        None => task_specs(geo, task),
    };
    let mut row_sets: Vec<([u32; 2], u32)> = Vec::new();
    for spec in &specs {
        let rows = (quadrant_rows(geo, spec), spec.cols);
        if !row_sets.contains(&rows) {
            row_sets.push(rows);
        }
    }
    row_sets
}
