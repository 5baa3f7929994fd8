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
        random_solution(n, args.seed)
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
