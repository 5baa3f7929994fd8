//! Arguments of `nqueens count`, and their conversion into the library's
//! plain options.

use std::ops::RangeInclusive;
use std::path::PathBuf;

use clap::{Args, ValueEnum};
use nqueens::run::shard::ShardSpec;
use nqueens::units::parse_bytes;
use nqueens::{CountOptions, Method, SplitDepth};

use super::Format;
use crate::parse::*;

/// Arguments of `nqueens count`.
#[derive(Debug, Args)]
pub struct CountArgs {
    /// Board sizes: N (1..32), an inclusive range A..B, or several of either.
    #[arg(required = true, value_name = "N", value_parser = parse_board_sizes)]
    pub sizes: Vec<RangeInclusive<u32>>,

    /// How to count: none (the full tree), mirror (left half of the first
    /// row, doubled), d4 (all 8 symmetries, orbits weighted at the leaves),
    /// join (half boards paired on their diagonals; needs memory), auto
    /// (join from N = 14 to 28 while it fits in memory, else d4; mirror
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
    /// [default: the shallowest depth giving 10,000 tasks, or 256 where
    /// deeper tasks would keep fewer than 13 rows].
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

    /// Count join tasks on an NVIDIA GPU too, beside the CPU threads
    /// (builds with `--features gpu`): DEVICE is its index, or auto for GPU
    /// 0 where one can count and the CPU alone where not [default: 0].
    /// With --mpi, each rank opens its own: auto takes the GPU numbered as
    /// the rank is among its node's ranks.
    #[arg(
        long,
        value_name = "DEVICE",
        num_args = 0..=1,
        default_missing_value = "0",
        value_parser = parse_gpu
    )]
    pub gpu: Option<GpuChoice>,

    /// With --gpu: the GPU alone counts (the CPU threads take over only
    /// tasks the GPU fails on), to check it or time it.
    #[arg(long, requires = "gpu")]
    pub gpu_only: bool,

    /// With --gpu: host threads feeding the GPU, each making its tasks'
    /// half boards, beside the -j counting threads.
    #[arg(long, value_name = "K", default_value_t = 1, requires = "gpu", value_parser = parse_threads)]
    pub gpu_feeders: usize,
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
