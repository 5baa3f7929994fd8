//! Shards: a plan's tasks split by id modulo K over independent processes
//! (job arrays, indexed jobs), each writing a result file, and the merge that
//! checks the files belong together before summing them.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

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
    /// Wall time of this shard.
    pub seconds: f64,
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
    /// Longest shard's wall time.
    pub seconds: f64,
}

/// Checks that `results` are shards 0..K-1 of one plan, each once and
/// complete, and sums them. `names` name the files in messages.
pub fn merge(results: &[(String, ShardResult)]) -> Result<Merged, String> {
    let Some((first_name, first)) = results.first() else {
        return Err("no shard files given".to_string());
    };
    for (name, result) in results {
        if result.format != SHARD_FORMAT {
            return Err(format!(
                "{name} is not an nqueens shard file (format '{}')",
                result.format
            ));
        }
        let same = result.fingerprint == first.fingerprint
            && result.n == first.n
            && result.method == first.method
            && result.split_depth == first.split_depth
            && result.shards == first.shards;
        if !same {
            return Err(format!(
                "{name} is from another run: plan {} (N = {}, {}, split {}, {} shards) where {first_name} has plan {} (N = {}, {}, split {}, {} shards)",
                result.fingerprint, result.n, result.method, result.split_depth, result.shards,
                first.fingerprint, first.n, first.method, first.split_depth, first.shards
            ));
        }
        let expected = (first.tasks_in_plan + first.shards - 1 - result.shard) / first.shards;
        if result.tasks_done != expected {
            return Err(format!(
                "{name} (shard {}/{}) is incomplete: {} of its {expected} tasks counted",
                result.shard, result.shards, result.tasks_done
            ));
        }
    }
    let count = first.shards;
    let mut seen: Vec<Vec<&str>> = vec![Vec::new(); count as usize];
    for (name, result) in results {
        seen[result.shard as usize].push(name);
    }
    let duplicates: Vec<String> = seen
        .iter()
        .enumerate()
        .filter(|(_, names)| names.len() > 1)
        .map(|(index, names)| format!("{index} ({})", names.join(", ")))
        .collect();
    if !duplicates.is_empty() {
        return Err(format!(
            "shards given more than once: {}",
            duplicates.join("; ")
        ));
    }
    let missing: Vec<String> = seen
        .iter()
        .enumerate()
        .filter(|(_, names)| names.is_empty())
        .map(|(index, _)| index.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "missing shards of {count}: {} (each of 0..{} must be given once)",
            missing.join(", "),
            count - 1
        ));
    }
    let mut merged = Merged {
        first: first.clone(),
        solutions: 0,
        orbits: 0,
        orbit_sizes: [0; 3],
        nodes: u128::from(first.prefix_nodes),
        threads: 0,
        seconds: 0.0,
    };
    for (_, result) in results {
        merged.solutions += result.solutions;
        merged.orbits += result.orbits;
        for (sum, part) in merged.orbit_sizes.iter_mut().zip(result.orbit_sizes) {
            *sum += part;
        }
        merged.nodes += result.nodes;
        merged.threads += result.threads;
        merged.seconds = merged.seconds.max(result.seconds);
    }
    Ok(merged)
}
