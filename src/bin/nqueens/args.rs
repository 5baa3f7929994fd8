//! The command line as clap reads it, and its conversion into the library's
//! plain options.

use std::ops::RangeInclusive;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use nqueens::run::shard::ShardSpec;
use nqueens::units::parse_bytes;
use nqueens::{BoardFormat, CountOptions, Method, SplitDepth};

use crate::parse::{
    parse_bench_size, parse_board_format, parse_board_size, parse_board_sizes, parse_budget,
    parse_cores, parse_index, parse_limit, parse_method, parse_runs, parse_sample, parse_seed,
    parse_shard, parse_shard_count, parse_solve_size, parse_split_depth, parse_tasks,
    parse_thread_list, parse_threads, ThreadList,
};

/// Counts the solutions of the N-queens problem on every core.
#[derive(Debug, Parser)]
#[command(name = "nqueens", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Count all solutions (A000170) and unique ones (A002562) for one or more
    /// N, and check both against the published tables.
    #[command(
        after_help = "Examples:\n  nqueens count 16                        all and unique solutions, checked\n  nqueens count 8..12 --format csv        a range of N, one CSV record each\n  nqueens count 14 -m d4 -j 2             another method, two threads\n  nqueens count 15 --checkpoint run.ckpt  resumable: Ctrl-C, then the same command"
    )]
    Count(CountArgs),
    /// List every solution of an N board in lexicographic order.
    #[command(
        after_help = "Examples:\n  nqueens list 6                          every solution of N = 6, as columns\n  nqueens list 8 --nth 3 --format grid    solution 3 of N = 8, drawn\n  nqueens list 10 --limit 2 --format fen  the first two, as FEN"
    )]
    List(ListArgs),
    /// Print one solution for any N from 1 to 100,000,000 but 2 and 3 (which
    /// have none), without search.
    #[command(
        after_help = "Examples:\n  nqueens solve 1000000                   one board of a million rows, at once\n  nqueens solve 12 --format grid          drawn\n  nqueens solve 20 --random --seed 7      another board per seed"
    )]
    Solve(SolveArgs),
    /// Check boards read from a file or stdin, one per line, and report the
    /// invalid ones.
    #[command(
        after_help = "Examples:\n  nqueens list 6 | nqueens check -        the boards list prints are valid\n  nqueens check boards.txt                one board per line, as columns"
    )]
    Check(CheckArgs),
    /// Time a fixed, checked count at several thread counts: a CPU
    /// throughput benchmark.
    #[command(
        after_help = "Examples:\n  nqueens bench                           N = 17 at 1, 2, 4, ... threads\n  nqueens bench --n 12 --runs 1 -j 1,2    a quick one\n  nqueens bench --n 12 --runs 1 --format json"
    )]
    Bench(BenchArgs),
    /// Sum the result files of shards 0..K-1 of one count, after checking
    /// that they belong together.
    #[command(
        after_help = "Examples:\n  nqueens count 12 --shard 0/2 --out a.json\n  nqueens count 12 --shard 1/2 --out b.json\n  nqueens merge a.json b.json             the total, checked"
    )]
    Merge(MergeArgs),
    /// Show the task plan of a count: tasks, fingerprint, estimated cost
    /// spread.
    #[command(
        after_help = "Examples:\n  nqueens plan 20                         tasks, fingerprint, memory\n  nqueens plan 22 --estimate              predicted time here, in about 30 s\n  nqueens plan 22 --estimate --time 300   a closer prediction, in 5 minutes\n  nqueens plan 22 --format json"
    )]
    Plan(PlanArgs),
    /// Compare two runs of one plan task by task, from their checkpoint
    /// journals (or shard by shard, from their shard files): exit 0 when
    /// every task both hold agrees, 3 when any differs.
    #[command(
        after_help = "Examples:\n  nqueens count 13 --checkpoint a.ckpt\n  nqueens count 13 -j 1 --checkpoint b.ckpt\n  nqueens compare a.ckpt b.ckpt           exit 0: every task agrees\n  nqueens compare a.ckpt --with s0.ckpt s1.ckpt   against two shards' journals\n  nqueens compare a0.json a1.json --with b0.json b1.json   two runs' shard files"
    )]
    Compare(CompareArgs),
    /// Count a random sample of a join plan's tasks again by a row-by-row
    /// search, task by task: exit 0 when every task agrees, 3 when any
    /// differs (the differing ones named).
    #[command(
        after_help = "Examples:\n  nqueens verify 16                       20 tasks of N = 16, both ways\n  nqueens verify 24 --tasks 4 --seed 7    4 tasks of N = 24 (minutes)\n  nqueens verify 20 --format json"
    )]
    Verify(VerifyArgs),
    /// Print a shell completion script (e.g. `nqueens completions bash >
    /// ~/.local/share/bash-completion/completions/nqueens`).
    #[command(
        after_help = "Examples:\n  nqueens completions bash > ~/.local/share/bash-completion/completions/nqueens\n  nqueens completions zsh > ~/.zfunc/_nqueens"
    )]
    Completions(CompletionsArgs),
    /// Print the manual page, in roff (e.g. `nqueens manpage > nqueens.1;
    /// man ./nqueens.1`).
    #[command(after_help = "Examples:\n  nqueens manpage > nqueens.1 && man ./nqueens.1")]
    Manpage,
}

/// Arguments of `nqueens completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

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
    /// runs of the plan) [default: 1000, within --time]. Given without
    /// --time, all K are timed, however long that takes.
    #[arg(long, value_name = "K", value_parser = parse_sample, requires = "estimate")]
    pub sample: Option<usize>,

    /// Seconds --estimate may take: no sampled task starts after them
    /// (past the first 10) [default: 30, unless --sample is given].
    #[arg(long, value_name = "SECONDS", value_parser = parse_budget, requires = "estimate")]
    pub time: Option<u64>,

    /// Seed of the --estimate sample: the same seed draws the same tasks.
    #[arg(long, value_name = "S", default_value_t = 0, value_parser = parse_seed, requires = "estimate")]
    pub seed: u64,

    /// Also predict the wall time on C cores (a cluster), with --estimate.
    #[arg(long, value_name = "C", value_parser = parse_cores, requires = "estimate")]
    pub cores: Option<usize>,

    /// Threads the --estimate sample runs on [default: every core].
    #[arg(short = 'j', long, value_parser = parse_threads)]
    pub threads: Option<usize>,

    /// text (for people) or json (one object).
    #[arg(long, value_enum, default_value_t = PlanFormat::Text)]
    pub format: PlanFormat,
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
    #[arg(long, value_enum, default_value_t = PlanFormat::Text)]
    pub format: PlanFormat,
}

/// Output formats of `plan`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum PlanFormat {
    /// Lines for people.
    Text,
    /// One JSON object.
    Json,
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
}

/// Arguments of `nqueens bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Board size of the workload (must have a published count: 1..27).
    #[arg(long, default_value_t = nqueens::run::bench::DEFAULT_N, value_parser = parse_bench_size)]
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

    /// table (for people), json (one object), csv (a row per thread count)
    /// or markdown (a table to paste).
    #[arg(long, value_enum, default_value_t = BenchFormat::Table)]
    pub format: BenchFormat,

    /// No progress line.
    #[arg(short, long)]
    pub quiet: bool,
}

/// Output formats of `bench`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum BenchFormat {
    /// Aligned columns with a header and the score.
    Table,
    /// The whole report as one JSON object.
    Json,
    /// One record per thread count, with a header.
    Csv,
    /// A Markdown table with the machine above it.
    Markdown,
}

/// Arguments of `nqueens list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Board size (1..32).
    #[arg(value_name = "N", value_parser = parse_board_size)]
    pub n: u32,

    /// Print columns 1..N instead of 0..N-1 (vector format).
    #[arg(long)]
    pub one_based: bool,

    /// Print only solution I (0-based, in the same order).
    #[arg(long, value_name = "I", conflicts_with = "limit", value_parser = parse_index)]
    pub nth: Option<u128>,

    /// Stop after K solutions.
    #[arg(long, value_name = "K", value_parser = parse_limit)]
    pub limit: Option<u64>,

    /// vector (columns per row), grid (text board), fen (ranks joined by /),
    /// svg (a picture: one board to stdout, or one file per board with
    /// --out-dir).
    #[arg(long, default_value = "vector", value_parser = parse_board_format)]
    pub format: BoardFormat,

    /// Write one SVG file per solution into this directory.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,

    /// Worker threads rendering pieces of the list [default: every core].
    #[arg(short = 'j', long, value_parser = parse_threads)]
    pub threads: Option<usize>,
}

/// Arguments of `nqueens solve`.
#[derive(Debug, Args)]
pub struct SolveArgs {
    /// Board size (1 or 4..=100,000,000).
    #[arg(value_name = "N", value_parser = parse_solve_size)]
    pub n: u64,

    /// A different valid board per seed (random start, conflicts repaired)
    /// instead of the fixed construction.
    #[arg(long)]
    pub random: bool,

    /// Seed for --random.
    #[arg(long, value_name = "S", requires = "random", value_parser = parse_seed)]
    pub seed: Option<u64>,

    /// Print columns 1..N instead of 0..N-1 (vector format).
    #[arg(long)]
    pub one_based: bool,

    /// vector, grid (N <= 1000), fen or svg (N <= 256).
    #[arg(long, default_value = "vector", value_parser = parse_board_format)]
    pub format: BoardFormat,
}

/// Arguments of `nqueens check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// File of boards, one per line as columns separated by spaces [default:
    /// stdin].
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,

    /// The columns are 1..N instead of 0..N-1.
    #[arg(long)]
    pub one_based: bool,
}

/// Arguments of `nqueens count`.
#[derive(Debug, Args)]
pub struct CountArgs {
    /// Board sizes: N (1..32), an inclusive range A..B, or several of either.
    #[arg(required = true, value_name = "N", value_parser = parse_board_sizes)]
    pub sizes: Vec<RangeInclusive<u32>>,

    /// How to count: none (the full tree), mirror (left half of the first
    /// row, doubled), d4 (all 8 symmetries, orbits weighted at the leaves),
    /// join (half boards paired on their diagonals; needs memory), auto
    /// (join from N = 10 to 28 while it fits in memory, else d4; mirror
    /// below 10).
    #[arg(short, long, default_value = "auto", value_parser = parse_method)]
    pub method: Method,

    /// Most memory a join count may take (its quadrant cells, keys and
    /// matchers on every thread), in bytes or with a suffix: 512M, 8G
    /// [default: what the system has available].
    #[arg(long, value_name = "SIZE", value_parser = parse_bytes)]
    pub max_memory: Option<u64>,

    /// Count even when `auto` cannot fit join in the memory and falls back
    /// to d4 with a predicted wall time of more than a day on these threads
    /// (without it, such a count is refused).
    #[arg(long)]
    pub allow_slow: bool,

    /// Worker threads [default: every core].
    #[arg(short = 'j', long, value_parser = parse_threads)]
    pub threads: Option<usize>,

    /// Rows expanded into independent tasks before the parallel search
    /// [default: the shallowest depth giving 10,000 tasks].
    #[arg(long, value_name = "ROWS", value_parser = parse_split_depth)]
    pub split_depth: Option<u32>,

    /// Output format: one table row, JSON object or CSV record per N.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// Progress bar on stderr: auto shows it only when stderr is a terminal.
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto)]
    pub progress: ProgressMode,

    /// Journal of finished tasks: created if missing, resumed if present
    /// (one N only).
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,

    /// Count only shard I of K (tasks whose id mod K is I) and write the
    /// result file for `nqueens merge` [default: from SLURM_ARRAY_TASK_ID and
    /// SLURM_ARRAY_TASK_COUNT, or JOB_COMPLETION_INDEX with --shards].
    #[arg(long, value_name = "I/K", value_parser = parse_shard)]
    pub shard: Option<ShardSpec>,

    /// Shard count K when the index comes from JOB_COMPLETION_INDEX
    /// (Kubernetes indexed jobs).
    #[arg(long, value_name = "K", value_parser = parse_shard_count)]
    pub shards: Option<u64>,

    /// Where a shard writes its result [default:
    /// nqueens-N-METHOD-shard-I-of-K.json].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Write each task's id, solutions, nodes and seconds to this CSV file
    /// (one N only), for `scripts/efficiency.py`.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,

    /// A secret key file (at least 16 bytes, e.g. `head -c 32 /dev/urandom`):
    /// journal lines and shard files carry a MAC made with it, and results
    /// without a valid one are refused. Without it, checksums catch damage
    /// but not a deliberate edit.
    #[arg(long, value_name = "FILE")]
    pub key: Option<PathBuf>,

    /// Count across the ranks of `mpirun` (builds with `--features mpi`);
    /// -j is then the threads of each rank. With --checkpoint, rank 0
    /// journals every finished task.
    #[arg(long, conflicts_with_all = ["shard", "shards", "profile", "out"])]
    pub mpi: bool,
}

/// Output formats of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// An aligned table with a header.
    Text,
    /// One JSON object per line.
    Json,
    /// Comma-separated values with a header.
    Csv,
}

/// When to draw the progress bar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ProgressMode {
    /// Only when stderr is a terminal.
    Auto,
    /// Even when stderr is a file or pipe.
    Always,
    /// Never.
    Never,
}

impl CountArgs {
    /// The board sizes in the order given, ranges expanded.
    pub fn board_sizes(&self) -> Vec<u32> {
        self.sizes.iter().flat_map(|range| range.clone()).collect()
    }

    /// The library options these arguments stand for.
    pub fn count_options(&self) -> CountOptions {
        CountOptions::default()
            .with_method(self.method)
            .with_threads(self.threads)
            .with_split_depth(self.split_depth.map_or(SplitDepth::Auto, SplitDepth::Rows))
            .with_memory_limit(self.max_memory)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
