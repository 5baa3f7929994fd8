//! Shards: a plan's tasks split by id modulo K over independent processes
//! (job arrays, indexed jobs), each writing a result file, and the merge that
//! checks the files belong together before summing them.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::report::SymmetricCounts;
use super::signing::RunKey;
use crate::error::Error;
use crate::plan::{check_board_size, Method, Plan};

/// Shard I of K: the tasks whose id mod K is I. Interleaving spreads the
/// uneven task costs over the shards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShardSpec {
    /// This shard, from 0.
    pub index: u64,
    /// How many shards in all.
    pub count: u64,
}

impl ShardSpec {
    /// Whether task `id` belongs to this shard.
    pub fn contains(&self, id: u64) -> bool {
        id % self.count == self.index
    }

    /// Checks that the index is below the count and the count is positive.
    pub fn new(index: u64, count: u64) -> Result<ShardSpec, String> {
        if count == 0 {
            return Err("the shard count must be at least 1".to_string());
        }
        if index >= count {
            return Err(format!(
                "shard index {index} must be below the shard count {count} (shards are numbered 0 to {})",
                count - 1
            ));
        }
        Ok(ShardSpec { index, count })
    }
}

impl fmt::Display for ShardSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for ShardSpec {
    type Err = String;

    fn from_str(text: &str) -> Result<ShardSpec, String> {
        let malformed =
            || format!("'{text}' is not a shard: expected I/K with 0 <= I < K, e.g. 0/4");
        let (index, count) = text.split_once('/').ok_or_else(malformed)?;
        let index = index.trim().parse().map_err(|_| malformed())?;
        let count = count.trim().parse().map_err(|_| malformed())?;
        ShardSpec::new(index, count)
    }
}

/// Format tag of shard result files.
pub const SHARD_FORMAT: &str = "nqueens-shard-v1";

/// What one shard counted: the file `--shard I/K --out FILE` writes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardResult {
    /// Always [`SHARD_FORMAT`].
    pub format: String,
    /// Fingerprint of the plan, 16 hex digits.
    pub fingerprint: String,
    /// Board size.
    pub n: u32,
    /// Method (resolved).
    pub method: String,
    /// Split depth of the plan.
    pub split_depth: u32,
    /// This shard.
    pub shard: u64,
    /// Shards in all.
    pub shards: u64,
    /// Tasks in the whole plan.
    pub tasks_in_plan: u64,
    /// Tasks of this shard counted.
    pub tasks_done: u64,
    /// Weighted solutions of this shard's tasks.
    pub solutions: u128,
    /// Classes counted at `d4` leaves (0 for other methods).
    pub orbits: u128,
    /// Of those, classes of 2, 4 and 8 boards.
    pub orbit_sizes: [u128; 3],
    /// Queens placed by this shard's tasks.
    pub nodes: u128,
    /// Queens placed building the plan (every shard records the same).
    pub prefix_nodes: u64,
    /// Worker threads of this shard.
    pub threads: usize,
    /// Wall time of this shard's last run.
    pub seconds: f64,
    /// Wall time over all its runs (a shard resumed from its checkpoint);
    /// 0 in files of earlier versions.
    #[serde(default)]
    pub total_seconds: f64,
    /// Seconds its tasks took over all its runs, summed over threads: the
    /// shard's core time; 0 in files of earlier versions.
    #[serde(default)]
    pub task_seconds: f64,
    /// This shard's part of the solutions unchanged by a half turn (P)
    /// and by a quarter turn (R), in that order
    /// ([`SymmetricCounts::part_of`] with the shard's index and count): a
    /// merge sums them instead of running both searches. Absent in files
    /// of earlier versions; then the merge searches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn_fixed_part: Option<[u128; 2]>,
    /// Wrapping sum of every counted task's digest of its counts
    /// ([`crate::TaskCount::digest`]), 16 hex digits: two runs of this
    /// shard agree on it exactly when they agree task by task (but for a
    /// 2^-64 chance); `nqueens compare` checks it. Absent in files of
    /// earlier versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_digest: Option<String>,
    /// FNV-1a (hex) of the file's JSON without this field ([`checksum_of`]):
    /// a file damaged or edited after it was written is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
    /// With a run key (`--key`): the keyed MAC of the same text, which only
    /// a holder of the key can make ([`mac_of`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mac: Option<String>,
}

/// The checksum a shard file carries: 64-bit FNV-1a of its JSON without
/// the checksum, in hex.
pub fn checksum_of(result: &ShardResult) -> String {
    format!(
        "{:016x}",
        crate::plan::fnv1a(sealed_text(result).as_bytes())
    )
}

/// What the checksum and the MAC cover: the result without either.
fn sealed_text(result: &ShardResult) -> String {
    let bare = ShardResult {
        checksum: None,
        mac: None,
        ..result.clone()
    };
    serde_json::to_string(&bare).expect("a shard result serialises")
}

/// The keyed MAC of a shard result under the run's key.
pub fn mac_of(result: &ShardResult, key: &RunKey) -> String {
    key.mac(sealed_text(result).as_bytes())
}

/// Checks that `result` (read from `name`) was made with `key`.
pub fn check_mac(name: &str, result: &ShardResult, key: &RunKey) -> Result<(), String> {
    match &result.mac {
        None => Err(format!(
            "{name} carries no MAC: it was not made with this run's key (count its shard again with --key)"
        )),
        Some(mac) if key.verify(sealed_text(result).as_bytes(), mac) => Ok(()),
        Some(_) => Err(format!(
            "{name}'s MAC does not match this run's key: it was made with another key, or edited"
        )),
    }
}

/// Checks the checksum `result` (read from `name`) carries.
pub fn check_checksum(name: &str, result: &ShardResult) -> Result<(), String> {
    match &result.checksum {
        None => Err(format!(
            "{name} has no checksum (written by an earlier nqueens, or edited): count its shard again"
        )),
        Some(sum) if *sum == checksum_of(result) => Ok(()),
        Some(_) => Err(format!(
            "{name} is damaged or was edited: its checksum does not match its contents"
        )),
    }
}

/// The sum of a complete set of shards.
#[derive(Clone, Debug, PartialEq)]
pub struct Merged {
    /// The first file's plan description (all agree).
    pub first: ShardResult,
    /// Solutions.
    pub solutions: u128,
    /// Classes at `d4` leaves.
    pub orbits: u128,
    /// Classes of 2, 4 and 8 boards.
    pub orbit_sizes: [u128; 3],
    /// Nodes, plan building counted once.
    pub nodes: u128,
    /// Threads over all shards.
    pub threads: usize,
    /// Longest shard's wall time, over all its runs.
    pub seconds: f64,
    /// Core time: the seconds every shard's tasks took, summed.
    pub task_seconds: f64,
    /// Tasks counted over all shards.
    pub tasks_done: u64,
    /// P and R summed over the shards, if every shard carries its part.
    pub symmetric: Option<SymmetricCounts>,
}

/// Largest shard file read: a real one is well under a kilobyte.
pub const MAX_SHARD_FILE_BYTES: u64 = 64 * 1024;

/// Checks that `result` is what its own plan gives: rebuilds the plan from
/// the N, method and split depth it names and compares the fingerprint and
/// the task count, so a file edited by hand, or made by a version whose
/// plans differ, is refused.
pub fn check_plan(name: &str, result: &ShardResult) -> Result<(), String> {
    let n = check_board_size(u64::from(result.n)).map_err(|err| format!("{name}: {err}"))?;
    let method: Method = result
        .method
        .parse()
        .map_err(|err: Error| format!("{name}: {err}"))?;
    let plan = Plan::rebuild(n, method, result.split_depth)
        .map_err(|err| format!("{name} names a plan that cannot be built: {err}"))?;
    let tasks = plan.tasks.len() as u64;
    let fields = [
        ("method", method.to_string(), plan.method.to_string()),
        (
            "split_depth",
            result.split_depth.to_string(),
            plan.split_depth.to_string(),
        ),
        (
            "fingerprint",
            excerpt(&result.fingerprint),
            plan.fingerprint_hex(),
        ),
        (
            "tasks_in_plan",
            result.tasks_in_plan.to_string(),
            tasks.to_string(),
        ),
    ];
    let differing: Vec<String> = fields
        .iter()
        .filter(|(_, says, has)| says != has)
        .map(|(field, says, has)| format!("its {field} is {says}, the plan's {has}"))
        .collect();
    if !differing.is_empty() {
        return Err(format!(
            "{name} does not match the plan it names (N = {n}, {method}, split {}): {} (a file from another version, or edited)",
            result.split_depth,
            differing.join(", ")
        ));
    }
    Ok(())
}

/// Checks that every file of `results` is a shard file whose index is in
/// range and that all are of the first one's plan and shard count.
pub fn check_together(results: &[(String, ShardResult)]) -> Result<(), String> {
    let Some((first_name, first)) = results.first() else {
        return Err("no shard files given".to_string());
    };
    for (name, result) in results {
        if result.format != SHARD_FORMAT {
            return Err(format!(
                "{name} is not an nqueens shard file (format '{}')",
                excerpt(&result.format)
            ));
        }
        if result.shards == 0 {
            return Err(format!(
                "{name} says there are 0 shards: a count has at least 1"
            ));
        }
        if result.shard >= result.shards {
            return Err(format!(
                "{name}: shard {} is out of range for {} shards (numbered 0 to {})",
                result.shard,
                result.shards,
                result.shards - 1
            ));
        }
        let differing = differing_fields(result, first);
        if !differing.is_empty() {
            return Err(format!(
                "{name} is from another run than {first_name}: {}",
                differing.join(", ")
            ));
        }
    }
    Ok(())
}

/// The fields that say which run a file is of, where `result` and `first`
/// differ: `its tasks_in_plan is 5 where the first's is 4`, one each.
fn differing_fields(result: &ShardResult, first: &ShardResult) -> Vec<String> {
    let fields: [(&str, String, String); 6] = [
        ("n", result.n.to_string(), first.n.to_string()),
        ("method", excerpt(&result.method), excerpt(&first.method)),
        (
            "split_depth",
            result.split_depth.to_string(),
            first.split_depth.to_string(),
        ),
        (
            "shards",
            result.shards.to_string(),
            first.shards.to_string(),
        ),
        (
            "tasks_in_plan",
            result.tasks_in_plan.to_string(),
            first.tasks_in_plan.to_string(),
        ),
        (
            "fingerprint",
            excerpt(&result.fingerprint),
            excerpt(&first.fingerprint),
        ),
    ];
    fields
        .into_iter()
        .filter(|(_, theirs, firsts)| theirs != firsts)
        .map(|(field, theirs, firsts)| {
            format!("its {field} is {theirs} where the first's is {firsts}")
        })
        .collect()
}

/// Shards a set lacks of its K: the first few indexes and how many in all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Missing {
    /// The lowest missing indexes, at most 10 (`MISSING_LISTED`).
    pub first: Vec<u64>,
    /// How many are missing in all.
    pub count: u64,
}

impl Missing {
    /// None missing.
    pub const NONE: Missing = Missing {
        first: Vec::new(),
        count: 0,
    };
}

/// The listed indexes, then how many more: `14, 15 and 8 more`.
impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let listed: Vec<String> = self.first.iter().map(u64::to_string).collect();
        write!(f, "{}", listed.join(", "))?;
        let more = self.count - self.first.len() as u64;
        if more > 0 {
            write!(f, " and {more} more")?;
        }
        Ok(())
    }
}

/// Missing shard indexes a message or a partial merge lists.
pub(crate) const MISSING_LISTED: usize = 10;

/// Checks that `results` are shards 0..K-1 of one plan, each once and
/// complete, and sums them. `names` name the files in messages.
pub fn merge(results: &[(String, ShardResult)]) -> Result<Merged, String> {
    let missing = given_once(results)?;
    if missing.count > 0 {
        let count = results[0].1.shards;
        return Err(format!(
            "missing shards of {count}: {missing} (each of 0..{} must be given once)",
            count - 1
        ));
    }
    sum_complete(results)
}

/// [`merge`] of the shards given when some may be missing: the same
/// checks of every file given (one plan, each shard once and complete),
/// the sums of those, and the shards missing. What a long run's operator
/// reads to see how far it is, and to find a damaged file while its
/// shard can still be run again.
pub fn merge_partial(results: &[(String, ShardResult)]) -> Result<(Merged, Missing), String> {
    let missing = given_once(results)?;
    Ok((sum_complete(results)?, missing))
}

/// Checks that `results` are shards of one plan, each given once, and
/// says which are missing.
fn given_once(results: &[(String, ShardResult)]) -> Result<Missing, String> {
    let Some((_, first)) = results.first() else {
        return Err("no shard files given".to_string());
    };
    check_together(results)?;
    let count = first.shards;
    // Each shard once: sorted indexes, without an array of K entries (K is
    // read from the files and may be anything).
    let mut given: Vec<(u64, &str)> = results
        .iter()
        .map(|(name, result)| (result.shard, name.as_str()))
        .collect();
    given.sort_unstable();
    let duplicates: Vec<String> = given
        .chunk_by(|a, b| a.0 == b.0)
        .filter(|same| same.len() > 1)
        .map(|same| {
            let names: Vec<&str> = same.iter().map(|(_, name)| *name).collect();
            format!("{} ({})", same[0].0, names.join(", "))
        })
        .collect();
    if !duplicates.is_empty() {
        return Err(format!(
            "shards given more than once: {}",
            duplicates.join("; ")
        ));
    }
    // The first few missing indexes, found among the given ones.
    let mut missing = Missing {
        first: Vec::new(),
        count: count - given.len() as u64,
    };
    let mut next = 0u64;
    for &(index, _) in given.iter().chain(std::iter::once(&(count, ""))) {
        while next < index && missing.first.len() < MISSING_LISTED {
            missing.first.push(next);
            next += 1;
        }
        next = index + 1;
    }
    Ok(missing)
}

/// Checks that every shard of `results` (one plan's, each once) is
/// complete, and sums them.
fn sum_complete(results: &[(String, ShardResult)]) -> Result<Merged, String> {
    let first = &results[0].1;
    for (name, result) in results {
        // Tasks of the plan whose id is the shard's index modulo K.
        let expected = first
            .tasks_in_plan
            .checked_sub(result.shard)
            .map_or(0, |rest| rest.div_ceil(first.shards));
        if result.tasks_done != expected {
            return Err(format!(
                "{name} (shard {}/{}) is incomplete: {} of its {expected} tasks counted",
                result.shard, result.shards, result.tasks_done
            ));
        }
    }
    let mut merged = Merged {
        first: first.clone(),
        solutions: 0,
        orbits: 0,
        orbit_sizes: [0; 3],
        nodes: u128::from(first.prefix_nodes),
        threads: 0,
        seconds: 0.0,
        task_seconds: 0.0,
        tasks_done: 0,
        symmetric: Some(SymmetricCounts {
            half_turn: 0,
            quarter_turn: 0,
        }),
    };
    for (name, result) in results {
        let overflow = || format!("{name}: the sum of the shards' counts overflows 128 bits");
        let add = |sum: u128, part: u128| sum.checked_add(part).ok_or_else(overflow);
        merged.solutions = add(merged.solutions, result.solutions)?;
        merged.orbits = add(merged.orbits, result.orbits)?;
        for (sum, part) in merged.orbit_sizes.iter_mut().zip(result.orbit_sizes) {
            *sum = add(*sum, part)?;
        }
        merged.nodes = add(merged.nodes, result.nodes)?;
        merged.threads = merged.threads.saturating_add(result.threads);
        merged.seconds = merged.seconds.max(result.seconds.max(result.total_seconds));
        merged.task_seconds += result.task_seconds;
        merged.tasks_done += result.tasks_done;
        merged.symmetric = match (merged.symmetric, result.turn_fixed_part) {
            (Some(sum), Some([half_turn, quarter_turn])) => Some(SymmetricCounts {
                half_turn: add(sum.half_turn, half_turn)?,
                quarter_turn: add(sum.quarter_turn, quarter_turn)?,
            }),
            _ => None,
        };
    }
    Ok(merged)
}

/// At most 40 characters of `text`, escaped: what a message quotes of a
/// file.
fn excerpt(text: &str) -> String {
    crate::error::excerpt(text, 40)
}
