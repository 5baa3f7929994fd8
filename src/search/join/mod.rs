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
//! [`SplitMatcher`]: the stored keys split on a few crossing diagonals that
//! most pairs collide on, so that each query meets only the keys it can
//! pair with, each part counted by the bit-sliced [`Matcher`].
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
mod grid;
mod halves;
mod matcher;
mod memory;
mod method;
mod quadrant;
mod rows;
mod specs;
mod split;
mod squeeze;
mod tasks;

use std::cell::RefCell;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use count::count_in;
pub(crate) use count::PairCounter;
use geometry::Geometry;
#[cfg(target_arch = "x86_64")]
use glue::{Avx2Glue, Avx512Glue};
use glue::{Glue, Placed, PortableGlue};
pub(crate) use grid::grid_levels;
use grid::task_row_sets;
use halves::{half_boards, Cursor};
use specs::{even_specs, quadrant_rows};

// What the tests reach through `crate::testing`, then what only the
// crate uses.
pub use cells::{count_placements_on, fill_cell, CellCache, MadeCells, RowCells};
pub(crate) use cells::{shared_cells, SharedCells, SHARED_MAX_SIDE, WHOLE_PLACEMENTS};
pub use cost::{task_cost, QuadrantCounts};
pub use matcher::{
    count_disjoint_naive, transpose64, transpose64_naive, Matcher, MatcherPath, BLOCK_KEYS,
};
pub(crate) use matcher::{enter_matcher, matcher_path, parse_matcher, requested_matcher};
#[cfg(feature = "testing")]
pub use matcher::{take_leaf_work, LeafWork};
pub use memory::{
    memory_needed, thread_bound, thread_bytes, LARGEST_CELL, LARGEST_ROW_SET, PLACEMENTS,
};
pub(crate) use method::JOIN;
pub use quadrant::{count_placements, placements};
pub use rows::{count_task_by_rows, count_task_row_order};
pub(crate) use split::ROUTE_BATCH;
pub use split::{choose_cuts, SplitMatcher, UnexpectedBits, LEAF_MIN, MAX_CUTS};
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

impl Scratch {
    /// Bytes this thread's buffers hold, the shared cells not included.
    fn bytes(&self) -> u64 {
        self.parts().total()
    }

    /// [`Scratch::bytes`] by part.
    fn parts(&self) -> ScratchBytes {
        let placed: u64 = self
            .north
            .iter()
            .chain(&self.south)
            .map(Placed::bytes)
            .sum();
        let keys: usize = self
            .stored
            .iter()
            .chain(&self.queries)
            .map(Vec::capacity)
            .sum();
        ScratchBytes {
            cells: self.cells.bytes(),
            made: self.made.bytes(),
            placed,
            keys: keys as u64 * 8,
            matcher: self.matcher.bytes(),
            held: self.held.bytes(),
        }
    }

    /// Takes the cells shared by all threads for quadrants of `side`, if
    /// such quadrants are shared.
    fn share_cells(&mut self, side: u32) {
        if side <= SHARED_MAX_SIDE
            && self
                .shared
                .as_ref()
                .is_none_or(|shared| shared.side() != side)
        {
            self.shared = Some(shared_cells(side));
        }
    }
}

/// Leaves the calling thread's quadrant cells as counting `task` of an `n`
/// board would leave them, without counting it: for an estimate, which
/// meets each sampled task warm, as a count does, at the cost of the cells
/// of the task before it rather than its whole count (at N = 28 a task is
/// minutes of work; its cells take under a second).
pub(crate) fn prepare_cells(n: u32, task: &JoinTask) {
    SCRATCH.with(|scratch| {
        let mut scratch = scratch.borrow_mut();
        let geo = Geometry::new(n);
        scratch.share_cells(geo.h);
        if geo.h > SHARED_MAX_SIDE {
            scratch.cells.set_whole_placements(WHOLE_PLACEMENTS);
            // In the order a count loads them, a spec at a time.
            for (rows, open) in task_row_sets(&geo, task) {
                scratch.cells.load(geo.h, &rows, open);
            }
        }
    })
}

/// Bytes the calling thread's join buffers hold now (the cells shared by
/// all threads not included): for tests of the memory bound.
pub fn thread_scratch_bytes() -> u64 {
    SCRATCH.with(|scratch| scratch.borrow().bytes())
}

/// The calling thread's join buffers by part, in bytes held now: the
/// terms of [`thread_bytes`]'s bound, for measuring how near it runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScratchBytes {
    /// The row-set cache (past the shared cells' sides).
    pub cells: u64,
    /// Cells made of row sets not held whole.
    pub made: u64,
    /// The placements of the quadrants being joined.
    pub placed: u64,
    /// Stored and query keys.
    pub keys: u64,
    /// The split matcher: routing, sorted keys and leaves.
    pub matcher: u64,
    /// A grid's boards held whole.
    pub held: u64,
}

impl ScratchBytes {
    /// Each part the larger of the two.
    pub fn max(self, other: ScratchBytes) -> ScratchBytes {
        ScratchBytes {
            cells: self.cells.max(other.cells),
            made: self.made.max(other.made),
            placed: self.placed.max(other.placed),
            keys: self.keys.max(other.keys),
            matcher: self.matcher.max(other.matcher),
            held: self.held.max(other.held),
        }
    }

    /// Each part with its name, in the order above.
    pub fn named(self) -> [(&'static str, u64); 6] {
        [
            ("cells", self.cells),
            ("made", self.made),
            ("placed", self.placed),
            ("keys", self.keys),
            ("matcher", self.matcher),
            ("held", self.held),
        ]
    }

    /// All parts together.
    pub fn total(self) -> u64 {
        self.cells + self.made + self.placed + self.keys + self.matcher + self.held
    }
}

/// [`thread_scratch_bytes`] by part.
pub fn thread_scratch_parts() -> ScratchBytes {
    SCRATCH.with(|scratch| scratch.borrow().parts())
}

/// Reusable buffers of one worker thread.
#[derive(Default)]
struct Scratch {
    /// The quadrant cells of every row set, shared by all threads, for
    /// sides up to [`SHARED_MAX_SIDE`].
    shared: Option<Arc<SharedCells>>,
    /// Past that, the quadrant cells of the row sets the last tasks used.
    cells: CellCache,
    /// The cells made of row sets not held whole.
    made: MadeCells,
    /// Placements of the quadrant being joined, by class (see
    /// [`HalfSpec::class_keys`]): north and south.
    north: [Placed; 2],
    south: [Placed; 2],
    /// Keys of the stored half boards, and of a batch of queries, by
    /// class.
    stored: [Vec<u64>; 3],
    queries: [Vec<u64>; 3],
    matcher: SplitMatcher,
    /// A grid's boards held whole.
    held: Held,
}

/// The boards a grid's count holds whole: every stored group's keys (and
/// where each group ends), and one query group's by class.
#[derive(Default)]
struct Held {
    east: [Vec<u64>; 3],
    ends: Vec<usize>,
    west: [Vec<u64>; 3],
}

impl Held {
    fn bytes(&self) -> u64 {
        let keys: usize = self.east.iter().chain(&self.west).map(Vec::capacity).sum();
        (keys * 8 + self.ends.capacity() * 8) as u64
    }
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

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

/// How much a task holds at a time: one part of the stored keys, one
/// batch of queries, and row sets of at most so many placements (the
/// larger make each cell when asked for).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parts {
    /// Keys in one part of the stored keys.
    pub stored_keys: usize,
    /// Keys in one batch of queries.
    pub query_keys: usize,
    /// Most placements of a row set held whole. Below
    /// `WHOLE_PLACEMENTS` every side takes the per-thread cache (tests
    /// take it tiny).
    pub whole_placements: u64,
    /// Columns a side each join is cut by (see `grid_levels`, which
    /// `None` takes; tests take others).
    pub levels: Option<u32>,
    /// How many of those levels cut the east side too, the others the
    /// west side only (see `grid_east_levels`, which `None` takes when
    /// `levels` is `None`; else `None` is every level).
    pub east_levels: Option<u32>,
    /// Most keys a grid holds of its stored groups together, and of one
    /// query group (`GRID_HELD_KEYS`); past it a grid's groups are
    /// joined pair by pair, each made again (tests take it tiny).
    pub held_keys: usize,
}

impl Parts {
    /// The sizes counts use: [`STORED_KEYS`], [`QUERY_KEYS`] and
    /// [`WHOLE_PLACEMENTS`].
    pub const DEFAULT: Parts = Parts {
        stored_keys: STORED_KEYS,
        query_keys: QUERY_KEYS,
        whole_placements: WHOLE_PLACEMENTS,
        levels: None,
        east_levels: None,
        held_keys: GRID_HELD_KEYS,
    };

    /// The sizes a count of an `n` board uses: [`Parts::DEFAULT`], less
    /// where a grid cuts the joins (from N = 24) and its groups never come
    /// near the caps, so that the memory bound stays near what a count
    /// takes (`memory::thread_bound`).
    pub fn of(n: u32) -> Parts {
        if grid_levels(n) == 0 {
            return Parts::DEFAULT;
        }
        Parts {
            stored_keys: grid_stored_keys(n),
            held_keys: grid_held_keys(n),
            ..Parts::DEFAULT
        }
    }
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
    let tally = count_task_scratch(n, task, parts, stop, other);
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

fn count_task_scratch(
    n: u32,
    task: &JoinTask,
    parts: Parts,
    stop: Option<&AtomicBool>,
    other: Option<&mut dyn PairCounter>,
) -> Option<JoinTally> {
    SCRATCH.with(|scratch| {
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
    })
}

/// The keys of the first join of an even-N task (its west queen beside
/// the middle on the first row it can take): the east boards (with both
/// long diagonals free) and the west boards by how many long-diagonal
/// queens they hold; for benchmarks of the matchers on real keys.
pub fn task_keys(n: u32, task: &JoinTask) -> (Vec<u64>, [Vec<u64>; 3]) {
    assert!(n.is_multiple_of(2), "task_keys takes even N");
    let geo = Geometry::new(n);
    let (mut north, mut south) = (Default::default(), Default::default());
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
        &mut north,
        &mut south,
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
        &mut north,
        &mut south,
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
    count_in(glue, n, task, parts, stop, scratch, other)
}

/// Most keys a grid holds of its stored groups, and of one query group:
/// 64 MiB each. At N = 27 a task's east boards reach past 4 million (one
/// sampled task took 3.3 s joined pair by pair, 2.1 s held, on one
/// AVX-512 core, Zen 4 or 5).
pub(crate) const GRID_HELD_KEYS: usize = 1 << 23;

/// Most keys a grid holds of its stored groups, and of one query group,
/// for an `n` board: 4 million (32 MiB a side) at N = 24 and 26, whose
/// groups stay below it, [`GRID_HELD_KEYS`] at odd N and at N = 28, where
/// some pass it. Measured on Zen 5 AVX-512 (`examples/task_memory.rs`, the
/// tasks ranked heaviest and at random, one thread): N = 27 took 61.1 to
/// 61.5 s held to 8 million, 70.8 to 71.0 s to 4; N = 28 80.4 to 81.7 s
/// to 4 million as to 8 on one thread, but 7 to 10% longer on two
/// (`plan 28 -j2 --estimate --sample 40`, alternating), and 92.0 s to 2
/// million on one.
pub(crate) fn grid_held_keys(n: u32) -> usize {
    if n.is_multiple_of(2) && n < 28 {
        1 << 22
    } else {
        GRID_HELD_KEYS
    }
}

/// Most stored keys a thread matches at once where a grid cuts the joins
/// of an `n` board: its parts hold fewer keys than [`STORED_KEYS`] anyway.
/// Measured as above: N = 24, 26 and 28 took the same time at 128
/// thousand as at 1.5 million (the tasks ranked heaviest and at random,
/// 2.5 to 2.6 s for 120 tasks of N = 24, 10.9 to 11.1 s for 36 of N = 26);
/// odd N's larger groups 3% longer at 128 thousand (N = 27: 62.4 to 63.4 s
/// against 61.1 to 61.5 s), the same at 512 thousand.
pub(crate) fn grid_stored_keys(n: u32) -> usize {
    if n.is_multiple_of(2) {
        1 << 17
    } else {
        1 << 19
    }
}

/// Most stored keys a thread matches at once. Larger sides (from N ~ 24)
/// are stored in parts, and every part meets all the queries, built again
/// per part. Fewer, larger parts split deeper: at N = 24, parts of ~0.8
/// million keys took 10% longer than of ~1.6 million, and ~0.4 million 18%
/// longer than ~0.8 million. A key takes up to ~90 bytes with its copies
/// and its matcher (measured at N = 25, where most pairs become keys).
pub(crate) const STORED_KEYS: usize = 3 << 19;

/// Query keys made in one batch: the queries are never all held at once.
pub(crate) const QUERY_KEYS: usize = 1 << 17;

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
}
