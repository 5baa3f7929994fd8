//! The plain search on many boards at once, branch-free (AVX-512F, or
//! AVX2).
//!
//! The depth-first kernel spends most of its time on branches it cannot
//! predict: whether a row has another free square, whether a child has any.
//! Here the open boards wait in one short buffer per row; a step takes up
//! to 32 boards of one row (four vectors of eight lanes; with AVX2,
//! four vectors of four), places each one's lowest free queen in its lane,
//! and puts the children that have a free square into the next row's buffer
//! and the boards with squares left back into their own, both with a
//! compress. The row stepped is the deepest with a full step waiting, or,
//! when none has one, the shallowest with any (which widens the frontier
//! until one fills up). The vectors of a step are independent, so the core
//! overlaps their work; one vector per step left it waiting on each
//! compress and reload (N = 16 `mirror`, 1 thread: 1.10 s with one vector,
//! 0.65 with two, 0.52 with three, 0.48-0.57 with four, 0.51-0.53 with six,
//! 0.87-0.92 with eight, whose buffers outgrow the first-level cache). The
//! last two rows are counted in closed form, as in the kernel, so nodes and
//! solutions are exactly the kernel's.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;
use std::cell::RefCell;

use crate::kernel::{full_mask, row_slot, Board, RowBounds, Tally, MAX_N};

/// Boards a row's buffer can hold: a step adds at most a step's worth of
/// children to a row holding less than a step (else that row, being deeper,
/// would have been the one stepped), and a stepped row only shrinks; 8 more
/// slots let every vector load and store stay inside the buffer. The AVX2
/// step is smaller, so the same buffers serve it.
const CAPACITY: usize = 2 * STEP + 8;

/// Vectors of eight boards an AVX-512 step takes.
const VECTORS: usize = 4;

/// Boards an AVX-512 step takes.
const STEP: usize = 8 * VECTORS;

/// Vectors of four boards an AVX2 step takes (N = 16 `mirror`, 1 thread:
/// 1.40 s with two, 0.92-0.98 with four, 0.97-1.05 with six or eight).
const AVX2_VECTORS: usize = 4;

/// Boards an AVX2 step takes.
const AVX2_STEP: usize = 4 * AVX2_VECTORS;

/// The builds of the lane search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lanes {
    /// AVX-512F with VPOPCNTDQ (Ice Lake and later, Zen 4): one instruction
    /// counts each lane's free squares.
    Avx512Popcnt,
    /// AVX-512F alone (Skylake-SP, Cascade Lake): the squares are counted
    /// with shifts and adds.
    Avx512,
    /// AVX2 (Haswell and later, Zen): vectors of four lanes, packed with a
    /// permutation table instead of a compress instruction.
    Avx2,
}

impl Lanes {
    /// Every build, fastest first.
    pub const ALL: [Lanes; 3] = [Lanes::Avx512Popcnt, Lanes::Avx512, Lanes::Avx2];

    /// The build's name, as [`LANES_VARIABLE`] takes it.
    pub fn name(self) -> &'static str {
        match self {
            Lanes::Avx512Popcnt => "avx512-popcnt",
            Lanes::Avx512 => "avx512",
            Lanes::Avx2 => "avx2",
        }
    }

    /// Whether this CPU can run this build.
    pub fn runs_here(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            // Every build counts and takes bits with the scalar instructions.
            let scalar = has!("popcnt") && has!("bmi1");
            scalar
                && match self {
                    Lanes::Avx512Popcnt => has!("avx512f") && has!("avx512vpopcntdq"),
                    Lanes::Avx512 => has!("avx512f"),
                    Lanes::Avx2 => has!("avx2"),
                }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }
}

/// The environment variable that overrides the choice of build:
/// `avx512-popcnt`, `avx512`, `avx2`, or `off` for the depth-first
/// searches. For comparing builds on one CPU; counts never change.
pub const LANES_VARIABLE: &str = "NQUEENS_LANES";

/// What [`LANES_VARIABLE`] asks for: `Ok(None)` when it is unset or empty,
/// `Ok(Some(None))` for `off`, `Ok(Some(Some(build)))` for a build this CPU
/// runs; an error naming the value and what is accepted otherwise.
pub fn requested() -> Result<Option<Option<Lanes>>, String> {
    let Some(value) = std::env::var_os(LANES_VARIABLE) else {
        return Ok(None);
    };
    let value = value.to_string_lossy();
    if value.is_empty() {
        return Ok(None);
    }
    if value == "off" {
        return Ok(Some(None));
    }
    // The values accepted: every build (or those this CPU runs), and `off`.
    let accepted = |only_here: bool| {
        let names: Vec<&str> = Lanes::ALL
            .into_iter()
            .filter(|lanes| !only_here || lanes.runs_here())
            .map(Lanes::name)
            .chain(["off"])
            .collect();
        names.join(", ")
    };
    match Lanes::ALL.into_iter().find(|lanes| lanes.name() == value) {
        Some(lanes) if lanes.runs_here() => Ok(Some(Some(lanes))),
        Some(lanes) => Err(format!(
            "{LANES_VARIABLE}={} asks for a build this CPU cannot run: accepted here are {}",
            lanes.name(),
            accepted(true)
        )),
        None => Err(format!(
            "{LANES_VARIABLE}={value} is not a build: accepted values are {}",
            accepted(false)
        )),
    }
}

/// The build the searches use: the one [`LANES_VARIABLE`] asks for, else
/// the fastest this CPU runs, if any. Decided once per process.
pub fn best() -> Option<Lanes> {
    static CHOICE: std::sync::OnceLock<Option<Lanes>> = std::sync::OnceLock::new();
    *CHOICE.get_or_init(|| match requested() {
        Ok(Some(choice)) => choice,
        // The binary refuses a bad value before counting; a library user
        // gets the detected build.
        Ok(None) | Err(_) => Lanes::ALL.into_iter().find(|lanes| lanes.runs_here()),
    })
}

/// Whether this CPU can run [`count_completions`].
pub fn supported() -> bool {
    best().is_some()
}

/// The boards waiting on one row, as columns of lanes.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Row {
    cols: [u64; CAPACITY],
    ld: [u64; CAPACITY],
    rd: [u64; CAPACITY],
    free: [u64; CAPACITY],
}

const EMPTY_ROW: Row = Row {
    cols: [0; CAPACITY],
    ld: [0; CAPACITY],
    rd: [0; CAPACITY],
    free: [0; CAPACITY],
};

thread_local! {
    /// Each thread's row buffers (74 KB), kept between calls: clearing them
    /// on every call cost more than the search of a small task. What a call
    /// left in them is never read by the next, whose loads stop at each
    /// row's length.
    static BUFFERS: RefCell<Box<[Row; MAX_N as usize]>> =
        RefCell::new(Box::new([EMPTY_ROW; MAX_N as usize]));
}

/// Counts every completion of `start` on an `n` board, like
/// [`crate::kernel::count_completions`], with the [`best`] build.
///
/// # Panics
/// When the CPU lacks AVX2 (check [`supported`] first).
pub fn count_completions(n: u32, start: Board) -> Tally {
    count_bounded(n, start, &RowBounds::unbounded(n))
}

/// Counts every completion of `start` on an `n` board that keeps within
/// `bounds` on the rows below it, with the [`best`] build. Nodes are queens
/// placed, as in the kernel.
///
/// # Panics
/// When the CPU lacks AVX2 (check [`supported`] first).
pub fn count_bounded(n: u32, start: Board, bounds: &RowBounds) -> Tally {
    let lanes = best().expect("the frontier search needs AVX2 or AVX-512F");
    count_bounded_with(lanes, n, start, bounds)
}

/// [`count_bounded`] with the build `lanes`.
///
/// # Panics
/// When the CPU cannot run `lanes` (check [`Lanes::runs_here`]).
pub fn count_bounded_with(lanes: Lanes, n: u32, start: Board, bounds: &RowBounds) -> Tally {
    assert!(
        lanes.runs_here(),
        "this CPU cannot run the {lanes:?} frontier search"
    );
    debug_assert!(n <= MAX_N && start.row <= n);
    if n - start.row < 4 {
        return last_rows(n, start, bounds);
    }
    #[cfg(target_arch = "x86_64")]
    {
        BUFFERS.with_borrow_mut(|rows| match lanes {
            // SAFETY: the CPU was just checked to have every feature of
            // the build called.
            Lanes::Avx512Popcnt => unsafe { search_popcnt(n, start, bounds, rows) },
            // SAFETY: as above.
            Lanes::Avx512 => unsafe { search_shifts(n, start, bounds, rows) },
            // SAFETY: as above.
            Lanes::Avx2 => unsafe { search_avx2(n, start, bounds, rows) },
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    unreachable!()
}

/// The few rows left below a start too deep for the lanes, one by one.
fn last_rows(n: u32, board: Board, bounds: &RowBounds) -> Tally {
    if board.row == n {
        return Tally {
            solutions: 1,
            nodes: 0,
        };
    }
    let mut free = bounds.free(board.row, board.cols, board.ld | board.rd);
    let mut tally = Tally::default();
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free &= free - 1;
        tally.nodes += 1;
        tally += last_rows(n, board.place(bit), bounds);
    }
    tally
}

/// Which rows hold boards, for the scalar choice of the row to step; a
/// step takes `STEP_SIZE` boards.
struct Levels<const STEP_SIZE: usize> {
    /// Boards waiting on each level.
    lens: [usize; MAX_N as usize],
    /// Levels holding at least a step's boards, and levels holding any.
    full: u32,
    waiting: u32,
}

impl<const STEP_SIZE: usize> Levels<STEP_SIZE> {
    /// Puts `start` alone on level 0; `None` when its row has no free square.
    #[inline(always)]
    fn seed(start: &Board, bounds: &RowBounds, rows: &mut [Row; MAX_N as usize]) -> Option<Self> {
        let root_free = bounds.free(start.row, start.cols, start.ld | start.rd);
        if root_free == 0 {
            return None;
        }
        rows[0].cols[0] = start.cols;
        rows[0].ld[0] = start.ld;
        rows[0].rd[0] = start.rd;
        rows[0].free[0] = root_free;
        let mut levels = Levels {
            lens: [0; MAX_N as usize],
            full: 0,
            waiting: 0,
        };
        levels.set_len(0, 1);
        Some(levels)
    }

    /// The level to step: lanes are only worth filling deep down, so the
    /// deepest full level, or else the shallowest holding any (which grows
    /// the frontier); `None` when every level is empty.
    #[inline(always)]
    fn next(&self) -> Option<usize> {
        if self.full != 0 {
            Some((31 - self.full.leading_zeros()) as usize)
        } else if self.waiting != 0 {
            Some(self.waiting.trailing_zeros() as usize)
        } else {
            None
        }
    }

    /// Records that `level` now holds `len` boards.
    #[inline(always)]
    fn set_len(&mut self, level: usize, len: usize) {
        self.lens[level] = len;
        let bit = 1u32 << level;
        self.full = (self.full & !bit) | if len >= STEP_SIZE { bit } else { 0 };
        self.waiting = (self.waiting & !bit) | if len > 0 { bit } else { 0 };
    }
}

/// The lane search, built once per [`Lanes`] with that build's features
/// and its way of counting each lane's squares (`$popcount`).
macro_rules! lane_search {
    ($(#[$doc:meta])* $name:ident, $features:literal, $popcount:ident) => {
        $(#[$doc])*
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        fn $name(
            n: u32,
            start: Board,
            bounds: &RowBounds,
            rows: &mut [Row; MAX_N as usize],
        ) -> Tally {
            let mask = full_mask(n);
            // Levels 0..=last hold boards on rows start.row..=n-3; a step on the
            // last level counts the final two rows in closed form.
            let last = (n - 3 - start.row) as usize;
            let Some(mut levels) = Levels::<STEP>::seed(&start, bounds, rows) else {
                return Tally::default();
            };
            let vmask = _mm512_set1_epi64(mask as i64);
            let sides = _mm512_set1_epi64(bounds.sides as i64);
            let last_allowed = _mm512_set1_epi64(bounds.allowed[row_slot(n - 1)] as i64);
            let zero = _mm512_setzero_si512();
            let one = _mm512_set1_epi64(1);
            // Boards stepped, and per lane the solutions and upper-row
            // queens of the last level.
            let mut steps = 0u64;
            let mut solutions = _mm512_setzero_si512();
            let mut upper = _mm512_setzero_si512();
            while let Some(level) = levels.next() {
                let len = levels.lens[level];
                let take = len.min(STEP);
                let base = len - take;
                // The lanes of each vector that hold a board.
                let lane_masks: [__mmask8; VECTORS] = std::array::from_fn(|vector| {
                    ((1u32 << take.saturating_sub(8 * vector).min(8)) - 1) as u8
                });
                // The children's row: the same for every lane.
                let child_row = start.row + level as u32 + 1;
                let allowed = _mm512_set1_epi64(bounds.allowed[row_slot(child_row)] as i64);
                let forced = child_row == bounds.force_row;
                let mut parents = [[zero; 4]; VECTORS];
                let mut children = [[zero; 4]; VECTORS];
                let mut keep: [__mmask8; VECTORS] = [0; VECTORS];
                for vector in 0..VECTORS {
                    let lanes = lane_masks[vector];
                    let at = base + 8 * vector;
                    let row = &rows[level];
                    let cols = load(lanes, &row.cols[at..]);
                    let ld = load(lanes, &row.ld[at..]);
                    let rd = load(lanes, &row.rd[at..]);
                    let free = load(lanes, &row.free[at..]);
                    let bit = _mm512_and_si512(free, _mm512_sub_epi64(zero, free));
                    let rest = _mm512_xor_si512(free, bit);
                    let c_cols = _mm512_or_si512(cols, bit);
                    let c_ld = _mm512_slli_epi64::<1>(_mm512_or_si512(ld, bit));
                    let c_rd = _mm512_srli_epi64::<1>(_mm512_or_si512(rd, bit));
                    let attacked = _mm512_or_si512(c_cols, _mm512_or_si512(c_ld, c_rd));
                    let mut c_free = _mm512_maskz_andnot_epi64(lanes, attacked, allowed);
                    if forced {
                        c_free = force_open_sides(c_free, _mm512_andnot_si512(c_cols, sides));
                    }
                    parents[vector] = [cols, ld, rd, rest];
                    children[vector] = [c_cols, c_ld, c_rd, c_free];
                    // Boards with squares left go back where they were.
                    keep[vector] = _mm512_mask_test_epi64_mask(lanes, rest, rest);
                }
                steps += take as u64;
                // Every vector was read before any is written back.
                let mut new_len = base;
                for vector in 0..VECTORS {
                    new_len = append(&mut rows[level], new_len, keep[vector], parents[vector]);
                }
                levels.set_len(level, new_len);
                if level == last {
                    // The children stand on row n-2 with two open columns, and
                    // `c_free` holds the squares their row may take: counted in
                    // closed form (see `kernel::two_rows`).
                    for vector in 0..VECTORS {
                        let lanes = lane_masks[vector];
                        let [c_cols, c_ld, c_rd, c_free] = children[vector];
                        let open = _mm512_andnot_si512(c_cols, vmask);
                        let low = _mm512_and_si512(open, _mm512_sub_epi64(zero, open));
                        let high = _mm512_xor_si512(open, low);
                        let below = _mm512_or_si512(
                            _mm512_slli_epi64::<1>(c_ld),
                            _mm512_srli_epi64::<1>(c_rd),
                        );
                        let bottom = _mm512_andnot_si512(below, last_allowed);
                        let apart = _mm512_cmpneq_epi64_mask(_mm512_slli_epi64::<1>(low), high);
                        let low_first = _mm512_test_epi64_mask(c_free, low)
                            & _mm512_test_epi64_mask(bottom, high);
                        let high_first = _mm512_test_epi64_mask(c_free, high)
                            & _mm512_test_epi64_mask(bottom, low);
                        let ok = lanes & apart;
                        solutions = _mm512_mask_add_epi64(solutions, ok & low_first, solutions, one);
                        solutions = _mm512_mask_add_epi64(solutions, ok & high_first, solutions, one);
                        upper = _mm512_add_epi64(upper, $popcount(lanes, c_free));
                    }
                    continue;
                }
                // Children with a free square wait on the next row.
                let next = level + 1;
                let mut next_len = levels.lens[next];
                for vector in 0..VECTORS {
                    let c_free = children[vector][3];
                    let grow = _mm512_mask_test_epi64_mask(lane_masks[vector], c_free, c_free);
                    next_len = append(&mut rows[next], next_len, grow, children[vector]);
                }
                levels.set_len(next, next_len);
            }
            let solutions = _mm512_reduce_add_epi64(solutions) as u64;
            Tally {
                solutions,
                // Each solution adds its last-row queen.
                nodes: steps + _mm512_reduce_add_epi64(upper) as u64 + solutions,
            }
        }
    };
}

lane_search!(
    /// The lane search with VPOPCNTDQ.
    search_popcnt,
    "avx512f,avx512vpopcntdq,popcnt,bmi1",
    popcount_instruction
);
lane_search!(
    /// The lane search on AVX-512F alone.
    search_shifts,
    "avx512f,popcnt,bmi1",
    popcount_shifts
);

/// The set bits of each of the `lanes` of `words` (0 in the others).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
#[inline]
fn popcount_instruction(lanes: __mmask8, words: __m512i) -> __m512i {
    _mm512_maskz_popcnt_epi64(lanes, words)
}

/// [`popcount_instruction`] for words of at most 32 bits (a row's squares,
/// N <= 32), with shifts and adds: pairs, nibbles, then the four low bytes
/// summed into the lowest.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn popcount_shifts(lanes: __mmask8, words: __m512i) -> __m512i {
    let pairs = _mm512_sub_epi64(
        words,
        _mm512_and_si512(
            _mm512_srli_epi64::<1>(words),
            _mm512_set1_epi64(0x5555_5555),
        ),
    );
    let quads = _mm512_add_epi64(
        _mm512_and_si512(pairs, _mm512_set1_epi64(0x3333_3333)),
        _mm512_and_si512(
            _mm512_srli_epi64::<2>(pairs),
            _mm512_set1_epi64(0x3333_3333),
        ),
    );
    let bytes = _mm512_and_si512(
        _mm512_add_epi64(quads, _mm512_srli_epi64::<4>(quads)),
        _mm512_set1_epi64(0x0f0f_0f0f),
    );
    let halves = _mm512_add_epi64(bytes, _mm512_srli_epi64::<8>(bytes));
    let sum = _mm512_add_epi64(halves, _mm512_srli_epi64::<16>(halves));
    _mm512_maskz_and_epi64(lanes, sum, _mm512_set1_epi64(0x3f))
}

/// For each set of kept lanes of the AVX2 build (4 bits), the `vpermd`
/// indices that move those lanes (two 32-bit halves each) to the front.
const PACK: [[i32; 8]; 16] = pack_table();

const fn pack_table() -> [[i32; 8]; 16] {
    let mut table = [[0i32; 8]; 16];
    let mut keep = 0;
    while keep < 16 {
        let mut packed = 0;
        let mut lane: i32 = 0;
        while lane < 4 {
            if keep & (1 << lane) != 0 {
                table[keep][2 * packed] = 2 * lane;
                table[keep][2 * packed + 1] = 2 * lane + 1;
                packed += 1;
            }
            lane += 1;
        }
        keep += 1;
    }
    table
}

/// The lane search on AVX2: the AVX-512 search with vectors of four lanes,
/// [`AVX2_VECTORS`] per step, lane masks as vectors and bit sets, and [`PACK`]
/// for the compress. Lanes past a row's length read stale words; their
/// free squares are cleared first, so they place nothing and add nothing.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt,bmi1")]
fn search_avx2(
    n: u32,
    start: Board,
    bounds: &RowBounds,
    rows: &mut [Row; MAX_N as usize],
) -> Tally {
    let mask = full_mask(n);
    let last = (n - 3 - start.row) as usize;
    let Some(mut levels) = Levels::<AVX2_STEP>::seed(&start, bounds, rows) else {
        return Tally::default();
    };
    let vmask = _mm256_set1_epi64x(mask as i64);
    let sides = _mm256_set1_epi64x(bounds.sides as i64);
    let last_allowed = _mm256_set1_epi64x(bounds.allowed[row_slot(n - 1)] as i64);
    let zero = _mm256_setzero_si256();
    // Boards stepped, and per lane the solutions and upper-row queens of
    // the last level.
    let mut steps = 0u64;
    let mut solutions = _mm256_setzero_si256();
    let mut upper = _mm256_setzero_si256();
    while let Some(level) = levels.next() {
        let len = levels.lens[level];
        let take = len.min(AVX2_STEP);
        let base = len - take;
        let valid_bits: [u32; AVX2_VECTORS] =
            std::array::from_fn(|vector| (1u32 << take.saturating_sub(4 * vector).min(4)) - 1);
        let child_row = start.row + level as u32 + 1;
        let allowed = _mm256_set1_epi64x(bounds.allowed[row_slot(child_row)] as i64);
        let forced = child_row == bounds.force_row;
        let mut parents = [[zero; 4]; AVX2_VECTORS];
        let mut children = [[zero; 4]; AVX2_VECTORS];
        let mut keep = [0u32; AVX2_VECTORS];
        let mut grow = [0u32; AVX2_VECTORS];
        for vector in 0..AVX2_VECTORS {
            let at = base + 4 * vector;
            let row = &rows[level];
            let valid = lane_mask(valid_bits[vector]);
            let cols = load4(&row.cols[at..]);
            let ld = load4(&row.ld[at..]);
            let rd = load4(&row.rd[at..]);
            let free = _mm256_and_si256(load4(&row.free[at..]), valid);
            let bit = _mm256_and_si256(free, _mm256_sub_epi64(zero, free));
            let rest = _mm256_xor_si256(free, bit);
            let c_cols = _mm256_or_si256(cols, bit);
            let c_ld = _mm256_slli_epi64::<1>(_mm256_or_si256(ld, bit));
            let c_rd = _mm256_srli_epi64::<1>(_mm256_or_si256(rd, bit));
            let attacked = _mm256_or_si256(c_cols, _mm256_or_si256(c_ld, c_rd));
            let mut c_free = _mm256_and_si256(_mm256_andnot_si256(attacked, allowed), valid);
            if forced {
                c_free = force_open_sides4(c_free, _mm256_andnot_si256(c_cols, sides));
            }
            parents[vector] = [cols, ld, rd, rest];
            children[vector] = [c_cols, c_ld, c_rd, c_free];
            keep[vector] = nonzero_bits(rest);
            grow[vector] = nonzero_bits(c_free);
        }
        steps += take as u64;
        // Every vector was read before any is written back.
        let mut new_len = base;
        for vector in 0..AVX2_VECTORS {
            new_len = append4(&mut rows[level], new_len, keep[vector], parents[vector]);
        }
        levels.set_len(level, new_len);
        if level == last {
            for [c_cols, c_ld, c_rd, c_free] in children {
                let open = _mm256_andnot_si256(c_cols, vmask);
                let low = _mm256_and_si256(open, _mm256_sub_epi64(zero, open));
                let high = _mm256_xor_si256(open, low);
                let below =
                    _mm256_or_si256(_mm256_slli_epi64::<1>(c_ld), _mm256_srli_epi64::<1>(c_rd));
                let bottom = _mm256_andnot_si256(below, last_allowed);
                let adjacent = _mm256_cmpeq_epi64(_mm256_slli_epi64::<1>(low), high);
                let low_first = _mm256_and_si256(
                    nonzero(_mm256_and_si256(c_free, low)),
                    nonzero(_mm256_and_si256(bottom, high)),
                );
                let high_first = _mm256_and_si256(
                    nonzero(_mm256_and_si256(c_free, high)),
                    nonzero(_mm256_and_si256(bottom, low)),
                );
                // All ones where true: subtracting adds one.
                solutions = _mm256_sub_epi64(solutions, _mm256_andnot_si256(adjacent, low_first));
                solutions = _mm256_sub_epi64(solutions, _mm256_andnot_si256(adjacent, high_first));
                upper = _mm256_add_epi64(upper, popcount4(c_free));
            }
            continue;
        }
        let next = level + 1;
        let mut next_len = levels.lens[next];
        for vector in 0..AVX2_VECTORS {
            next_len = append4(&mut rows[next], next_len, grow[vector], children[vector]);
        }
        levels.set_len(next, next_len);
    }
    let solutions = sum4(solutions);
    Tally {
        solutions,
        // Each solution adds its last-row queen.
        nodes: steps + sum4(upper) + solutions,
    }
}

/// All ones in the first lanes named by `bits` (4 bits), zero elsewhere.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn lane_mask(bits: u32) -> __m256i {
    let lanes = _mm256_set1_epi64x(i64::from(bits));
    let each = _mm256_setr_epi64x(1, 2, 4, 8);
    _mm256_cmpeq_epi64(_mm256_and_si256(lanes, each), each)
}

/// All ones in the lanes of `words` that are not zero.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn nonzero(words: __m256i) -> __m256i {
    let is_zero = _mm256_cmpeq_epi64(words, _mm256_setzero_si256());
    _mm256_xor_si256(is_zero, _mm256_set1_epi64x(-1))
}

/// The lanes of `words` that are not zero, as 4 bits.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn nonzero_bits(words: __m256i) -> u32 {
    let is_zero = _mm256_cmpeq_epi64(words, _mm256_setzero_si256());
    !(_mm256_movemask_pd(_mm256_castsi256_pd(is_zero)) as u32) & 0xf
}

/// [`force_open_sides`] on AVX2 lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn force_open_sides4(free: __m256i, open_sides: __m256i) -> __m256i {
    let zero = _mm256_setzero_si256();
    let none_open = _mm256_cmpeq_epi64(open_sides, zero);
    let below = _mm256_sub_epi64(open_sides, _mm256_set1_epi64x(1));
    let at_most_one = _mm256_cmpeq_epi64(_mm256_and_si256(open_sides, below), zero);
    let one_open = _mm256_andnot_si256(none_open, at_most_one);
    let cut = _mm256_and_si256(_mm256_and_si256(free, open_sides), one_open);
    _mm256_blendv_epi8(cut, free, none_open)
}

/// [`popcount_shifts`] on AVX2 lanes (words of at most 32 bits).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn popcount4(words: __m256i) -> __m256i {
    let pairs = _mm256_sub_epi64(
        words,
        _mm256_and_si256(
            _mm256_srli_epi64::<1>(words),
            _mm256_set1_epi64x(0x5555_5555),
        ),
    );
    let quads = _mm256_add_epi64(
        _mm256_and_si256(pairs, _mm256_set1_epi64x(0x3333_3333)),
        _mm256_and_si256(
            _mm256_srli_epi64::<2>(pairs),
            _mm256_set1_epi64x(0x3333_3333),
        ),
    );
    let bytes = _mm256_and_si256(
        _mm256_add_epi64(quads, _mm256_srli_epi64::<4>(quads)),
        _mm256_set1_epi64x(0x0f0f_0f0f),
    );
    let halves = _mm256_add_epi64(bytes, _mm256_srli_epi64::<8>(bytes));
    let sum = _mm256_add_epi64(halves, _mm256_srli_epi64::<16>(halves));
    _mm256_and_si256(sum, _mm256_set1_epi64x(0x3f))
}

/// The sum of the four lanes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn sum4(words: __m256i) -> u64 {
    let mut lanes = [0u64; 4];
    store4(&mut lanes, words);
    lanes.iter().sum()
}

/// [`append`] for AVX2 lanes: the boards of the lanes in `keep` (4 bits),
/// packed, into `row` from slot `at`; returns the row's new length.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
#[inline]
fn append4(row: &mut Row, at: usize, keep: u32, boards: [__m256i; 4]) -> usize {
    let indices = &PACK[keep as usize];
    // SAFETY: `indices` holds 8 i32, which the unaligned load reads.
    let pack = unsafe { _mm256_loadu_si256(indices.as_ptr().cast()) };
    let [cols, ld, rd, free] = boards;
    store4(&mut row.cols[at..], _mm256_permutevar8x32_epi32(cols, pack));
    store4(&mut row.ld[at..], _mm256_permutevar8x32_epi32(ld, pack));
    store4(&mut row.rd[at..], _mm256_permutevar8x32_epi32(rd, pack));
    store4(&mut row.free[at..], _mm256_permutevar8x32_epi32(free, pack));
    at + keep.count_ones() as usize
}

/// The first 4 words of `words`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn load4(words: &[u64]) -> __m256i {
    let words = &words[..4];
    // SAFETY: `words` holds 4 u64, which the unaligned load reads.
    unsafe { _mm256_loadu_si256(words.as_ptr().cast()) }
}

/// Writes `value` over the first 4 words of `words`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn store4(words: &mut [u64], value: __m256i) {
    let words = &mut words[..4];
    // SAFETY: `words` holds 4 u64, which the unaligned store writes.
    unsafe { _mm256_storeu_si256(words.as_mut_ptr().cast(), value) }
}

/// [`crate::plan::force_open_sides`] in every lane: `free` kept when no
/// side column is open, cut to the open one when one is, empty when both.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn force_open_sides(free: __m512i, open_sides: __m512i) -> __m512i {
    let none_open = _mm512_testn_epi64_mask(open_sides, open_sides);
    let below = _mm512_sub_epi64(open_sides, _mm512_set1_epi64(1));
    let at_most_one = _mm512_testn_epi64_mask(open_sides, below);
    let one_open = at_most_one & !none_open;
    let cut = _mm512_maskz_and_epi64(one_open, free, open_sides);
    _mm512_mask_mov_epi64(cut, none_open, free)
}

/// Writes the boards of the `lanes` of `boards` (cols, ld, rd, free),
/// packed, into `row` from slot `at`; returns the row's new length.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,popcnt")]
#[inline]
fn append(row: &mut Row, at: usize, lanes: __mmask8, boards: [__m512i; 4]) -> usize {
    let [cols, ld, rd, free] = boards;
    store(
        &mut row.cols[at..],
        _mm512_maskz_compress_epi64(lanes, cols),
    );
    store(&mut row.ld[at..], _mm512_maskz_compress_epi64(lanes, ld));
    store(&mut row.rd[at..], _mm512_maskz_compress_epi64(lanes, rd));
    store(
        &mut row.free[at..],
        _mm512_maskz_compress_epi64(lanes, free),
    );
    at + lanes.count_ones() as usize
}

/// The first 8 words of `words` (lanes outside `lanes` read as 0).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn load(lanes: __mmask8, words: &[u64]) -> __m512i {
    let words = &words[..8];
    // SAFETY: `words` holds 8 u64, which the unaligned load reads.
    unsafe { _mm512_maskz_loadu_epi64(lanes, words.as_ptr().cast()) }
}

/// Writes `value` over the first 8 words of `words`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn store(words: &mut [u64], value: __m512i) {
    let words = &mut words[..8];
    // SAFETY: `words` holds 8 u64, which the unaligned store writes.
    unsafe { _mm512_storeu_si512(words.as_mut_ptr().cast(), value) }
}
