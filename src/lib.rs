//! Counts the solutions of the N-queens problem (OEIS A000170) on every core.
//!
//! The search tree's first rows are expanded into a [`Plan`] of independent
//! [`Task`]s (or, for the `join` method, one task per set of rows); the
//! engine hands them to a rayon pool by work stealing; each task is counted
//! by a search (the `search` module, hidden): a bitmask depth-first kernel,
//! the same search in vector lanes, or the half-board join. Symmetry (the
//! [`Method`]) cuts the tree and the tasks' weights put it back.
//!
//! # Where to start
//!
//! - **Count one N**: [`count`] with [`CountOptions`] (method, threads,
//!   memory limit) gives a [`Report`]: all solutions, the unique ones, the
//!   checks against the published tables; a `Report` serializes to JSON.
//! - **A count that must survive or spread** (a checkpoint journal, a
//!   shard of the plan, a stop on a signal): [`run::tracked::Tracked`].
//! - **Its cost before running it**: [`Plan`] and
//!   [`analysis::estimate::estimate`].
//! - **Boards**: [`Solutions`] and [`nth_solution`] list them in order,
//!   [`explicit_solution`] builds one for any N, [`check`] validates one,
//!   the `render_*` functions draw one.
//! - Everything else ([`RunHooks`], [`run::engine`], [`run::journal`],
//!   [`run::shard`]) is what those are built of.
//!
//! ```
//! use nqueens::{count, CountOptions, Method};
//!
//! let report = count(8, &CountOptions::default()).unwrap();
//! assert_eq!(report.solutions, 92);
//! assert_eq!(report.matches_published(), Some(true));
//!
//! let options = CountOptions::default().with_method(Method::D4).with_threads(Some(2));
//! assert_eq!(count(10, &options).unwrap().unique, Some(92));
//! ```
//!
//! A board, printed (a [`Solution`] displays as a grid):
//!
//! ```
//! let board = nqueens::Solutions::new(8).next().unwrap();
//! print!("{board}"); // Q....... then ....Q... and six rows more
//! assert_eq!(board.columns(), [0, 4, 7, 5, 2, 6, 1, 3]);
//! ```
//!
//! A shard of a count, as one machine of a cluster runs it:
//!
//! ```
//! use std::sync::atomic::AtomicBool;
//! use nqueens::run::shard::ShardSpec;
//! use nqueens::run::tracked::{Tracked, TrackedOutcome, Watch};
//! use nqueens::CountOptions;
//!
//! let shard = ShardSpec::new(0, 2).unwrap();
//! let tracked = Tracked::prepare(10, &CountOptions::default(), 2, Some(shard), None, None)?;
//! let stop = AtomicBool::new(false); // a front end sets it on a signal
//! let watch = Watch { on_task: &|_| {}, stop: &stop, grace: None, workers: &[], on_worker_failed: None, workers_only: false };
//! let TrackedOutcome::Shard(result) = tracked.run(&watch)? else { unreachable!() };
//! assert!(result.solutions > 0 && result.solutions < 724); // a part of Q(10)
//! # Ok::<(), nqueens::Error>(())
//! ```
//!
//! # Layers
//!
//! Each depends only on those above it:
//! - `search` (hidden): counts one task (kernel, lanes, d4, join, symmetric
//!   counts);
//! - [`plan`]: methods, tasks, the fingerprint, cost and memory estimates;
//! - [`run`]: the engine and the one count routine, checkpoints, shards,
//!   MPI, the benchmark;
//! - [`boards`]: listing, the n-th solution, construction, drawing, checks.

#![warn(missing_docs)]
// Every unsafe block says why it is sound.
#![deny(clippy::undocumented_unsafe_blocks)]
// An unsafe function's body is not one unsafe block: each unsafe
// operation in it has a block of its own with its reason.
#![deny(unsafe_op_in_unsafe_fn)]
// What only the crate uses is pub(crate): the public surface is what a
// caller may name.
#![warn(unreachable_pub)]

pub mod analysis;
pub mod boards;
#[cfg(feature = "gpu")]
mod cuda;
pub mod error;
pub mod plan;
pub mod published;
mod random;
pub mod run;
mod search;
mod system;
pub mod units;

/// NVIDIA GPUs (the `gpu` feature): the GPU worker of the method a GPU
/// counts, named by the registry, and the device the CUDA driver finds.
#[cfg(feature = "gpu")]
pub mod gpu {
    pub use crate::cuda::driver::DeviceInfo;
    pub use crate::search::registry::gpu_worker::{
        sample_ids, time_tasks, BoardsTiming, GpuBoardMaker, GpuDevice, GpuPairCounter, GpuWorker,
        HostPairCounter, TaskTiming, Timing, GPU_BATCH,
    };
}

pub use boards::construct::{explicit_solution, random_solution};
pub use boards::render::{render, render_fen, render_grid, render_svg, render_vector, BoardFormat};
pub use boards::solutions::{
    nth_solution, nth_solution_with, write_solutions, NthProgress, Solution, Solutions,
};
pub use boards::validate::{check, Violation};
pub use error::Error;
pub use plan::{Method, Plan, SplitDepth, Task, TaskKind, MIN_N};
pub use run::engine::{RunHooks, RunTotals, TaskCount, TaskOutcome};
pub use run::report::{History, Orbits, Report};
pub use run::{count, count_with_hooks, resolve_threads, CountOptions};
// The search's board and tally, which tasks and reports carry: not a
// user's first call, so off the front page.
pub use search::board::MAX_N;
#[doc(hidden)]
pub use search::board::{Board, Tally};
pub use search::paths::CodePaths;

/// Checks the environment variables that steer the searches (the vector
/// lanes' `NQUEENS_LANES`, the matcher's `NQUEENS_MATCHER`): an error names
/// the value and what is accepted. A library caller that skips this gets
/// the fastest builds the CPU has.
pub fn check_environment() -> Result<(), Error> {
    search::paths::check_environment()
}

/// The search's internals that the integration tests and benchmarks
/// compare against their naive twins, behind the `testing` feature (which
/// `cargo test` and `cargo bench` turn on): not an API, no promise kept
/// between versions.
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod testing {
    /// Boards as bit masks.
    pub mod board {
        pub use crate::search::board::{force_open_sides, RowBounds};
    }
    /// The scalar depth-first kernel.
    pub mod kernel {
        pub use crate::search::kernel::{count_completions, count_completions_portable};
    }
    /// The vector lanes.
    pub mod lanes {
        pub use crate::search::lanes::{
            best, count_bounded_with, count_completions, supported, Lanes,
        };
    }
    /// One image per symmetry class.
    pub mod d4 {
        pub use crate::search::d4::{
            classify, count_task, count_task_depth_first, rotate, Subtree,
        };
    }
    /// Pairs of keys with no bit in common: the kernel of every join.
    pub mod disjoint {
        pub use crate::search::disjoint::{
            choose_cuts, count_disjoint_naive, matcher_path, take_leaf_work, transpose64,
            transpose64_naive, LeafWork, Matcher, MatcherPath, SplitMatcher, UnexpectedBits,
            BLOCK_KEYS, LEAF_MIN, MAX_CUTS,
        };
    }
    /// Half boards paired on their diagonals.
    pub mod join {
        pub use crate::search::join::{
            allocator_slack, count_placements, count_placements_on, count_task, count_task_by_rows,
            count_task_in_parts, count_task_row_order, fill_cell, memory_needed, placements,
            task_cost, task_keys, tasks, tasks_cut, thread_bound, thread_bytes,
            thread_scratch_parts, CellCache, EvenCut, JoinTask, JoinTasks, MadeCells, Parts,
            QuadrantCounts, RowCells, ScratchBytes, JOIN_MAX_N, JOIN_MIN_N, LARGEST_CELL,
            LARGEST_ROW_SET, PLACEMENTS,
        };
    }
    /// Boards fixed by a half or quarter turn.
    pub mod symmetric {
        pub use crate::search::symmetric::{count_symmetric, count_symmetric_part, Turn};
    }
    /// The crate's seeded generator, for tests and benches that draw keys.
    pub use crate::random::SplitMix64;
    pub use crate::search::naive;
    /// The calling thread's CPU time, for benches that time one thread.
    pub use crate::system::thread_cpu_seconds;
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;
