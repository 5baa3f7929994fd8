//! Whole-number options: each within its range, named in the message.

use std::ops::RangeInclusive;

use super::quoted;

/// A whole number within `range`, named `what` in the message (e.g.
/// "--limit").
pub(super) fn parse_within<T>(text: &str, what: &str, range: RangeInclusive<T>) -> Result<T, String>
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

/// `--within` of `plan --estimate`: the interval's half-width to stop at,
/// in whole percent of the estimate.
pub fn parse_percent(text: &str) -> Result<u32, String> {
    parse_within(text, "--within (percent)", 1..=50)
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
