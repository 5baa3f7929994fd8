//! Unique solutions, P and R, and the d4 leaf classification, against
//! brute-force twins and the published tables.

use std::collections::BTreeMap;

use nqueens::run::report::unique_by_burnside;
use nqueens::testing::d4::{classify, rotate};
use nqueens::testing::naive;
use nqueens::testing::symmetric::{count_symmetric, count_symmetric_part, Turn};
use nqueens::{count, published, Method, SplitDepth};

use crate::common;

use common::options;

/// The 8 images of a board: 4 rotations, each also mirrored left-right.
fn images(columns: &[u32]) -> Vec<Vec<u32>> {
    let last = columns.len() as u32 - 1;
    let mut out = Vec::new();
    for turns in 0..4 {
        let mut image = vec![0; columns.len()];
        rotate(columns, turns, &mut image);
        let mirrored = image.iter().map(|&c| last - c).collect();
        out.push(image);
        out.push(mirrored);
    }
    out
}

fn turned(columns: &[u32], turns: u32) -> Vec<u32> {
    let mut image = vec![0; columns.len()];
    rotate(columns, turns, &mut image);
    image
}

/// Published small values: n, total, unique, P, R.
const SMALL_TABLE: [(u32, u128, u128, u128, u128); 8] = [
    (4, 2, 1, 2, 2),
    (5, 10, 2, 2, 2),
    (6, 4, 1, 4, 0),
    (7, 40, 6, 8, 0),
    (8, 92, 12, 4, 0),
    (9, 352, 46, 16, 0),
    (10, 724, 92, 12, 0),
    (11, 2680, 341, 48, 0),
];

#[test]
fn half_and_quarter_turn_counts_equal_brute_force() {
    for n in 1..=11u32 {
        let solutions = naive::solutions(n);
        let half = solutions.iter().filter(|s| turned(s, 2) == **s).count() as u64;
        let quarter = solutions.iter().filter(|s| turned(s, 1) == **s).count() as u64;
        assert_eq!(count_symmetric(n, Turn::Half), half, "P n={n}");
        assert_eq!(count_symmetric(n, Turn::Quarter), quarter, "R n={n}");
    }
}

#[test]
fn small_table_holds_for_every_method() {
    for (n, total, unique, p, r) in SMALL_TABLE {
        for method in Method::ALL {
            let report = count(n, &options(method, 2, SplitDepth::Auto)).unwrap();
            assert_eq!(report.solutions, total, "n={n} {method}");
            assert_eq!(report.unique, Some(unique), "n={n} {method}");
            assert_eq!(report.half_turn_symmetric, p, "n={n} {method}");
            assert_eq!(report.quarter_turn_symmetric, r, "n={n} {method}");
        }
    }
}

#[test]
fn quarter_turn_symmetry_needs_n_mod_4_of_0_or_1() {
    for n in 2..=16u32 {
        if n % 4 == 2 || n % 4 == 3 {
            assert_eq!(count_symmetric(n, Turn::Quarter), 0, "n={n}");
        }
    }
}

#[test]
fn unique_counts_equal_a002562_by_both_routes() {
    for n in 1..=15u32 {
        let report = count(n, &options(Method::D4, 2, SplitDepth::Auto)).unwrap();
        let known = published::unique(n);
        assert_eq!(report.unique, known, "Burnside n={n}");
        if Method::D4.own_range().contains(&n) {
            assert_eq!(report.orbits.map(|o| o.unique), known, "leaves n={n}");
        }
        assert!(report.is_consistent(), "n={n}");
        let mirror = count(n, &options(Method::Mirror, 2, SplitDepth::Auto)).unwrap();
        assert_eq!(mirror.unique, known, "mirror n={n}");
        assert_eq!(mirror.orbits, None);
    }
}

#[test]
fn leaf_classification_matches_brute_force_orbits() {
    for n in 5..=10u32 {
        // Group every solution into its orbit; count orbits by size.
        let mut orbits: BTreeMap<Vec<u32>, usize> = BTreeMap::new();
        for solution in naive::solutions(n) {
            let mut all = images(&solution);
            all.sort();
            all.dedup();
            orbits.insert(all[0].clone(), all.len());
        }
        let mut by_size = [0u128; 3];
        for size in orbits.values() {
            let slot = match size {
                2 => 0,
                4 => 1,
                8 => 2,
                other => panic!("orbit of {other} boards at n={n}"),
            };
            by_size[slot] += 1;
        }
        for depth in [SplitDepth::Auto, SplitDepth::Rows(1), SplitDepth::Rows(3)] {
            let report = count(n, &options(Method::D4, 2, depth)).unwrap();
            let found = report.orbits.expect("d4 classifies its leaves");
            assert_eq!(found.by_size, by_size, "n={n} {depth:?}");
            assert_eq!(found.unique, orbits.len() as u128, "n={n}");
        }
    }
}

#[test]
fn classify_counts_exactly_one_image_per_orbit() {
    // Among the images of each solution whose top-row queen is the edge
    // queen nearest a corner (no corner queen), exactly one is counted.
    for n in 5..=9u32 {
        for solution in naive::solutions(n) {
            let last = n - 1;
            let corner = |s: &[u32]| {
                s[0] == 0 || s[0] == last || s[last as usize] == 0 || s[last as usize] == last
            };
            if corner(&solution) {
                continue;
            }
            let distance = |s: &[u32]| {
                let left = s.iter().position(|&c| c == 0).unwrap() as u32;
                let right = s.iter().position(|&c| c == last).unwrap() as u32;
                let edges = [s[0], s[last as usize], left, right];
                edges.iter().map(|&d| d.min(last - d)).min().unwrap()
            };
            let k = distance(&solution);
            let mut candidates: Vec<Vec<u32>> = images(&solution)
                .into_iter()
                .filter(|s| s[0] == k)
                .collect();
            candidates.sort();
            candidates.dedup();
            let counted: Vec<_> = candidates
                .iter()
                .filter_map(|s| classify(n, k, s))
                .collect();
            assert_eq!(counted.len(), 1, "n={n} {solution:?}");
        }
    }
}

#[test]
fn rotating_four_times_is_the_identity() {
    for solution in naive::solutions(8) {
        let mut board = solution.clone();
        for _ in 0..4 {
            board = turned(&board, 1);
        }
        assert_eq!(board, solution);
        assert_eq!(turned(&turned(&solution, 1), 3), solution);
    }
}

#[test]
fn burnside_refuses_inconsistent_inputs() {
    assert_eq!(unique_by_burnside(8, 92, 4, 0), Some(12));
    assert_eq!(unique_by_burnside(8, 93, 4, 0), None);
    assert_eq!(unique_by_burnside(1, 1, 1, 1), Some(1));
}

#[test]
fn d4_searches_at_most_a_quarter_of_the_full_tree() {
    for n in 12..=14u32 {
        let none = count(n, &options(Method::NoSymmetry, 2, SplitDepth::Auto)).unwrap();
        let d4 = count(n, &options(Method::D4, 2, SplitDepth::Auto)).unwrap();
        let ratio = d4.nodes as f64 / none.nodes as f64;
        assert!(ratio <= 0.25, "n={n} ratio {ratio}");
    }
}

#[test]
fn auto_picks_join_d4_or_mirror_by_size() {
    let large = count(14, &options(Method::Auto, 1, SplitDepth::Auto)).unwrap();
    assert_eq!(large.method, Method::Join);
    let thirteen = count(13, &options(Method::Auto, 1, SplitDepth::Auto)).unwrap();
    assert_eq!(thirteen.method, Method::D4);
    let ten = count(10, &options(Method::Auto, 1, SplitDepth::Auto)).unwrap();
    assert_eq!(ten.method, Method::D4);
    let nine = count(9, &options(Method::Auto, 1, SplitDepth::Auto)).unwrap();
    assert_eq!(nine.method, Method::Mirror);
    assert_eq!(
        nqueens::plan::effective_method(nqueens::testing::join::JOIN_MAX_N + 1, Method::Auto),
        Method::D4
    );
    let small = count(6, &options(Method::Auto, 1, SplitDepth::Auto)).unwrap();
    assert_eq!(small.method, Method::Mirror);
    let tiny_d4 = count(4, &options(Method::D4, 1, SplitDepth::Auto)).unwrap();
    assert_eq!(tiny_d4.method, Method::Mirror);
    assert_eq!(tiny_d4.solutions, 2);
}

#[test]
fn the_parts_of_the_symmetric_searches_sum_to_the_whole() {
    for n in [5, 8, 12, 13, 16, 17, 20] {
        for turn in [Turn::Half, Turn::Quarter] {
            let whole = count_symmetric(n, turn);
            for parts in [1, 2, 3, 7, 64, 5000] {
                let sum: u64 = (0..parts)
                    .map(|part| count_symmetric_part(n, turn, part, parts))
                    .sum();
                assert_eq!(sum, whole, "n={n} {turn:?} parts={parts}");
            }
        }
    }
}
