//! Running a plan: the engine that spreads its tasks over threads, the one
//! count routine every front end goes through, and what makes long counts
//! survive and spread (the checkpoint journal, shards, MPI ranks).
//!
//! A plain count, a resumed count, a shard and an MPI rank differ only in
//! their [`RunHooks`]: which tasks to skip, what to do with each finished
//! task, where the workers take their tasks from. [`run_plan`] does the rest
//! for all of them; [`tracked::Tracked`] wraps it with the journal, the
//! shard, a stop with a grace and the cost over runs, for the command and
//! MPI rank 0 alike.

mod batch;
pub mod distribution;
pub mod engine;
mod handout;
mod hooks;
pub mod journal;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod report;
pub mod shard;
pub mod signing;
mod spread;
pub mod stop;
pub(crate) mod task;
pub mod tracked;
pub mod workers;

use std::time::Instant;

use engine::{RunHooks, RunTotals};
use report::{make_report, PlanSummary, Report, SymmetricCounts};

use crate::error::Error;
use crate::plan::{Method, Plan, SplitDepth};
use crate::search::paths::CodePaths;
pub use crate::system::available_cores;

/// What to count with. Start from [`CountOptions::default`] and change
/// what differs with the `with_` methods; fields may be added.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct CountOptions {
    /// How the tree is cut.
    pub method: Method,
    /// Worker threads; `None` uses every core.
    pub threads: Option<usize>,
    /// How deep prefixes are expanded into tasks.
    pub split_depth: SplitDepth,
    /// Most bytes a `join` count may take; `None`: the memory the system
    /// has available when the count starts.
    pub memory_limit: Option<u64>,
    /// The builds of the hot loops (default: the environment variables,
    /// else the fastest this CPU runs).
    pub paths: CodePaths,
}

impl Default for CountOptions {
    fn default() -> CountOptions {
        CountOptions {
            method: Method::Auto,
            threads: None,
            split_depth: SplitDepth::Auto,
            memory_limit: None,
            paths: CodePaths::default(),
        }
    }
}

impl CountOptions {
    /// These options with `method`.
    pub fn with_method(self, method: Method) -> CountOptions {
        CountOptions { method, ..self }
    }

    /// These options with `threads` worker threads (`None`: every core).
    pub fn with_threads(self, threads: Option<usize>) -> CountOptions {
        CountOptions { threads, ..self }
    }

    /// These options with the split depth `split_depth`.
    pub fn with_split_depth(self, split_depth: SplitDepth) -> CountOptions {
        CountOptions {
            split_depth,
            ..self
        }
    }

    /// These options with the builds `paths` of the hot loops.
    pub fn with_paths(self, paths: CodePaths) -> CountOptions {
        CountOptions { paths, ..self }
    }

    /// These options with the memory limit `memory_limit` in bytes
    /// (`None`: what the system has available).
    pub fn with_memory_limit(self, memory_limit: Option<u64>) -> CountOptions {
        CountOptions {
            memory_limit,
            ..self
        }
    }
}

/// The plan a count of `n` with `options` on `threads` threads runs.
pub fn plan_for(n: u32, options: &CountOptions, threads: usize) -> Result<Plan, Error> {
    Plan::build_within(
        n,
        options.method,
        options.split_depth,
        options.memory_limit,
        threads,
    )
}

/// The number of threads `threads` stands for: `None` means every core.
pub fn resolve_threads(threads: Option<usize>) -> Result<usize, Error> {
    match threads {
        Some(0) => Err(Error::ZeroThreads),
        Some(threads) => Ok(threads),
        None => Ok(available_cores()),
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
    let plan = plan_for(n, options, threads)?;
    on_plan(&plan);
    let hooks = hooks.paths(options.paths);
    let run = run_plan(&plan, threads, &hooks, Some((0, 1)))?;
    let complete = run.totals.tasks_cancelled == 0 && run.totals.tasks_skipped == 0;
    Ok(make_report(
        &PlanSummary::of(&plan),
        threads,
        &run.totals,
        started.elapsed().as_secs_f64(),
        complete,
        // A cancelled run did not wait for P and R; its report has no
        // unique count either way.
        run.symmetric.unwrap_or(SymmetricCounts {
            half_turn: 0,
            quarter_turn: 0,
        }),
    ))
}

/// What [`run_plan`] counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlanRun {
    /// The tasks' totals (those this run counted, not those it skipped).
    pub totals: RunTotals,
    /// P and R, for the unique count, when they were asked for and the
    /// run was not cancelled.
    pub symmetric: Option<SymmetricCounts>,
}

/// Counts the tasks of `plan` on `threads` workers, steered by `hooks`, and
/// the part `symmetric` = (index, count) of the searches for P and R beside
/// them ((0, 1) for all of them; a shard computes its own part; an MPI rank
/// other than 0 none): the one routine behind a plain count, a resumed one,
/// a shard and an MPI rank.
pub fn run_plan(
    plan: &Plan,
    threads: usize,
    hooks: &RunHooks<'_>,
    symmetric: Option<(u64, u64)>,
) -> Result<PlanRun, Error> {
    let pool = engine::worker_pool_taking(threads, hooks.paths)?;
    // The symmetric searches run beside the tasks rather than after them:
    // a short serial tail would cost every thread but one its time. A
    // cancelled run does not wait for them (minutes from N = 26): their
    // thread is left to end on its own, and the run reports none.
    let n = plan.n;
    let paths = hooks.paths;
    let search = symmetric.map(|(part, parts)| {
        std::thread::spawn(move || {
            paths.enter();
            SymmetricCounts::part_of(n, part, parts)
        })
    });
    let totals = engine::run_tasks(&pool, plan.n, &plan.tasks, hooks);
    let cancelled = totals.tasks_cancelled > 0;
    let symmetric = match search {
        Some(search) if !cancelled => Some(
            search
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
        ),
        _ => None,
    };
    Ok(PlanRun { totals, symmetric })
}
