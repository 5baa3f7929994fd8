//! Two sets of shard result files compared shard by shard, through the
//! task digests they carry.

use serde::Serialize;

use super::{TaskIds, NAMED};
use crate::run::shard::{check_checksum, check_plan, check_together, ShardResult};

/// One side's record of a shard: the file and what it says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShardRecord {
    /// The file it was read from.
    pub file: String,
    /// Weighted solutions of the shard's tasks.
    pub solutions: u128,
    /// The shard's task digest, in hex.
    pub digest: String,
}

/// A shard the two sides (or two files of one side) count differently.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ShardDisagreement {
    /// The shard's index.
    pub shard: u64,
    /// Its record in the first side (the first file read, if several).
    pub first: ShardRecord,
    /// The record that disagreed.
    pub second: ShardRecord,
}

/// What comparing two sets of shard files found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardComparison {
    /// The plan both sides are of.
    pub n: u32,
    /// Its method's name.
    pub method: String,
    /// Its fingerprint, in hex.
    pub fingerprint: String,
    /// Tasks in the plan.
    pub tasks: u64,
    /// Shards the plan is split into.
    pub shards: u64,
    /// Distinct shards each side holds.
    pub held: [u64; 2],
    /// Shards both sides hold.
    pub in_both: u64,
    /// The first 10 disagreements.
    pub disagreements: Vec<ShardDisagreement>,
    /// How many shards disagree in all.
    pub disagreeing: u64,
    /// Shards only the first side holds, and only the second (their
    /// indexes, in [`TaskIds`]).
    pub only: [TaskIds; 2],
}

impl ShardComparison {
    /// Whether every shard both sides hold (and every shard given twice)
    /// agrees.
    pub fn agrees(&self) -> bool {
        self.disagreeing == 0
    }
}

/// Compares two sets of shard files of one plan and shard count, shard by
/// shard, through the task digests they carry: a shard agrees when both
/// runs counted each of its tasks alike. Every file is checked first as
/// `merge` checks it (format, range, one plan, the plan rebuilt, the
/// checksum). `first` and `second` are (name, contents) pairs.
pub fn compare_shards(
    first: &[(String, ShardResult)],
    second: &[(String, ShardResult)],
) -> Result<ShardComparison, String> {
    if first.is_empty() {
        return Err("no shard file given for the first side".to_string());
    }
    if second.is_empty() {
        return Err("no shard file given for the second side".to_string());
    }
    let all: Vec<(String, ShardResult)> = first.iter().chain(second).cloned().collect();
    if let Some((name, other)) = all
        .iter()
        .find(|(_, other)| other.shards != first[0].1.shards)
    {
        return Err(format!(
            "{name} is one of {} shards, {} one of {}: only shards of one split compare shard by shard (compare their journals task by task)",
            other.shards, first[0].0, first[0].1.shards
        ));
    }
    check_together(&all)?;
    check_plan(&all[0].0, &all[0].1)?;
    for (name, result) in &all {
        check_checksum(name, result)?;
        if result.task_digest.is_none() {
            return Err(format!(
                "{name} carries no task digest (written by an earlier nqueens): compare the shards' journals, or count the shard again"
            ));
        }
    }
    let record = |(name, result): &(String, ShardResult)| ShardRecord {
        file: name.clone(),
        solutions: result.solutions,
        digest: result.task_digest.clone().unwrap_or_default(),
    };
    // Each side's shards, sorted by index: a side holds at most as many
    // shards as files were given.
    let side = |files: &[(String, ShardResult)]| {
        let mut records: Vec<(u64, ShardRecord)> = files
            .iter()
            .map(|file| (file.1.shard, record(file)))
            .collect();
        records.sort_by_key(|(index, _)| *index);
        records
    };
    let sides = [side(first), side(second)];
    let mut disagreements = Vec::new();
    let mut disagreeing = 0u64;
    let mut note = |shard: u64, first: &ShardRecord, second: &ShardRecord| {
        disagreeing += 1;
        if disagreements.len() < NAMED {
            disagreements.push(ShardDisagreement {
                shard,
                first: first.clone(),
                second: second.clone(),
            });
        }
    };
    // A shard given twice in one side must agree with itself.
    let mut firsts: Vec<(u64, &ShardRecord)> = Vec::new();
    let mut held = [0u64; 2];
    for (which, records) in sides.iter().enumerate() {
        for same in records.chunk_by(|a, b| a.0 == b.0) {
            held[which] += 1;
            let (index, head) = &same[0];
            for (_, other) in &same[1..] {
                if other.digest != head.digest || other.solutions != head.solutions {
                    note(*index, head, other);
                }
            }
            if which == 0 {
                firsts.push((*index, head));
            }
        }
    }
    let mut only: [TaskIds; 2] = Default::default();
    let mut in_both = 0u64;
    let seconds: Vec<(u64, &ShardRecord)> = sides[1]
        .chunk_by(|a, b| a.0 == b.0)
        .map(|same| (same[0].0, &same[0].1))
        .collect();
    let (mut i, mut j) = (0, 0);
    while i < firsts.len() || j < seconds.len() {
        match (firsts.get(i), seconds.get(j)) {
            (Some(&(a, ra)), Some(&(b, rb))) if a == b => {
                in_both += 1;
                if ra.digest != rb.digest || ra.solutions != rb.solutions {
                    note(a, ra, rb);
                }
                i += 1;
                j += 1;
            }
            (Some(&(a, _)), Some(&(b, _))) if a < b => {
                only[0].add(a);
                i += 1;
            }
            (Some(&(a, _)), None) => {
                only[0].add(a);
                i += 1;
            }
            (_, Some(&(b, _))) => {
                only[1].add(b);
                j += 1;
            }
            (None, None) => break,
        }
    }
    let plan = &all[0].1;
    Ok(ShardComparison {
        n: plan.n,
        method: plan.method.clone(),
        fingerprint: plan.fingerprint.clone(),
        tasks: plan.tasks_in_plan,
        shards: plan.shards,
        held,
        in_both,
        disagreements,
        disagreeing,
        only,
    })
}
