//! A `join` task joined in pieces: its meetings cut into grids (both
//! sides, the query groups deeper, every grid shape), its plain joins'
//! query batches stored in their part's place, and its keys held in parts
//! of any size: every way counts what the whole task counts.

use nqueens::published;

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
