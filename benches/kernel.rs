//! The kernel alone on fixed tasks: the second-row prefixes of N = 13 and 14
//! under the mirror method, one after another on one thread.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use nqueens::kernel::{count_completions, count_completions_portable};
use nqueens::{published, Method, Plan, SplitDepth};

fn kernel(c: &mut Criterion) {
    let mut group = c.benchmark_group("kernel");
    group.sample_size(20);
    for n in [13u32, 14] {
        let plan = Plan::build(n, Method::Mirror, SplitDepth::Rows(2)).unwrap();
        let expected = published::total(n).unwrap();
        let run = |f: fn(u32, nqueens::Board) -> nqueens::Tally| {
            plan.tasks
                .iter()
                .map(|task| {
                    u128::from(f(n, black_box(task.board)).solutions) * u128::from(task.weight)
                })
                .sum::<u128>()
        };
        group.bench_function(format!("dispatched/{n}"), |b| {
            b.iter(|| assert_eq!(run(count_completions), expected))
        });
        group.bench_function(format!("portable/{n}"), |b| {
            b.iter(|| assert_eq!(run(count_completions_portable), expected))
        });
    }
    group.finish();
}

criterion_group!(benches, kernel);
criterion_main!(benches);
