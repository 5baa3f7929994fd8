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
//! (see [`grid_levels`] and [`grid_east_levels`]), and each group's
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
mod glue;
mod matcher;
mod memory;
mod quadrant;
mod rows;
mod split;
mod tasks;

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use glue::{keep_disjoint, Glue, Move, Placed, PortableGlue};
#[cfg(target_arch = "x86_64")]
use glue::{Avx2Glue, Avx512Glue};

pub use cells::{
    count_placements_on, fill_cell, shared_cells, CellCache, MadeCells, RowCells, SharedCells,
    SHARED_MAX_SIDE, WHOLE_PLACEMENTS,
};
pub use matcher::{
    count_disjoint_naive, matcher_path, requested_matcher, transpose64, transpose64_naive, Matcher,
    MatcherPath, BLOCK_KEYS, MATCHER_VARIABLE,
};
pub use memory::{
    memory_needed, shared_bytes, thread_bytes, LARGEST_CELL, LARGEST_ROW_SET, PLACEMENTS,
};
pub use quadrant::{count_placements, placements};
pub use rows::count_task_by_rows;
pub use split::{choose_cuts, SplitMatcher, UnexpectedBits, LEAF_MIN, MAX_CUTS, ROUTE_BATCH};
use tasks::west_beside_rows;
pub use tasks::{tasks, tasks_cut, EvenCut, JoinTask, JoinTasks, BESIDE_MIN_N, BOTH_BESIDE_MIN_N};

/// Smallest N counted by joining; below it the halves are too small for the
/// symmetry rules (and every method is instant).
pub const JOIN_MIN_N: u32 = 4;

/// Largest N counted by joining. Row sets grow ~6x per two N (the largest
/// 236 MB at N = 28; past 16 MiB their cells are made one at a time), the
/// largest cell ~5x (3 MB at N = 28, four made at a time per thread), and
/// the plan keeps 4 bytes per row set task (80 MB at N = 28, 310 MB at
/// N = 30).
pub const JOIN_MAX_N: u32 = 28;

/// Where the halves meet: the bits of a board's diagonals that form keys.
#[derive(Clone, Copy, Debug)]
struct Geometry {
    n: u32,
    /// Side of a quadrant, N/2.
    h: u32,
    /// First row and column of the south and west quadrants, N-h; also the
    /// first diagonal index crossing the middle.
    lo: u32,
    /// Diagonals of one direction that cross the middle: N-1 for even N,
    /// N-2 for odd N.
    width: u32,
}

impl Geometry {
    fn new(n: u32) -> Geometry {
        let h = n / 2;
        let lo = n - h;
        Geometry {
            n,
            h,
            lo,
            width: 2 * n - 1 - 2 * lo,
        }
    }

    /// The key of a half board with diagonal masks `d1` (index r - c + N-1)
    /// and `d2` (index r + c): its crossing diagonals, `d1`'s in the low
    /// `width` bits and `d2`'s above.
    #[inline(always)]
    fn key(&self, d1: u64, d2: u64) -> u64 {
        let mask = self.crossing_mask();
        ((d1 >> self.lo) & mask) | (((d2 >> self.lo) & mask) << self.width)
    }

    /// The crossing diagonals of one direction, shifted down to bit 0: a
    /// key's half.
    fn crossing_mask(&self) -> u64 {
        (1u64 << self.width) - 1
    }

    /// Diagonal masks of the queen on (row, col).
    fn queen_diagonals(&self, row: u32, col: u32) -> (u64, u64) {
        (1u64 << (row + self.n - 1 - col), 1u64 << (row + col))
    }

    /// Shifts taking a quadrant's local diagonal indexes to the board's, for
    /// the quadrant in the north or south and the east or west half.
    fn shifts(&self, south: bool, west: bool) -> (u32, u32) {
        match (south, west) {
            (false, false) => (self.lo, 0),
            (true, false) => (2 * self.lo, self.lo),
            (false, true) => (0, self.lo),
            (true, true) => (self.lo, 2 * self.lo),
        }
    }

    fn all_rows(&self) -> u32 {
        ((1u64 << self.n) - 1) as u32
    }

    /// Rows open to the halves: all but the middle row (odd N).
    fn half_rows(&self) -> u32 {
        if self.n % 2 == 1 {
            self.all_rows() & !(1 << self.h)
        } else {
            self.all_rows()
        }
    }
}

/// `rows` with row r moved to N-1-r: the north-south flip.
fn reverse_rows(rows: u32, n: u32) -> u32 {
    rows.reverse_bits() >> (32 - n)
}

/// Weight of the north-south flip alone: R and its reverse are counted
/// through the smaller one.
fn flip_weight(rows: u32, n: u32) -> u64 {
    use std::cmp::Ordering::*;
    match rows.cmp(&reverse_rows(rows, n)) {
        Less => 2,
        Equal => 1,
        Greater => 0,
    }
}

/// Weight under the north-south and east-west flips together (rows ->
/// reverse, rows -> complement within `open`): the size of R's class if R
/// is its smallest member, else 0.
fn four_flip_weight(rows: u32, open: u32, n: u32) -> u64 {
    let class = [
        rows,
        reverse_rows(rows, n),
        open & !rows,
        reverse_rows(open & !rows, n),
    ];
    if class.iter().any(|&other| other < rows) {
        return 0;
    }
    let mut distinct = class;
    distinct.sort_unstable();
    1 + distinct
        .windows(2)
        .filter(|pair| pair[0] != pair[1])
        .count() as u64
}

/// Weight of an odd-N task with the queen on the centre square.
fn centre_weight(rows: u32, open: u32, n: u32) -> u64 {
    four_flip_weight(rows, open, n)
}

/// Weights of an even-N task's west boards by their long-diagonal queens:
/// index 0 = none, 1 = one, 2 = both.
fn even_weights(rows: u32, n: u32) -> [u64; 3] {
    let flip = flip_weight(rows, n);
    [four_flip_weight(rows, (1 << n) - 1, n), flip * 2, flip * 4]
}

impl Scratch {
    /// Bytes this thread's buffers hold, the shared cells not included.
    fn bytes(&self) -> u64 {
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
        self.cells.bytes()
            + self.made.bytes()
            + placed
            + keys as u64 * 8
            + self.matcher.bytes()
            + self.held.bytes()
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
pub fn prepare_cells(n: u32, task: &JoinTask) {
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
    count_task_in_parts(n, task, Parts::DEFAULT)
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
    /// [`WHOLE_PLACEMENTS`] every side takes the per-thread cache (tests
    /// take it tiny).
    pub whole_placements: u64,
    /// Columns a side each join is cut by (see [`grid_levels`], which
    /// `None` takes; tests take others).
    pub levels: Option<u32>,
    /// How many of those levels cut the east side too, the others the
    /// west side only (see [`grid_east_levels`], which `None` takes when
    /// `levels` is `None`; else `None` is every level).
    pub east_levels: Option<u32>,
    /// Most keys a grid holds of its stored groups together, and of one
    /// query group ([`GRID_HELD_KEYS`]); past it a grid's groups are
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
}

/// [`count_task`] with the stored keys and the queries taken in `parts`:
/// the same counts at any sizes (tests take them tiny).
pub fn count_task_in_parts(n: u32, task: &JoinTask, parts: Parts) -> JoinTally {
    count_task_with(n, task, parts, None).expect("a task without a stop flag runs to its end")
}

/// [`count_task`], abandoned (`None`) once `stop` is set: checked after
/// every batch of queries, so a task of minutes stops within a fraction
/// of a second.
pub fn count_task_until(n: u32, task: &JoinTask, stop: &AtomicBool) -> Option<JoinTally> {
    count_task_with(n, task, Parts::DEFAULT, Some(stop))
}

fn count_task_with(
    n: u32,
    task: &JoinTask,
    parts: Parts,
    stop: Option<&AtomicBool>,
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
                        return unsafe { count_in_avx512(glue, n, task, parts, stop, scratch) };
                    }
                }
                MatcherPath::Avx2 => {
                    if let (Some(glue), true) = (Avx2Glue::here(), bmi) {
                        // SAFETY: as above (the glue proves AVX2).
                        return unsafe { count_in_avx2(glue, n, task, parts, stop, scratch) };
                    }
                }
                MatcherPath::Portable => {}
            }
            if bmi {
                // SAFETY: as above.
                return unsafe { count_in_bmi(PortableGlue, n, task, parts, stop, scratch) };
            }
        }
        count_in(PortableGlue, n, task, parts, stop, scratch)
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
) -> Option<JoinTally> {
    count_in(glue, n, task, parts, stop, scratch)
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
) -> Option<JoinTally> {
    count_in(glue, n, task, parts, stop, scratch)
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
) -> Option<JoinTally> {
    count_in(glue, n, task, parts, stop, scratch)
}

/// The joins of an even-N task, each a pair of halves and the weights of
/// the west boards by class (see the module notes). A whole row set is one
/// join: the east boards with both long diagonals free, and the west
/// boards. A task with its east queen beside the middle line (column
/// h - 1) is one join per place of the west queen beside the middle line
/// (column h): the halves without those two queens, each forbidden both
/// queens' diagonals (so that each side holds only the boards the other
/// side's queen leaves alone; the east boards keep both long diagonals
/// free too), the class weights shifted by one where the west queen
/// stands on a long diagonal itself. The two queens are never on adjacent
/// rows.
fn even_specs(
    geo: &Geometry,
    task: &JoinTask,
    weights: [u64; 3],
) -> Vec<(HalfSpec, HalfSpec, [u64; 3])> {
    let quadrant_cols = (1u32 << geo.h) - 1;
    let main = 1u64 << (geo.n - 1);
    let west_rows = geo.all_rows() & !task.east_rows;
    let class_keys = geo.key(main, main);
    if task.middle == 0 {
        let east = HalfSpec::new(task.east_rows, quadrant_cols, false, (main, main));
        let west = HalfSpec {
            class_keys,
            ..HalfSpec::new(west_rows, quadrant_cols, true, (0, 0))
        };
        return vec![(east, west, weights)];
    }
    // One join per place of the west queen beside the middle line: the
    // join of the task that fixes it too.
    let east_row = task.east_beside().expect("a cut task fixes its east queen");
    let west_places = match task.west_beside() {
        Some(west_row) => 1 << west_row,
        None => west_beside_rows(geo, task.east_rows, east_row),
    };
    (0..geo.n)
        .filter(|&row| west_places & (1 << row) != 0)
        .map(|west_row| {
            let both_fixed = JoinTask {
                east_rows: task.east_rows,
                middle: (1 + east_row) | (1 + west_row) << 8,
            };
            even_join(geo, &both_fixed, weights)
        })
        .collect()
}

/// The diagonals of both `a` and `b`.
fn union(a: (u64, u64), b: (u64, u64)) -> (u64, u64) {
    (a.0 | b.0, a.1 | b.1)
}

/// Whether a queen on diagonals `queen` keeps off the diagonals `forbid`.
fn leaves_alone(forbid: (u64, u64), queen: (u64, u64)) -> bool {
    forbid.0 & queen.0 == 0 && forbid.1 & queen.1 == 0
}

/// The rows of `rows`, lowest first.
fn rows_in(geo: &Geometry, rows: u32) -> impl Iterator<Item = u32> {
    (0..geo.n).filter(move |&row| rows & (1 << row) != 0)
}

/// Joins by the places of two more queens, one per side of the middle: a
/// stored group per place of the east one (its diagonals, and the stored
/// specs of the boards that hold it, each with its extra key) and a query
/// group per place of the west one (its diagonals, the query spec and the
/// class weights). Every stored group meets every query group whose queen
/// its own leaves alone, each side keeping only the boards that leave the
/// other side's queen alone: a board's key holds every diagonal it shares
/// with a queen across the middle, so that is one AND per board, and each
/// group's boards are made once however many groups they meet.
struct Grid {
    stored: Vec<StoredGroup>,
    queries: Vec<QueryGroup>,
}

/// A grid's stored group: its queens' diagonals, and its specs, each with
/// its extra key.
type StoredGroup = ((u64, u64), Vec<(HalfSpec, u64)>);

/// A grid's query group: its queens' diagonals, its spec and the class
/// weights.
type QueryGroup = ((u64, u64), HalfSpec, [u64; 3]);

impl Grid {
    /// One join as a grid of one group a side.
    fn of_join(stored: Vec<(HalfSpec, u64)>, query: HalfSpec, weights: [u64; 3]) -> Grid {
        Grid {
            stored: vec![((0, 0), stored)],
            queries: vec![((0, 0), query, weights)],
        }
    }

    /// The grid with every group split by the place of its queen in one
    /// more column a side: `east_col` (a board column) and the west
    /// half's column `west_col` (0 beside the middle). A place is kept if
    /// it leaves the spec's forbidden diagonals alone (its fixed queens,
    /// and for east boards of even N the long diagonals); a spec whose
    /// column a fixed queen of its own holds already (the middle row's)
    /// forms a group of its own, as that queen's place. A west queen on a
    /// long diagonal shifts the class weights by one.
    fn deepen(self, geo: &Geometry, east_col: Option<u32>, west_col: Option<u32>) -> Grid {
        let mut stored = Vec::new();
        let Some(east_col) = east_col else {
            return self.deepen_queries(geo, west_col);
        };
        for (queen, specs) in self.stored {
            // By the row of the new queen; `geo.n` for a column held.
            let mut groups: Vec<(u32, Vec<(HalfSpec, u64)>)> = Vec::new();
            let mut group = |row: u32, spec: (HalfSpec, u64)| match groups
                .iter_mut()
                .find(|(r, _)| *r == row)
            {
                Some((_, specs)) => specs.push(spec),
                None => groups.push((row, vec![spec])),
            };
            for (spec, extra) in specs {
                if spec.cols & (1 << east_col) == 0 {
                    group(geo.n, (spec, extra));
                    continue;
                }
                for row in rows_in(geo, spec.rows) {
                    let new = geo.queen_diagonals(row, east_col);
                    if leaves_alone(spec.forbid, new) {
                        let deeper = HalfSpec {
                            rows: spec.rows & !(1 << row),
                            cols: spec.cols & !(1 << east_col),
                            forbid: union(spec.forbid, new),
                            ..spec
                        };
                        group(row, (deeper, extra));
                    }
                }
            }
            groups.sort_by_key(|(row, _)| *row);
            for (row, specs) in groups {
                let new = if row == geo.n {
                    (0, 0)
                } else {
                    geo.queen_diagonals(row, east_col)
                };
                stored.push((union(queen, new), specs));
            }
        }
        Grid {
            stored,
            queries: self.queries,
        }
        .deepen_queries(geo, west_col)
    }

    /// [`Grid::deepen`] of the query groups only.
    fn deepen_queries(self, geo: &Geometry, west_col: Option<u32>) -> Grid {
        let Some(west_col) = west_col else {
            return self;
        };
        let mut queries = Vec::new();
        for (queen, spec, weights) in self.queries {
            for row in rows_in(geo, spec.rows) {
                let new = geo.queen_diagonals(row, geo.lo + west_col);
                if spec.cols & (1 << west_col) == 0 || !leaves_alone(spec.forbid, new) {
                    continue;
                }
                let deeper = HalfSpec {
                    rows: spec.rows & !(1 << row),
                    cols: spec.cols & !(1 << west_col),
                    forbid: union(spec.forbid, new),
                    ..spec
                };
                let weights = if geo.key(new.0, new.1) & spec.class_keys != 0 {
                    [weights[1], weights[2], 0]
                } else {
                    weights
                };
                queries.push((union(queen, new), deeper, weights));
            }
        }
        Grid {
            stored: self.stored,
            queries,
        }
    }

    /// Every spec, in the order the grid's count makes their boards.
    fn specs(&self) -> impl Iterator<Item = HalfSpec> + '_ {
        let stored = self
            .stored
            .iter()
            .flat_map(|(_, specs)| specs.iter().map(|(spec, _)| *spec));
        stored.chain(self.queries.iter().map(|(_, spec, _)| *spec))
    }

    /// The pairs of groups that meet, each as the stored specs (forbidden
    /// the query group's queen, without those whose extra key it takes)
    /// and the query spec (forbidden the stored group's queen): the twin
    /// of the grid's count, and its way when a group is too large to hold.
    fn pairs<'a>(
        &'a self,
        geo: &'a Geometry,
        queries: &'a [QueryGroup],
    ) -> impl Iterator<Item = (Vec<(HalfSpec, u64)>, HalfSpec, [u64; 3])> + 'a {
        let key = |(d1, d2): (u64, u64)| geo.key(d1, d2);
        queries
            .iter()
            .flat_map(move |(west_queen, query, weights)| {
                self.stored
                    .iter()
                    .filter(move |(east_queen, _)| key(*east_queen) & key(*west_queen) == 0)
                    .map(move |(east_queen, specs)| {
                        let stored = specs
                            .iter()
                            .filter(|(_, extra)| extra & key(*west_queen) == 0)
                            .map(|(spec, extra)| {
                                let forbid = union(spec.forbid, *west_queen);
                                (HalfSpec { forbid, ..*spec }, *extra)
                            })
                            .collect();
                        let forbid = union(query.forbid, *east_queen);
                        (stored, HalfSpec { forbid, ..*query }, *weights)
                    })
            })
    }
}

/// The join of an even-N task cut beside the middle line, with only the
/// queens it fixes: the east boards with their queen beside the middle
/// (both forbidden its diagonals, and the west one's when the task fixes
/// it too; the east boards keep both long diagonals free), the west boards
/// and their class weights (shifted by one where the west queen stands on
/// a long diagonal).
fn even_join(geo: &Geometry, task: &JoinTask, weights: [u64; 3]) -> (HalfSpec, HalfSpec, [u64; 3]) {
    let quadrant_cols = (1u32 << geo.h) - 1;
    let main = 1u64 << (geo.n - 1);
    let west_rows = geo.all_rows() & !task.east_rows;
    let east_row = task.east_beside().expect("a cut task fixes its east queen");
    let east_queen = geo.queen_diagonals(east_row, geo.h - 1);
    let (west_rows, west_cols, forbid, weights) = match task.west_beside() {
        None => (west_rows, quadrant_cols, east_queen, weights),
        Some(west_row) => {
            let west_queen = geo.queen_diagonals(west_row, geo.h);
            let both = union(east_queen, west_queen);
            let on_long_diagonal = west_row == geo.h - 1 || west_row == geo.h;
            let weights = if on_long_diagonal {
                [weights[1], weights[2], 0]
            } else {
                weights
            };
            (
                west_rows & !(1 << west_row),
                quadrant_cols & !1,
                both,
                weights,
            )
        }
    };
    let east = HalfSpec::new(
        task.east_rows & !(1 << east_row),
        quadrant_cols & !(1 << (geo.h - 1)),
        false,
        (forbid.0 | main, forbid.1 | main),
    );
    let west = HalfSpec {
        class_keys: geo.key(main, main),
        ..HalfSpec::new(west_rows, west_cols, true, forbid)
    };
    (east, west, weights)
}

/// One half board's part of the board: its rows, its open quadrant
/// columns, which half, and the diagonals it must leave alone.
#[derive(Clone, Copy, Debug)]
struct HalfSpec {
    rows: u32,
    cols: u32,
    west: bool,
    forbid: (u64, u64),
    /// Keys of the long diagonals, whose queens set a west board's weight
    /// (even N; 0 otherwise): the board's class is how many it holds.
    class_keys: u64,
}

impl HalfSpec {
    /// A half with no class diagonals.
    fn new(rows: u32, cols: u32, west: bool, forbid: (u64, u64)) -> HalfSpec {
        HalfSpec {
            rows,
            cols,
            west,
            forbid,
            class_keys: 0,
        }
    }
}

#[inline(always)]
fn count_in<G: Glue>(
    glue: G,
    n: u32,
    task: &JoinTask,
    parts: Parts,
    stop: Option<&AtomicBool>,
    scratch: &mut Scratch,
) -> Option<JoinTally> {
    let geo = Geometry::new(n);
    let Scratch {
        shared,
        cells,
        made,
        north,
        south,
        stored,
        queries,
        matcher,
        held,
    } = scratch;
    let shared = shared
        .as_deref()
        .filter(|_| geo.h <= SHARED_MAX_SIDE && parts.whole_placements >= WHOLE_PLACEMENTS);
    if shared.is_none() {
        cells.set_whole_placements(parts.whole_placements);
    }
    let join = Join {
        glue,
        geo: &geo,
        cells: CellSource {
            shared,
            cache: RefCell::new(cells),
        },
        parts,
        stop,
    };
    let mut buffers = Buffers {
        made,
        north,
        south,
        stored,
        queries,
        matcher,
    };
    let mut tally = JoinTally::default();
    if n.is_multiple_of(2) {
        // The east keys are stored (the smaller side: one load per join),
        // the west ones query them, weighted by their class.
        let weights = even_weights(task.east_rows, n);
        if let Some(grid) = task_grid(&geo, task, parts.levels, parts.east_levels) {
            return join.count_grid(buffers.reborrow(), &grid, held);
        }
        for (east, west, weights) in even_specs(&geo, task, weights) {
            tally += join.count(buffers.reborrow(), &[(east, 0)], &[(west, 0, weights)])?;
        }
    } else {
        if let Some(grid) = task_grid(&geo, task, parts.levels, parts.east_levels) {
            return join.count_grid(buffers.reborrow(), &grid, held);
        }
        let (east, west, weight) = odd_join(&geo, task);
        tally += join.count(buffers.reborrow(), &east, &[(west, 0, [weight, 0, 0])])?;
    }
    Some(tally)
}

/// How many columns a side of the middle a join of an `n` board is cut
/// by, counting those whose queens the task fixes (see the module notes
/// and `Grid`): level k is the east half's column h - k and the west
/// half's k-th from the middle; 0 is no grid, the plain joins. Each level
/// leaves a fraction of the pairs to decide, but every group of one side
/// makes its boards from the cells again (the cells of its rows within
/// its open columns), so a level pays only where pairs outweigh making;
/// [`grid_east_levels`] says which levels cut the east side too.
/// Core-ns per solution predicted by `plan N --estimate` on one AVX-512
/// machine, one sitting, same tasks (levels / east levels): N = 24 (150
/// tasks) 1/1 1.25, 2/1 1.31, 2/2 1.70; N = 25 (150) 1/1 0.90, 2/1 0.93,
/// 2/2 1.35; N = 26 (100) 2/1 0.81, 2/2 0.89, 3/1 1.20, 1/1 1.30 to 1.47
/// (60, two seeds); N = 27 (30) 2/1 0.68, 2/2 0.80, 1/1 1.10; N = 28 (16
/// tasks, core-years) 2/2 59.9, 3/2 75.9, 3/1 77.1, 2/1 90.2. N = 23
/// without a grid: 0.42 s against 0.65 with one level (sampled tasks,
/// before the cells were cut to the open columns).
pub fn grid_levels(n: u32) -> u32 {
    match n {
        26.. => 2,
        BESIDE_MIN_N.. if n.is_multiple_of(2) => 1,
        25.. if !n.is_multiple_of(2) => 1,
        _ => 0,
    }
}

/// How many of [`grid_levels`] also cut the east side; the others cut
/// the west side only (the query groups), which leaves the stored groups
/// larger but made fewer times: at N = 26 and 27 the second level pays on
/// the west side only, at N = 28 on both (figures at [`grid_levels`]).
pub fn grid_east_levels(n: u32) -> u32 {
    match n {
        28.. => 2,
        _ => grid_levels(n).min(1),
    }
}

/// A task's join as a grid of `levels` (`None`: [`grid_levels`]), the
/// first `east_levels` of them cutting the east side too (see
/// [`Parts::east_levels`]), or `None` for the plain joins.
fn task_grid(
    geo: &Geometry,
    task: &JoinTask,
    levels: Option<u32>,
    east_levels: Option<u32>,
) -> Option<Grid> {
    let (levels, east_levels) = match levels {
        Some(levels) => (levels, east_levels.unwrap_or(levels)),
        None => (
            grid_levels(geo.n),
            east_levels.unwrap_or_else(|| grid_east_levels(geo.n)),
        ),
    };
    let even = geo.n.is_multiple_of(2);
    if levels == 0 || (even && task.middle == 0) {
        return None;
    }
    let mut grid = if even {
        let (east, west, weights) = even_join(geo, task, even_weights(task.east_rows, geo.n));
        Grid::of_join(vec![(east, 0)], west, weights)
    } else {
        let (east, west, weight) = odd_join(geo, task);
        Grid::of_join(east, west, [weight, 0, 0])
    };
    for level in 0..levels.min(geo.h) {
        // An even task fixes the east queen of the first level, and from
        // N = 28 the west one.
        let first = level == 0 && even;
        let east = (!first && level < east_levels).then_some(geo.h - 1 - level);
        let west = (!(first && task.west_beside().is_some())).then_some(level);
        grid = grid.deepen(geo, east, west);
    }
    Some(grid)
}

/// The join of an odd-N task (which [`grid_levels`] may cut): the stored east specs with the extra key of the
/// middle row's queen at each of its places (none for a queen on the
/// centre square), the west spec that queries them and the weight of a
/// pair.
fn odd_join(geo: &Geometry, task: &JoinTask) -> (Vec<(HalfSpec, u64)>, HalfSpec, u64) {
    let h = geo.h;
    let quadrant_cols = (1u32 << h) - 1;
    let (column_queen, west_rows, weight) = odd_middle(geo, task);
    let east = if task.middle == 0 {
        vec![(
            HalfSpec::new(task.east_rows, quadrant_cols, false, column_queen),
            0,
        )]
    } else {
        // The middle row's queen, at each place a, is on the east side of
        // the join: the west boards it attacks are excluded through its
        // crossing diagonals, added to the east keys of that a. The east
        // keys of every a together are stored, and the west keys query
        // them once: the east side holds about half as many keys as the
        // west (N = 19..23), and a stored key costs more than a query
        // (0.95 of the time at N = 23).
        (1..task.middle)
            .map(|a| {
                let queen = geo.queen_diagonals(h, h - a);
                let forbid = union(column_queen, queen);
                let spec = HalfSpec::new(
                    task.east_rows,
                    quadrant_cols & !(1 << (h - a)),
                    false,
                    forbid,
                );
                (spec, geo.key(queen.0, queen.1))
            })
            .collect()
    };
    let west = HalfSpec::new(west_rows, quadrant_cols, true, column_queen);
    (east, west, weight)
}

/// The middle column's queen of an odd-N task (its diagonals), the rows
/// of the west half and the weight of a pair.
fn odd_middle(geo: &Geometry, task: &JoinTask) -> ((u64, u64), u32, u64) {
    let h = geo.h;
    let open = geo.half_rows();
    let (row, weight) = match task.middle {
        0 => (h, centre_weight(task.east_rows, open, geo.n)),
        b => (h - b, 8),
    };
    let west_rows = open & !(1 << row) & !task.east_rows;
    (geo.queen_diagonals(row, h), west_rows, weight)
}

/// Most keys a grid holds of its stored groups, and of one query group:
/// 64 MiB each. At N = 27 a task's east boards reach past 4 million (one
/// sampled task took 3.3 s joined pair by pair, 2.1 s held).
pub const GRID_HELD_KEYS: usize = 1 << 23;

/// Most stored keys a thread matches at once. Larger sides (from N ~ 24)
/// are stored in parts, and every part meets all the queries, built again
/// per part. Fewer, larger parts split deeper: at N = 24, parts of ~0.8
/// million keys took 10% longer than of ~1.6 million, and ~0.4 million 18%
/// longer than ~0.8 million. A key takes up to ~90 bytes with its copies
/// and its matcher (measured at N = 25, where most pairs become keys).
pub const STORED_KEYS: usize = 3 << 19;

/// Query keys made in one batch: the queries are never all held at once.
pub const QUERY_KEYS: usize = 1 << 17;

/// Where a task's quadrant cells are: shared by all threads, or this
/// thread's cache, which loads a spec's row sets as its boards are made
/// (a task cut beside the middle has a west row set per place of its west
/// queen, and the cache holds them only in turn).
struct CellSource<'a> {
    shared: Option<&'a SharedCells>,
    cache: RefCell<&'a mut CellCache>,
}

/// The quadrant cells of one task's halves, and the glue that pairs them.
struct Join<'a, G> {
    glue: G,
    geo: &'a Geometry,
    /// The cells of every row set the task's specs use.
    cells: CellSource<'a>,
    parts: Parts,
    /// When set, the count is abandoned.
    stop: Option<&'a AtomicBool>,
}

/// A worker's buffers, as a join uses them.
struct Buffers<'a> {
    made: &'a mut MadeCells,
    north: &'a mut [Placed; 2],
    south: &'a mut [Placed; 2],
    stored: &'a mut [Vec<u64>; 3],
    queries: &'a mut [Vec<u64>; 3],
    matcher: &'a mut SplitMatcher,
}

impl Buffers<'_> {
    /// The same buffers, for one join.
    fn reborrow(&mut self) -> Buffers<'_> {
        Buffers {
            made: &mut *self.made,
            north: &mut *self.north,
            south: &mut *self.south,
            stored: &mut *self.stored,
            queries: &mut *self.queries,
            matcher: &mut *self.matcher,
        }
    }
}

impl<G: Glue> Join<'_, G> {
    /// The count of a grid (see [`Grid`]): its stored groups made once and
    /// held, each query group made once and held in turn, each pair of
    /// groups that meets matched on the keys that leave the other group's
    /// queen alone. A grid too large to hold is joined pair by pair.
    fn count_grid(
        &self,
        mut buffers: Buffers<'_>,
        grid: &Grid,
        held: &mut Held,
    ) -> Option<JoinTally> {
        let key = |(d1, d2): (u64, u64)| self.geo.key(d1, d2);
        let path = matcher_path();
        let limit = self.parts.held_keys;
        let mut tally = JoinTally::default();
        held.east[0].clear();
        held.ends.clear();
        for (_, specs) in &grid.stored {
            for (spec, extra) in specs {
                let from = held.east[0].len();
                if !self.hold(
                    &mut buffers,
                    spec,
                    &mut held.east,
                    limit.saturating_sub(from),
                ) {
                    for (stored, query, weights) in grid.pairs(self.geo, &grid.queries) {
                        tally += self.count(buffers.reborrow(), &stored, &[(query, 0, weights)])?;
                    }
                    return Some(tally);
                }
                if *extra != 0 {
                    for key in &mut held.east[0][from..] {
                        *key |= *extra;
                    }
                }
            }
            held.ends.push(held.east[0].len());
        }
        for (index, (west_queen, query, weights)) in grid.queries.iter().enumerate() {
            for class in held.west.iter_mut() {
                class.clear();
            }
            if !self.hold(&mut buffers, query, &mut held.west, limit) {
                let group = &grid.queries[index..=index];
                for (stored, query, weights) in grid.pairs(self.geo, group) {
                    tally += self.count(buffers.reborrow(), &stored, &[(query, 0, weights)])?;
                }
                continue;
            }
            let west_key = key(*west_queen);
            // A group with no queries meets nothing.
            if held
                .west
                .iter()
                .zip(weights)
                .all(|(class, weight)| *weight == 0 || class.is_empty())
            {
                continue;
            }
            // The bits the group's queries take, so that the matcher keeps
            // them: those that leave a stored group's queen alone take
            // none of its bits.
            let group_bits = taken_bits(&held.west, *weights, 0);
            for (group, (east_queen, _)) in grid.stored.iter().enumerate() {
                let east_key = key(*east_queen);
                if east_key & west_key != 0 {
                    continue;
                }
                let query_bits = group_bits & !east_key;
                let start = group.checked_sub(1).map_or(0, |before| held.ends[before]);
                let east = &held.east[0][start..held.ends[group]];
                let mut east_from = 0;
                loop {
                    let part = &mut buffers.stored[0];
                    let most = self.parts.stored_keys;
                    fill_leaving(path, east, &mut east_from, west_key, most, part);
                    if part.is_empty() {
                        break;
                    }
                    let mut loaded = false;
                    for (class, weight) in held.west.iter().zip(weights) {
                        if *weight == 0 {
                            continue;
                        }
                        let mut class_from = 0;
                        loop {
                            let batch = &mut buffers.queries[0];
                            let most = self.parts.query_keys;
                            fill_leaving(path, class, &mut class_from, east_key, most, batch);
                            if batch.is_empty() {
                                break;
                            }
                            if !loaded {
                                let cuts = choose_cuts(part, batch, MAX_CUTS);
                                buffers.matcher.load(part, &cuts, LEAF_MIN, query_bits);
                                loaded = true;
                            }
                            tally.pairs += (part.len() * batch.len()) as u64;
                            let sum = buffers
                                .matcher
                                .sum_disjoint(batch, 0)
                                .expect("the matcher keeps every bit the queries take");
                            tally.solutions += weight * sum;
                        }
                    }
                    if self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                        return None;
                    }
                }
            }
        }
        Some(tally)
    }

    /// Makes every board of `spec` into `keys`, unless that is more than
    /// `limit` keys: whether it did.
    fn hold(
        &self,
        buffers: &mut Buffers<'_>,
        spec: &HalfSpec,
        keys: &mut [Vec<u64>; 3],
        limit: usize,
    ) -> bool {
        let mut cursor = Cursor::start(spec);
        let before: usize = keys.iter().map(Vec::len).sum();
        self.half_boards(
            spec,
            buffers.made,
            buffers.north,
            buffers.south,
            keys,
            &mut cursor,
            limit,
        );
        let made: usize = keys.iter().map(Vec::len).sum::<usize>() - before;
        cursor.finished && made <= limit
    }

    /// Sums, over the half boards of each stored spec and of each query
    /// spec, the pairs with disjoint keys (each spec's extra key added to
    /// its boards'), weighted by the query board's class. The stored boards
    /// (all of class 0) are taken in parts and the queries in batches (see
    /// [`Parts`]), so memory stays bounded at any N; the sum does not
    /// depend on their sizes.
    #[inline(always)]
    fn count(
        &self,
        buffers: Buffers<'_>,
        stored: &[(HalfSpec, u64)],
        queries: &[(HalfSpec, u64, [u64; 3])],
    ) -> Option<JoinTally> {
        let Buffers {
            made,
            north,
            south,
            stored: stored_keys,
            queries: query_keys,
            matcher,
        } = buffers;
        let mut tally = JoinTally::default();
        // The bits the queries take, as far as seen: the first batch, and
        // any later batch that took more (kept for the later parts).
        let mut query_bits = 0;
        let start = |(spec, extra): &(HalfSpec, u64)| (Cursor::start(spec), *extra);
        let mut stored_specs = stored.iter().zip(stored.iter().map(start));
        let mut current = stored_specs.next();
        while current.is_some() {
            // A part: the keys of the stored specs in turn, each with its
            // shared diagonals added, until the part is full.
            for class in stored_keys.iter_mut() {
                class.clear();
            }
            while let Some(((spec, _), (cursor, extra))) = &mut current {
                let from = stored_keys[0].len();
                let limit = self.parts.stored_keys.saturating_sub(from);
                self.half_boards(spec, made, north, south, stored_keys, cursor, limit);
                if *extra != 0 {
                    for key in &mut stored_keys[0][from..] {
                        *key |= *extra;
                    }
                }
                if cursor.finished {
                    current = stored_specs.next();
                }
                if stored_keys[0].len() >= self.parts.stored_keys {
                    break;
                }
            }
            let part = &stored_keys[0];
            if part.is_empty() {
                continue;
            }
            // The cuts, once loaded.
            let mut loaded = false;
            let mut cuts = Vec::new();
            for (query, extra, weights) in queries {
                let weights = *weights;
                let mut cursor = Cursor::start(query);
                while !cursor.finished {
                    for class in query_keys.iter_mut() {
                        class.clear();
                    }
                    self.half_boards(
                        query,
                        made,
                        north,
                        south,
                        query_keys,
                        &mut cursor,
                        self.parts.query_keys,
                    );
                    if !loaded {
                        // Split on the diagonals both sides take most
                        // often, and keep the bits the queries take, as
                        // the first queries show them.
                        cuts = choose_cuts(part, &query_keys[0], MAX_CUTS);
                        query_bits |= taken_bits(query_keys, weights, *extra);
                        matcher.load(part, &cuts, LEAF_MIN, query_bits);
                        loaded = true;
                    }
                    for (keys, weight) in query_keys.iter().zip(weights) {
                        if weight != 0 {
                            tally.pairs += (part.len() * keys.len()) as u64;
                            let sum = loop {
                                match matcher.sum_disjoint(keys, *extra) {
                                    Ok(sum) => break sum,
                                    // Later queries took more bits (from
                                    // N ~ 22, where queries come in several
                                    // batches): load again keeping them.
                                    Err(UnexpectedBits(bits)) => {
                                        query_bits |= bits;
                                        matcher.load(part, &cuts, LEAF_MIN, query_bits);
                                    }
                                }
                            };
                            tally.solutions += weight * sum;
                        }
                    }
                    if self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                        return None;
                    }
                }
            }
        }
        Some(tally)
    }

    /// [`half_boards`] with this task's cells for the spec's half, appended
    /// to `keys`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn half_boards(
        &self,
        spec: &HalfSpec,
        made: &mut MadeCells,
        north: &mut [Placed; 2],
        south: &mut [Placed; 2],
        keys: &mut [Vec<u64>; 3],
        cursor: &mut Cursor,
        limit: usize,
    ) {
        let rows = quadrant_rows(self.geo, spec);
        if let Some(shared) = self.cells.shared {
            let cells = rows.map(|rows| shared.get(rows));
            half_boards(
                self.glue, cells, made, self.geo, spec, north, south, keys, cursor, limit,
            );
            return;
        }
        let mut cache = self.cells.cache.borrow_mut();
        // Only the spec's open columns: a fixed queen's column is never
        // a cell's.
        cache.load(self.geo.h, &rows, spec.cols);
        let cells = rows.map(|rows| cache.get(rows, spec.cols));
        half_boards(
            self.glue, cells, made, self.geo, spec, north, south, keys, cursor, limit,
        );
    }
}

/// Fills `out` with the next keys of `keys`, from `*from` on, that leave
/// the diagonals of `taken` alone, until it holds `most` of them or the
/// keys end; `*from` moves past the keys looked at. A vector filter on
/// `path`: a grid filters every group's keys once per group it meets.
fn fill_leaving(
    path: MatcherPath,
    keys: &[u64],
    from: &mut usize,
    taken: u64,
    most: usize,
    out: &mut Vec<u64>,
) {
    out.clear();
    while out.len() < most && *from < keys.len() {
        let len = out.len();
        let chunk = &keys[*from..keys.len().min(*from + (most - len))];
        out.resize(len + chunk.len(), 0);
        let kept = keep_disjoint(path, chunk, taken, &mut out[len..]);
        out.truncate(len + kept);
        *from += chunk.len();
    }
}

/// The bits the queried classes of `keys` take, with `extra`.
#[inline(always)]
fn taken_bits(keys: &[Vec<u64>; 3], weights: [u64; 3], extra: u64) -> u64 {
    let mut bits = extra;
    for (keys, weight) in keys.iter().zip(weights) {
        if weight != 0 {
            // A fold per list, which vectorizes.
            bits |= keys.iter().fold(0, |all, key| all | key);
        }
    }
    bits
}

/// Where [`half_boards`] stopped: the north column set being joined and
/// how many of its north placements are done, or that all are.
#[derive(Clone, Copy, Debug)]
struct Cursor {
    cols: u32,
    north_done: usize,
    finished: bool,
}

impl Cursor {
    /// Before the first half board of `spec`.
    fn start(spec: &HalfSpec) -> Cursor {
        Cursor {
            cols: spec.cols,
            north_done: 0,
            finished: false,
        }
    }
}

/// Appends to `keys[class]` the key of half boards of `spec`: a north
/// and a south quadrant placement on the spec's rows, together using every
/// open column once, not attacking each other or the forbidden diagonals.
/// Goes on from `cursor` and stops once `limit` keys are made (at most one
/// north placement's pairs more); the cursor then says where to go on, or
/// that every board is made.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn half_boards<G: Glue>(
    glue: G,
    [north_cells, south_cells]: [&RowCells; 2],
    cells_made: &mut MadeCells,
    geo: &Geometry,
    spec: &HalfSpec,
    north: &mut [Placed; 2],
    south: &mut [Placed; 2],
    keys: &mut [Vec<u64>; 3],
    cursor: &mut Cursor,
    limit: usize,
) {
    let north_queens = north_cells.rows().count_ones();
    // Two placements of a half can only meet on the diagonals both
    // quadrants reach; those fit one u64 (each direction in 32 bits),
    // so a pair is checked with one AND.
    let overlap = geo.shifts(true, spec.west);
    let moves = [false, true].map(|south| Move {
        shifts: geo.shifts(south, spec.west),
        overlap,
        forbid: spec.forbid,
        geo: *geo,
        class_keys: spec.class_keys,
    });
    let made = |keys: &[Vec<u64>; 3]| keys.iter().map(Vec::len).sum::<usize>();
    let start = made(keys);
    // Every way to split the open columns between the two quadrants, from
    // all of them to the north down to none.
    while !cursor.finished {
        let north_cols = cursor.cols;
        let mut group_done = true;
        if north_cols.count_ones() == north_queens {
            let cell = north_cells.cell_in(north_cols, cells_made);
            glue.place(&moves[0], cell, north);
            let north_total = north[0].len() + north[1].len();
            if north_total > cursor.north_done {
                let south_cols = spec.cols & !north_cols;
                let cell = south_cells.cell_in(south_cols, cells_made);
                glue.place(&moves[1], cell, south);
                let south_total = south[0].len() + south[1].len();
                // The north placements that fit what is left of the limit,
                // at least one; of the two classes in a row. (No south
                // placement: nothing to join.)
                let left = limit.saturating_sub(made(keys) - start);
                if let Some(room) = left.checked_div(south_total) {
                    let room = room.max(1);
                    let from = cursor.north_done;
                    let to = from.saturating_add(room).min(north_total);
                    let first = north[0].len();
                    let parts = [
                        (&north[0], from.min(first)..to.min(first)),
                        (&north[1], from.max(first) - first..to.max(first) - first),
                    ];
                    for (north_class, (north, range)) in parts.into_iter().enumerate() {
                        let (checks, north_keys) =
                            (&north.checks[range.clone()], &north.keys[range]);
                        for (south_class, south) in south.iter().enumerate() {
                            let keys = &mut keys[north_class + south_class];
                            glue.join(checks, north_keys, south, left, keys);
                        }
                    }
                    cursor.north_done = to;
                    group_done = to == north_total;
                }
            }
        }
        if group_done {
            cursor.north_done = 0;
            if north_cols == 0 {
                cursor.finished = true;
            } else {
                cursor.cols = (north_cols - 1) & spec.cols;
            }
        }
        if made(keys) - start >= limit {
            return;
        }
    }
}

/// The quadrant row sets of every spec of a task (north and south) with
/// the spec's open columns, in the order a count first makes their boards.
fn task_row_sets(geo: &Geometry, task: &JoinTask) -> Vec<([u32; 2], u32)> {
    let specs: Vec<HalfSpec> = if let Some(grid) = task_grid(geo, task, None, None) {
        grid.specs().collect()
    } else if geo.n.is_multiple_of(2) {
        even_specs(geo, task, [1, 1, 1])
            .into_iter()
            .flat_map(|(east, west, _)| [east, west])
            .collect()
    } else {
        let (east, west, _) = odd_join(geo, task);
        east.iter().map(|(spec, _)| *spec).chain([west]).collect()
    };
    let mut row_sets: Vec<([u32; 2], u32)> = Vec::new();
    for spec in &specs {
        let rows = (quadrant_rows(geo, spec), spec.cols);
        if !row_sets.contains(&rows) {
            row_sets.push(rows);
        }
    }
    row_sets
}

/// The local rows of a half's north and south quadrants.
fn quadrant_rows(geo: &Geometry, spec: &HalfSpec) -> [u32; 2] {
    let quadrant = (1u32 << geo.h) - 1;
    [spec.rows & quadrant, (spec.rows >> geo.lo) & quadrant]
}
