//! Listing, constructing and checking boards: each asserts what it times.

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use nqueens::boards::construct::{explicit_solution, random_solution};
use nqueens::boards::render::{render, BoardFormat};
use nqueens::boards::solutions::{nth_solution, write_solutions, Solution};
use nqueens::boards::validate::check;

fn boards(c: &mut Criterion) {
    let mut group = c.benchmark_group("boards");
    group.sample_size(10);
    let draw =
        |s: &Solution, out: &mut Vec<u8>| render(out, s.columns(), BoardFormat::Vector, false);
    group.bench_function("list/12/vector", |b| {
        b.iter(|| {
            let mut out = Vec::new();
            assert_eq!(
                write_solutions(12, 1, None, &draw, &mut out).unwrap(),
                14_200
            );
        })
    });
    // A quarter into N = 16: the first row's left half is counted
    // (joined half boards) and the second row's subtrees searched.
    group.bench_function("nth/16/quarter", |b| {
        b.iter(|| {
            let found = nth_solution(16, black_box(14_772_512 / 4)).unwrap();
            let columns: Vec<u64> = found.columns().iter().map(|&c| u64::from(c)).collect();
            assert_eq!(check(&columns), Ok(()));
        })
    });
    group.bench_function("solve/1000000/explicit", |b| {
        b.iter(|| {
            assert_eq!(
                explicit_solution(black_box(1_000_000)).unwrap().len(),
                1_000_000
            )
        })
    });
    group.bench_function("solve/100000/random", |b| {
        b.iter(|| {
            assert_eq!(
                random_solution(black_box(100_000), 7).unwrap().len(),
                100_000
            )
        })
    });
    let board = explicit_solution(1_000_000).unwrap();
    group.bench_function("check/1000000", |b| {
        b.iter(|| assert_eq!(check(black_box(&board)), Ok(())))
    });
    let mut text = Vec::new();
    group.bench_function("render/1000000/vector", |b| {
        b.iter(|| {
            text.clear();
            render(&mut text, black_box(&board), BoardFormat::Vector, false);
            assert!(text.len() > 6_000_000);
        })
    });
    group.finish();
}

criterion_group!(benches, boards);
criterion_main!(benches);
