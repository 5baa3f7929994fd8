//! The `join` method against the depth-first methods and the published
//! table, its tasks (cut, in grids, in parts, row by row) under threads
//! and shards, and its memory guard.

use nqueens::plan::effective_method;
use nqueens::{count, published};
use nqueens::{CountOptions, Error, Method, Plan, SplitDepth, TaskKind};

use crate::common;

fn options(method: Method, threads: usize) -> CountOptions {
    common::options(method, threads, SplitDepth::Auto)
}

#[test]
fn join_equals_the_depth_first_methods_up_to_15() {
    for n in nqueens::testing::join::JOIN_MIN_N..=15 {
        let join = count(n, &options(Method::Join, 2)).unwrap();
        assert_eq!(join.method, Method::Join, "n={n}");
        for method in Method::DEPTH_FIRST {
            // The full tree is slow at 15 and adds nothing there.
            if method == Method::NoSymmetry && n == 15 {
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
    for n in 1..nqueens::testing::join::JOIN_MIN_N {
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
    let err = Plan::build_within(16, Method::Join, SplitDepth::Auto, Some(1000), 2).unwrap_err();
    let Error::TooBig {
        method,
        n,
        needed,
        limit,
        instead,
    } = err.clone()
    else {
        panic!("expected TooBig, got {err}");
    };
    assert_eq!((method, n, limit, instead), ("join", 16, 1000, "d4"));
    let plan = Plan::build_within(16, Method::Join, SplitDepth::Auto, None, 2).unwrap();
    assert_eq!(needed, plan.peak_memory());
    assert_eq!(
        plan.memory_bytes,
        nqueens::testing::join::memory_needed(16, 2)
    );
    assert!(Plan::check_memory(16, Method::Join, None, 2).unwrap() < needed);
    let message = err.to_string();
    assert!(message.contains("with d4"), "{message}");
    assert!(!message.contains('\n'));
    // auto takes d4 instead when join does not fit, and join when it does.
    let auto = Plan::build_within(16, Method::Auto, SplitDepth::Auto, Some(1000), 1).unwrap();
    assert_eq!(auto.method, Method::D4);
    let roomy = Plan::build_within(16, Method::Auto, SplitDepth::Auto, Some(1 << 30), 1).unwrap();
    assert_eq!(roomy.method, Method::Join);
    let tight = options(Method::Auto, 2).with_memory_limit(Some(1000));
    let report = count(13, &tight).unwrap();
    assert_eq!(report.method, Method::D4);
    assert_eq!(Some(report.solutions), published::total(13));
}

#[test]
fn boards_past_the_join_range_are_refused() {
    let max = nqueens::testing::join::JOIN_MAX_N;
    let err = Plan::build(max + 1, Method::Join, SplitDepth::Auto).unwrap_err();
    let expected = Error::TooLarge {
        method: "join",
        n: max + 1,
        max,
        instead: "d4",
    };
    assert_eq!(err, expected);
    assert_eq!(
        err.to_string(),
        format!(
            "the join method counts N up to {max}, not {}: count larger boards with d4",
            max + 1
        )
    );
    assert_eq!(effective_method(max + 1, Method::Auto), Method::D4);
}

#[test]
fn task_lists_worked_out_from_positions_equal_the_listed_tasks() {
    use nqueens::testing::join::{tasks, tasks_cut, EvenCut, JoinTasks};
    for n in 4..=19 {
        let listed = tasks(n);
        let compact = JoinTasks::new(n);
        assert_eq!(compact.len(), listed.len() as u64, "n={n}");
        for (index, task) in listed.iter().enumerate() {
            assert_eq!(compact.get(index as u64), *task, "n={n} task {index}");
        }
        assert!(compact.iter().eq(listed.iter().copied()), "n={n}");
    }
    // Even N cut by the queens beside the middle line, at any N.
    for n in (4..=18).step_by(2) {
        let whole = tasks_cut(n, EvenCut::RowSet);
        for cut in [EvenCut::EastQueen, EvenCut::BothQueens] {
            let listed = tasks_cut(n, cut);
            let compact = JoinTasks::cut(n, cut);
            assert_eq!(compact.len(), listed.len() as u64, "n={n} {cut:?}");
            // Every position unranked to N = 16, one in 101 at 18 (all of
            // them took 20 s of a Zen 3 core); the walk below takes all.
            let stride = if n <= 16 { 1 } else { 101 };
            for (index, task) in listed.iter().enumerate().step_by(stride) {
                assert_eq!(compact.get(index as u64), *task, "n={n} {cut:?} {index}");
            }
            assert!(compact.iter().eq(listed.iter().copied()), "n={n} {cut:?}");
        }
        // Each row set is cut into one task per row of it but the two
        // beside the middle whose square is on a long diagonal, then per
        // west row not next to it.
        let h = n / 2;
        let east_places = |rows: u32| rows & !(0b11 << (h - 1));
        let places: usize = whole
            .iter()
            .map(|task| east_places(task.east_rows).count_ones() as usize)
            .sum();
        assert_eq!(tasks_cut(n, EvenCut::EastQueen).len(), places, "n={n}");
        let pairs: usize = whole
            .iter()
            .map(|task| {
                let west = !task.east_rows & ((1 << n) - 1);
                (0..n)
                    .filter(|&east| east_places(task.east_rows) & (1 << east) != 0)
                    .map(|east| {
                        (0..n)
                            .filter(|&row| west & (1 << row) != 0 && row.abs_diff(east) != 1)
                            .count()
                    })
                    .sum::<usize>()
            })
            .sum();
        assert_eq!(tasks_cut(n, EvenCut::BothQueens).len(), pairs, "n={n}");
    }
    // Large boards: sizes only (the lists are what plans of N = 28 hold).
    assert_eq!(JoinTasks::cut(24, EvenCut::RowSet).len(), 1_352_540);
    assert_eq!(JoinTasks::cut(24, EvenCut::RowSet).bytes(), 4 * 1_352_540);
    let cut = JoinTasks::new(24);
    assert_eq!(cut, JoinTasks::cut(24, EvenCut::EastQueen));
    assert!(cut.len() > 10 * 1_352_540, "N = 24 is cut: {}", cut.len());
    assert!(cut.bytes() < 5 * 1_352_540, "{}", cut.bytes());
    let both = JoinTasks::cut(24, EvenCut::BothQueens);
    assert!(both.len() > 9 * cut.len(), "{}", both.len());
    // Spot checks of unranking against the walk, far into the list.
    for index in [0, 1, both.len() / 3, both.len() - 1] {
        assert_eq!(
            both.get(index),
            both.iter().nth(index as usize).unwrap(),
            "{index}"
        );
    }
}

#[test]
fn tasks_cut_beside_the_middle_add_up_to_their_row_sets() {
    use nqueens::testing::join::{
        count_task, count_task_in_parts, tasks_cut, EvenCut, JoinTask, Parts,
    };
    let tiny = Parts {
        stored_keys: 7,
        query_keys: 3,
        whole_placements: 0,
        ..Parts::DEFAULT
    };
    for n in (6..=16).step_by(2) {
        for cut in [EvenCut::EastQueen, EvenCut::BothQueens] {
            let tasks = tasks_cut(n, cut);
            let mut total = 0u128;
            for whole in tasks_cut(n, EvenCut::RowSet) {
                let mut sum = 0;
                for task in tasks
                    .iter()
                    .filter(|task| task.east_rows == whole.east_rows)
                {
                    let tally = count_task(n, task);
                    sum += tally.solutions;
                    // Small parts and row sets made cell by cell count alike.
                    if n <= 10 {
                        assert_eq!(count_task_in_parts(n, task, tiny), tally, "n={n} {task:?}");
                    }
                }
                let expected = count_task(n, &JoinTask { middle: 0, ..whole });
                assert_eq!(sum, expected.solutions, "n={n} {cut:?} {whole:?}");
                total += u128::from(sum);
            }
            assert_eq!(Some(total), published::total(n), "n={n} {cut:?}");
        }
    }
}

#[test]
fn joins_cut_into_grids_count_alike() {
    use nqueens::testing::join::{count_task_in_parts, tasks_cut, EvenCut, Parts};
    let plain = Parts {
        levels: Some(0),
        ..Parts::DEFAULT
    };
    for n in 5..=16u32 {
        // Every task to N = 15, their sum against the tables; at N = 16 an
        // eighth of them, each against the plain join (all of them took
        // 49 of the test's 59 s on a Zen 3 core).
        let every = n <= 15;
        let cuts: &[EvenCut] = if n % 2 == 1 {
            &[EvenCut::RowSet]
        } else {
            &[EvenCut::EastQueen, EvenCut::BothQueens]
        };
        for &cut in cuts {
            // A third level a side only where every task is quick.
            let most = if n <= 12 { 3 } else { 2 };
            // Every level cutting both sides, and (up to N = 14) only the
            // first cutting the east side, as N = 26 and 27 count.
            let shapes = (1..=most).flat_map(|levels| {
                let west_only = (levels > 1 && n <= 14).then_some((levels, 1));
                [(levels, levels)].into_iter().chain(west_only)
            });
            for (levels, east_levels) in shapes {
                let grid = Parts {
                    levels: Some(levels),
                    east_levels: Some(east_levels),
                    ..Parts::DEFAULT
                };
                // Small parts, row sets made cell by cell, and groups too
                // large to hold (joined pair by pair).
                let tiny = Parts {
                    stored_keys: 7,
                    query_keys: 3,
                    whole_placements: 0,
                    ..grid
                };
                let pairwise = Parts {
                    held_keys: 1,
                    ..grid
                };
                let mut total = 0u128;
                for (index, task) in tasks_cut(n, cut).iter().enumerate() {
                    if !every && index % 8 != 0 {
                        continue;
                    }
                    let counted = count_task_in_parts(n, task, grid);
                    if n < 14 || index % 13 == 0 || !every {
                        let expected = count_task_in_parts(n, task, plain);
                        assert_eq!(
                            counted.solutions, expected.solutions,
                            "n={n} {levels}/{east_levels} {task:?}"
                        );
                    }
                    if n <= 10 {
                        assert_eq!(
                            count_task_in_parts(n, task, tiny),
                            counted,
                            "n={n} {task:?}"
                        );
                        let by_pairs = count_task_in_parts(n, task, pairwise);
                        assert_eq!(by_pairs.solutions, counted.solutions, "n={n} {task:?}");
                        // Query groups met one at a time, and three held
                        // together whatever their size (in small parts
                        // too): the same solutions and pairs.
                        for groups in [
                            Parts {
                                groups_a_pass: 1,
                                ..grid
                            },
                            Parts {
                                groups_a_pass: 3,
                                groups_share: 0,
                                ..grid
                            },
                            Parts {
                                groups_a_pass: 3,
                                groups_share: 0,
                                ..tiny
                            },
                        ] {
                            assert_eq!(
                                count_task_in_parts(n, task, groups),
                                counted,
                                "n={n} {task:?} {groups:?}"
                            );
                        }
                        // Query groups cut by one more west column: every
                        // group, and those past a few keys.
                        for deepen_pairs in [0, 5] {
                            let deeper = Parts {
                                deepen_pairs,
                                ..grid
                            };
                            let by_deeper = count_task_in_parts(n, task, deeper);
                            assert_eq!(
                                by_deeper.solutions, counted.solutions,
                                "n={n} {levels}/{east_levels} deepen past {deepen_pairs} {task:?}"
                            );
                        }
                    }
                    total += u128::from(counted.solutions);
                }
                if every {
                    assert_eq!(
                        Some(total),
                        published::total(n),
                        "n={n} {cut:?} {levels}/{east_levels}"
                    );
                }
            }
        }
    }
}

#[test]
fn query_groups_cut_deeper_count_alike_and_decide_fewer_pairs() {
    // Every query group cut by one more west column meets the stored
    // groups in smaller pieces: the same solutions, fewer pairs decided.
    use nqueens::testing::join::{count_task_in_parts, tasks_cut, EvenCut, Parts};
    for (n, cut) in [
        (10u32, EvenCut::EastQueen),
        (11, EvenCut::RowSet),
        (12, EvenCut::EastQueen),
    ] {
        let grid = Parts {
            levels: Some(1),
            east_levels: Some(1),
            ..Parts::DEFAULT
        };
        let deeper = Parts {
            deepen_pairs: 0,
            ..grid
        };
        let (mut solutions, mut pairs) = ([0u128; 2], [0u64; 2]);
        for task in tasks_cut(n, cut) {
            for (side, parts) in [grid, deeper].into_iter().enumerate() {
                let tally = count_task_in_parts(n, &task, parts);
                solutions[side] += u128::from(tally.solutions);
                pairs[side] += tally.pairs;
            }
        }
        assert_eq!(Some(solutions[0]), published::total(n), "n={n}");
        assert_eq!(solutions[1], solutions[0], "n={n}");
        assert!(
            pairs[1] < pairs[0],
            "n={n}: {pairs:?} pairs, cut deeper last"
        );
    }
}

#[test]
fn large_boards_count_alike_in_every_grid_shape() {
    // N = 24 and 26 as counts take them (cells cut to each group's open
    // columns, a thread's cache; at 26 two levels, the second on the west
    // side only) against one level a side and against two on both sides:
    // tasks a third and two thirds into the plan.
    use nqueens::testing::join::{count_task, count_task_in_parts, JoinTasks, Parts};
    for n in [24u32, 26] {
        let tasks = JoinTasks::new(n);
        for index in [tasks.len() / 3, 2 * tasks.len() / 3] {
            let task = tasks.get(index);
            let counted = count_task(n, &task).solutions;
            for (levels, east_levels) in [(1, 1), (2, 2)] {
                let parts = Parts {
                    levels: Some(levels),
                    east_levels: Some(east_levels),
                    ..Parts::DEFAULT
                };
                let other = count_task_in_parts(n, &task, parts).solutions;
                assert_eq!(counted, other, "n={n} task {index} {levels}/{east_levels}");
            }
            assert!(counted > 0, "n={n} task {index}");
        }
    }
}

#[test]
fn a_sample_of_cut_row_sets_of_eighteen_and_twenty_add_up() {
    use nqueens::testing::join::{count_task, tasks_cut, EvenCut, JoinTask};
    for n in [18u32, 20] {
        let whole = tasks_cut(n, EvenCut::RowSet);
        for cut in [EvenCut::EastQueen, EvenCut::BothQueens] {
            let tasks = tasks_cut(n, cut);
            // Every 997th row set: spread over the plan.
            for row_set in whole.iter().step_by(997) {
                let sum: u64 = tasks
                    .iter()
                    .filter(|task| task.east_rows == row_set.east_rows)
                    .map(|task| count_task(n, task).solutions)
                    .sum();
                let expected = count_task(
                    n,
                    &JoinTask {
                        middle: 0,
                        ..*row_set
                    },
                );
                assert_eq!(sum, expected.solutions, "n={n} {cut:?} {row_set:?}");
            }
        }
    }
}

#[test]
fn plain_joins_count_alike_with_their_query_batches_stored() {
    // A plain join (no grid) may store a query batch larger than its part
    // and query it with the part (`swap_min_keys`; counts swap only
    // batches of thousands of keys, so here every size swaps): each task
    // of N = 5 to 15 counts alike swapped and not, with whole parts and
    // with small ones, and the swaps do run (the leaves' work differs).
    use nqueens::testing::disjoint::take_leaf_work;
    use nqueens::testing::join::{count_task_in_parts, tasks, Parts};
    let mut swapped_somewhere = false;
    for n in 5..=15 {
        for (stored_keys, query_keys) in [
            (Parts::DEFAULT.stored_keys, Parts::DEFAULT.query_keys),
            (64, 48),
        ] {
            let never = Parts {
                stored_keys,
                query_keys,
                levels: Some(0),
                swap_min_keys: usize::MAX,
                ..Parts::DEFAULT
            };
            let always = Parts {
                swap_min_keys: 0,
                ..never
            };
            for task in tasks(n) {
                take_leaf_work();
                let plain = count_task_in_parts(n, &task, never);
                let plain_work = take_leaf_work();
                let swapped = count_task_in_parts(n, &task, always);
                let swapped_work = take_leaf_work();
                assert_eq!(swapped, plain, "n={n} {task:?} {stored_keys}/{query_keys}");
                swapped_somewhere |= swapped_work != plain_work;
            }
        }
    }
    assert!(swapped_somewhere, "no batch was stored in its part's place");
}

#[test]
fn counts_do_not_depend_on_the_parts_a_task_is_joined_in() {
    use nqueens::testing::join::{count_task, count_task_in_parts, tasks, Parts};
    // Row sets held whole or not (0: every cell made when asked for).
    let tiny = [(1, 1, 0), (7, 3, u64::MAX), (100, 1000, 10), (5000, 50, 0)];
    for n in 8..=15 {
        for task in tasks(n) {
            let whole = count_task(n, &task);
            for (stored_keys, query_keys, whole_placements) in tiny {
                let parts = Parts {
                    stored_keys,
                    query_keys,
                    whole_placements,
                    ..Parts::DEFAULT
                };
                assert_eq!(
                    count_task_in_parts(n, &task, parts),
                    whole,
                    "n={n} {task:?} {parts:?}"
                );
            }
        }
    }
}

#[test]
fn a_thread_stays_within_the_memory_the_plan_reports() {
    use nqueens::testing::join::{
        count_task, thread_bound, thread_bytes, thread_scratch_parts, JoinTasks,
    };
    // Shared cells up to N = 23, a thread's cache and grids from 24 (even
    // and odd).
    for n in [16u32, 19, 20, 24, 25] {
        let all = JoinTasks::new(n);
        // Spread over the plan, where row sets of every size occur.
        for step in 0..24 {
            count_task(n, &all.get(all.len() * step / 24));
        }
        let parts = thread_scratch_parts();
        let held = parts.total();
        assert!(
            held <= thread_bytes(n),
            "n={n}: {held} bytes held, {} reported",
            thread_bytes(n)
        );
        // Each part within its own term, so that a term too small is not
        // hidden by another's room.
        let bound = thread_bound(n);
        for ((name, part), (_, term)) in parts.named().into_iter().zip(bound.named()) {
            assert!(
                part <= term,
                "n={n}: {name} holds {part} bytes, bound {term}"
            );
        }
    }
}

/// The most-constrained-first count against its naive twin (rows top to
/// bottom) on every task of N = 4..=11 under every cut, and on tasks
/// spread over the plans of N = 12..=17 (odd and even, cut and not).
#[test]
fn constrained_search_equals_rows_top_to_bottom() {
    use nqueens::testing::join::{count_task_by_rows, count_task_row_order, tasks_cut, EvenCut};
    for n in 4..=17 {
        for cut in [EvenCut::RowSet, EvenCut::EastQueen, EvenCut::BothQueens] {
            let tasks = tasks_cut(n, cut);
            let step = if n <= 11 { 1 } else { tasks.len() / 40 + 1 };
            for task in tasks.iter().step_by(step) {
                assert_eq!(
                    count_task_by_rows(n, task),
                    count_task_row_order(n, task),
                    "n={n} {cut:?} {task:?}"
                );
            }
        }
    }
}

#[test]
fn every_task_counted_row_by_row_equals_its_join() {
    use nqueens::testing::join::{count_task, count_task_by_rows, tasks_cut, EvenCut};
    for n in 4..=13 {
        for cut in [EvenCut::RowSet, EvenCut::EastQueen, EvenCut::BothQueens] {
            for task in tasks_cut(n, cut) {
                assert_eq!(
                    count_task_by_rows(n, &task),
                    count_task(n, &task).solutions,
                    "n={n} {task:?}"
                );
            }
        }
    }
}
