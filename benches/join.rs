//! The join's inner loop on the keys of a real N = 20 task (the median
//! task of the plan, east keys stored, west class-0 keys queried): the
//! plain bit-sliced matcher against the split one, loading included, and
//! the plain one's load (the blocks' tables) alone; and
//! the whole task (half boards built from the quadrant table, then
//! matched), and the on-demand build of the quadrant cells the task needs.
//! Every measurement asserts the pairs or placements it counts. Then the
//! even-N path of large N: a cut task of N = 24, and a task of N = 26 in
//! its grid of two levels (the second on the west side only) against one
//! level, with the cells of one of its row sets built whole and within
//! the columns its fixed queens leave open. Last, `verify`'s second code
//! path on a task of N = 18: the most constrained queen first against the
//! rows top to bottom.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use nqueens::testing::disjoint::{
    choose_cuts, count_disjoint_naive, Matcher, SplitMatcher, LEAF_MIN, MAX_CUTS,
};
use nqueens::testing::join::{
    count_task, count_task_by_rows, count_task_in_parts, count_task_row_order, task_keys, tasks,
    JoinTasks, Parts, RowCells,
};

const N: u32 = 20;

fn matchers(c: &mut Criterion) {
    let all = tasks(N);
    let task = all[all.len() / 2];
    let (east, west) = task_keys(N, &task);
    let queries = &west[0];
    let expected: u64 = queries
        .iter()
        .map(|&query| count_disjoint_naive(&east, query))
        .sum();
    let mut group = c.benchmark_group("join-20");
    group.sample_size(20);
    group.bench_function(format!("matcher/{}x{}", east.len(), queries.len()), |b| {
        let mut matcher = Matcher::default();
        b.iter(|| {
            matcher.load(black_box(&east));
            assert_eq!(matcher.sum_disjoint(queries, 0), expected);
        })
    });
    // The stored keys' tables alone (the blocks' fill), checked after.
    group.bench_function(format!("matcher-load/{}", east.len()), |b| {
        let mut matcher = Matcher::default();
        b.iter(|| matcher.load(black_box(&east)));
        assert_eq!(matcher.sum_disjoint(queries, 0), expected);
    });
    group.bench_function("split-matcher", |b| {
        let mut split = SplitMatcher::default();
        b.iter(|| {
            let cuts = choose_cuts(black_box(&east), queries, MAX_CUTS);
            let query_bits = queries.iter().fold(0, |all, query| all | query);
            split.load(&east, &cuts, LEAF_MIN, query_bits);
            assert_eq!(split.sum_disjoint(queries, 0), Ok(expected));
        })
    });
    // The task's four quadrant row sets: north and south of the east rows
    // and of the others (N even: the south quadrant starts at row N/2).
    let side = N / 2;
    let quadrant = (1u32 << side) - 1;
    let west_rows = !task.east_rows & ((1 << N) - 1);
    let row_sets = [task.east_rows, west_rows].map(|rows| [rows & quadrant, rows >> side]);
    let placements: usize = row_sets
        .iter()
        .flatten()
        .map(|&rows| RowCells::build(side, rows).placements())
        .sum();
    group.bench_function(format!("cells/{placements}"), |b| {
        let mut cells: [RowCells; 4] = Default::default();
        b.iter(|| {
            let mut built = 0;
            for (cell, &rows) in cells.iter_mut().zip(row_sets.iter().flatten()) {
                cell.rebuild(side, black_box(rows));
                built += cell.placements();
            }
            assert_eq!(built, placements);
        })
    });
    let whole = count_task(N, &task).solutions;
    group.bench_function("task", |b| {
        b.iter(|| assert_eq!(count_task(N, black_box(&task)).solutions, whole))
    });
    group.finish();
}

/// The even-N path of large N: the median task of N = 24, a row set cut by
/// its east queen beside the middle line (one join per place of the west
/// queen beside it, cells from the thread's cache), against the row-by-row
/// count of the same task.
fn cut_task(c: &mut Criterion) {
    const LARGE: u32 = 24;
    let all = JoinTasks::new(LARGE);
    let task = all.get(all.len() / 2);
    assert!(task.east_beside().is_some(), "N = 24 is cut: {task:?}");
    let expected = count_task(LARGE, &task).solutions;
    let mut group = c.benchmark_group("join-24");
    group.sample_size(10);
    group.bench_function("cut-task", |b| {
        b.iter(|| assert_eq!(count_task(LARGE, black_box(&task)).solutions, expected))
    });
    group.finish();
    // Checked once, not timed: the row-by-row count takes seconds.
    assert_eq!(count_task_by_rows(LARGE, &task), expected);
}

/// A task of N = 26 a third into the plan: counted as counts take it (two
/// grid levels, the second cutting the west side only) and with one level
/// a side (the build before), and the cells of its east north row set
/// built whole and within the 12 columns its east queen leaves open.
fn grid_task(c: &mut Criterion) {
    const LARGE: u32 = 26;
    let all = JoinTasks::new(LARGE);
    let task = all.get(all.len() / 3);
    let expected = count_task(LARGE, &task).solutions;
    let one_level = Parts {
        levels: Some(1),
        east_levels: Some(1),
        ..Parts::DEFAULT
    };
    let mut group = c.benchmark_group("join-26");
    group.sample_size(10);
    group.bench_function("grid-task", |b| {
        b.iter(|| assert_eq!(count_task(LARGE, black_box(&task)).solutions, expected))
    });
    group.bench_function("grid-task-one-level", |b| {
        b.iter(|| {
            let counted = count_task_in_parts(LARGE, black_box(&task), one_level);
            assert_eq!(counted.solutions, expected)
        })
    });
    let side = LARGE / 2;
    let east_queen = task.east_beside().expect("N = 26 is cut");
    let north = task.east_rows & !(1 << east_queen) & ((1 << side) - 1);
    let open = ((1u32 << side) - 1) & !(1 << (side - 1));
    let mut cells = RowCells::default();
    cells.rebuild_open(side, north, open, u64::MAX);
    let within = cells.placements();
    for (name, columns) in [("cells-whole", (1u32 << side) - 1), ("cells-open", open)] {
        group.bench_function(name, |b| {
            b.iter(|| {
                cells.rebuild_open(side, black_box(north), columns, u64::MAX);
                assert!(cells.placements() >= within);
            })
        });
    }
    group.finish();
}

/// `verify`'s second code path on the median task of N = 18 (a row set
/// with its queens beside the middle line fixed): the constrained search
/// against its naive twin, each asserting the join's count.
fn second_path(c: &mut Criterion) {
    const SMALL: u32 = 18;
    let all = JoinTasks::new(SMALL);
    let task = all.get(all.len() / 2);
    let expected = count_task(SMALL, &task).solutions;
    let mut group = c.benchmark_group("verify-18");
    group.sample_size(10);
    group.bench_function("most-constrained-first", |b| {
        b.iter(|| assert_eq!(count_task_by_rows(SMALL, black_box(&task)), expected))
    });
    group.bench_function("rows-top-to-bottom", |b| {
        b.iter(|| assert_eq!(count_task_row_order(SMALL, black_box(&task)), expected))
    });
    group.finish();
}

criterion_group!(benches, matchers, cut_task, grid_task, second_path);
criterion_main!(benches);
