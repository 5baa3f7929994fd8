//! The eight-lane frontier search against the depth-first kernel and the
//! naive search: same solutions and the same nodes, from every kind of start.

use nqueens::kernel::{count_completions, full_mask, RowBounds};
use nqueens::plan::force_open_sides;
use nqueens::{d4, frontier, naive, Board, Method, Plan, SplitDepth, Tally, MAX_N};
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

/// Completions of `board` within `bounds`, one square at a time: the naive
/// twin of the bounded searches.
fn bounded_naive(n: u32, board: Board, bounds: &RowBounds) -> Tally {
    if board.row == n {
        return Tally {
            solutions: 1,
            nodes: 0,
        };
    }
    let mut tally = Tally::default();
    for col in 0..n {
        let bit = 1u64 << col;
        let mut open = bounds.allowed[board.row as usize] & board.free(n);
        if board.row == bounds.force_row {
            open = force_open_sides(open, bounds.sides & !board.cols);
        }
        if open & bit != 0 {
            tally.nodes += 1;
            tally += bounded_naive(n, board.place(bit), bounds);
        }
    }
    tally
}

#[test]
fn d4_tasks_count_the_same_in_lanes_and_depth_first() {
    if !frontier_runs_here() {
        return;
    }
    for n in 5..=13u32 {
        for depth in [0, 1, 2, 3, 5] {
            let plan = Plan::build(n, Method::D4, SplitDepth::Rows(depth)).unwrap();
            for task in &plan.tasks {
                assert_eq!(
                    d4::count_task(n, task),
                    d4::count_task_depth_first(n, task),
                    "n={n} depth {depth} task {}",
                    task.id
                );
            }
        }
    }
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

    #[test]
    fn bounded_frontier_equals_the_naive_search(
        n in 4u32..=12,
        prefix in prop::collection::vec(0u32..12, 0..5),
        holes in prop::collection::vec((0u32..12, 0u32..12), 0..12),
        force_row in 0u32..16,
    ) {
        prop_assume!(frontier::supported());
        let prefix: Vec<u32> = prefix.into_iter().take(n as usize).map(|col| col % n).collect();
        let mut bounds = RowBounds::unbounded(n);
        for (row, col) in holes {
            bounds.allowed[(row % n) as usize] &= !(1u64 << (col % n));
        }
        // Rows past the board keep no squares, as in real bounds.
        for row in n..MAX_N {
            bounds.allowed[row as usize] &= full_mask(n);
        }
        bounds.force_row = force_row; // past the board for some cases
        if let Some(board) = board_of(n, &prefix) {
            prop_assert_eq!(
                frontier::count_bounded(n, board, &bounds),
                bounded_naive(n, board, &bounds)
            );
        }
    }
}
