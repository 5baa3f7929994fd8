//! Whole counts (plan, engine, kernel) at N = 12..14 on every core, per method.

use criterion::{criterion_group, criterion_main, Criterion};
use nqueens::{count, published, CountOptions, Method};

fn whole_count(c: &mut Criterion) {
    let mut group = c.benchmark_group("count");
    group.sample_size(10);
    for method in Method::SEARCHING {
        for n in 12u32..=14 {
            let options = CountOptions {
                method,
                ..CountOptions::default()
            };
            let expected = published::total(n).unwrap();
            group.bench_function(format!("{method}/{n}"), |b| {
                b.iter(|| assert_eq!(count(n, &options).unwrap().solutions, expected))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, whole_count);
criterion_main!(benches);
