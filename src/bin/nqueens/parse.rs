//! The parsers of option values: each says what was wrong and what is
//! accepted, in one line.

use std::ops::RangeInclusive;

use nqueens::plan::check_board_size;
use nqueens::run::shard::ShardSpec;
use nqueens::{BoardFormat, Method};

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

/// A whole number within `range`, named `what` in the message (e.g.
/// "--limit").
fn parse_within<T>(text: &str, what: &str, range: RangeInclusive<T>) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy,
{
    // The largest value of a type is no limit a person would name.
    let accepted = if range.end().to_string().len() >= 19 {
        format!("{what} takes a whole number from {}", range.start())
    } else {
        format!(
            "{what} takes a whole number from {} to {}",
            range.start(),
            range.end()
        )
    };
    let value: T = text
        .trim()
        .parse()
        .map_err(|_| format!("'{}' is not a whole number: {accepted}", quoted(text)))?;
    if !range.contains(&value) {
        return Err(format!("{value} is out of range: {accepted}"));
    }
    Ok(value)
}

/// At most 24 characters of `text`, escaped, for a message.
fn quoted(text: &str) -> String {
    nqueens::error::excerpt(text, 24)
}

/// Most timed runs per thread count of `bench`: past this the report's
/// buffers, not the CPU, would be measured.
pub const MAX_RUNS: usize = 10_000;

/// Most tasks `plan --estimate` samples.
pub const MAX_SAMPLE: usize = 1_000_000;

/// Most worker threads per core: more only adds switching (and each thread
/// keeps buffers); `-j 100000` would start ~16,000 before failing.
pub const THREADS_PER_CORE: usize = 64;

pub fn parse_runs(text: &str) -> Result<usize, String> {
    parse_within(text, "--runs", 1..=MAX_RUNS)
}

pub fn parse_sample(text: &str) -> Result<usize, String> {
    parse_within(text, "--sample", 1..=MAX_SAMPLE)
}

/// Most seconds `--time` gives an estimate: a week.
pub const MAX_BUDGET_SECONDS: u64 = 7 * 24 * 3600;

/// `--time` of `plan --estimate`: whole seconds, up to a week.
pub fn parse_budget(text: &str) -> Result<u64, String> {
    parse_within(text, "--time", 1..=MAX_BUDGET_SECONDS)
}

/// `--tasks` of `verify`: how many tasks to count both ways.
pub fn parse_tasks(text: &str) -> Result<usize, String> {
    parse_within(text, "--tasks", 1..=MAX_SAMPLE)
}

/// `--heaviest` of `plan`: how many of the costliest tasks to time.
pub fn parse_heaviest(text: &str) -> Result<usize, String> {
    parse_within(text, "--heaviest", 1..=MAX_SAMPLE)
}

/// `--nth`: a solution's index, from 0.
pub fn parse_index(text: &str) -> Result<u128, String> {
    parse_within(text, "--nth", 0..=u128::MAX)
}

/// `--limit`: how many solutions, at least 1.
pub fn parse_limit(text: &str) -> Result<u64, String> {
    parse_within(text, "--limit", 1..=u64::MAX)
}

/// `--split-depth`: rows expanded, up to the largest board's.
pub fn parse_split_depth(text: &str) -> Result<u32, String> {
    parse_within(text, "--split-depth", 0..=nqueens::MAX_N)
}

/// `--seed`: any 64-bit number.
pub fn parse_seed(text: &str) -> Result<u64, String> {
    parse_within(text, "--seed", 0..=u64::MAX)
}

/// `--cores`: the cores of a machine or cluster a prediction is for.
pub fn parse_cores(text: &str) -> Result<usize, String> {
    parse_within(text, "--cores", 1..=100_000_000)
}

/// `--shards`: how many shards a count is cut into.
pub fn parse_shard_count(text: &str) -> Result<u64, String> {
    parse_within(text, "--shards", 1..=u64::from(u32::MAX))
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
