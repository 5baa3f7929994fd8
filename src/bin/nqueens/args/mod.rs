//! The command line as clap reads it, and its conversion into the library's
//! plain options.

use clap::{Args, Parser, Subcommand};

mod boards;
mod count;
mod plan;

pub use crate::output::Format;
pub use boards::{CheckArgs, ListArgs, SolveArgs};
pub use count::{CountArgs, ProgressMode};
pub use plan::{BenchArgs, CompareArgs, MergeArgs, PlanArgs, VerifyArgs};

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
        after_help = "Examples:\n  nqueens plan 20                         tasks, fingerprint, memory\n  nqueens plan 22 --estimate              predicted time here, in about 30 s\n  nqueens plan 22 --estimate --time 300   a closer prediction, in 5 minutes\n  nqueens plan 20 --heaviest 10           the 10 costliest tasks, timed\n  nqueens plan 22 --format json"
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
    /// Time a sample of N's join tasks on an NVIDIA GPU against one CPU
    /// thread, checking that both count each task alike (builds with
    /// `--features gpu`).
    #[cfg(feature = "gpu")]
    #[command(
        after_help = "Examples:\n  nqueens gpu 20                          20 tasks of N = 20, 4 of them on the CPU too\n  nqueens gpu 28 --tasks 40 --format json   GPU-days for Q(28), as JSON"
    )]
    Gpu(GpuArgs),
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

/// Arguments of `nqueens gpu`.
#[cfg(feature = "gpu")]
#[derive(Debug, Args)]
pub struct GpuArgs {
    /// Board size (10..28: a join plan).
    #[arg(value_name = "N", value_parser = crate::parse::parse_board_size)]
    pub n: u32,
    /// Tasks timed on the GPU, one from each of so many equal runs of the
    /// plan.
    #[arg(long, value_name = "K", default_value_t = 20)]
    pub tasks: u64,
    /// Of those, how many are timed on one CPU thread too (and their counts
    /// compared).
    #[arg(long, value_name = "C", default_value_t = 4)]
    pub cpu_tasks: usize,
    /// Seed of the sample.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The GPU's index.
    #[arg(long, default_value_t = 0)]
    pub device: u32,
    /// Text, or one JSON object.
    #[arg(long, value_enum, default_value_t = crate::args::Format::Text)]
    pub format: crate::args::Format,
}

/// Arguments of `nqueens completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
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
