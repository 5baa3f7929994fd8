//! `nqueens solve`: one solution for any N, by construction.

use std::io::{self, Write};

use nqueens::{explicit_solution, random_solution, render};

use super::usage;
use crate::args::SolveArgs;
use crate::exit_codes::ExitCode;

/// Runs `nqueens solve`.
pub fn run(args: &SolveArgs) -> anyhow::Result<ExitCode> {
    let n = args.n;
    if let Some(max) = args.format.max_n() {
        if n > max {
            return Err(usage(format!(
                "--format {} draws boards up to N = {max}: use vector or fen for N = {n}",
                args.format
            )));
        }
    }
    let board = if args.random {
        // Without --seed a seed is drawn, and said, so the board can be
        // made again.
        let seed = args.seed.unwrap_or_else(|| {
            let seed = drawn_seed();
            eprintln!("random board with --seed {seed}");
            seed
        });
        random_solution(n, seed)
    } else {
        explicit_solution(n)
    };
    let Some(board) = board else {
        anyhow::bail!("no solution exists for N = {n}: N = 2 and N = 3 have none");
    };
    let mut text = Vec::with_capacity(board.len() * 9 + 64);
    render(&mut text, &board, args.format, args.one_based);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    out.write_all(&text)?;
    out.flush()?;
    Ok(ExitCode::Success)
}

/// A seed from the clock and the process id: different per run.
fn drawn_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |since| since.as_nanos() as u64);
    // Mixed so that runs a nanosecond apart differ in every bit.
    let mut seed = nanos ^ (u64::from(std::process::id()) << 32);
    seed ^= seed >> 33;
    seed = seed.wrapping_mul(0xff51_afd7_ed55_8ccd);
    seed ^ (seed >> 33)
}
