//! `nqueens check`: boards read one per line, each checked, the invalid ones
//! named.

use std::fs;
use std::io::{self, BufRead, BufWriter, Write};

use anyhow::Context;
use nqueens::check;

use crate::args::CheckArgs;
use crate::exit_codes::ExitCode;
use crate::output::count_of;

/// Runs `nqueens check`.
pub fn run(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let input: Box<dyn BufRead> = match &args.file {
        Some(path) => Box::new(io::BufReader::new(
            fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?,
        )),
        None => Box::new(io::BufReader::new(io::stdin())),
    };
    let shift = u64::from(args.one_based);
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let (mut boards, mut invalid) = (0u64, 0u64);
    for (index, line) in input.lines().enumerate() {
        let line = line.context("cannot read the input")?;
        if line.trim().is_empty() {
            continue;
        }
        boards += 1;
        if let Err(reason) = check_line(&line, shift) {
            invalid += 1;
            writeln!(out, "line {}: invalid: {reason}", index + 1)?;
        }
    }
    out.flush()?;
    eprintln!(
        "checked {}: {} valid, {invalid} invalid",
        count_of(boards, "board"),
        boards - invalid
    );
    Ok(if invalid == 0 {
        ExitCode::Success
    } else {
        ExitCode::Failure
    })
}

/// Parses one board (columns separated by white space, 1-based when `shift`
/// is 1) and checks it; the reason names rows as the input counts them.
fn check_line(line: &str, shift: u64) -> Result<(), String> {
    let mut columns = Vec::new();
    for token in line.split_ascii_whitespace() {
        let col: u64 = token
            .parse()
            .map_err(|_| format!("'{token}' is not a column number"))?;
        if col < shift {
            return Err(format!(
                "column {col} is not on the board: columns are numbered from 1"
            ));
        }
        columns.push(col - shift);
    }
    check(&columns).map_err(|violation| violation.describe(shift))
}
