//! `nqueens check`: boards read one per line, each checked, the invalid ones
//! named (the reading is the library's [`nqueens::boards::validate::check_lines`]).

use std::fs;
use std::io::{self, BufRead, BufWriter, IsTerminal, Write};

use anyhow::Context;
use nqueens::boards::validate::check_lines;

use crate::args::CheckArgs;
use crate::exit_codes::ExitCode;
use crate::output::count_of;

/// Runs `nqueens check`.
pub fn run(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let from_file = args.file.as_ref().filter(|path| path.as_os_str() != "-");
    let input_name = from_file.map_or("standard input".to_string(), |path| {
        path.display().to_string()
    });
    let input: Box<dyn BufRead> = match from_file {
        Some(path) => {
            // A directory opens on Linux and fails only at the first read;
            // a device may never end, a named pipe blocks (standard input
            // takes a stream).
            if path.is_dir() {
                anyhow::bail!(
                    "cannot read {input_name}: it is a directory (check reads a file of boards, one per line, or standard input: - or no file)"
                );
            }
            crate::commands::must_be_regular(path, "a file of boards")?;
            Box::new(io::BufReader::new(
                fs::File::open(path).with_context(|| format!("cannot read {input_name}"))?,
            ))
        }
        _ => {
            // A person who typed `nqueens check` alone would otherwise
            // meet a silent wait.
            if io::stdin().is_terminal() {
                eprintln!("reading boards from standard input, one per line (Ctrl-D ends)");
            }
            Box::new(io::BufReader::new(io::stdin()))
        }
    };
    let shift = u64::from(args.one_based);
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let (mut boards, mut invalid) = (0u64, 0u64);
    check_lines(input, shift, |line_number, verdict| {
        boards += 1;
        if let Err(reason) = verdict {
            invalid += 1;
            writeln!(out, "line {line_number}: invalid: {reason}")?;
        }
        Ok(())
    })
    .with_context(|| format!("cannot read {input_name}"))?;
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
