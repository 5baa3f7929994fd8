//! The search alone on fixed tasks: every task of a depth-2 plan at N = 13
//! and 14, per method, one after another on one thread; and on the mirror
//! tasks, the plain kernel's two builds (dispatched, portable) and each
//! build of the frontier search this CPU runs.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use nqueens::run::engine::count_task;
use nqueens::testing::board::RowBounds;
use nqueens::testing::kernel::{count_completions, count_completions_portable};
use nqueens::testing::lanes::{count_bounded_with, Lanes};
use nqueens::{published, Board, Method, Plan, SplitDepth, Tally};

fn per_method(c: &mut Criterion) {
    let mut group = c.benchmark_group("tasks");
    group.sample_size(20);
    for n in [13u32, 14] {
        let expected = published::total(n).unwrap();
        for method in Method::SEARCHING {
            let plan = Plan::build(n, method, SplitDepth::Rows(2)).unwrap();
            group.bench_function(format!("{method}/{n}"), |b| {
                b.iter(|| {
                    let total: u128 = plan
                        .tasks
                        .iter()
                        .map(|task| u128::from(count_task(n, black_box(&task)).solutions))
                        .sum();
                    assert_eq!(total, expected);
                })
            });
        }
    }
    group.finish();
}

fn plain_builds(c: &mut Criterion) {
    let mut group = c.benchmark_group("kernel");
    group.sample_size(20);
    for n in [13u32, 14] {
        let plan = Plan::build(n, Method::Mirror, SplitDepth::Rows(2)).unwrap();
        let expected = published::total(n).unwrap();
        let run = |kernel: fn(u32, Board) -> Tally| {
            plan.tasks
                .iter()
                .map(|task| {
                    u128::from(kernel(n, black_box(task.board)).solutions) * u128::from(task.weight)
                })
                .sum::<u128>()
        };
        group.bench_function(format!("dispatched/{n}"), |b| {
            b.iter(|| assert_eq!(run(count_completions), expected))
        });
        group.bench_function(format!("portable/{n}"), |b| {
            b.iter(|| assert_eq!(run(count_completions_portable), expected))
        });
        let unbounded = RowBounds::unbounded(n);
        for lanes in Lanes::ALL.into_iter().filter(|lanes| lanes.runs_here()) {
            group.bench_function(format!("frontier-{}/{n}", lanes.name()), |b| {
                b.iter(|| {
                    let total: u128 = plan
                        .tasks
                        .iter()
                        .map(|task| {
                            let tally =
                                count_bounded_with(lanes, n, black_box(task.board), &unbounded);
                            u128::from(tally.solutions) * u128::from(task.weight)
                        })
                        .sum();
                    assert_eq!(total, expected);
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, per_method, plain_builds);
criterion_main!(benches);
