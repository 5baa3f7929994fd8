//! Counts the solutions of the N-queens problem (OEIS A000170) on every core.
//!
//! The search tree's first rows are expanded into a [`Plan`] of independent
//! [`Task`]s (or, for the `join` method, one task per set of rows); the
//! engine hands them to a rayon pool by work stealing; each task is counted
//! by a search in [`search`]: a bitmask depth-first kernel, the same search
//! in vector lanes, or the half-board join. Symmetry (the [`Method`]) cuts
//! the tree and the tasks' weights put it back.
//!
//! The layers, each depending only on those above it:
//! - `search`: counts one task (kernel, lanes, d4, join, symmetric counts);
//! - [`plan`]: methods, tasks, the fingerprint, cost and memory estimates;
//! - [`run`]: the engine and the one count routine, checkpoints, shards,
//!   MPI, the benchmark;
//! - [`boards`]: listing, the n-th solution, construction, drawing, checks.
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

#![warn(missing_docs)]
// Every unsafe block says why it is sound.
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod boards;
pub mod error;
pub mod plan;
pub mod published;
mod random;
pub mod run;
#[doc(hidden)]
pub mod search;
mod system;
pub mod units;

pub use boards::construct::{explicit_solution, random_solution};
pub use boards::render::{render, render_fen, render_grid, render_svg, render_vector, BoardFormat};
pub use boards::solutions::{
    nth_solution, nth_solution_with, write_solutions, Solution, Solutions,
};
pub use boards::validate::{check, Violation};
pub use error::Error;
pub use plan::{Method, Plan, SplitDepth, Task, TaskKind, MIN_N};
pub use run::engine::{RunHooks, RunTotals, TaskCount, TaskOutcome};
pub use run::report::{History, Orbits, Report};
pub use run::{count, count_with_hooks, resolve_threads, CountOptions};
pub use search::board::{Board, Tally, MAX_N};

/// Checks the environment variables that steer the searches (the vector
/// lanes' `NQUEENS_LANES`, the matcher's `NQUEENS_MATCHER`): an error names
/// the value and what is accepted. A library caller that skips this gets
/// the fastest builds the CPU has.
pub fn check_environment() -> Result<(), Error> {
    search::lanes::requested()
        .map(|_| ())
        .and_then(|()| search::join::requested_matcher().map(|_| ()))
        .map_err(Error::Environment)
}

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExamples;
