//! Listing, rendering, construction and checking of boards.

use nqueens::boards::construct::{explicit_solution, random_solution};
use nqueens::boards::render::{render, render_fen, render_svg, BoardFormat};
use nqueens::boards::solutions::{
    nth_solution, nth_solution_with, write_solutions, Solution, Solutions,
};
use nqueens::boards::validate::{check, Violation};
use nqueens::published;
use nqueens::testing::naive;

fn as_u64(columns: &[u32]) -> Vec<u64> {
    columns.iter().map(|&c| u64::from(c)).collect()
}

#[test]
fn lists_have_the_published_counts_in_strict_order_and_all_are_valid() {
    for n in 1..=10u32 {
        let listed: Vec<Vec<u32>> = Solutions::new(n).map(|s| s.columns().to_vec()).collect();
        assert_eq!(listed.len() as u128, published::total(n).unwrap(), "n={n}");
        assert!(
            listed.windows(2).all(|pair| pair[0] < pair[1]),
            "n={n} order"
        );
        for board in &listed {
            assert_eq!(check(&as_u64(board)), Ok(()), "n={n} {board:?}");
        }
        assert_eq!(listed, naive::solutions(n), "n={n}");
    }
}

#[test]
fn the_first_board_of_eight_is_the_classic_one() {
    let first = Solutions::new(8).next().unwrap();
    assert_eq!(first.columns(), &[0, 4, 7, 5, 2, 6, 1, 3]);
}

#[test]
fn nth_equals_the_stream_at_every_index() {
    for n in [1u32, 4, 6, 8, 9] {
        let all: Vec<Solution> = Solutions::new(n).collect();
        for (index, board) in all.iter().enumerate() {
            assert_eq!(
                nth_solution(n, index as u128).as_ref(),
                Some(board),
                "n={n} i={index}"
            );
        }
        assert_eq!(nth_solution(n, all.len() as u128), None);
    }
    assert_eq!(nth_solution(3, 0), None);
}

#[test]
fn nth_by_counting_equals_nth_by_walking() {
    // Past the stream limit the subtrees are counted; both routes must agree.
    let limit = nqueens::boards::solutions::NTH_STREAM_LIMIT;
    // Indexes in the first row's first subtrees, in the middle, and in
    // the mirrored half (the last solution), on 1 to 3 workers.
    for index in [limit, limit + 1, limit + 123_456, 1_500_000, 2_279_183] {
        let walked = Solutions::new(15).nth(index as usize);
        assert_eq!(nth_solution(15, index), walked, "index {index}");
        for threads in [2, 3] {
            let rows = std::sync::Mutex::new(Vec::new());
            let found = nth_solution_with(15, index, threads, &|progress| {
                if progress.next_row_done == 0.0 && progress.rows_fixed > 0 {
                    rows.lock().unwrap().push(progress.rows_fixed)
                }
            });
            assert_eq!(found, walked, "index {index}, {threads} threads");
            // Every row reported decided once, in order.
            assert_eq!(rows.into_inner().unwrap(), (1..=15).collect::<Vec<u32>>());
        }
    }
    assert_eq!(nth_solution(15, 2_279_184), None);
    assert_eq!(nth_solution_with(15, 2_279_184, 2, &|_| {}), None);
}

#[test]
fn parallel_listing_equals_the_sequential_stream() {
    let draw =
        |s: &Solution, out: &mut Vec<u8>| render(out, s.columns(), BoardFormat::Vector, false);
    for n in [5u32, 8, 10] {
        let mut expected = Vec::new();
        for s in Solutions::new(n) {
            draw(&s, &mut expected);
        }
        for threads in [1, 2, 3] {
            let mut out = Vec::new();
            let written = write_solutions(n, threads, None, &draw, &mut out).unwrap();
            assert_eq!(out, expected, "n={n} threads={threads}");
            assert_eq!(u128::from(written), published::total(n).unwrap());
        }
        for limit in [0u64, 1, 7, 100, 500] {
            let mut out = Vec::new();
            let written = write_solutions(n, 2, Some(limit), &draw, &mut out).unwrap();
            let lines: Vec<&[u8]> = expected
                .split_inclusive(|&b| b == b'\n')
                .take(limit as usize)
                .collect();
            assert_eq!(out, lines.concat(), "n={n} limit={limit}");
            assert_eq!(written, lines.len() as u64);
        }
    }
}

/// Reads a FEN-style board back: ranks split by '/', digits count empty
/// squares, 'q' is the queen.
fn parse_fen(text: &str) -> Vec<u32> {
    text.trim_end()
        .split('/')
        .map(|rank| {
            let before: String = rank.chars().take_while(|c| c.is_ascii_digit()).collect();
            let col = if before.is_empty() {
                0
            } else {
                before.parse().unwrap()
            };
            let width: u32 = rank
                .split('q')
                .filter(|part| !part.is_empty())
                .map(|part| part.parse::<u32>().unwrap())
                .sum::<u32>()
                + 1;
            assert_eq!(rank.matches('q').count(), 1, "{rank}");
            assert_eq!(width as usize, text.trim_end().split('/').count(), "{rank}");
            col
        })
        .collect()
}

#[test]
fn fen_round_trips() {
    for n in [1u32, 5, 8, 11] {
        for board in Solutions::new(n).take(200) {
            let mut text = Vec::new();
            render_fen(&mut text, board.columns());
            assert_eq!(
                parse_fen(std::str::from_utf8(&text).unwrap()),
                board.columns()
            );
        }
    }
    let mut text = Vec::new();
    render_fen(&mut text, &[0u32, 2, 4, 1, 3][..]);
    assert!(
        text.starts_with(b"q4/2q2/4q/1q3/3q1"),
        "{}",
        String::from_utf8_lossy(&text)
    );
}

#[test]
fn svg_is_well_formed_xml_with_n_queens_and_every_square() {
    for n in [1u32, 8, 12] {
        let board = Solutions::new(n).next().unwrap();
        let mut text = Vec::new();
        render_svg(&mut text, board.columns());
        let text = String::from_utf8(text).unwrap();
        let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "svg");
        let queens = doc
            .descendants()
            .filter(|node| node.attribute("class") == Some("queen"))
            .count();
        assert_eq!(queens, n as usize);
        let squares = doc
            .descendants()
            .filter(|node| node.tag_name().name() == "rect")
            .count();
        assert_eq!(squares, (n * n + 1) as usize, "squares plus the background");
        let labels = doc
            .descendants()
            .filter(|node| node.tag_name().name() == "text")
            .count();
        assert_eq!(labels, 2 * n as usize);
        // Every square stands clear of the picture's edges: its group's
        // offset plus its place, inside the width and height, not on them.
        let size = |name: &str| -> u64 { root.attribute(name).unwrap().parse().unwrap() };
        let (width, height) = (size("width"), size("height"));
        let squares = doc
            .descendants()
            .find(|node| node.attribute("id") == Some("squares"))
            .unwrap();
        let offset = squares.attribute("transform").unwrap();
        let (dx, dy) = offset
            .trim_start_matches("translate(")
            .trim_end_matches(')')
            .split_once(',')
            .unwrap();
        let (dx, dy): (u64, u64) = (dx.parse().unwrap(), dy.parse().unwrap());
        assert!(dy > 0, "off the top edge");
        for square in squares.children().filter(|node| node.is_element()) {
            let at = |name: &str| -> u64 { square.attribute(name).unwrap().parse().unwrap() };
            assert!(dx + at("x") + at("width") < width, "off the right edge");
            assert!(dy + at("y") + at("height") < height, "off the bottom edge");
        }
    }
}

#[test]
fn grid_has_one_queen_per_rank() {
    let board = Solutions::new(6).next().unwrap();
    let mut text = Vec::new();
    render(&mut text, board.columns(), BoardFormat::Grid, false);
    let text = String::from_utf8(text).unwrap();
    let ranks: Vec<&str> = text.lines().collect();
    assert_eq!(ranks.len(), 6);
    for (rank, &col) in ranks.iter().zip(board.columns()) {
        assert_eq!(rank.len(), 6);
        assert_eq!(rank.find('Q'), Some(col as usize));
        assert_eq!(rank.matches('Q').count(), 1);
    }
}

#[test]
fn explicit_construction_is_valid_for_every_n_up_to_2000_and_a_million() {
    for n in (4..=2000u64).chain([1, 1_000_000]) {
        let board = explicit_solution(n).unwrap();
        assert_eq!(board.len() as u64, n);
        assert_eq!(check(&board), Ok(()), "n={n}");
    }
    for n in [0u64, 2, 3] {
        assert_eq!(explicit_solution(n), None);
        assert_eq!(random_solution(n, 1), None);
    }
}

#[test]
fn random_solutions_are_valid_and_depend_on_the_seed() {
    let mut distinct = std::collections::BTreeSet::new();
    for seed in 0..100u64 {
        let board = random_solution(1000, seed).unwrap();
        assert_eq!(check(&board), Ok(()), "seed={seed}");
        distinct.insert(board);
    }
    assert!(distinct.len() >= 99, "seeds give different boards");
    assert_eq!(random_solution(1000, 7), random_solution(1000, 7));
    for n in [4u64, 5, 6, 7, 8, 9, 10, 1_000_000] {
        assert_eq!(check(&random_solution(n, 42).unwrap()), Ok(()), "n={n}");
    }
}

#[test]
fn check_names_the_conflicting_rows() {
    assert_eq!(check(&[0, 4, 7, 5, 2, 6, 1, 3]), Ok(()));
    assert_eq!(
        check(&[1, 3, 0, 3]),
        Err(Violation::SameColumn {
            first: 1,
            second: 3,
            col: 3
        })
    );
    assert_eq!(
        check(&[0, 2, 4, 1, 3, 5]),
        Err(Violation::SameDiagonal {
            first: 0,
            second: 5
        })
    );
    assert_eq!(
        check(&[2, 0, 1]),
        Err(Violation::SameDiagonal {
            first: 1,
            second: 2
        })
    );
    assert_eq!(check(&[2, 0, 3, 1, 4]), Ok(()));
    assert_eq!(
        check(&[0, 9]),
        Err(Violation::OffBoard {
            row: 1,
            col: 9,
            n: 2
        })
    );
    assert_eq!(check(&[]), Err(Violation::Empty));
}
