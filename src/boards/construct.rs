//! One solution for boards far too large to search: an explicit
//! construction for any N >= 4, and a seeded random one by repairing a
//! random permutation.

use crate::random::SplitMix64;

/// A solution of the `n` board (n = 1 or n >= 4) by the classic explicit
/// construction, or `None` for n = 2, 3 (no solution exists) and n = 0.
///
/// Take the even numbers 2, 4, .. then the odd ones 1, 3, .. (1-based). When
/// n mod 6 is 2, swap 1 and 3 and move 5 to the end; when it is 3, move 2 to
/// the end of the evens and 1, 3 to the end of the odds. Row i's queen goes to
/// the i-th number of the list (the published construction lists columns
/// per row and its transpose is a solution too).
pub fn explicit_solution(n: u64) -> Option<Vec<u64>> {
    match n {
        0 | 2 | 3 => return None,
        1 => return Some(vec![0]),
        _ => {}
    }
    let mut evens: Vec<u64> = (2..=n).step_by(2).collect();
    let mut odds: Vec<u64> = (1..=n).step_by(2).collect();
    match n % 6 {
        2 => {
            odds.swap(0, 1);
            let five = odds.remove(2);
            odds.push(five);
        }
        3 => {
            let two = evens.remove(0);
            evens.push(two);
            let one_three: Vec<u64> = odds.drain(..2).collect();
            odds.extend(one_three);
        }
        _ => {}
    }
    Some(evens.into_iter().chain(odds).map(|col| col - 1).collect())
}

/// Queens per diagonal, for counting conflicts in O(1) per move.
struct Diagonals {
    n: usize,
    sums: Vec<u32>,
    diffs: Vec<u32>,
}

impl Diagonals {
    fn new(n: usize) -> Diagonals {
        Diagonals {
            n,
            sums: vec![0; 2 * n - 1],
            diffs: vec![0; 2 * n - 1],
        }
    }

    fn slots(&self, row: usize, col: usize) -> (usize, usize) {
        (row + col, row + self.n - 1 - col)
    }

    fn add(&mut self, row: usize, col: usize, delta: i32) {
        let (s, d) = self.slots(row, col);
        self.sums[s] = self.sums[s].wrapping_add_signed(delta);
        self.diffs[d] = self.diffs[d].wrapping_add_signed(delta);
    }

    /// Other queens sharing a diagonal with a queen at (row, col) that is
    /// already counted.
    fn attacks(&self, row: usize, col: usize) -> u32 {
        let (s, d) = self.slots(row, col);
        self.sums[s] + self.diffs[d] - 2
    }
}

/// A solution of the `n` board (n = 1 or n >= 4) that depends on `seed`, or
/// `None` for n = 0, 2, 3.
///
/// A random permutation (so no two queens share a row or column) is built
/// row by row, each row taking a random remaining column that no diagonal
/// already holds where a few tries find one; then queens in conflict swap
/// columns with random rows while that lowers the number of conflicts. The
/// greedy start leaves only a handful of conflicts, so large boards finish in
/// time linear in n.
pub fn random_solution(n: u64, seed: u64) -> Option<Vec<u64>> {
    match n {
        0 | 2 | 3 => return None,
        1 => return Some(vec![0]),
        _ => {}
    }
    let n = n as usize;
    let mut rng = SplitMix64(seed ^ 0x6e71_7565_656e_7321);
    loop {
        if let Some(board) = attempt(n, &mut rng) {
            return Some(board.into_iter().map(|col| col as u64).collect());
        }
    }
}

/// One start and repair; `None` if the repair stalls (then a new start).
fn attempt(n: usize, rng: &mut SplitMix64) -> Option<Vec<usize>> {
    const TRIES_PER_ROW: usize = 20;
    let mut columns: Vec<usize> = (0..n).collect();
    let mut diagonals = Diagonals::new(n);
    for row in 0..n {
        let mut pick = row + rng.below(n - row);
        for _ in 0..TRIES_PER_ROW {
            let (s, d) = diagonals.slots(row, columns[pick]);
            if diagonals.sums[s] == 0 && diagonals.diffs[d] == 0 {
                break;
            }
            pick = row + rng.below(n - row);
        }
        columns.swap(row, pick);
        diagonals.add(row, columns[row], 1);
    }
    let mut conflicted: Vec<usize> = (0..n)
        .filter(|&row| diagonals.attacks(row, columns[row]) > 0)
        .collect();
    let mut stalls = 0;
    while !conflicted.is_empty() {
        let mut improved = false;
        for &row in &conflicted {
            if diagonals.attacks(row, columns[row]) == 0 {
                continue;
            }
            for _ in 0..64 {
                let other = rng.below(n);
                if other == row {
                    continue;
                }
                let before =
                    diagonals.attacks(row, columns[row]) + diagonals.attacks(other, columns[other]);
                diagonals.add(row, columns[row], -1);
                diagonals.add(other, columns[other], -1);
                columns.swap(row, other);
                diagonals.add(row, columns[row], 1);
                diagonals.add(other, columns[other], 1);
                let after =
                    diagonals.attacks(row, columns[row]) + diagonals.attacks(other, columns[other]);
                if after < before {
                    improved = true;
                    break;
                }
                diagonals.add(row, columns[row], -1);
                diagonals.add(other, columns[other], -1);
                columns.swap(row, other);
                diagonals.add(row, columns[row], 1);
                diagonals.add(other, columns[other], 1);
            }
        }
        stalls = if improved { 0 } else { stalls + 1 };
        if stalls > 100 {
            return None;
        }
        conflicted.retain(|&row| diagonals.attacks(row, columns[row]) > 0);
        if conflicted.is_empty() {
            // Swaps may create new conflicts elsewhere: rescan once clean.
            conflicted = (0..n)
                .filter(|&row| diagonals.attacks(row, columns[row]) > 0)
                .collect();
        }
    }
    Some(columns)
}
