//! The eight-lane frontier search (`search::lanes`) against the depth-first kernel and the
//! naive search: same solutions and the same nodes, from every kind of start.

use nqueens::boards::construct;
use nqueens::testing::board::force_open_sides;
use nqueens::testing::board::RowBounds;
use nqueens::testing::d4::{self, Subtree};
use nqueens::testing::kernel::count_completions;
use nqueens::testing::lanes::Lanes;
use nqueens::testing::{lanes, naive};
use nqueens::{Board, Method, Plan, SplitDepth, Tally};
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

/// The builds of the frontier search this CPU runs; says so when none.
fn builds_here() -> Vec<Lanes> {
    let builds: Vec<Lanes> = [Lanes::Avx512Popcnt, Lanes::Avx512, Lanes::Avx2]
        .into_iter()
        .filter(|lanes| lanes.runs_here())
        .collect();
    if builds.is_empty() {
        eprintln!("this CPU lacks AVX-512F: the engine uses the kernel, nothing to compare");
    }
    builds
}

/// `lanes::count_completions` with the build `lanes`.
fn lanes_count(lanes: Lanes, n: u32, board: Board) -> Tally {
    lanes::count_bounded_with(lanes, n, board, &RowBounds::unbounded(n))
}

#[test]
fn frontier_equals_the_kernel_on_every_task() {
    for lanes in builds_here() {
        for n in 1..=13u32 {
            for method in [Method::NoSymmetry, Method::Mirror] {
                for depth in 0..=n.min(4) {
                    let plan = Plan::build(n, method, SplitDepth::Rows(depth)).unwrap();
                    for task in plan.tasks.iter() {
                        assert_eq!(
                            lanes_count(lanes, n, task.board),
                            count_completions(n, task.board),
                            "{lanes:?} n={n} {method} depth {depth} task {}",
                            task.id
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn frontier_counts_the_whole_board() {
    for lanes in builds_here() {
        for n in 1..=11u32 {
            let fast = lanes_count(lanes, n, Board::EMPTY);
            let slow = naive::count_completions(n, &[]);
            assert_eq!(fast, slow, "{lanes:?} n={n}");
        }
        // Past the buffers' first fill.
        let fast = lanes_count(lanes, 14, Board::EMPTY);
        assert_eq!(fast, count_completions(14, Board::EMPTY), "{lanes:?}");
    }
    // The dispatched build is one of them.
    if lanes::supported() {
        let best = lanes::best().unwrap();
        assert!(best.runs_here());
        assert_eq!(
            lanes::count_completions(12, Board::EMPTY),
            lanes_count(best, 12, Board::EMPTY)
        );
    }
}

#[test]
fn frontier_equals_the_kernel_on_large_boards() {
    // Rows of up to 32 squares: starts taken from known solutions, a few
    // to nine rows from the bottom, and a random prefix for variety.
    for lanes in builds_here() {
        for n in [16u32, 17, 20, 23, 27, 32] {
            for seed in 0..3u64 {
                let solution = if seed == 0 {
                    construct::explicit_solution(u64::from(n))
                } else {
                    construct::random_solution(u64::from(n), seed)
                }
                .unwrap();
                let columns: Vec<u32> = solution.iter().map(|&col| col as u32).collect();
                for rows_left in 3..=9u32 {
                    let prefix = &columns[..(n - rows_left) as usize];
                    let board = board_of(n, prefix).unwrap();
                    assert_eq!(
                        lanes_count(lanes, n, board),
                        count_completions(n, board),
                        "{lanes:?} n={n} seed {seed} rows left {rows_left}"
                    );
                }
            }
        }
    }
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
    if builds_here().is_empty() {
        return;
    }
    for n in 5..=13u32 {
        for depth in [0, 1, 2, 3, 5] {
            let plan = Plan::build(n, Method::D4, SplitDepth::Rows(depth)).unwrap();
            for task in plan.tasks.iter() {
                let subtree = Subtree {
                    shape: task.kind.d4_shape().unwrap(),
                    board: task.board,
                    prefix: task.prefix_columns(),
                };
                assert_eq!(
                    d4::count_task(n, &subtree),
                    d4::count_task_depth_first(n, &subtree),
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
        prop_assume!(lanes::supported());
        let prefix: Vec<u32> = prefix.into_iter().take(n as usize).map(|col| col % n).collect();
        if let Some(board) = board_of(n, &prefix) {
            for lanes in builds_here() {
                prop_assert_eq!(
                    lanes_count(lanes, n, board),
                    naive::count_completions(n, &prefix),
                    "{:?}", lanes
                );
            }
        }
    }

    #[test]
    fn bounded_frontier_equals_the_naive_search(
        n in 4u32..=12,
        prefix in prop::collection::vec(0u32..12, 0..5),
        holes in prop::collection::vec((0u32..12, 0u32..12), 0..12),
        force_row in 0u32..16,
    ) {
        prop_assume!(lanes::supported());
        let prefix: Vec<u32> = prefix.into_iter().take(n as usize).map(|col| col % n).collect();
        let mut bounds = RowBounds::unbounded(n);
        for (row, col) in holes {
            bounds.allowed[(row % n) as usize] &= !(1u64 << (col % n));
        }
        bounds.force_row = force_row; // past the board for some cases
        if let Some(board) = board_of(n, &prefix) {
            for lanes in builds_here() {
                prop_assert_eq!(
                    lanes::count_bounded_with(lanes, n, board, &bounds),
                    bounded_naive(n, board, &bounds),
                    "{:?}", lanes
                );
            }
        }
    }
}
