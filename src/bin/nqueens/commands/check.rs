//! `nqueens check`: boards read one per line, each checked, the invalid ones
//! named. The input is read in blocks and parsed as it comes, so a line
//! costs 8 bytes per column whatever its length, and bytes that are not a
//! board (binary, other encodings) make that line invalid, not the run.

use std::fs;
use std::io::{self, BufRead, BufWriter, Write};

use anyhow::Context;
use nqueens::check;

use crate::args::CheckArgs;
use crate::exit_codes::ExitCode;
use crate::output::count_of;

/// Longest token quoted in a message; longer ones are cut.
const QUOTED_BYTES: usize = 24;

/// Runs `nqueens check`.
pub fn run(args: &CheckArgs) -> anyhow::Result<ExitCode> {
    let input: Box<dyn BufRead> = match &args.file {
        Some(path) if path.as_os_str() != "-" => Box::new(io::BufReader::new(
            fs::File::open(path).with_context(|| format!("cannot read {}", path.display()))?,
        )),
        _ => Box::new(io::BufReader::new(io::stdin())),
    };
    let shift = u64::from(args.one_based);
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let (mut boards, mut invalid) = (0u64, 0u64);
    let mut line = LineParser::default();
    let mut line_number = 0u64;
    let mut finish = |line: &mut LineParser, out: &mut BufWriter<_>| -> io::Result<()> {
        line_number += 1;
        if let Some(verdict) = line.finish(shift) {
            boards += 1;
            if let Err(reason) = verdict {
                invalid += 1;
                writeln!(out, "line {line_number}: invalid: {reason}")?;
            }
        }
        Ok(())
    };
    let mut input = input;
    loop {
        let block = input.fill_buf().context("cannot read the input")?;
        if block.is_empty() {
            if !line.is_empty() {
                finish(&mut line, &mut out)?;
            }
            break;
        }
        let used = block.len();
        for &byte in block {
            if byte == b'\n' {
                finish(&mut line, &mut out)?;
            } else {
                line.push(byte);
            }
        }
        input.consume(used);
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

/// One line being read: its columns so far, the token being read, and the
/// first thing wrong with it.
#[derive(Default)]
struct LineParser {
    columns: Vec<u64>,
    /// The token being read (digits accumulate in `value`); its bytes, up
    /// to what a message quotes.
    token: Vec<u8>,
    token_len: usize,
    value: Option<u64>,
    /// The first problem found, if any.
    problem: Option<String>,
    /// Whether the line held anything but white space.
    any: bool,
}

impl LineParser {
    fn is_empty(&self) -> bool {
        !self.any && self.token_len == 0
    }

    fn push(&mut self, byte: u8) {
        if byte.is_ascii_whitespace() {
            self.end_token();
            return;
        }
        self.any = true;
        if self.token.len() < QUOTED_BYTES {
            self.token.push(byte);
        }
        self.token_len += 1;
        if self.token_len == 1 {
            self.value = Some(0);
        }
        self.value = match (self.value, byte) {
            (Some(value), b'0'..=b'9') => value
                .checked_mul(10)
                .and_then(|value| value.checked_add(u64::from(byte - b'0'))),
            _ => None,
        };
    }

    fn end_token(&mut self) {
        if self.token_len == 0 {
            return;
        }
        match self.value {
            Some(col) => self.columns.push(col),
            None if self.problem.is_none() => {
                self.problem = Some(format!("{} is not a column number", self.quoted()));
            }
            None => {}
        }
        self.token.clear();
        self.token_len = 0;
        self.value = None;
    }

    /// The token as a message quotes it: cut, and escaped so that no byte
    /// reaches the terminal raw.
    fn quoted(&self) -> String {
        let text = self.token.escape_ascii();
        let cut = if self.token_len > self.token.len() {
            "..."
        } else {
            ""
        };
        format!("'{text}{cut}'")
    }

    /// The verdict on the line ended now (`None` for a blank line), and a
    /// fresh start for the next.
    fn finish(&mut self, shift: u64) -> Option<Result<(), String>> {
        self.end_token();
        let verdict = if !self.any {
            None
        } else if let Some(problem) = self.problem.take() {
            Some(Err(problem))
        } else if let Some(&col) = self.columns.iter().find(|&&col| col < shift) {
            Some(Err(format!(
                "column {col} is not on the board: columns are numbered from 1"
            )))
        } else {
            for col in &mut self.columns {
                *col -= shift;
            }
            Some(check(&self.columns).map_err(|violation| violation.describe(shift)))
        };
        self.columns.clear();
        self.problem = None;
        self.any = false;
        verdict
    }
}
