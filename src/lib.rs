//! Counts the solutions of the N-queens problem (OEIS A000170) on every core.
//!
//! The search tree's first rows are expanded into a [`Plan`] of independent
//! prefix [`Task`]s; the [`engine`] hands them to a rayon pool by work
//! stealing; each task is searched by the bitmask depth-first [`kernel`];
//! symmetry (the [`Method`]) cuts the tree and the tasks' weights put it back.
//!
//! ```
//! use nqueens::{count, CountOptions};
//!
//! let report = count(8, &CountOptions::default()).unwrap();
//! assert_eq!(report.solutions, 92);
//! assert_eq!(report.matches_published(), Some(true));
//! ```

pub mod engine;
pub mod error;
pub mod kernel;
pub mod naive;
pub mod plan;
pub mod published;

use std::time::Instant;

pub use engine::{RunHooks, RunTotals, TaskOutcome};
pub use error::Error;
pub use kernel::{Board, Tally, MAX_N};
pub use plan::{Method, Plan, SplitDepth, Task, MIN_N};

/// What to count with.
#[derive(Clone, Debug)]
pub struct CountOptions {
    /// How the tree is cut.
    pub method: Method,
    /// Worker threads; `None` uses every core.
    pub threads: Option<usize>,
    /// How deep prefixes are expanded into tasks.
    pub split_depth: SplitDepth,
}

impl Default for CountOptions {
    fn default() -> CountOptions {
        CountOptions {
            method: Method::Mirror,
            threads: None,
            split_depth: SplitDepth::Auto,
        }
    }
}

/// The result of one count.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Board size.
    pub n: u32,
    /// Method counted with.
    pub method: Method,
    /// Rows expanded into task prefixes.
    pub split_depth: u32,
    /// Tasks in the plan.
    pub tasks: usize,
    /// Worker threads used.
    pub threads: usize,
    /// Solutions counted (all of them, symmetric images included).
    pub solutions: u128,
    /// Queens placed, while building the plan and in the kernel.
    pub nodes: u128,
    /// Wall time, plan building included.
    pub seconds: f64,
    /// The plan's fingerprint.
    pub fingerprint: u64,
    /// False when the run was cancelled before every task was counted.
    pub complete: bool,
}

impl Report {
    /// The published count for this N, where one is known.
    pub fn published(&self) -> Option<u128> {
        published::total(self.n)
    }

    /// Whether the count equals the published one; `None` past the table.
    pub fn matches_published(&self) -> Option<bool> {
        self.published().map(|known| known == self.solutions)
    }

    /// Nodes per second of wall time.
    pub fn nodes_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.nodes as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// The number of threads `threads` stands for: `None` means every core.
pub fn resolve_threads(threads: Option<usize>) -> Result<usize, Error> {
    match threads {
        Some(0) => Err(Error::ZeroThreads),
        Some(threads) => Ok(threads),
        None => Ok(num_cpus::get().max(1)),
    }
}

/// Counts the solutions for an `n` x `n` board.
pub fn count(n: u32, options: &CountOptions) -> Result<Report, Error> {
    count_with_hooks(n, options, &RunHooks::default(), |_| {})
}

/// Counts like [`count`], calling `on_plan` once the plan is built (to size a
/// progress display) and passing `hooks` to the engine.
pub fn count_with_hooks(
    n: u32,
    options: &CountOptions,
    hooks: &RunHooks<'_>,
    on_plan: impl FnOnce(&Plan),
) -> Result<Report, Error> {
    let threads = resolve_threads(options.threads)?;
    let started = Instant::now();
    let plan = Plan::build(n, options.method, options.split_depth)?;
    on_plan(&plan);
    let totals = engine::run(&plan, threads, hooks)?;
    Ok(Report {
        n,
        method: plan.method,
        split_depth: plan.split_depth,
        tasks: plan.tasks.len(),
        threads,
        solutions: totals.solutions,
        nodes: totals.nodes + u128::from(plan.prefix_nodes),
        seconds: started.elapsed().as_secs_f64(),
        fingerprint: plan.fingerprint(),
        complete: totals.tasks_cancelled == 0 && totals.tasks_skipped == 0,
    })
}
