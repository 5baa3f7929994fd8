//! Which image of a `d4` board counts, and its orbit size.

use super::tie_squares;
use crate::search::board::MAX_N;

/// Settles a complete edge board `columns` (top-row queen in column `k`,
/// every edge queen at least k from its corner): `None` when another of its
/// images is the one counted, otherwise its orbit size (2, 4 or 8).
///
/// The images with the top-row queen in column k are the board and the
/// rotations whose tie square (`tie_squares`) it occupies. Which one is
/// counted is read from the pattern of occupied tie squares where the
/// pattern tells the images apart, because every image sees the pattern
/// turned: of Q alone and T alone (a board and its quarter turn), Q counts;
/// of Q+T, H+T and Q+H (a board and its two turns that keep a queen on the
/// top edge's tie), Q+T counts. That lets the search count those boards
/// without building them. The patterns H alone and Q+H+T look the same from
/// every image, so the smallest image row by row counts, and the rotations
/// equal to the board give its orbit size.
pub fn classify(n: u32, k: u32, columns: &[u32]) -> Option<u64> {
    debug_assert_eq!(columns[0], k);
    let [quarter, half, three] = tie_squares(n, k).map(|(row, col)| columns[row as usize] == col);
    match (quarter, half, three) {
        (false, false, false) | (true, false, false) | (true, false, true) => return Some(8),
        (false, false, true) | (true, true, false) | (false, true, true) => return None,
        (false, true, false) | (true, true, true) => {}
    }
    let mut symmetries = 1u64;
    for (quarter_turns, ties) in [(1, quarter), (2, half), (3, three)] {
        if !ties {
            continue;
        }
        match compare_with_rotation(columns, quarter_turns) {
            std::cmp::Ordering::Less => return None,
            std::cmp::Ordering::Equal => symmetries += 1,
            std::cmp::Ordering::Greater => {}
        }
    }
    Some(8 / symmetries)
}

/// Compares the board turned clockwise by `quarter_turns` with the board,
/// row by row (lexicographic order of the column vectors).
fn compare_with_rotation(columns: &[u32], quarter_turns: u32) -> std::cmp::Ordering {
    let mut image = [0u32; MAX_N as usize];
    let image = &mut image[..columns.len()];
    rotate(columns, quarter_turns, image);
    image.iter().cmp(columns.iter())
}

/// The board `columns` (row -> column) turned clockwise by `quarter_turns`.
/// A quarter turn takes the square (r, c) to (c, n-1-r).
pub fn rotate(columns: &[u32], quarter_turns: u32, image: &mut [u32]) {
    let last = columns.len() as u32 - 1;
    for (row, &col) in columns.iter().enumerate() {
        let row = row as u32;
        let (r, c) = match quarter_turns % 4 {
            0 => (row, col),
            1 => (col, last - row),
            2 => (last - row, last - col),
            _ => (last - col, row),
        };
        image[r as usize] = c;
    }
}
