//! The plain search on eight boards at once, branch-free (AVX-512F).
//!
//! The depth-first kernel spends most of its time on branches it cannot
//! predict: whether a row has another free square, whether a child has any.
//! Here the open boards wait in one short buffer per row; a step takes eight
//! boards of one row, places each one's lowest free queen in a vector lane,
//! and puts the children that have a free square into the next row's buffer
//! and the boards with squares left back into their own, both with a
//! compress. The row stepped is the deepest with eight boards waiting, or,
//! when none has eight, the shallowest with any (which widens the frontier
//! until one fills up). That keeps every buffer under 16 boards and the
//! lanes full: at N = 16 a step fills 7.86 of its 8 lanes on average. The
//! last two rows are counted in closed form, as in the kernel, so nodes and
//! solutions are exactly the kernel's.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;
use std::cell::RefCell;

use crate::kernel::{full_mask, row_slot, Board, RowBounds, Tally, MAX_N};

/// Boards a row's buffer can hold: a step adds at most 8 children to a row
/// holding fewer than 8 (else that row, being deeper, would have been the
/// one stepped), and a stepped row only shrinks; 8 more slots let every
/// vector load and store stay inside the buffer.
const CAPACITY: usize = 24;

/// The builds of the lane search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lanes {
    /// AVX-512F with VPOPCNTDQ (Ice Lake and later, Zen 4): one instruction
    /// counts each lane's free squares.
    Avx512Popcnt,
    /// AVX-512F alone (Skylake-SP, Cascade Lake): the squares are counted
    /// with shifts and adds.
    Avx512,
}

impl Lanes {
    /// Whether this CPU can run this build.
    pub fn runs_here(self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            let base = std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("popcnt")
                && std::arch::is_x86_feature_detected!("bmi1");
            match self {
                Lanes::Avx512 => base,
                Lanes::Avx512Popcnt => {
                    base && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }
}

/// The fastest build this CPU runs, if any.
pub fn best() -> Option<Lanes> {
    [Lanes::Avx512Popcnt, Lanes::Avx512]
        .into_iter()
        .find(|lanes| lanes.runs_here())
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
    /// Each thread's row buffers, kept between calls: clearing 24 KB per
    /// call cost more than the search of a small task. What a call left in
    /// them is never read by the next, whose loads stop at each row's
    /// length.
    static BUFFERS: RefCell<Box<[Row; MAX_N as usize]>> =
        RefCell::new(Box::new([EMPTY_ROW; MAX_N as usize]));
}

/// Counts every completion of `start` on an `n` board, like
/// [`crate::kernel::count_completions`], with the [`best`] build.
///
/// # Panics
/// When the CPU lacks AVX-512F (check [`supported`] first).
pub fn count_completions(n: u32, start: Board) -> Tally {
    count_bounded(n, start, &RowBounds::unbounded(n))
}

/// Counts every completion of `start` on an `n` board that keeps within
/// `bounds` on the rows below it, with the [`best`] build. Nodes are queens
/// placed, as in the kernel.
///
/// # Panics
/// When the CPU lacks AVX-512F (check [`supported`] first).
pub fn count_bounded(n: u32, start: Board, bounds: &RowBounds) -> Tally {
    let lanes = best().expect("the frontier search needs AVX-512F");
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
            let mut lens = [0usize; MAX_N as usize];
            // Levels holding at least 8 boards, and levels holding any.
            let mut full = 0u32;
            let mut waiting = 0u32;
            let root_free = bounds.free(start.row, start.cols, start.ld | start.rd);
            if root_free == 0 {
                return Tally::default();
            }
            rows[0].cols[0] = start.cols;
            rows[0].ld[0] = start.ld;
            rows[0].rd[0] = start.rd;
            rows[0].free[0] = root_free;
            lens[0] = 1;
            waiting |= 1;
            let vmask = _mm512_set1_epi64(mask as i64);
            let sides = _mm512_set1_epi64(bounds.sides as i64);
            let last_allowed = _mm512_set1_epi64(bounds.allowed[row_slot(n - 1)] as i64);
            let zero = _mm512_setzero_si512();
            let one = _mm512_set1_epi64(1);
            let mut nodes = _mm512_setzero_si512();
            let mut solutions = _mm512_setzero_si512();
            loop {
                // Lanes are only worth filling deep down: step the deepest full row,
                // or else grow the frontier from the shallowest.
                let level = if full != 0 {
                    31 - full.leading_zeros()
                } else if waiting != 0 {
                    waiting.trailing_zeros()
                } else {
                    break;
                } as usize;
                let len = lens[level];
                let take = len.min(8);
                let base = len - take;
                let lanes: __mmask8 = ((1u32 << take) - 1) as u8;
                let row = &rows[level];
                let cols = load(lanes, &row.cols[base..]);
                let ld = load(lanes, &row.ld[base..]);
                let rd = load(lanes, &row.rd[base..]);
                let free = load(lanes, &row.free[base..]);
                let bit = _mm512_and_si512(free, _mm512_sub_epi64(zero, free));
                let rest = _mm512_xor_si512(free, bit);
                let c_cols = _mm512_or_si512(cols, bit);
                let c_ld = _mm512_slli_epi64::<1>(_mm512_or_si512(ld, bit));
                let c_rd = _mm512_srli_epi64::<1>(_mm512_or_si512(rd, bit));
                let attacked = _mm512_or_si512(c_cols, _mm512_or_si512(c_ld, c_rd));
                // The children's row: the same for every lane.
                let child_row = start.row + level as u32 + 1;
                let allowed = _mm512_set1_epi64(bounds.allowed[row_slot(child_row)] as i64);
                let mut c_free = _mm512_andnot_si512(attacked, allowed);
                if child_row == bounds.force_row {
                    c_free = force_open_sides(c_free, _mm512_andnot_si512(c_cols, sides));
                }
                nodes = _mm512_mask_add_epi64(nodes, lanes, nodes, one);
                // Boards with squares left go back where they were.
                let keep = _mm512_mask_test_epi64_mask(lanes, rest, rest);
                let new_len = append(&mut rows[level], base, keep, [cols, ld, rd, rest]);
                lens[level] = new_len;
                set_flags(&mut full, &mut waiting, level, new_len);
                if level == last {
                    // The children stand on row n-2 with two open columns, and
                    // `c_free` holds the squares their row may take: counted in
                    // closed form (see `kernel::two_rows`).
                    let open = _mm512_andnot_si512(c_cols, vmask);
                    let low = _mm512_and_si512(open, _mm512_sub_epi64(zero, open));
                    let high = _mm512_xor_si512(open, low);
                    let below = _mm512_or_si512(_mm512_slli_epi64::<1>(c_ld), _mm512_srli_epi64::<1>(c_rd));
                    let bottom = _mm512_andnot_si512(below, last_allowed);
                    let apart = _mm512_cmpneq_epi64_mask(_mm512_slli_epi64::<1>(low), high);
                    let low_first =
                        _mm512_test_epi64_mask(c_free, low) & _mm512_test_epi64_mask(bottom, high);
                    let high_first =
                        _mm512_test_epi64_mask(c_free, high) & _mm512_test_epi64_mask(bottom, low);
                    let ok = lanes & apart;
                    solutions = _mm512_mask_add_epi64(solutions, ok & low_first, solutions, one);
                    solutions = _mm512_mask_add_epi64(solutions, ok & high_first, solutions, one);
                    nodes = _mm512_mask_add_epi64(nodes, ok & low_first, nodes, one);
                    nodes = _mm512_mask_add_epi64(nodes, ok & high_first, nodes, one);
                    let upper = $popcount(lanes, c_free);
                    nodes = _mm512_add_epi64(nodes, upper);
                    continue;
                }
                // Children with a free square wait on the next row.
                let grow = _mm512_mask_test_epi64_mask(lanes, c_free, c_free);
                let next = level + 1;
                let next_len = append(
                    &mut rows[next],
                    lens[next],
                    grow,
                    [c_cols, c_ld, c_rd, c_free],
                );
                lens[next] = next_len;
                set_flags(&mut full, &mut waiting, next, next_len);
            }
            Tally {
                solutions: _mm512_reduce_add_epi64(solutions) as u64,
                nodes: _mm512_reduce_add_epi64(nodes) as u64,
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

#[inline(always)]
fn set_flags(full: &mut u32, waiting: &mut u32, level: usize, len: usize) {
    let bit = 1u32 << level;
    *full = (*full & !bit) | if len >= 8 { bit } else { 0 };
    *waiting = (*waiting & !bit) | if len > 0 { bit } else { 0 };
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
