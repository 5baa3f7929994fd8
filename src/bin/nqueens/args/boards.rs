//! Arguments of the commands that show boards: `list`, `solve` and
//! `check`.

use std::path::PathBuf;

use clap::Args;
use nqueens::BoardFormat;

use crate::parse::*;

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
    /// --out-dir) [default: vector, svg with --out-dir].
    #[arg(long, value_parser = parse_board_format)]
    pub format: Option<BoardFormat>,

    /// Write one SVG file per solution into this directory (a new or
    /// existing directory; files are written only where none is, or a
    /// regular file is).
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
