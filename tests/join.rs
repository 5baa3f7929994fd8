//! The `join` method against the depth-first methods and the published
//! table, its tasks under threads and shards, its matcher against the naive
//! double loop, and its memory guard.

use nqueens::plan::{effective_method, join_fits};
use nqueens::search::join::{
    choose_cuts, count_disjoint_naive, transpose64, transpose64_naive, Matcher, SplitMatcher,
    BLOCK_KEYS,
};
use nqueens::{count, published};
use nqueens::{CountOptions, Error, Method, Plan, SplitDepth, TaskKind};
use proptest::prelude::*;

mod common;

fn options(method: Method, threads: usize) -> CountOptions {
    common::options(method, threads, SplitDepth::Auto)
}

#[test]
fn join_equals_the_depth_first_methods_up_to_15() {
    for n in nqueens::search::join::JOIN_MIN_N..=15 {
        let join = count(n, &options(Method::Join, 2)).unwrap();
        assert_eq!(join.method, Method::Join, "n={n}");
        for method in Method::DEPTH_FIRST {
            // The full tree is slow at 15 and adds nothing there.
            if method == Method::None && n == 15 {
                continue;
            }
            let other = count(n, &options(method, 2)).unwrap();
            assert_eq!(join.solutions, other.solutions, "n={n} join vs {method}");
        }
        assert_eq!(Some(join.solutions), published::total(n), "n={n}");
        assert_eq!(join.unique, published::unique(n), "n={n}");
    }
}

#[test]
fn small_boards_fall_back_to_mirror() {
    for n in 1..nqueens::search::join::JOIN_MIN_N {
        assert_eq!(effective_method(n, Method::Join), Method::Mirror);
        let report = count(n, &options(Method::Join, 1)).unwrap();
        assert_eq!(Some(report.solutions), published::total(n), "n={n}");
    }
}

#[test]
fn thread_counts_do_not_change_the_count() {
    for n in [12u32, 13] {
        let counts: Vec<_> = [1, 2, 3, 5]
            .into_iter()
            .map(|threads| count(n, &options(Method::Join, threads)).unwrap())
            .collect();
        for report in &counts {
            assert_eq!(report.solutions, counts[0].solutions, "n={n}");
            assert_eq!(report.nodes, counts[0].nodes, "n={n}");
            assert_eq!(Some(report.solutions), published::total(n));
        }
    }
}

#[test]
fn shards_of_the_plan_add_up_to_the_total() {
    for n in [12u32, 13, 14] {
        let opts = options(Method::Join, 2);
        let total = count(n, &opts).unwrap().solutions;
        for shards in [2u64, 3, 7] {
            let sum: u128 = (0..shards)
                .map(|index| common::shard_solutions(n, &opts, shards, index))
                .sum();
            assert_eq!(sum, total, "n={n} shards={shards}");
        }
    }
}

#[test]
fn sixteen_and_seventeen_match_the_published_table() {
    for n in [16u32, 17] {
        let report = count(n, &options(Method::Join, 2)).unwrap();
        assert_eq!(Some(report.solutions), published::total(n), "n={n}");
        assert_eq!(report.matches_published(), Some(true));
        assert_eq!(report.unique_matches_published(), Some(true));
    }
}

#[test]
fn plans_are_stable_one_task_per_row_set() {
    for n in [12u32, 13] {
        let a = Plan::build(n, Method::Join, SplitDepth::Auto).unwrap();
        let b = Plan::build(n, Method::Join, SplitDepth::Rows(3)).unwrap();
        assert_eq!(a.tasks, b.tasks, "the split depth does not apply to join");
        assert_eq!(a.fingerprint(), b.fingerprint());
        assert!(a.memory_bytes > 0);
        let mut seen = std::collections::HashSet::new();
        for (index, task) in a.tasks.iter().enumerate() {
            assert_eq!(task.id, index as u64);
            let TaskKind::Join { east_rows, middle } = task.kind else {
                panic!("not a join task: {task:?}");
            };
            assert!(seen.insert((east_rows, middle)), "task repeated");
            let h = n / 2;
            let queens = if n % 2 == 1 && middle > 0 { h - 1 } else { h };
            assert_eq!(east_rows.count_ones(), queens);
            assert!(east_rows < 1 << n);
        }
    }
    // Even N: a row set and its north-south reverse are one task.
    let even = Plan::build(12, Method::Join, SplitDepth::Auto).unwrap();
    assert!(even.tasks.len() < 924 / 2 + 32);
    let odd = Plan::build(13, Method::Join, SplitDepth::Auto).unwrap();
    assert_ne!(even.fingerprint(), odd.fingerprint());
}

#[test]
fn the_memory_guard_refuses_with_the_figure() {
    let err = Plan::build_within(16, Method::Join, SplitDepth::Auto, Some(1000)).unwrap_err();
    let Error::JoinTooBig { n, needed, limit } = err.clone() else {
        panic!("expected JoinTooBig, got {err}");
    };
    assert_eq!((n, limit), (16, 1000));
    assert_eq!(needed, nqueens::search::join::memory_needed(16));
    for n in 4..=20 {
        assert!(
            nqueens::search::join::memory_bound(n) >= nqueens::search::join::memory_needed(n),
            "n={n}"
        );
    }
    assert!(join_fits(16, None).unwrap() >= needed);
    let message = err.to_string();
    assert!(message.contains("count with d4"), "{message}");
    assert!(!message.contains('\n'));
    // auto takes d4 instead when join does not fit, and join when it does.
    let auto = Plan::build_within(16, Method::Auto, SplitDepth::Auto, Some(1000)).unwrap();
    assert_eq!(auto.method, Method::D4);
    let roomy = Plan::build_within(16, Method::Auto, SplitDepth::Auto, Some(1 << 30)).unwrap();
    assert_eq!(roomy.method, Method::Join);
    let tight = options(Method::Auto, 2).with_memory_limit(Some(1000));
    let report = count(13, &tight).unwrap();
    assert_eq!(report.method, Method::D4);
    assert_eq!(Some(report.solutions), published::total(13));
}

#[test]
fn boards_past_the_join_range_are_refused() {
    let max = nqueens::search::join::JOIN_MAX_N;
    let err = Plan::build(max + 1, Method::Join, SplitDepth::Auto).unwrap_err();
    assert!(matches!(err, Error::JoinTooLarge { .. }), "{err}");
    assert_eq!(effective_method(max + 1, Method::Auto), Method::D4);
}

fn sum_naive(keys: &[u64], queries: &[u64], extra: u64) -> u64 {
    queries
        .iter()
        .map(|&query| count_disjoint_naive(keys, query | extra))
        .sum()
}

/// Sparse pseudo-random keys, like half boards' (a few diagonals set of
/// ~30), from a seed.
fn sparse_keys(seed: u64, width: u32, len: usize) -> Vec<u64> {
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..len).map(|_| next() & next() & mask).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn matcher_equals_the_double_loop(
        width in 1u32..=64,
        len in prop::sample::select(vec![0usize, 1, 2, 47, 48, 63, 64, 65, 300, 511, 512, 513, 1100]),
        query_count in 0usize..100,
        seed in any::<u64>(),
        extra in any::<u64>(),
        use_extra in any::<bool>(),
    ) {
        let keys = sparse_keys(seed, width, len);
        let queries = sparse_keys(seed.rotate_left(17) ^ 0x9e37, width, query_count);
        let extra = if use_extra { extra & extra.rotate_left(7) } else { 0 };
        let mut matcher = Matcher::default();
        matcher.load(&keys);
        let expected = sum_naive(&keys, &queries, extra);
        prop_assert_eq!(matcher.sum_disjoint(&queries, extra), expected);
        prop_assert_eq!(matcher.sum_disjoint_portable(&queries, extra), expected);
        for &query in queries.iter().take(5) {
            prop_assert_eq!(matcher.count_disjoint(query), count_disjoint_naive(&keys, query));
        }
    }

    #[test]
    fn split_matcher_equals_the_double_loop(
        width in 1u32..=64,
        len in prop::sample::select(vec![0usize, 1, 5, 48, 200, 513, 1100, 2500]),
        query_count in 0usize..120,
        seed in any::<u64>(),
        extra in any::<u64>(),
        use_extra in any::<bool>(),
        leaf_min in prop::sample::select(vec![1usize, 3, 16, 64, 512]),
        cut_count in 0usize..=12,
        chosen in any::<bool>(),
    ) {
        let keys = sparse_keys(seed, width, len);
        let queries = sparse_keys(seed.rotate_left(23) ^ 0x51ed, width, query_count);
        let extra = if use_extra { extra & extra.rotate_left(11) } else { 0 };
        // Cuts as the join picks them, or any bits at all (also bits no
        // key uses, and the same bit twice).
        let cuts: Vec<u64> = if chosen {
            choose_cuts(&keys, &queries, cut_count)
        } else {
            (0..cut_count as u64).map(|i| 1u64 << ((seed >> (i * 5)) % 64)).collect()
        };
        let mut split = SplitMatcher::default();
        split.load(&keys, &cuts, leaf_min);
        let expected = sum_naive(&keys, &queries, extra);
        prop_assert_eq!(split.sum_disjoint(&queries, extra), expected);
        // Queried again, and reloaded with other keys, it still agrees.
        prop_assert_eq!(split.sum_disjoint(&queries, 0), sum_naive(&keys, &queries, 0));
        let others = sparse_keys(!seed, width, len / 2);
        split.load(&others, &cuts, leaf_min);
        prop_assert_eq!(split.sum_disjoint(&queries, extra), sum_naive(&others, &queries, extra));
    }

    #[test]
    fn transpose_twice_is_the_identity_and_equals_the_naive_one(
        rows in prop::collection::vec(any::<u64>(), 64),
    ) {
        let rows: [u64; 64] = rows.try_into().unwrap();
        let once = transpose64(rows);
        prop_assert_eq!(once, transpose64_naive(&rows));
        prop_assert_eq!(transpose64(once), rows);
    }
}

#[test]
fn matcher_edge_cases() {
    let mut matcher = Matcher::default();
    // Empty set: nothing matches.
    matcher.load(&[]);
    assert_eq!(matcher.sum_disjoint(&[0, 1, u64::MAX], 0), 0);
    // One key.
    matcher.load(&[0b1010]);
    assert_eq!(matcher.count_disjoint(0b0101), 1);
    assert_eq!(matcher.count_disjoint(0b0010), 0);
    // All-ones keys meet every query but the empty one; zero keys none.
    for len in [1, 100, BLOCK_KEYS, BLOCK_KEYS + 1, 3 * BLOCK_KEYS - 5] {
        matcher.load(&vec![u64::MAX; len]);
        assert_eq!(matcher.count_disjoint(0), len as u64);
        assert_eq!(matcher.count_disjoint(1 << 63), 0);
        matcher.load(&vec![0; len]);
        assert_eq!(matcher.sum_disjoint(&[u64::MAX, 0, 5], 0), 3 * len as u64);
    }
    // Reloading replaces the old keys.
    matcher.load(&vec![1; 1000]);
    matcher.load(&vec![2; 600]);
    assert_eq!(matcher.count_disjoint(1), 600);
    assert_eq!(matcher.count_disjoint(2), 0);
}

#[test]
fn the_split_cuts_the_keys_it_can() {
    // Keys 0..4096: bit 0 splits them in halves, bit 1 again; with parts
    // of at least 1000 keys the split stops at four leaves.
    let keys: Vec<u64> = (0..4096).collect();
    let mut split = SplitMatcher::default();
    split.load(&keys, &[1, 2, 4], 1000);
    assert_eq!(split.leaf_count(), 4);
    // Query 3 takes bits 0 and 1: only keys leaving both free pair with it.
    assert_eq!(split.sum_disjoint(&[3], 0), 4096 / 4);
    // The bits both sides take most often are cut first; a bit no query
    // takes is never cut.
    let stored = [0b111u64, 0b011, 0b001, 0b101];
    let queries = [0b001u64, 0b011, 0b001];
    assert_eq!(choose_cuts(&stored, &queries, 5), vec![0b001, 0b010]);
}

/// Every non-attacking placement on a `side` square, as (rows, cols,
/// diagonals) in the table's bit layout, by brute force over all subsets of
/// squares.
fn placements_by_brute_force(side: u32) -> Vec<(u32, u32, u64)> {
    let squares = side * side;
    let mut found = Vec::new();
    for subset in 0u64..1 << squares {
        let (mut rows, mut cols, mut diag, mut clash) = (0u32, 0u32, 0u64, false);
        for square in (0..squares).filter(|square| subset >> square & 1 == 1) {
            let (row, col) = (square / side, square % side);
            let d1 = 1u64 << (row + side - 1 - col);
            let d2 = 1u64 << (32 + row + col);
            clash |= rows & 1 << row != 0 || cols & 1 << col != 0 || diag & (d1 | d2) != 0;
            rows |= 1 << row;
            cols |= 1 << col;
            diag |= d1 | d2;
        }
        if !clash {
            found.push((rows, cols, diag));
        }
    }
    found
}

#[test]
fn the_table_holds_every_placement_once_whatever_the_threads() {
    for side in 1..=4 {
        let expected = placements_by_brute_force(side);
        let mut layouts = Vec::new();
        for threads in [1, 3] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let table = pool.install(|| nqueens::search::join::QuadrantTable::build(side));
            assert_eq!(table.placements(), expected.len(), "side {side}");
            let mut layout = Vec::new();
            for rows in 0..1u32 << side {
                for cols in 0..1u32 << side {
                    let mut cell = table.cell(rows, cols).to_vec();
                    let mut want: Vec<u64> = expected
                        .iter()
                        .filter(|&&(r, c, _)| (r, c) == (rows, cols))
                        .map(|&(_, _, diag)| diag)
                        .collect();
                    layout.push(cell.clone());
                    cell.sort_unstable();
                    want.sort_unstable();
                    assert_eq!(cell, want, "side {side}, cell {rows:b}/{cols:b}");
                }
            }
            layouts.push(layout);
        }
        assert_eq!(
            layouts[0], layouts[1],
            "side {side}: layout depends on threads"
        );
    }
    assert_eq!(
        nqueens::search::join::count_placements(5),
        nqueens::search::join::QuadrantTable::build(5).placements() as u64
    );
}
