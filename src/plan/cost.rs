//! Cheap estimates of what each task will cost, for `plan`.

use super::{Plan, TaskKind};
use crate::search::board::Board;

/// Rows below a depth-first task's prefix whose queens `plan` takes as the
/// task's cost (its cost spread, and the ranking of `--heaviest`).
pub const COST_ROWS: u32 = 3;

/// A cheap estimate of each task's cost: the queens placed in the next
/// `rows` rows below its prefix (the search's first levels, which are a good
/// proxy for the size of the subtree below them).
///
/// For the methods whose tasks are prefixes searched row by row; a task
/// of any other kind is costed as its empty board's rows would be.
pub fn estimate_costs(plan: &Plan, rows: u32) -> Vec<u64> {
    fn below(n: u32, kind: TaskKind, board: Board, rows: u32) -> u64 {
        if rows == 0 || board.row >= n {
            return 0;
        }
        let mut free = kind.open_squares(n, &board);
        let mut nodes = 0;
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            nodes += 1 + below(n, kind, board.place(bit), rows - 1);
        }
        nodes
    }
    plan.tasks
        .iter()
        .map(|task| below(plan.n, task.kind, task.board, rows))
        .collect()
}
