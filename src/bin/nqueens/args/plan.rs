//! Arguments of the commands that plan, check and time counts: `plan`,
//! `verify`, `compare`, `merge` and `bench`.

use std::path::PathBuf;

use clap::Args;
use nqueens::units::parse_bytes;
use nqueens::Method;

use super::Format;
use crate::parse::*;

/// Arguments of `nqueens compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Journals of the first run (a count's --checkpoint, or one per shard),
    /// or its shard result files (compared shard by shard). Two files and
    /// no --with compare the one with the other.
    #[arg(required = true, value_name = "FILE")]
    pub first: Vec<PathBuf>,

    /// Journals (or shard result files) of the second run.
    #[arg(long = "with", value_name = "FILE", num_args = 1..)]
    pub with: Vec<PathBuf>,

    /// Output format: text, or one JSON object (csv is not offered).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// A secret key file (at least 16 bytes, e.g. `head -c 32 /dev/urandom`):
    /// journal lines and shard files carry a MAC made with it, and results
    /// without a valid one are refused. Without it, checksums catch damage
    /// but not a deliberate edit.
    #[arg(long, value_name = "FILE")]
    pub key: Option<PathBuf>,
}

/// Arguments of `nqueens plan`.
#[derive(Debug, Args)]
pub struct PlanArgs {
    /// Board size (1..32).
    #[arg(value_name = "N", value_parser = parse_board_size)]
    pub n: u32,

    /// Counting method, as for `count`.
    #[arg(short, long, default_value = "auto", value_parser = parse_method)]
    pub method: Method,

    /// Rows expanded into tasks, as for `count`.
    #[arg(long, value_name = "ROWS", value_parser = parse_split_depth)]
    pub split_depth: Option<u32>,

    /// Memory limit for the join method, as for `count`.
    #[arg(long, value_name = "SIZE", value_parser = parse_bytes)]
    pub max_memory: Option<u64>,

    /// Time a random sample of the tasks and predict the count's
    /// core-seconds and wall time, with a 95% interval.
    #[arg(long)]
    pub estimate: bool,

    /// Tasks sampled by --estimate, at most (one from each of K equal
    /// runs of the plan) [default: 10000, within --time]. Given without
    /// --time, all K are timed, however long that takes.
    #[arg(long, value_name = "K", value_parser = parse_sample, requires = "estimate")]
    pub sample: Option<usize>,

    /// Seconds --estimate may take: no sampled task starts after them
    /// (past the first 10) [default: 30, unless --sample is given].
    #[arg(long, value_name = "SECONDS", value_parser = parse_budget, requires = "estimate")]
    pub time: Option<u64>,

    /// Stop timing once the 95% interval is within P% of the estimate
    /// either way (checked from 20 tasks on; within --time and --sample,
    /// and with no time limit of its own unless --time is given). The
    /// times are adjusted by the tasks' costs, as with --by-cost.
    #[arg(long, value_name = "P", value_parser = parse_percent, requires = "estimate")]
    pub within: Option<u32>,

    /// Adjust the sampled times by the tasks' costs known before counting
    /// (join: every task costed first, about a minute at N = 28 on 2
    /// threads): the interval narrows as far as cost and time agree.
    #[arg(long, requires = "estimate")]
    pub by_cost: bool,

    /// Seed of the --estimate sample: the same seed draws the same tasks.
    #[arg(long, value_name = "S", default_value_t = 0, value_parser = parse_seed, requires = "estimate")]
    pub seed: u64,

    /// Also predict the wall time on C cores (a cluster), with --estimate.
    #[arg(long, value_name = "C", value_parser = parse_cores, requires = "estimate")]
    pub cores: Option<usize>,

    /// Rank every task by a cost known before counting (join: its
    /// quadrants' placement counts; about a minute at N = 28) and time the
    /// K it ranks heaviest, heaviest first: the longest task a count may
    /// meet, as far as the ranking finds it.
    #[arg(long, value_name = "K", value_parser = parse_heaviest, conflicts_with = "estimate")]
    pub heaviest: Option<usize>,

    /// Threads the --estimate sample (or the --heaviest tasks) runs on
    /// [default: every core].
    #[arg(short = 'j', long, value_parser = parse_threads)]
    pub threads: Option<usize>,

    /// text (for people) or json (one object).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Arguments of `nqueens verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Board size (4..28, counted with join).
    #[arg(value_name = "N", value_parser = parse_board_size)]
    pub n: u32,

    /// Tasks to count both ways (one from each of K equal runs of the
    /// plan). A row-by-row search takes about 10 to 100 times the join's
    /// time on a task.
    #[arg(long, value_name = "K", default_value_t = 20, value_parser = parse_tasks)]
    pub tasks: usize,

    /// Seed of the sample: the same seed draws the same tasks.
    #[arg(long, value_name = "S", default_value_t = 0, value_parser = parse_seed)]
    pub seed: u64,

    /// Memory limit for the join, as for `count`.
    #[arg(long, value_name = "SIZE", value_parser = parse_bytes)]
    pub max_memory: Option<u64>,

    /// Threads the sample runs on [default: every core].
    #[arg(short = 'j', long, value_parser = parse_threads)]
    pub threads: Option<usize>,

    /// text (a line per task) or json (one object).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Arguments of `nqueens merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Shard result files (from `count --shard I/K --out FILE`).
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,

    /// Output format, as for `count`.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// A secret key file (at least 16 bytes, e.g. `head -c 32 /dev/urandom`):
    /// journal lines and shard files carry a MAC made with it, and results
    /// without a valid one are refused. Without it, checksums catch damage
    /// but not a deliberate edit.
    #[arg(long, value_name = "FILE")]
    pub key: Option<PathBuf>,

    /// Take a set with shards missing (a run still going): every file is
    /// checked as for the total, and what they hold so far is printed
    /// (shards and tasks done, solutions and core time, the core time the
    /// whole count takes at this rate, the shards missing). Text or JSON.
    #[arg(long)]
    pub partial: bool,
}

/// Arguments of `nqueens bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Board size of the workload (must have a published count: 1..27).
    #[arg(long, default_value_t = nqueens::analysis::bench::DEFAULT_N, value_parser = parse_bench_size)]
    pub n: u32,

    /// Counting method of the workload.
    #[arg(short, long, default_value = "auto", value_parser = parse_method)]
    pub method: Method,

    /// Timed runs per thread count.
    #[arg(long, default_value_t = 5, value_parser = parse_runs)]
    pub runs: usize,

    /// Thread counts to time, comma-separated [default: 1, 2, 4, ... up to
    /// every core].
    #[arg(short = 'j', long, value_name = "T,T,...", value_parser = parse_thread_list)]
    pub threads: Option<ThreadList>,

    /// Skip the untimed warm-up run at each thread count.
    #[arg(long)]
    pub no_warmup: bool,

    /// text (a table for people; `table` names it too), json (one
    /// object), csv (a row per thread count) or markdown (a table to paste).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// No progress line.
    #[arg(short, long)]
    pub quiet: bool,
}
