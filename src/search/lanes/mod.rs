//! The plain search on many boards at once, branch-free (AVX-512F, or
//! AVX2).
//!
//! The depth-first kernel spends most of its time on branches it cannot
//! predict: whether a row has another free square, whether a child has any.
//! Here the open boards wait in one short buffer per row; a step takes
//! four vectors of boards of one row (eight lanes each with AVX-512,
//! four with AVX2), places each one's lowest free queen in its lane, and
//! puts the children that have a free square into the next row's buffer and
//! the boards with squares left back into their own, both packed. The row
//! stepped is the deepest with a full step waiting, or, when none has one,
//! the shallowest with any (which widens the frontier until one fills up).
//! The last two rows are counted in closed form, as in the kernel, so nodes
//! and solutions are exactly the kernel's.
//!
//! The search is written once (`search.rs`, generic over a small vector
//! trait); each width is a file of one-line vector operations (`avx512.rs`,
//! `avx2.rs`) and an entry point built with its target features.

use std::cell::RefCell;

use super::board::{Board, RowBounds, Tally, MAX_N};

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
mod search;

/// Vectors a step takes, at every width: they are independent, so the core
/// overlaps their work. Measured at N = 16 `mirror`, 1 thread: AVX-512 1.10 s
/// with one, 0.65 with two, 0.52 with three, 0.48-0.57 with four, 0.87-0.92
/// with eight (whose buffers outgrow the first-level cache); AVX2 1.40 s with
/// two, 0.92-0.98 with four, 0.97-1.05 with six or eight.
const VECTORS: usize = 4;

/// Most lanes a vector has (AVX-512: eight boards).
const MAX_WIDTH: usize = 8;

/// Boards a row's buffer can hold: a step adds at most a step's worth of
/// children to a row holding less than a step (else that row, being deeper,
/// would have been the one stepped), and a stepped row only shrinks; one
/// vector more lets every load and store stay inside the buffer. Narrower
/// vectors take smaller steps, so the same buffers serve them.
const CAPACITY: usize = 2 * VECTORS * MAX_WIDTH + MAX_WIDTH;

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
pub(crate) const LANES_VARIABLE: &str = "NQUEENS_LANES";

/// What [`LANES_VARIABLE`] asks for: `Ok(None)` when it is unset or empty,
/// else as [`parse_lanes`] reads its value.
pub(crate) fn requested() -> Result<Option<Option<Lanes>>, String> {
    match std::env::var_os(LANES_VARIABLE) {
        Some(value) if !value.is_empty() => {
            parse_lanes(&value.to_string_lossy(), &format!("{LANES_VARIABLE}=")).map(Some)
        }
        _ => Ok(None),
    }
}

/// The build `value` names: `Ok(None)` for `off`, `Ok(Some(build))` for a
/// build this CPU runs; an error naming `label` and the value, and what
/// is accepted, otherwise.
pub(crate) fn parse_lanes(value: &str, label: &str) -> Result<Option<Lanes>, String> {
    if value == "off" {
        return Ok(None);
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
        Some(lanes) if lanes.runs_here() => Ok(Some(lanes)),
        Some(lanes) => Err(format!(
            "{label}{} asks for a build this CPU cannot run: accepted here are {}",
            lanes.name(),
            accepted(true)
        )),
        None => Err(format!(
            "{label}{value} is not a build: accepted values are {}",
            accepted(false)
        )),
    }
}

/// The build the searches on the calling thread use: the one its count
/// chose ([`crate::CodePaths`]), else the one [`LANES_VARIABLE`] asks
/// for, else the fastest this CPU runs, if any.
pub fn best() -> Option<Lanes> {
    CHOSEN.get().unwrap_or_else(default_lanes)
}

thread_local! {
    /// The build the calling thread's count chose (`None`: the default;
    /// `Some(None)`: no lanes).
    static CHOSEN: std::cell::Cell<Option<Option<Lanes>>> = const { std::cell::Cell::new(None) };
}

/// Makes `choice` the build of the calling thread's searches (`None`: the
/// default).
pub(crate) fn enter(choice: Option<Option<Lanes>>) {
    CHOSEN.set(choice);
}

/// The process's default build, decided once: [`LANES_VARIABLE`]'s, else
/// the fastest this CPU runs.
fn default_lanes() -> Option<Lanes> {
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
/// [`super::kernel::count_completions`], with the [`best`] build.
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
pub(crate) fn count_bounded(n: u32, start: Board, bounds: &RowBounds) -> Tally {
    let lanes = best().expect("the frontier search needs AVX2 or AVX-512F");
    count_bounded_with(lanes, n, start, bounds)
}

/// `count_bounded` with the build `lanes`.
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
            Lanes::Avx512Popcnt => unsafe { avx512::search_popcnt(n, start, bounds, rows) },
            // SAFETY: `runs_here` just found AVX-512F, POPCNT and BMI1,
            // which `search_shifts` is built with.
            Lanes::Avx512 => unsafe { avx512::search_shifts(n, start, bounds, rows) },
            // SAFETY: `runs_here` just found AVX2, POPCNT and BMI1, which
            // `avx2::search` is built with.
            Lanes::Avx2 => unsafe { avx2::search(n, start, bounds, rows) },
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
