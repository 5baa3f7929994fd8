//! The `none` and `mirror` methods: the plain depth-first search of the
//! whole tree, or of its left half counted twice. Their tasks are prefixes
//! of the first rows; each is counted by the vector lanes where the CPU has
//! them, else by the scalar kernel.

use std::sync::atomic::AtomicBool;

use crate::error::Error;
use crate::plan::{estimate_costs, Method, Plan, Root, SplitDepth, Task, TaskKind, COST_ROWS};
use crate::search::board::Board;
use crate::search::kernel::count_completions;
use crate::search::lanes;
use crate::search::method::{CountingMethod, ParallelMap, TaskCount};

/// The plain search, of the whole tree (`none`) or of its left half
/// (`mirror`).
pub(crate) struct PlainMethod {
    /// Whether only the left half of the first row is searched.
    mirrored: bool,
}

/// The `none` method: every first-row square, the full tree.
pub(crate) static NONE: PlainMethod = PlainMethod { mirrored: false };

/// The `mirror` method: the left half of the first row, counted twice.
pub(crate) static MIRROR: PlainMethod = PlainMethod { mirrored: true };

/// The completions below `board`, `weight` times each.
fn count_plain(n: u32, weight: u32, board: Board) -> TaskCount {
    let tally = if lanes::supported() {
        lanes::count_completions(n, board)
    } else {
        count_completions(n, board)
    };
    TaskCount {
        solutions: tally.solutions * u64::from(weight),
        nodes: tally.nodes,
        ..TaskCount::default()
    }
}

/// The mirror method's prefixes: a solution and its left-right reflection are
/// distinct (no solution for N >= 2 is its own mirror image), so only the one
/// whose first-row queen is in the left half is searched, and counted twice.
/// For odd N a first-row queen in the middle column is its own mirror, so the
/// second row's queen decides: left half only, twice.
fn mirror_roots(n: u32) -> (Vec<Root>, u64) {
    if n == 1 {
        let board = Board::EMPTY.place(1);
        return (vec![Root::new(board, 1, TaskKind::Plain, &[0])], 1);
    }
    let mut roots = Vec::new();
    let mut nodes = 0;
    for col in 0..n / 2 {
        nodes += 1;
        let board = Board::EMPTY.place(1 << col);
        roots.push(Root::new(board, 2, TaskKind::Plain, &[col]));
    }
    if n % 2 == 1 {
        let middle = 1u64 << (n / 2);
        let board = Board::EMPTY.place(middle);
        nodes += 1;
        let mut free = board.free(n) & (middle - 1);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            nodes += 1;
            let second = bit.trailing_zeros();
            let columns = [n / 2, second];
            roots.push(Root::new(board.place(bit), 2, TaskKind::Plain, &columns));
        }
    }
    (roots, nodes)
}

impl CountingMethod for PlainMethod {
    fn build_plan(
        &self,
        n: u32,
        split: SplitDepth,
        _memory_limit: Option<u64>,
        _threads: usize,
    ) -> Result<Plan, Error> {
        if self.mirrored {
            let (roots, nodes) = mirror_roots(n);
            Plan::depth_first(n, Method::Mirror, &roots, nodes, split)
        } else {
            let roots = [Root::new(Board::EMPTY, 1, TaskKind::Plain, &[])];
            Plan::depth_first(n, Method::NoSymmetry, &roots, 0, split)
        }
    }

    fn count(&self, n: u32, task: &Task, _stop: Option<&AtomicBool>) -> Option<TaskCount> {
        Some(count_plain(n, task.weight, task.board))
    }

    fn count_below(&self, n: u32, task: &Task, board: Board, _prefix: &[u8]) -> TaskCount {
        count_plain(n, task.weight, board)
    }

    fn offer_costs(&self, plan: &Plan, _map: ParallelMap<'_>, offer: &mut dyn FnMut(u64, f64)) {
        offer_prefix_costs(plan, offer);
    }

    fn cost_meaning(&self) -> String {
        prefix_cost_meaning()
    }
}

/// Offers each task's cost: the queens of the [`COST_ROWS`] rows below it
/// (the depth-first methods').
pub(crate) fn offer_prefix_costs(plan: &Plan, offer: &mut dyn FnMut(u64, f64)) {
    for (id, cost) in estimate_costs(plan, COST_ROWS).into_iter().enumerate() {
        offer(id as u64, cost as f64);
    }
}

/// What [`offer_prefix_costs`] measures.
pub(crate) fn prefix_cost_meaning() -> String {
    format!("queens placed in the {COST_ROWS} rows below the task's prefix")
}
