//! The `join` method against the depth-first methods and the published
//! table, its tasks (cut, row by row) under threads and shards, and its
//! memory guard; its tasks joined in grids and parts are in `join_grids`.

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
