//! The tasks of a `join` count: which row sets (and, past them, which
//! queens beside the middle) each task takes, enumerated in a stable order
//! and found by position without holding a list of every task.

mod blocks;
mod subsets;

use super::geometry::{centre_weight, reverse_rows, Geometry};
pub(crate) use blocks::takes_blocks;
use blocks::{sort_by_tile, TiledSubsets};
use subsets::{binomial, for_each_subset, subset_of_rank, Subsets};

/// One `join` task: a set of east rows and, for odd N, where the middle
/// queens stand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JoinTask {
    /// Board rows whose queen is in the east half (bit r = row r).
    pub east_rows: u32,
    /// Even N: 0 for the whole row set, else 1 + the row of the east
    /// queen beside the middle line (in column h - 1; see
    /// `BESIDE_MIN_N`), and from `BOTH_BESIDE_MIN_N` 256 times 1 + the
    /// row of the west queen beside it (see [`JoinTask::east_beside`] and
    /// [`JoinTask::west_beside`]). Odd N: 0 for a queen on the centre
    /// square, else the distance b of the middle column's queen above the
    /// centre (the middle row's queen then takes each nearer column of the
    /// east arm in turn).
    pub middle: u32,
}

impl JoinTask {
    /// Even N: the row of the east queen beside the middle line (column
    /// h - 1), if the task fixes it.
    pub fn east_beside(&self) -> Option<u32> {
        (self.middle & 0xff).checked_sub(1)
    }

    /// Even N: the row of the west queen beside the middle line (column
    /// h), if the task fixes it; else the task joins once per row it can
    /// take.
    pub fn west_beside(&self) -> Option<u32> {
        (self.middle >> 8).checked_sub(1)
    }
}

/// How the tasks of an even N are cut.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvenCut {
    /// One task per row set.
    RowSet,
    /// One per row set and row of the east queen beside the middle line.
    EastQueen,
    /// One per row set and rows of both queens beside the middle line.
    BothQueens,
}

/// Smallest even N whose tasks also fix the west queen beside the middle
/// line: past [`JOIN_MAX_N`](super::JOIN_MAX_N), so none today. Before the grids (see
/// [`grid_levels`](super::grid_levels)) N = 28 took it, as a task with only the east queen
/// fixed ran a minute or more (one of 147 s on one AVX-512 core); with
/// them such a task makes its east groups once for all west places, and
/// 4 sampled (R, i) tasks of N = 28 took 34.4 s against 48.6 s as the
/// tasks of each west place (one AVX-512 core, 2 grid levels both ways).
pub(crate) const BOTH_BESIDE_MIN_N: u32 = 30;

/// Smallest even N whose tasks fix the east queen beside the middle line
/// (a row set's task is cut into one task per place of that queen, and
/// each task into one join per place of the west queen beside it). Each
/// side of a join then holds only the boards that the other side's queen
/// leaves alone: of the pairs a whole row set's join decides, a sixth
/// (N = 22) to a seventh (N = 26) are left, and the stored side fits one
/// part up to N = 28. Consecutive row sets counted both ways on one
/// thread (AVX-512, one sitting), core-ns per solution whole against cut:
/// N = 20 3.2 against 8.3 (the west boards, built again for every place,
/// cost more than the smaller joins save); N = 22 5.3 / 2.1 / 1.6 against
/// 10.1 / 1.9 / 3.0 at three places in the plan, and `plan 22 --estimate`
/// 1.66 core-hours against 2.2, so N = 22 stays whole; N = 24 5.0 against
/// 2.7, N = 26 11.0 against 1.43.
pub(crate) const BESIDE_MIN_N: u32 = 24;

/// How many queens beside the middle line cut each task of an `n` board
/// (0 for odd `n`): what [`even_cut`] chooses, as a number.
pub(crate) fn cut_queens(n: u32) -> u32 {
    match (n % 2, even_cut(n)) {
        (1, _) | (_, EvenCut::RowSet) => 0,
        (_, EvenCut::EastQueen) => 1,
        (_, EvenCut::BothQueens) => 2,
    }
}

/// How the tasks of an even `n` are cut.
fn even_cut(n: u32) -> EvenCut {
    if n >= BOTH_BESIDE_MIN_N {
        EvenCut::BothQueens
    } else if n >= BESIDE_MIN_N {
        EvenCut::EastQueen
    } else {
        EvenCut::RowSet
    }
}

/// The rows the west queen beside the middle line may take in a row set's
/// task whose east queen beside it stands on `east_row`: the west rows
/// but the two next to it.
pub(super) fn west_beside_rows(geo: &Geometry, east_rows: u32, east_row: u32) -> u32 {
    let next = (2u64 << east_row) | (1u64 << east_row >> 1);
    geo.all_rows() & !east_rows & !(next as u32)
}

/// Tasks of a row set under `cut`.
fn tasks_of_row_set(geo: &Geometry, east_rows: u32, cut: EvenCut) -> u64 {
    match cut {
        EvenCut::RowSet => 1,
        EvenCut::EastQueen => u64::from(beside_rows(geo, east_rows).count_ones()),
        EvenCut::BothQueens => Subsets::new(beside_rows(geo, east_rows), 1)
            .map(|row| {
                u64::from(west_beside_rows(geo, east_rows, row.trailing_zeros()).count_ones())
            })
            .sum(),
    }
}

/// The tasks of a row set under `cut`, in order: by the east queen's row,
/// then the west queen's.
fn row_set_tasks(geo: Geometry, east_rows: u32, cut: EvenCut) -> impl Iterator<Item = JoinTask> {
    let (east_places, both) = match cut {
        EvenCut::RowSet => (0, false),
        EvenCut::EastQueen => (beside_rows(&geo, east_rows), false),
        EvenCut::BothQueens => (beside_rows(&geo, east_rows), true),
    };
    let whole = (cut == EvenCut::RowSet).then_some(JoinTask {
        east_rows,
        middle: 0,
    });
    let cut_tasks = Subsets::new(east_places, 1).flat_map(move |bit| {
        let east_row = bit.trailing_zeros();
        let west_places = if both {
            west_beside_rows(&geo, east_rows, east_row)
        } else {
            0
        };
        let east_only = (!both).then_some(JoinTask {
            east_rows,
            middle: 1 + east_row,
        });
        east_only
            .into_iter()
            .chain(Subsets::new(west_places, 1).map(move |bit| JoinTask {
                east_rows,
                middle: (1 + east_row) | (1 + bit.trailing_zeros()) << 8,
            }))
    });
    whole.into_iter().chain(cut_tasks)
}

/// The tasks of an `n` board, in a stable order: for even N cut beside
/// the middle line by row set (colex), then by the row of the east queen
/// beside it, then of the west one (as [`EvenCut`] for N cuts them); for
/// even N counted whole by row set, colex or in blocks ([`tile_key`],
/// [`takes_blocks`]); for odd N by `middle`, then by the colex order of
/// the row sets.
///
/// The plain enumeration, the twin that [`JoinTasks`] is tested against:
/// the row sets listed in colex order, then sorted into blocks where N
/// takes them.
pub fn tasks(n: u32) -> Vec<JoinTask> {
    tasks_cut(n, even_cut(n))
}

/// [`tasks`], with even N's row sets cut as `cut` says, at any N (tests
/// count every way).
pub fn tasks_cut(n: u32, cut: EvenCut) -> Vec<JoinTask> {
    let geo = Geometry::new(n);
    let mut tasks = Vec::new();
    if n.is_multiple_of(2) {
        for_each_subset(geo.all_rows(), geo.h, |rows| {
            if rows > reverse_rows(rows, n) {
                return;
            }
            if cut == EvenCut::RowSet {
                tasks.push(JoinTask {
                    east_rows: rows,
                    middle: 0,
                });
                return;
            }
            for east_row in 0..n {
                let long_diagonal = east_row == geo.h - 1 || east_row == geo.h;
                if rows & (1 << east_row) == 0 || long_diagonal {
                    continue;
                }
                if cut == EvenCut::EastQueen {
                    tasks.push(JoinTask {
                        east_rows: rows,
                        middle: east_row + 1,
                    });
                    continue;
                }
                for west_row in 0..n {
                    if rows & (1 << west_row) == 0 && west_row.abs_diff(east_row) != 1 {
                        tasks.push(JoinTask {
                            east_rows: rows,
                            middle: (east_row + 1) | (west_row + 1) << 8,
                        });
                    }
                }
            }
        });
        if cut == EvenCut::RowSet && takes_blocks(n) {
            sort_by_tile(&geo, geo.all_rows(), &mut tasks);
        }
    } else {
        let open = geo.half_rows();
        for_each_subset(open, geo.h, |rows| {
            if centre_weight(rows, open, n) != 0 {
                tasks.push(JoinTask {
                    east_rows: rows,
                    middle: 0,
                });
            }
        });
        // The middle column's queen at distance b >= 2: the middle row's
        // must be nearer, and at least 1.
        for b in 2..=geo.h {
            let open = open & !(1 << (geo.h - b));
            for_each_subset(open, geo.h - 1, |rows| {
                tasks.push(JoinTask {
                    east_rows: rows,
                    middle: b,
                })
            });
        }
    }
    tasks
}

/// The tasks of an `n` board by position, as [`tasks`] lists them, held in
/// 4 bytes a row set: the row sets that a symmetry rule filters are
/// stored, and the odd-N tasks with the middle queens apart, which are
/// every subset of a size, are worked out from their position. Even N cut
/// beside the middle line has one task per row set and place of the queens
/// it fixes; a running count every 256 row sets finds a
/// task's row set without a list of the tasks themselves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JoinTasks {
    n: u32,
    /// Even N: how a row set's task is cut.
    cut: EvenCut,
    /// Row sets of the tasks with `middle` 0 (odd N), or of every task
    /// (even N), in order.
    stored: Vec<u32>,
    /// Even N: the tasks before each run of [`INDEX_STRIDE`] stored row
    /// sets, and in all.
    index: Vec<u64>,
    /// Odd N: tasks per middle distance b = 2..=h (each is every
    /// (h-1)-subset of the 2h-1 open rows); 0 for even N.
    per_middle: u64,
}

/// Even N: stored row sets per entry of the running task count.
const INDEX_STRIDE: usize = 256;

/// Even N: the rows where the east queen beside the middle line (column
/// h - 1) may stand for the row set `east_rows`: any of its rows but the
/// two whose square in that column is on a long diagonal (east boards keep
/// both long diagonals free).
fn beside_rows(geo: &Geometry, east_rows: u32) -> u32 {
    east_rows & !(0b11 << (geo.h - 1))
}

impl JoinTasks {
    /// The tasks of an `n` board (4 <= n <= 32).
    pub fn new(n: u32) -> JoinTasks {
        JoinTasks::cut(n, even_cut(n))
    }

    /// The tasks of an `n` board, with even N's row sets cut as `cut`
    /// says, at any N (tests count every way; a count takes
    /// [`JoinTasks::new`]).
    pub fn cut(n: u32, cut: EvenCut) -> JoinTasks {
        let cut = if n.is_multiple_of(2) {
            cut
        } else {
            EvenCut::RowSet
        };
        let beside = cut != EvenCut::RowSet;
        let geo = Geometry::new(n);
        let mut stored = Vec::new();
        let mut index = Vec::new();
        let mut per_middle = 0;
        if beside {
            let mut before = 0u64;
            for_each_subset(geo.all_rows(), geo.h, |rows| {
                if rows <= reverse_rows(rows, n) {
                    if stored.len() % INDEX_STRIDE == 0 {
                        index.push(before);
                    }
                    stored.push(rows);
                    before += tasks_of_row_set(&geo, rows, cut);
                }
            });
            index.push(before);
        } else if takes_blocks(n) {
            stored.extend(
                TiledSubsets::new(geo.all_rows(), geo.north_rows(), geo.h)
                    .filter(|&rows| rows <= reverse_rows(rows, n)),
            );
        } else if n.is_multiple_of(2) {
            for_each_subset(geo.all_rows(), geo.h, |rows| {
                if rows <= reverse_rows(rows, n) {
                    stored.push(rows);
                }
            });
        } else {
            let open = geo.half_rows();
            for_each_subset(open, geo.h, |rows| {
                if centre_weight(rows, open, n) != 0 {
                    stored.push(rows);
                }
            });
            per_middle = binomial(2 * geo.h - 1, geo.h - 1);
        }
        JoinTasks {
            n,
            cut,
            stored,
            index,
            per_middle,
        }
    }

    /// Tasks in the plan.
    pub fn len(&self) -> u64 {
        if self.cut != EvenCut::RowSet {
            return self.index.last().copied().unwrap_or(0);
        }
        let middles = if self.n.is_multiple_of(2) {
            0
        } else {
            u64::from(self.n / 2 - 1)
        };
        middles * self.per_middle + self.stored.len() as u64
    }

    /// Bytes the list holds.
    pub fn bytes(&self) -> u64 {
        self.stored.len() as u64 * 4 + self.index.len() as u64 * 8
    }

    /// Whether there is no task (never, for a board of 4 or more).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The task at `index` (below [`JoinTasks::len`]).
    pub fn get(&self, index: u64) -> JoinTask {
        let geo = Geometry::new(self.n);
        if self.cut != EvenCut::RowSet {
            assert!(index < self.len(), "join task {index} out of range");
            // The last run starting at or before `index`, then row sets
            // one by one.
            let run = self.index.partition_point(|&before| before <= index) - 1;
            let mut rest = index - self.index[run];
            for &rows in &self.stored[run * INDEX_STRIDE..] {
                let count = tasks_of_row_set(&geo, rows, self.cut);
                if rest < count {
                    let task = row_set_tasks(geo, rows, self.cut).nth(rest as usize);
                    return task.expect("a row set has the tasks it counts");
                }
                rest -= count;
            }
            unreachable!("the running count covers every task");
        }
        if let Some(&rows) = self.stored.get(index as usize) {
            return JoinTask {
                east_rows: rows,
                middle: 0,
            };
        }
        let rest = index - self.stored.len() as u64;
        assert!(self.per_middle > 0, "join task {index} out of range");
        let b = 2 + (rest / self.per_middle) as u32;
        assert!(b <= geo.h, "join task {index} out of range");
        let open = geo.half_rows() & !(1 << (geo.h - b));
        JoinTask {
            east_rows: subset_of_rank(open, geo.h - 1, rest % self.per_middle),
            middle: b,
        }
    }
}

impl JoinTasks {
    /// How an even N's row sets are cut, as a code for fingerprints: 0
    /// whole (and odd N), 1 by the east queen beside the middle line, 2 by
    /// both.
    pub fn cut_code(&self) -> u8 {
        match self.cut {
            EvenCut::RowSet => 0,
            EvenCut::EastQueen => 1,
            EvenCut::BothQueens => 2,
        }
    }

    /// Even N: every row set with the number of its tasks, in order.
    pub fn row_sets(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        let (geo, cut) = (Geometry::new(self.n), self.cut);
        self.stored
            .iter()
            .map(move |&rows| (rows, tasks_of_row_set(&geo, rows, cut)))
    }

    /// Every task in order, made one after another (no unranking): what a
    /// fingerprint of 65 million tasks walks.
    pub fn iter(&self) -> Box<dyn Iterator<Item = JoinTask> + '_> {
        let geo = Geometry::new(self.n);
        if self.n.is_multiple_of(2) {
            let cut = self.cut;
            return Box::new(
                self.stored
                    .iter()
                    .flat_map(move |&rows| row_set_tasks(geo, rows, cut)),
            );
        }
        let middles = if self.per_middle == 0 { 0 } else { geo.h };
        let stored = self.stored.iter().map(|&rows| JoinTask {
            east_rows: rows,
            middle: 0,
        });
        Box::new(stored.chain((2..=middles).flat_map(move |b| {
            let open = geo.half_rows() & !(1 << (geo.h - b));
            Subsets::new(open, geo.h - 1).map(move |rows| JoinTask {
                east_rows: rows,
                middle: b,
            })
        })))
    }
}
