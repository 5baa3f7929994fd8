//! The reports the commands print, one [`Output`] value each; the
//! library's result types are serialized as they are, and the few records
//! made here gather what one report says.

use std::time::Duration;

use nqueens::analysis::bench::BenchReport;
use nqueens::analysis::compare::{Comparison, ShardComparison};
use nqueens::analysis::estimate::Estimate;
use nqueens::analysis::heaviest::Heaviest;
use nqueens::analysis::verify::TaskCheck;
use nqueens::{Plan, Report};
use serde::Serialize;

use super::Kind;

/// One report, as every format takes it.
pub enum Output<'a> {
    /// One count's row; `first`: the table's header goes before it.
    Count {
        /// The count.
        report: &'a Report,
        /// Whether it is the table's first row.
        first: bool,
    },
    /// A merge's total, of `shards` shard files whose tasks took
    /// `task_seconds` of core time.
    Merged {
        /// The total, as a count's report.
        report: &'a Report,
        /// Shard files merged.
        shards: usize,
        /// Their tasks' seconds, summed.
        task_seconds: f64,
    },
    /// What a partial set of shards holds.
    PartialMerge(&'a PartialMerge<'a>),
    /// A plan before its costs are timed (a person sees it at once).
    PlanHeader {
        /// The plan.
        plan: &'a Plan,
        /// Threads it was built for.
        threads: usize,
        /// Its peak memory bound, in bytes.
        peak_memory: u64,
    },
    /// A plan with its estimate or heaviest tasks.
    PlanCosts(&'a PlanCosts<'a>),
    /// Two journals compared task by task.
    Comparison(&'a Comparison),
    /// Two sets of shard files compared shard by shard.
    ShardComparison(&'a ShardComparison),
    /// A benchmark.
    Bench(&'a BenchReport),
    /// A cross-check about to start: `sampled` of the plan's tasks.
    VerifyHeader {
        /// The plan.
        plan: &'a Plan,
        /// Tasks to check.
        sampled: usize,
        /// The sample's seed.
        seed: u64,
    },
    /// One task checked both ways.
    VerifyRow(&'a TaskCheck),
    /// The cross-check's end.
    Verified(&'a VerifyRecord<'a>),
    /// A sample of tasks timed on a GPU.
    #[cfg(feature = "gpu")]
    GpuTiming(&'a nqueens::gpu::Timing),
}

impl Output<'_> {
    /// The kind of report this is.
    pub fn kind(&self) -> Kind {
        match self {
            Output::Count { .. } => Kind::Count,
            Output::Merged { .. } => Kind::Merge,
            Output::PartialMerge(_) => Kind::PartialMerge,
            Output::PlanHeader { .. } | Output::PlanCosts(_) => Kind::Plan,
            Output::Comparison(_) | Output::ShardComparison(_) => Kind::Compare,
            Output::Bench(_) => Kind::Bench,
            Output::VerifyHeader { .. } | Output::VerifyRow(_) | Output::Verified(_) => {
                Kind::Verify
            }
            #[cfg(feature = "gpu")]
            Output::GpuTiming(_) => Kind::GpuTiming,
        }
    }
}

/// What the shards given to `merge --partial` hold, and what is missing.
#[derive(Serialize)]
pub struct PartialMerge<'a> {
    /// Always true: tells this record from a total.
    pub partial: bool,
    /// Board size.
    pub n: u32,
    /// Method of the plan.
    pub method: &'a str,
    /// The plan's fingerprint.
    pub fingerprint: &'a str,
    /// Shards of the plan.
    pub shards: u64,
    /// Shard files given.
    pub shards_given: usize,
    /// Tasks of the plan.
    pub tasks_in_plan: u64,
    /// Tasks the files given hold.
    pub tasks_done: u64,
    /// Solutions in the shards given (a decimal string: may pass 2^64).
    pub solutions: String,
    /// Their tasks' seconds, summed.
    pub task_seconds: f64,
    /// The whole count's core time at the rate of the shards given.
    pub projected_task_seconds: f64,
    /// Shards missing.
    pub missing_count: u64,
    /// The lowest missing shards (at most 10).
    pub missing_first: &'a [u64],
}

/// A plan and what was timed of it, as `plan` prints it.
#[derive(Serialize)]
pub struct PlanCosts<'a> {
    /// Board size.
    pub n: u32,
    /// Method.
    pub method: String,
    /// Rows expanded into tasks.
    pub split_depth: u32,
    /// Tasks.
    pub tasks: usize,
    /// The plan's fingerprint.
    pub fingerprint: String,
    /// The plan's tasks and a join count's cells, keys and matchers on
    /// the threads asked for, in bytes (a bound).
    pub peak_memory_bytes: u64,
    /// The estimate, if one was asked for.
    #[serde(flatten)]
    pub estimate: Option<EstimateOnCores<'a>>,
    /// The heaviest tasks, if asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heaviest: Option<&'a Heaviest>,
    /// The estimate's seed (the text names it; JSON has it in the
    /// estimate).
    #[serde(skip)]
    pub seed: u64,
    /// The time the estimate was given, if any.
    #[serde(skip)]
    pub budget: Option<Duration>,
}

/// The estimate, and its wall time on the cores asked about.
#[derive(Serialize)]
pub struct EstimateOnCores<'a> {
    /// The estimate.
    #[serde(flatten)]
    pub estimate: &'a Estimate,
    /// Cores asked about (`--cores`).
    pub cores: Option<usize>,
    /// The wall time on them.
    pub cores_wall_seconds: Option<f64>,
}

/// The cross-check as programs read it.
#[derive(Debug, Serialize)]
pub struct VerifyRecord<'a> {
    /// Board size.
    pub n: u32,
    /// The plan's fingerprint.
    pub fingerprint: String,
    /// Tasks of the plan.
    pub tasks: usize,
    /// The sample's seed.
    pub seed: u64,
    /// Whether every task checked agreed.
    pub agree: bool,
    /// Every task checked.
    pub checks: &'a [TaskCheck],
}
