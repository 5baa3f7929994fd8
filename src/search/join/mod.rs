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
//! one shared [`QuadrantTable`]; the disjoint pairs are counted by a
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

mod matcher;
mod quadrant;
mod split;

use std::cell::RefCell;
use std::sync::Arc;

pub use matcher::{count_disjoint_naive, transpose64, transpose64_naive, Matcher, BLOCK_KEYS};
pub use quadrant::{
    count_placements, memory_bound, memory_needed, prepare, shared_table, QuadrantTable,
    BUILD_GROUPS,
};
pub use split::{choose_cuts, SplitMatcher, LEAF_MIN, MAX_CUTS};

/// Smallest N counted by joining; below it the halves are too small for the
/// symmetry rules (and every method is instant).
pub const JOIN_MIN_N: u32 = 4;

/// Largest N counted by joining. The plan holds one task per row set, and
/// from N = 25 that is more than a plan may hold (about 15 million at 25);
/// the whole quadrant table is about 5 GB at N = 24, 8x more per two N.
pub const JOIN_MAX_N: u32 = 24;

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
        let mask = (1u64 << self.width) - 1;
        ((d1 >> self.lo) & mask) | (((d2 >> self.lo) & mask) << self.width)
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

/// One `join` task: a set of east rows and, for odd N, where the middle
/// queens stand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JoinTask {
    /// Board rows whose queen is in the east half (bit r = row r).
    pub east_rows: u32,
    /// Odd N only: 0 for a queen on the centre square, else the distance b
    /// of the middle column's queen above the centre (the middle row's
    /// queen then takes each nearer column of the east arm in turn).
    pub middle: u32,
}

/// The tasks of an `n` board, in a stable order: by `middle`, then by the
/// colex order of the row sets.
pub fn tasks(n: u32) -> Vec<JoinTask> {
    let geo = Geometry::new(n);
    let mut tasks = Vec::new();
    if n.is_multiple_of(2) {
        for_each_subset(geo.all_rows(), geo.h, |rows| {
            if rows <= reverse_rows(rows, n) {
                tasks.push(JoinTask {
                    east_rows: rows,
                    middle: 0,
                });
            }
        });
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

/// Calls `visit` with every `size`-element subset of `set`, in colex order
/// (as integers, increasing).
fn for_each_subset(set: u32, size: u32, mut visit: impl FnMut(u32)) {
    let positions: Vec<u32> = (0..32).filter(|bit| set & (1 << bit) != 0).collect();
    let slots = positions.len() as u32;
    if size > slots {
        return;
    }
    if size == 0 {
        visit(0);
        return;
    }
    // Gosper's hack walks the `size`-subsets of `slots` bits in increasing
    // order; each is then spread onto the set's own bits.
    let mut combination: u64 = (1 << size) - 1;
    while combination < 1 << slots {
        let mut rows = 0;
        let mut rest = combination;
        while rest != 0 {
            rows |= 1 << positions[rest.trailing_zeros() as usize];
            rest &= rest - 1;
        }
        visit(rows);
        let lowest = combination & combination.wrapping_neg();
        let ripple = combination + lowest;
        combination = (((ripple ^ combination) >> 2) / lowest) | ripple;
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

/// Reusable buffers of one worker thread.
#[derive(Default)]
struct Scratch {
    table: Option<Arc<QuadrantTable>>,
    /// Placements of the quadrant being joined, by class (see
    /// [`HalfSpec::class_keys`]): north and south.
    north: [Vec<(u64, u64)>; 2],
    south: [Vec<(u64, u64)>; 2],
    east: [Vec<u64>; 3],
    west: [Vec<u64>; 3],
    matcher: SplitMatcher,
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

/// Counts one task of an `n` board, in this thread's scratch space.
pub fn count_task(n: u32, task: &JoinTask) -> JoinTally {
    SCRATCH.with(|scratch| {
        let mut scratch = scratch.borrow_mut();
        let side = n / 2;
        if scratch
            .table
            .as_ref()
            .is_none_or(|table| table.side() != side)
        {
            scratch.table = Some(shared_table(side));
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("popcnt")
            && std::arch::is_x86_feature_detected!("bmi1")
        {
            // SAFETY: the CPU has the features the function is built for.
            return unsafe { count_in_bmi(n, task, &mut scratch) };
        }
        count_in(n, task, &mut scratch)
    })
}

/// The keys of an even-N task's half boards: the east boards (with both
/// long diagonals free) and the west boards by how many long-diagonal
/// queens they hold; for benchmarks of the matchers on real keys.
pub fn task_keys(n: u32, task: &JoinTask) -> (Vec<u64>, [Vec<u64>; 3]) {
    assert!(n.is_multiple_of(2), "task_keys takes even N");
    let geo = Geometry::new(n);
    let table = shared_table(n / 2);
    let (mut north, mut south) = (Default::default(), Default::default());
    let mut east: [Vec<u64>; 3] = Default::default();
    let mut west: [Vec<u64>; 3] = Default::default();
    let (east_spec, west_spec) = even_specs(&geo, task.east_rows);
    half_boards(&table, &geo, &east_spec, &mut north, &mut south, &mut east);
    half_boards(&table, &geo, &west_spec, &mut north, &mut south, &mut west);
    let [east, _, _] = east;
    (east, west)
}

/// [`count_in`] built for CPUs with popcnt and BMI1 (the column-split loop
/// counts bits on every step).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt,bmi1")]
fn count_in_bmi(n: u32, task: &JoinTask, scratch: &mut Scratch) -> JoinTally {
    count_in(n, task, scratch)
}

/// The halves of an even-N task on the east rows `east_rows`: east boards
/// keep both long diagonals free, and west boards are classed by how many
/// long-diagonal queens they hold (see the module notes).
fn even_specs(geo: &Geometry, east_rows: u32) -> (HalfSpec, HalfSpec) {
    let quadrant_cols = (1u32 << geo.h) - 1;
    let main = 1u64 << (geo.n - 1);
    let east = HalfSpec::new(east_rows, quadrant_cols, false, (main, main));
    let west = HalfSpec {
        class_keys: geo.key(main, main),
        ..HalfSpec::new(geo.all_rows() & !east_rows, quadrant_cols, true, (0, 0))
    };
    (east, west)
}

/// One half board's part of the board: its rows, its open quadrant
/// columns, which half, and the diagonals it must leave alone.
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
fn count_in(n: u32, task: &JoinTask, scratch: &mut Scratch) -> JoinTally {
    let geo = Geometry::new(n);
    let Scratch {
        table,
        north,
        south,
        east,
        west,
        matcher,
    } = scratch;
    let table = table.as_deref().expect("table loaded before counting");
    let quadrant_cols = (1u32 << geo.h) - 1;
    let mut tally = JoinTally::default();
    let mut build = |spec: &HalfSpec, keys: &mut [Vec<u64>; 3]| {
        for class in keys.iter_mut() {
            class.clear();
        }
        half_boards(table, &geo, spec, north, south, keys);
    };
    if n.is_multiple_of(2) {
        let weights = even_weights(task.east_rows, n);
        let (east_spec, west_spec) = even_specs(&geo, task.east_rows);
        build(&east_spec, east);
        build(&west_spec, west);
        // The east keys are stored (the smaller side: one load per task),
        // split on the diagonals both sides take most often.
        let cuts = choose_cuts(&east[0], &west[0], MAX_CUTS);
        matcher.load(&east[0], &cuts, LEAF_MIN);
        let mut solutions = 0;
        for (keys, weight) in west.iter().zip(weights) {
            if weight != 0 {
                tally.pairs += (east[0].len() * keys.len()) as u64;
                solutions += weight * matcher.sum_disjoint(keys, 0);
            }
        }
        tally.solutions = solutions;
        return tally;
    }
    let open = geo.half_rows();
    if task.middle == 0 {
        let weight = centre_weight(task.east_rows, open, n);
        let centre = geo.queen_diagonals(geo.h, geo.h);
        let east_spec = HalfSpec::new(task.east_rows, quadrant_cols, false, centre);
        build(&east_spec, east);
        let west_spec = HalfSpec::new(open & !task.east_rows, quadrant_cols, true, centre);
        build(&west_spec, west);
        tally.pairs += (east[0].len() * west[0].len()) as u64;
        let cuts = choose_cuts(&east[0], &west[0], MAX_CUTS);
        matcher.load(&east[0], &cuts, LEAF_MIN);
        tally.solutions = weight * matcher.sum_disjoint(&west[0], 0);
        return tally;
    }
    let b = task.middle;
    let column_queen_row = geo.h - b;
    let column_queen = geo.queen_diagonals(column_queen_row, geo.h);
    let open = open & !(1 << column_queen_row);
    let west_spec = HalfSpec::new(open & !task.east_rows, quadrant_cols, true, column_queen);
    build(&west_spec, west);
    let mut solutions = 0u64;
    for a in 1..b {
        let row_queen_col = geo.h - a;
        let row_queen = geo.queen_diagonals(geo.h, row_queen_col);
        let east_spec = HalfSpec::new(
            task.east_rows,
            quadrant_cols & !(1 << row_queen_col),
            false,
            (column_queen.0 | row_queen.0, column_queen.1 | row_queen.1),
        );
        build(&east_spec, east);
        // The middle row's queen is on the east side of the join: the west
        // boards it attacks are excluded through its crossing diagonals.
        let row_queen_key = geo.key(row_queen.0, row_queen.1);
        if a == 1 {
            // The west keys serve every a: stored once, split on the cuts
            // the first east set suggests.
            let cuts = choose_cuts(&west[0], &east[0], MAX_CUTS);
            matcher.load(&west[0], &cuts, LEAF_MIN);
        }
        tally.pairs += (east[0].len() * west[0].len()) as u64;
        solutions += matcher.sum_disjoint(&east[0], row_queen_key);
    }
    tally.solutions = 8 * solutions;
    tally
}

/// Appends to `keys[class]` the key of every half board of `spec`: a north
/// and a south quadrant placement on the spec's rows, together using every
/// open column once, not attacking each other or the forbidden diagonals.
#[inline(always)]
fn half_boards(
    table: &QuadrantTable,
    geo: &Geometry,
    spec: &HalfSpec,
    north: &mut [Vec<(u64, u64)>; 2],
    south: &mut [Vec<(u64, u64)>; 2],
    keys: &mut [Vec<u64>; 3],
) {
    let quadrant = (1u32 << geo.h) - 1;
    let north_rows = spec.rows & quadrant;
    let south_rows = (spec.rows >> geo.lo) & quadrant;
    let north_queens = north_rows.count_ones();
    let north_shift = geo.shifts(false, spec.west);
    let south_shift = geo.shifts(true, spec.west);
    // Two placements of a half can only meet on the diagonals both
    // quadrants reach; those fit one u64 (each direction in 32 bits),
    // so a pair is checked with one AND.
    let overlap = south_shift;
    // Every way to split the open columns between the two quadrants.
    let mut north_cols = spec.cols;
    loop {
        if north_cols.count_ones() == north_queens {
            let cell = table.cell(north_rows, north_cols);
            place(geo, spec, cell, north_shift, overlap, north);
            if north.iter().any(|class| !class.is_empty()) {
                let south_cols = spec.cols & !north_cols;
                let cell = table.cell(south_rows, south_cols);
                place(geo, spec, cell, south_shift, overlap, south);
                for (north_class, north) in north.iter().enumerate() {
                    for (south_class, south) in south.iter().enumerate() {
                        join_quadrants(north, south, &mut keys[north_class + south_class]);
                    }
                }
            }
        }
        if north_cols == 0 {
            break;
        }
        north_cols = (north_cols - 1) & spec.cols;
    }
}

/// Moves a quadrant cell's placements to their place on the board, as
/// (overlap check, key) pairs, dropping those on forbidden diagonals and
/// sorting the rest by whether they hold a class diagonal. Branch-free:
/// each placement is written to both lists and kept by one.
#[inline(always)]
fn place(
    geo: &Geometry,
    spec: &HalfSpec,
    cell: &[u64],
    (shift1, shift2): (u32, u32),
    (overlap1, overlap2): (u32, u32),
    out: &mut [Vec<(u64, u64)>; 2],
) {
    let (forbid1, forbid2) = spec.forbid;
    let [plain, classed] = out;
    plain.clear();
    classed.clear();
    // Written into the spare capacity: zeroing it first cost more than
    // the writes (the buffers are refilled for every cell).
    plain.reserve(cell.len());
    classed.reserve(cell.len());
    let plain_slots = &mut plain.spare_capacity_mut()[..cell.len()];
    let classed_slots = &mut classed.spare_capacity_mut()[..cell.len()];
    let (mut plain_len, mut classed_len) = (0, 0);
    for (index, &diag) in cell.iter().enumerate() {
        let d1 = (diag & 0xffff_ffff) << shift1;
        let d2 = (diag >> 32) << shift2;
        let allowed = d1 & forbid1 | d2 & forbid2 == 0;
        let check = (d1 >> overlap1) | (d2 >> overlap2) << 32;
        let key = geo.key(d1, d2);
        let in_class = key & spec.class_keys != 0;
        // Both lengths stay at or below `index`.
        plain_slots[plain_len.min(index)].write((check, key));
        classed_slots[classed_len.min(index)].write((check, key));
        plain_len += usize::from(allowed & !in_class);
        classed_len += usize::from(allowed & in_class);
    }
    // SAFETY: the first `plain_len` (and `classed_len`) slots were written:
    // a length only grows past a slot just written.
    unsafe {
        plain.set_len(plain_len);
        classed.set_len(classed_len);
    }
}

/// Appends the key of every pair of a north and a south placement that do
/// not attack each other. Branch-free: every pair is written, and the
/// length only moves past the good ones (about half of them die, in no
/// pattern a predictor could learn).
#[inline(always)]
fn join_quadrants(north: &[(u64, u64)], south: &[(u64, u64)], keys: &mut Vec<u64>) {
    let start = keys.len();
    let pairs = north.len() * south.len();
    // Written into the spare capacity, not zeroed first (see `place`).
    keys.reserve(pairs);
    let slots = &mut keys.spare_capacity_mut()[..pairs];
    let mut len = 0;
    for &(north_check, north_key) in north {
        for &(south_check, south_key) in south {
            slots[len].write(north_key | south_key);
            len += usize::from(north_check & south_check == 0);
        }
    }
    // SAFETY: the first `len` slots were written: the length only grows
    // past a slot just written.
    unsafe { keys.set_len(start + len) };
}
