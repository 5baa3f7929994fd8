//! The fast kernel against its naive twin, on every prefix of small boards and
//! on random prefixes of larger ones.

use nqueens::testing::kernel::{count_completions, count_completions_portable};
use nqueens::testing::naive;
use nqueens::Board;
use proptest::prelude::*;

/// Every valid prefix of `depth` rows on an `n` board, as column lists.
fn prefixes(n: u32, depth: usize) -> Vec<Vec<u32>> {
    let mut out = vec![Vec::new()];
    for row in 0..depth {
        out = out
            .into_iter()
            .flat_map(|prefix: Vec<u32>| {
                (0..n)
                    .filter(|&col| !naive::is_attacked(&prefix, row, col))
                    .map(|col| {
                        let mut longer = prefix.clone();
                        longer.push(col);
                        longer
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
    }
    out
}

fn board_of(columns: &[u32]) -> Board {
    columns
        .iter()
        .fold(Board::EMPTY, |board, &col| board.place(1 << col))
}

#[test]
fn kernel_equals_naive_on_every_shallow_prefix() {
    for n in 1..=10u32 {
        for depth in 0..=(n as usize).min(3) {
            for prefix in prefixes(n, depth) {
                let expected = naive::count_completions(n, &prefix);
                let board = board_of(&prefix);
                assert_eq!(
                    count_completions(n, board),
                    expected,
                    "n={n} prefix={prefix:?}"
                );
                assert_eq!(
                    count_completions_portable(n, board),
                    expected,
                    "portable n={n} prefix={prefix:?}"
                );
            }
        }
    }
}

#[test]
fn kernel_counts_deep_prefixes_down_to_complete_boards() {
    // Prefixes reaching the last rows exercise the closed-form endings.
    for n in 4..=8u32 {
        for depth in (n as usize).saturating_sub(3)..=n as usize {
            for prefix in prefixes(n, depth) {
                let expected = naive::count_completions(n, &prefix);
                assert_eq!(
                    count_completions(n, board_of(&prefix)),
                    expected,
                    "n={n} prefix={prefix:?}"
                );
            }
        }
    }
}

#[test]
fn empty_board_totals_equal_naive_search() {
    for n in 1..=10u32 {
        let tally = count_completions(n, Board::EMPTY);
        assert_eq!(tally, naive::count_completions(n, &[]), "n={n}");
        assert_eq!(tally.solutions as usize, naive::solutions(n).len(), "n={n}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Random boards of 8..=12 rows with 1..=4 queens placed wherever the
    /// choices land on a free square.
    #[test]
    fn kernel_equals_naive_on_random_prefixes(
        n in 8u32..=12,
        choices in proptest::collection::vec(0u32..64, 1..=4),
    ) {
        let mut prefix: Vec<u32> = Vec::new();
        for choice in choices {
            let row = prefix.len();
            let free: Vec<u32> = (0..n).filter(|&c| !naive::is_attacked(&prefix, row, c)).collect();
            if free.is_empty() {
                break;
            }
            prefix.push(free[choice as usize % free.len()]);
        }
        let expected = naive::count_completions(n, &prefix);
        let board = board_of(&prefix);
        prop_assert_eq!(count_completions(n, board), expected);
        prop_assert_eq!(count_completions_portable(n, board), expected);
    }
}
