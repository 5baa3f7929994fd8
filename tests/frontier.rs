//! The eight-lane frontier search against the depth-first kernel and the
//! naive search: same solutions and the same nodes, from every kind of start.

use nqueens::kernel::count_completions;
use nqueens::{frontier, naive, Board, Method, Plan, SplitDepth};
use proptest::prelude::*;

/// The board after placing `columns` on the first rows, if no two attack.
fn board_of(n: u32, columns: &[u32]) -> Option<Board> {
    let mut board = Board::EMPTY;
    for &col in columns {
        let bit = 1u64 << col;
        if board.free(n) & bit == 0 {
            return None;
        }
        board = board.place(bit);
    }
    Some(board)
}

/// Whether this CPU runs the frontier search; says so when it does not.
fn frontier_runs_here() -> bool {
    let supported = frontier::supported();
    if !supported {
        eprintln!(
            "this CPU lacks AVX-512F/VPOPCNTDQ: the engine uses the kernel, nothing to compare"
        );
    }
    supported
}

#[test]
fn frontier_equals_the_kernel_on_every_task() {
    if !frontier_runs_here() {
        return;
    }
    for n in 1..=13u32 {
        for method in [Method::None, Method::Mirror] {
            for depth in 0..=n.min(4) {
                let plan = Plan::build(n, method, SplitDepth::Rows(depth)).unwrap();
                for task in &plan.tasks {
                    assert_eq!(
                        frontier::count_completions(n, task.board),
                        count_completions(n, task.board),
                        "n={n} {method} depth {depth} task {}",
                        task.id
                    );
                }
            }
        }
    }
}

#[test]
fn frontier_counts_the_whole_board() {
    if !frontier_runs_here() {
        return;
    }
    for n in 1..=11u32 {
        let fast = frontier::count_completions(n, Board::EMPTY);
        let slow = naive::count_completions(n, &[]);
        assert_eq!(fast, slow, "n={n}");
    }
    // Past the buffers' first fill and with a start deep in the board.
    let fast = frontier::count_completions(14, Board::EMPTY);
    assert_eq!(fast, count_completions(14, Board::EMPTY));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn frontier_equals_the_naive_search_from_random_prefixes(
        n in 4u32..=12,
        prefix in prop::collection::vec(0u32..12, 0..8),
    ) {
        prop_assume!(frontier::supported());
        let prefix: Vec<u32> = prefix.into_iter().take(n as usize).map(|col| col % n).collect();
        if let Some(board) = board_of(n, &prefix) {
            prop_assert_eq!(
                frontier::count_completions(n, board),
                naive::count_completions(n, &prefix)
            );
        }
    }
}
