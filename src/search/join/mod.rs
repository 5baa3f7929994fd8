//! The `join` method: counts solutions by pairing half boards instead of
//! searching row by row.
//!
//! Let h = N/2. Columns 0..h are the east half, N-h..N the west half (odd N
//! has a middle column between them). In a solution the rows whose queen is
//! in the east form a set R of h rows (h-1 when the middle row's queen is in
//! the east), the west queens take the other rows, and the two halves can
//! only clash on the diagonals crossing the middle. So for each R the count
//! is the number of pairs (east half board on rows R, west half board on
//! the other rows) whose sets of crossing diagonals, a u64 *key* each, are
//! disjoint. Half boards are glued from two quadrant placements taken from
//! the cells of their row sets ([`RowCells`], built on demand); the
//! disjoint pairs are counted by a
//! [`SplitMatcher`](crate::search::disjoint::SplitMatcher): the stored keys split on a few crossing diagonals that
//! most pairs collide on, so that each query meets only the keys it can
//! pair with, each part counted by the bit-sliced
//! [`Matcher`](crate::search::disjoint::Matcher).
//!
//! Symmetry, even N: only the east boards with no
//! queen on a long diagonal are built; a west board stands for 2^k images
//! where k counts its long-diagonal queens (the reflections in the two long
//! diagonals move those queens between the halves one at a time). Of R and
//! its reverse (the north-south flip) only the smaller is a task; when no
//! queen is on a long diagonal the left-right flip joins in, and only the
//! smallest of R, its reverse, complement and reversed complement counts.
//! From N = 24 ([`BESIDE_MIN_N`]) a row set's task is cut by the row of
//! the east queen beside the middle line (column h - 1), and the task
//! joins once per row of the west queen beside the middle line (column
//! h): the east boards with the first queen in place and the west boards
//! with the second, each side keeping only the boards the other side's
//! queen leaves alone. Those joins, and the odd-N ones from N = 25, are
//! cut again inside the task by the queens of the next columns a side
//! (see [`grid_levels`] and [`grid_east_levels`](grid::grid_east_levels)), and each group's
//! quadrant cells are built within the columns its fixed queens leave
//! open.
//!
//! Odd N: every solution has a queen in the middle row and one in the middle
//! column. Either one queen stands on the centre (the four flips of R above
//! leave 1/4 of those boards), or the two are distinct, at distances a != b
//! from the centre on two perpendicular arms of the middle cross; exactly one
//! of each 8 images has the nearer queen on the middle row's east arm and
//! the farther on the middle column's north arm, and only those are counted,
//! weight 8.
//!
//! The unique count does not come from here: it is Burnside's, from the
//! symmetric searches, as for every method.

mod cells;
mod cost;
mod count;
mod geometry;
mod glue;
#[cfg(feature = "gpu")]
pub(crate) mod gpu;
mod grid;
mod halves;
mod memory;
mod method;
mod parts;
mod quadrant;
mod recent;
mod rows;
mod scratch;
mod specs;
mod tasks;

use std::sync::atomic::AtomicBool;

use crate::search::disjoint::{matcher_path, MatcherPath};

use count::count_in;
pub(crate) use count::PairCounter;
use geometry::Geometry;
#[cfg(target_arch = "x86_64")]
use glue::{Avx2Glue, Avx512Glue};
use glue::{Glue, PortableGlue};
pub(crate) use grid::grid_levels;
use halves::{half_boards, Cursor};
use specs::{even_specs, quadrant_rows};

// What the tests reach through `crate::testing`, then what only the
// crate uses.
pub use cells::{count_placements_on, fill_cell, CellCache, MadeCells, RowCells};
pub(crate) use cells::{shared_cells, SharedCells, SHARED_MAX_SIDE, WHOLE_PLACEMENTS};
pub use cost::{task_cost, QuadrantCounts};
pub use memory::{
    allocator_slack, memory_needed, thread_bound, thread_bytes, LARGEST_CELL, LARGEST_ROW_SET,
    PLACEMENTS,
};
pub(crate) use method::JOIN;
pub use parts::Parts;
pub use quadrant::{count_placements, placements};
pub use rows::{count_task_by_rows, count_task_row_order};
pub(crate) use scratch::prepare_cells;
pub use scratch::{thread_scratch_parts, ScratchBytes};
use scratch::{Scratch, SCRATCH};
pub(crate) use tasks::cut_queens;
pub use tasks::{tasks, tasks_cut, EvenCut, JoinTask, JoinTasks};

/// Smallest N counted by joining; below it the halves are too small for the
/// symmetry rules (and every method is instant).
pub const JOIN_MIN_N: u32 = 4;

/// Largest N counted by joining. Row sets grow ~6x per two N (the largest
/// 236 MB at N = 28; past 16 MiB their cells are made one at a time), the
/// largest cell ~5x (3 MB at N = 28, four made at a time per thread), and
/// the plan keeps 4 bytes per row set task (80 MB at N = 28, 310 MB at
/// N = 30).
pub const JOIN_MAX_N: u32 = 28;

/// What a `join` task counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct JoinTally {
    /// Solutions, weighted.
    pub solutions: u64,
    /// Pairs of half boards decided by the matcher (the work measure
    /// reported as nodes).
    pub pairs: u64,
}

impl std::ops::AddAssign for JoinTally {
    fn add_assign(&mut self, other: JoinTally) {
        self.solutions += other.solutions;
        self.pairs += other.pairs;
    }
}

/// Counts one task of an `n` board, in this thread's scratch space.
pub fn count_task(n: u32, task: &JoinTask) -> JoinTally {
    count_task_in_parts(n, task, Parts::of(n))
}

/// [`count_task`] with the stored keys and the queries taken in `parts`:
/// the same counts at any sizes (tests take them tiny).
pub fn count_task_in_parts(n: u32, task: &JoinTask, parts: Parts) -> JoinTally {
    count_task_with(n, task, parts, None, None).expect("a task without a stop flag runs to its end")
}

/// [`count_task`], abandoned (`None`) once `stop` is set: checked after
/// every batch of queries, so a task of minutes stops within a fraction
/// of a second.
pub(crate) fn count_task_until(n: u32, task: &JoinTask, stop: &AtomicBool) -> Option<JoinTally> {
    count_task_with(n, task, Parts::of(n), Some(stop), None)
}

/// [`count_task`] with its pairs counted by `counter` (a device) instead
/// of this thread's matcher, abandoned (`None`) once `stop` is set or the
/// counter fails: the same count as on the CPU. (Only a device build and
/// the tests count through another counter.)
#[cfg_attr(not(any(test, feature = "gpu")), allow(dead_code))]
pub(crate) fn count_task_on(
    n: u32,
    task: &JoinTask,
    counter: &mut dyn PairCounter,
    stop: Option<&AtomicBool>,
) -> Option<JoinTally> {
    count_task_with(n, task, Parts::of(n), stop, Some(counter))
}

fn count_task_with(
    n: u32,
    task: &JoinTask,
    parts: Parts,
    stop: Option<&AtomicBool>,
    other: Option<&mut dyn PairCounter>,
) -> Option<JoinTally> {
    let tally = SCRATCH.with(|scratch| {
        let mut scratch = scratch.borrow_mut();
        scratch.share_cells(n / 2);
        let scratch = &mut *scratch;
        // The glue follows the matcher's path, so forcing one forces both.
        #[cfg(target_arch = "x86_64")]
        {
            let bmi = std::arch::is_x86_feature_detected!("popcnt")
                && std::arch::is_x86_feature_detected!("bmi1");
            match matcher_path() {
                MatcherPath::Avx512 => {
                    if let (Some(glue), true) = (Avx512Glue::here(), bmi) {
                        // SAFETY: the CPU has the features the function is
                        // built for (the glue proves AVX-512F).
                        return unsafe {
                            count_in_avx512(glue, n, task, parts, stop, scratch, other)
                        };
                    }
                }
                MatcherPath::Avx2 => {
                    if let (Some(glue), true) = (Avx2Glue::here(), bmi) {
                        // SAFETY: the glue proves AVX2 and `bmi` BMI1,
                        // the features `count_in_avx2` is built for.
                        return unsafe {
                            count_in_avx2(glue, n, task, parts, stop, scratch, other)
                        };
                    }
                }
                MatcherPath::Portable => {}
            }
            if bmi {
                // SAFETY: `bmi` found POPCNT and BMI1, the features
                // `count_in_bmi` is built for.
                return unsafe { count_in_bmi(PortableGlue, n, task, parts, stop, scratch, other) };
            }
        }
        count_in(PortableGlue, n, task, parts, stop, scratch, other)
    });
    if n / 2 > SHARED_MAX_SIDE {
        // From N = 24 a thread's cache frees and makes blocks of up to
        // 16 MiB task after task, and glibc's arenas keep what is freed:
        // without this, resident memory crept past the plan's bound over
        // hundreds of tasks (773 MiB after 200 sampled tasks of N = 28 on
        // 2 threads, 884 after 802).
        crate::system::give_back_free_memory();
    }
    tally
}

/// The keys of the first join of an even-N task (its west queen beside
/// the middle on the first row it can take): the east boards (with both
/// long diagonals free) and the west boards by how many long-diagonal
/// queens they hold; for benchmarks of the matchers on real keys.
pub fn task_keys(n: u32, task: &JoinTask) -> (Vec<u64>, [Vec<u64>; 3]) {
    assert!(n.is_multiple_of(2), "task_keys takes even N");
    let geo = Geometry::new(n);
    let mut placing = Default::default();
    let mut east: [Vec<u64>; 3] = Default::default();
    let mut west: [Vec<u64>; 3] = Default::default();
    let (east_spec, west_spec, _) = even_specs(&geo, task, [1, 1, 1]).swap_remove(0);
    let mut cells = CellCache::default();
    let [east_cells, west_cells] = [&east_spec, &west_spec].map(|spec| quadrant_rows(&geo, spec));
    cells.load(geo.h, &east_cells, east_spec.cols);
    cells.load(geo.h, &west_cells, west_spec.cols);
    let east_cells = east_cells.map(|rows| cells.get(rows, east_spec.cols));
    let west_cells = west_cells.map(|rows| cells.get(rows, west_spec.cols));
    let all = usize::MAX;
    let mut cursor = Cursor::start(&east_spec);
    let mut made = Default::default();
    half_boards(
        PortableGlue,
        east_cells,
        &mut made,
        &geo,
        &east_spec,
        &mut placing,
        &mut east,
        &mut cursor,
        all,
    );
    let mut cursor = Cursor::start(&west_spec);
    half_boards(
        PortableGlue,
        west_cells,
        &mut made,
        &geo,
        &west_spec,
        &mut placing,
        &mut west,
        &mut cursor,
        all,
    );
    let [east, _, _] = east;
    (east, west)
}

/// [`count_in`] built for CPUs with popcnt and BMI1 (the column-split loop
/// counts bits on every step).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1")]
fn count_in_bmi(
    glue: PortableGlue,
    n: u32,
    task: &JoinTask,
    parts: Parts,
    stop: Option<&AtomicBool>,
    scratch: &mut Scratch,
    other: Option<&mut dyn PairCounter>,
) -> Option<JoinTally> {
    count_in(glue, n, task, parts, stop, scratch, other)
}

/// [`count_in`] built with the AVX2 glue inlined.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,bmi1")]
fn count_in_avx2(
    glue: Avx2Glue,
    n: u32,
    task: &JoinTask,
    parts: Parts,
    stop: Option<&AtomicBool>,
    scratch: &mut Scratch,
    other: Option<&mut dyn PairCounter>,
) -> Option<JoinTally> {
    crate::search::frame::align_frame();
    count_in(glue, n, task, parts, stop, scratch, other)
}

/// [`count_in`] built with the AVX-512 glue inlined.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,popcnt,bmi1")]
fn count_in_avx512(
    glue: Avx512Glue,
    n: u32,
    task: &JoinTask,
    parts: Parts,
    stop: Option<&AtomicBool>,
    scratch: &mut Scratch,
    other: Option<&mut dyn PairCounter>,
) -> Option<JoinTally> {
    crate::search::frame::align_frame();
    count_in(glue, n, task, parts, stop, scratch, other)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every pair tried: the naive twin of any pair counter.
    #[derive(Default)]
    struct NaivePairs {
        stored: Vec<u64>,
    }

    impl PairCounter for NaivePairs {
        fn load(&mut self, stored: &[u64], _cuts: &[u64]) -> bool {
            self.stored = stored.to_vec();
            true
        }

        fn sum_disjoint(&mut self, queries: &[u64], extra: u64) -> Option<u64> {
            Some(
                queries
                    .iter()
                    .map(|query| {
                        let query = query | extra;
                        self.stored.iter().filter(|&&key| key & query == 0).count() as u64
                    })
                    .sum(),
            )
        }
    }

    /// A counter that fails on its `fail_on`th call.
    struct Failing {
        calls: usize,
        fail_on: usize,
    }

    impl PairCounter for Failing {
        fn load(&mut self, _stored: &[u64], _cuts: &[u64]) -> bool {
            self.calls += 1;
            self.calls != self.fail_on
        }

        fn sum_disjoint(&mut self, _queries: &[u64], _extra: u64) -> Option<u64> {
            self.calls += 1;
            (self.calls != self.fail_on).then_some(0)
        }
    }

    #[test]
    fn a_task_counted_through_another_pair_counter_is_the_cpus() {
        for n in 8..=15 {
            let tasks = JoinTasks::new(n);
            let len = tasks.len();
            for k in 0..12u64 {
                let id = (k * 7_919 + u64::from(n)) % len;
                let task = tasks.get(id);
                let cpu = count_task(n, &task);
                let mut naive = NaivePairs::default();
                let other = count_task_on(n, &task, &mut naive, None).unwrap();
                assert_eq!(other, cpu, "N = {n}, task {id}");
            }
        }
    }

    #[test]
    fn a_failing_pair_counter_abandons_the_task() {
        let n = 14;
        let tasks = JoinTasks::new(n);
        // A task with pairs to count: its count needs at least one load
        // and one sum.
        let task = (0..tasks.len())
            .map(|id| tasks.get(id))
            .find(|task| count_task(n, task).solutions > 0)
            .unwrap();
        for fail_on in 1..=2 {
            let mut failing = Failing { calls: 0, fail_on };
            assert_eq!(count_task_on(n, &task, &mut failing, None), None);
        }
    }

    #[test]
    fn a_grids_two_sides_share_one_budget_and_count_alike() {
        // Caps from a few keys (most groups joined pair by pair) to past
        // every group: each count as the uncapped one, and after every
        // task the keys the held lists have touched within the share and
        // the two sides' overshoot of one north placement each.
        for n in [10u32, 12, 13] {
            // Even tasks cut by the queens beside the middle, as from N =
            // 24, where grids start.
            let cut = if n % 2 == 0 {
                EvenCut::EastQueen
            } else {
                EvenCut::RowSet
            };
            let tasks = tasks_cut(n, cut);
            let grid = Parts {
                levels: Some(2),
                east_levels: Some(2),
                ..Parts::DEFAULT
            };
            let cell = memory::LARGEST_CELL[(n / 2) as usize] as usize;
            let mut capped_somewhere = false;
            for held_keys in [3, 12, 40, 600] {
                let parts = Parts { held_keys, ..grid };
                for (id, task) in tasks.iter().enumerate().step_by(3) {
                    let whole = count_task_in_parts(n, task, grid);
                    let shared = count_task_in_parts(n, task, parts);
                    assert_eq!(
                        shared.solutions, whole.solutions,
                        "N = {n}, {held_keys}, {id}"
                    );
                    let touched = SCRATCH.with(|scratch| scratch.borrow().held.touched_keys());
                    assert!(
                        touched <= parts.held_share() + 2 * cell,
                        "N = {n}, cap {held_keys}, task {id}: {touched} keys touched"
                    );
                    capped_somewhere |= touched > held_keys;
                }
            }
            // Both sides held at once past one side's cap: the share was
            // what bounded them.
            assert!(capped_somewhere, "N = {n}");
        }
    }
}
