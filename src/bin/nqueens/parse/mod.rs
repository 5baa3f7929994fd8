//! The parsers of option values: each says what was wrong and what is
//! accepted, in one line.

use std::ops::RangeInclusive;

use nqueens::plan::check_board_size;
use nqueens::run::shard::ShardSpec;
use nqueens::{BoardFormat, Method};

mod numbers;

use numbers::parse_within;
pub use numbers::*;

/// Largest board `solve` builds (8 bytes of memory per row, plus output).
pub const SOLVE_MAX_N: u64 = 100_000_000;

/// Parses `N` or `A..B` (inclusive), each within the supported sizes.
pub fn parse_board_sizes(text: &str) -> Result<RangeInclusive<u32>, String> {
    let size = |part: &str| -> Result<u32, String> {
        let part = part.trim();
        let value: u64 = part.parse().map_err(|_| {
            format!("'{part}' is not a board size: expected a whole number from 1 to 32")
        })?;
        check_board_size(value).map_err(|err| err.to_string())
    };
    match text.split_once("..") {
        None => size(text).map(|n| n..=n),
        Some((start, end)) => {
            let end = end.strip_prefix('=').unwrap_or(end);
            let (start, end) = (size(start)?, size(end)?);
            if start > end {
                return Err(format!(
                    "the range {start}..{end} is empty: write it as low..high, e.g. {end}..{start}"
                ));
            }
            Ok(start..=end)
        }
    }
}

pub fn parse_board_size(text: &str) -> Result<u32, String> {
    let range = parse_board_sizes(text)?;
    if range.start() != range.end() {
        return Err(format!(
            "'{text}' is a range: this command takes one board size"
        ));
    }
    Ok(*range.start())
}

/// `bench --n`: a board whose count is published, so every run is checked.
pub fn parse_bench_size(text: &str) -> Result<u32, String> {
    parse_within(text, "--n", 1..=nqueens::published::largest_known())
}

pub fn parse_solve_size(text: &str) -> Result<u64, String> {
    let n: u64 = text.trim().parse().map_err(|_| {
        format!("'{text}' is not a board size: expected a whole number from 1 to {SOLVE_MAX_N}")
    })?;
    if n == 0 || n > SOLVE_MAX_N {
        return Err(format!(
            "N = {n} is out of range: N must be from 1 to {SOLVE_MAX_N}"
        ));
    }
    Ok(n)
}

pub fn parse_board_format(text: &str) -> Result<BoardFormat, String> {
    text.parse()
}

pub fn parse_shard(text: &str) -> Result<ShardSpec, String> {
    text.parse()
}

/// Which GPU `--gpu` asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GpuChoice {
    /// This one, or an error where it cannot count.
    Index(u32),
    /// GPU 0 where it can count, else the CPU alone (with a note).
    Auto,
}

pub fn parse_gpu(text: &str) -> Result<GpuChoice, String> {
    match text.trim() {
        "auto" => Ok(GpuChoice::Auto),
        index => index
            .parse()
            .map(GpuChoice::Index)
            .map_err(|_| format!("'{text}' is not a GPU: expected its index (0, 1, ...) or auto")),
    }
}

/// A count of at least 1: `what` names it when the text is not a number,
/// `zero` is the message for 0.
fn parse_positive(text: &str, what: &str, zero: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(0) => Err(zero.to_string()),
        Ok(count) => Ok(count),
        Err(_) => Err(format!(
            "'{text}' is not {what}: expected a whole number from 1"
        )),
    }
}

/// At most 24 characters of `text`, escaped, for a message.
pub(crate) fn quoted(text: &str) -> String {
    nqueens::error::excerpt(text, 24)
}

/// A list of thread counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ThreadList(pub Vec<usize>);

/// Parses a comma-separated list of thread counts.
pub fn parse_thread_list(text: &str) -> Result<ThreadList, String> {
    let counts = text
        .split(',')
        .map(|part| parse_threads(part.trim()))
        .collect::<Result<Vec<usize>, String>>()?;
    Ok(ThreadList(counts))
}

pub fn parse_method(text: &str) -> Result<Method, String> {
    text.parse().map_err(|err: nqueens::Error| err.to_string())
}

pub fn parse_threads(text: &str) -> Result<usize, String> {
    let threads = parse_positive(
        text,
        "a thread count",
        "the thread count must be at least 1",
    )?;
    let cores = nqueens::run::available_cores();
    let most = THREADS_PER_CORE * cores;
    if threads > most {
        return Err(format!(
            "{threads} threads is too many: at most {most} ({THREADS_PER_CORE} per core, {cores} cores here)"
        ));
    }
    Ok(threads)
}

/// Folds a clap error into one line: what was wrong and what is accepted.
pub fn one_line_error(err: &clap::Error) -> String {
    let rendered = err.render().to_string();
    let parts: Vec<&str> = rendered
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with("For more information"))
        .filter(|line| !line.starts_with("Usage:"))
        .collect();
    let mut line = parts.join(" ");
    if !line.starts_with("error:") {
        line.insert_str(0, "error: ");
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_sizes_parse() {
        assert_eq!(parse_board_sizes("16"), Ok(16..=16));
        assert_eq!(parse_board_sizes("8..12"), Ok(8..=12));
        assert_eq!(parse_board_sizes("8..=12"), Ok(8..=12));
        assert!(parse_board_sizes("12..8").unwrap_err().contains("empty"));
        assert!(parse_board_sizes("a..b").unwrap_err().contains("'a'"));
        assert!(parse_board_sizes("0").unwrap_err().contains("from 1 to 32"));
        assert!(parse_board_sizes("33")
            .unwrap_err()
            .contains("from 1 to 32"));
        assert!(parse_board_sizes("-3").is_err());
        assert!(parse_board_sizes("").is_err());
    }
}
