//! `d4` as a [`CountingMethod`]: its prefixes, and the count of one task
//! with its classes of solutions.

use std::ops::RangeInclusive;
use std::sync::atomic::AtomicBool;

use super::{count_task, Shape, Subtree};
use crate::error::Error;
use crate::plan::{Method, Plan, Root, SplitDepth, Task, TaskKind};
use crate::search::board::{Board, MAX_N};
use crate::search::method::{CountingMethod, ParallelMap, TaskCount};
use crate::search::plain::{offer_prefix_costs, prefix_cost_meaning};

/// Smallest N the `d4` method searches; below it the boards are too small
/// for its edge bounds and `d4` plans fall back to `mirror`.
const D4_MIN_N: u32 = 5;

/// One image per class under the 8 symmetries.
pub(crate) struct D4Method;

impl TaskKind {
    /// The `d4` subtree shape of this kind, if it is one.
    pub fn d4_shape(self) -> Option<Shape> {
        match self {
            TaskKind::D4Corner { second } => Some(Shape::Corner { second }),
            TaskKind::D4Edge { k } => Some(Shape::Edge { k }),
            TaskKind::Plain | TaskKind::Join { .. } => None,
        }
    }
}

/// The `d4` method.
pub(crate) static D4: D4Method = D4Method;

/// The `d4` method's prefixes. Every solution has exactly one image whose
/// top-row queen is the edge queen nearest a corner, in the left half
/// (ties between rotations are settled at the leaf). A corner queen is its
/// own case: one image of each pair mirrored in the corner's diagonal, by
/// the column-1 bound.
fn d4_roots(n: u32) -> (Vec<Root>, u64) {
    let mut roots = Vec::new();
    let corner = Board::EMPTY.place(1);
    let mut nodes = 1;
    // The row-1 queen: column 2 at least (the corner attacks 0 and 1), and
    // at most n-2, since the column-1 queen must lie on a lower row.
    for second in 2..n - 1 {
        let bit = 1u64 << second;
        if corner.free(n) & bit != 0 {
            nodes += 1;
            let kind = TaskKind::D4Corner { second };
            roots.push(Root::new(corner.place(bit), 8, kind, &[0, second]));
        }
    }
    for k in 1..=(n - 1) / 2 {
        nodes += 1;
        let kind = TaskKind::D4Edge { k };
        roots.push(Root::new(Board::EMPTY.place(1 << k), 8, kind, &[k]));
    }
    (roots, nodes)
}

/// Counts the `d4` subtree of `shape` below `board`.
fn count_d4(n: u32, shape: Shape, board: Board, prefix: &[u8]) -> TaskCount {
    let tally = count_task(
        n,
        &Subtree {
            shape,
            board,
            prefix,
        },
    );
    TaskCount {
        solutions: tally.solutions,
        orbits: tally.orbits,
        orbit_sizes: tally.by_orbit_size,
        nodes: tally.nodes,
    }
}

impl CountingMethod for D4Method {
    fn build_plan(
        &self,
        n: u32,
        split: SplitDepth,
        _memory_limit: Option<u64>,
        _threads: usize,
    ) -> Result<Plan, Error> {
        let (roots, nodes) = d4_roots(n);
        Plan::depth_first(n, Method::D4, &roots, nodes, split)
    }

    fn own_range(&self) -> RangeInclusive<u32> {
        D4_MIN_N..=MAX_N
    }

    fn open_squares(&self, kind: TaskKind, n: u32, board: &Board) -> u64 {
        match kind.d4_shape() {
            Some(shape) => shape.open_squares(n, board),
            None => board.free(n),
        }
    }

    fn count(&self, n: u32, task: &Task, _stop: Option<&AtomicBool>) -> Option<TaskCount> {
        Some(self.count_below(n, task, task.board, task.prefix_columns()))
    }

    fn count_below(&self, n: u32, task: &Task, board: Board, prefix: &[u8]) -> TaskCount {
        let shape = task.kind.d4_shape().expect("a d4 plan holds d4 tasks");
        count_d4(n, shape, board, prefix)
    }

    fn offer_costs(&self, plan: &Plan, _map: ParallelMap<'_>, offer: &mut dyn FnMut(u64, f64)) {
        offer_prefix_costs(plan, offer);
    }

    fn cost_meaning(&self) -> String {
        prefix_cost_meaning()
    }

    /// Measured at N = 17 and 18 on one Zen 4 core
    /// (`scripts/compare-reference.sh 17 1 --method d4`: 2.28 s for
    /// 95,815,104 solutions): what a fallback to d4 is priced at.
    fn core_ns_per_solution(&self) -> Option<f64> {
        Some(25.0)
    }

    fn counts_orbits(&self) -> bool {
        true
    }
}
