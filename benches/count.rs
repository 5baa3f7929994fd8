//! Whole counts (plan, engine, kernel) at N = 12..14 on every core, per
//! method, and plan building alone (the prefix split) at N = 16..18.

use criterion::{criterion_group, criterion_main, Criterion};
use nqueens::{count, published, CountOptions, Method, Plan, SplitDepth};

fn whole_count(c: &mut Criterion) {
    let mut group = c.benchmark_group("count");
    group.sample_size(10);
    for method in Method::SEARCHING {
        for n in 12u32..=14 {
            let options = CountOptions::default().with_method(method);
            let expected = published::total(n).unwrap();
            group.bench_function(format!("{method}/{n}"), |b| {
                b.iter(|| assert_eq!(count(n, &options).unwrap().solutions, expected))
            });
        }
    }
    group.finish();
}

fn plan_building(c: &mut Criterion) {
    let mut group = c.benchmark_group("plan");
    group.sample_size(20);
    for method in Method::SEARCHING {
        for n in [16u32, 18] {
            group.bench_function(format!("{method}/{n}"), |b| {
                b.iter(|| {
                    let plan = Plan::build(n, method, SplitDepth::Auto).unwrap();
                    // A join plan has one task per row set, whatever the
                    // split; the others deepen until they have enough, or
                    // at N = 16, where deeper tasks would be too small,
                    // until they have a few hundred.
                    let least = match (method, n) {
                        (Method::Join, _) => nqueens::testing::join::tasks(n).len(),
                        (_, 18) => nqueens::plan::AUTO_MIN_TASKS,
                        _ => nqueens::plan::AUTO_FEW_TASKS,
                    };
                    assert!(plan.tasks.len() >= least, "{method} N = {n}");
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, whole_count, plan_building);
criterion_main!(benches);
