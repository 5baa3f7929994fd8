//! Two runs of one plan compared task by task: how a count of a new N is
//! trusted (run it twice, on other machines, thread counts or builds, and
//! the journals must agree on every task both hold). Two sets of shard
//! files compare shard by shard, through the digest of their tasks' counts
//! each carries.
//!
//! Each side is one or more journals of the same plan (a whole count's, or
//! the shards' of one). The first side is held as one 64-bit digest of
//! each task's counts (8 bytes a task: 160 MB for the 20 million tasks of
//! N = 28), the second is streamed against it; work measures (nodes) are
//! not compared, since builds may count work differently.

use std::path::{Path, PathBuf};

use serde::{Serialize, Serializer};

use crate::plan::Plan;
use crate::run::engine::TaskCount;
use crate::run::journal::{read_plan_of, read_tasks, JournalError};
use crate::run::signing::RunKey;

mod shards;

pub use shards::{compare_shards, ShardComparison, ShardDisagreement, ShardRecord};

/// How many task ids a comparison names of each kind.
pub(crate) const NAMED: usize = 10;

/// Why two sets of journals cannot be compared.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CompareError {
    /// A journal cannot be read, or is damaged.
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// No journal given for a side.
    #[error("no journal given for the {0} side")]
    Empty(&'static str),
    /// The journals are of different plans.
    #[error("{first} is for {first_plan}, but {other} is for {other_plan}: only runs of one plan compare")]
    OtherPlans {
        /// A journal of the first plan.
        first: String,
        /// A journal of another.
        other: String,
        /// The plans, as people read them.
        first_plan: String,
        /// The other plan.
        other_plan: String,
    },
    /// The plan a journal names cannot be built.
    #[error("{path} names a plan that cannot be built: {reason}")]
    Plan {
        /// The journal.
        path: String,
        /// Why.
        reason: String,
    },
}

/// One task the two sides count differently.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// The task's id in the plan.
    pub id: u64,
    /// Its counts in the first side (the first line read, if several).
    pub first: TaskCount,
    /// Its counts in the second side (the line that disagreed).
    pub second: TaskCount,
}

/// Task ids of one kind: how many, and the first few.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TaskIds {
    /// How many tasks.
    pub count: u64,
    /// The lowest 10 of them (in the order read, for
    /// disagreements).
    pub first: Vec<u64>,
}

impl TaskIds {
    fn add(&mut self, id: u64) {
        self.count += 1;
        if self.first.len() < NAMED {
            self.first.push(id);
        }
    }
}

/// What comparing two sides found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Comparison {
    /// The plan both sides are of.
    pub n: u32,
    /// Its method's name.
    pub method: String,
    /// Its fingerprint, in hex.
    pub fingerprint: String,
    /// Tasks in the plan.
    pub tasks: u64,
    /// Distinct tasks each side holds.
    pub held: [u64; 2],
    /// Tasks both sides hold.
    pub in_both: u64,
    /// Tasks whose counts differ: between the sides, or between two lines
    /// of one task in the first side.
    pub disagreements: Vec<Disagreement>,
    /// How many disagreements there are in all (`disagreements` names the
    /// first 10).
    pub disagreeing: u64,
    /// Tasks only the first side holds, and only the second.
    pub only: [TaskIds; 2],
    /// Tasks neither side holds.
    pub neither: u64,
}

impl Comparison {
    /// Whether every task both sides hold (and every task recorded twice)
    /// agrees.
    pub fn agrees(&self) -> bool {
        self.disagreeing == 0
    }
}

/// A task's counts as one nonzero digest (0 marks a task not held).
fn digest(id: u64, count: &TaskCount) -> u64 {
    count.digest(id) | 1
}

fn name(path: &Path) -> String {
    path.display().to_string()
}

/// The plan every journal of `files` names, rebuilt; all must name the
/// same one.
fn common_plan(files: &[&PathBuf], key: Option<&RunKey>) -> Result<Plan, CompareError> {
    let first = files[0];
    let (n, method, split) = read_plan_of(first, key)?;
    for other in &files[1..] {
        let (n2, method2, split2) = read_plan_of(other, key)?;
        if (n2, method2, split2) != (n, method, split) {
            let describe = |(n, method, split): (u32, crate::plan::Method, u32)| {
                format!("N = {n}, {method}, split {split}")
            };
            return Err(CompareError::OtherPlans {
                first: name(first),
                other: name(other),
                first_plan: describe((n, method, split)),
                other_plan: describe((n2, method2, split2)),
            });
        }
    }
    Plan::rebuild(n, method, split).map_err(|err| CompareError::Plan {
        path: name(first),
        reason: err.to_string(),
    })
}

/// Compares the journals of `first` with those of `second`, task by task.
/// Every journal must be of one plan (checked against the plan rebuilt
/// from what they name) and every line's seal must hold.
pub fn compare(first: &[PathBuf], second: &[PathBuf]) -> Result<Comparison, CompareError> {
    compare_keyed(first, second, None)
}

/// [`compare`] of journals made with a run key: every line's MAC must hold
/// under `key`.
pub fn compare_keyed(
    first: &[PathBuf],
    second: &[PathBuf],
    key: Option<&RunKey>,
) -> Result<Comparison, CompareError> {
    if first.is_empty() {
        return Err(CompareError::Empty("first"));
    }
    if second.is_empty() {
        return Err(CompareError::Empty("second"));
    }
    let all: Vec<&PathBuf> = first.iter().chain(second).collect();
    let plan = common_plan(&all, key)?;
    compare_in_windows(&plan, first, second, key, WINDOW_TASKS)
}

/// Tasks whose digests are held at once (8 bytes each: 512 MiB): a plan
/// with more (N = 28 has 260 million tasks) is compared a window of ids at
/// a time, each file read once per window, so that memory stays under 1 GB
/// at any N.
pub(crate) const WINDOW_TASKS: u64 = 1 << 26;

/// [`compare_keyed`] of `plan`'s journals, `window` task ids at a time.
fn compare_in_windows(
    plan: &Plan,
    first: &[PathBuf],
    second: &[PathBuf],
    key: Option<&RunKey>,
    window: u64,
) -> Result<Comparison, CompareError> {
    let tasks = plan.tasks.len() as u64;
    let window = window.clamp(1, tasks.max(1));
    let mut digests = vec![0u64; window as usize];
    let words = (tasks as usize).div_ceil(64);
    let (mut in_first, mut seen) = (vec![0u64; words], vec![0u64; words]);
    // Disagreements as (id, the second side's counts or, within the first
    // side, the later line's).
    let mut found: Vec<(u64, TaskCount)> = Vec::new();
    let mut disagreeing = 0u64;
    let mut note = |id: u64, count: &TaskCount| {
        disagreeing += 1;
        if found.len() < NAMED {
            found.push((id, *count));
        }
    };
    let mut low = 0;
    while low < tasks {
        let high = (low + window).min(tasks);
        digests.fill(0);
        for path in first {
            read_tasks(path, plan, key, &mut |id, count| {
                in_first[(id / 64) as usize] |= 1 << (id % 64);
                if !(low..high).contains(&id) {
                    return;
                }
                let slot = &mut digests[(id - low) as usize];
                let here = digest(id, count);
                if *slot == 0 {
                    *slot = here;
                } else if *slot != here {
                    note(id, count);
                }
            })?;
        }
        for path in second {
            read_tasks(path, plan, key, &mut |id, count| {
                seen[(id / 64) as usize] |= 1 << (id % 64);
                if !(low..high).contains(&id) {
                    return;
                }
                let held = digests[(id - low) as usize];
                if held != 0 && held != digest(id, count) {
                    note(id, count);
                }
            })?;
        }
        low = high;
    }
    drop(digests);
    found.sort_by_key(|&(id, _)| id);
    // The first side's counts of the tasks named, read again (a few).
    let mut first_counts: Vec<Option<TaskCount>> = vec![None; found.len()];
    for path in first {
        read_tasks(path, plan, key, &mut |id, count| {
            for (slot, (named, _)) in first_counts.iter_mut().zip(&found) {
                if *named == id && slot.is_none() {
                    *slot = Some(*count);
                }
            }
        })?;
    }
    let disagreements = found
        .iter()
        .zip(first_counts)
        .map(|(&(id, second), first)| Disagreement {
            id,
            first: first.unwrap_or_default(),
            second,
        })
        .collect();
    let mut comparison = Comparison {
        n: plan.n,
        method: plan.method.to_string(),
        fingerprint: plan.fingerprint_hex(),
        tasks,
        held: [0, 0],
        in_both: 0,
        disagreements,
        disagreeing,
        only: Default::default(),
        neither: 0,
    };
    for id in 0..tasks {
        let in_first = in_first[(id / 64) as usize] >> (id % 64) & 1 == 1;
        let in_second = seen[(id / 64) as usize] >> (id % 64) & 1 == 1;
        // Counted through the match, not `u64::from(in_first)` beside it:
        // see `Resumed::mark` (a bool both summed and branched on is
        // miscompiled by rustc 1.95).
        if in_first {
            comparison.held[0] += 1;
        }
        if in_second {
            comparison.held[1] += 1;
        }
        match (in_first, in_second) {
            (true, true) => comparison.in_both += 1,
            (true, false) => comparison.only[0].add(id),
            (false, true) => comparison.only[1].add(id),
            (false, false) => comparison.neither += 1,
        }
    }
    Ok(comparison)
}

/// A task's counts as a comparison reports them (its work measure is not
/// compared, so not shown).
#[derive(Serialize)]
struct CountsRecord {
    solutions: u64,
    orbits: u64,
    orbit_sizes: [u64; 3],
}

impl From<&TaskCount> for CountsRecord {
    fn from(count: &TaskCount) -> Self {
        Self {
            solutions: count.solutions,
            orbits: count.orbits,
            orbit_sizes: count.orbit_sizes,
        }
    }
}

/// A disagreement as `compare --format json` prints it.
#[derive(Serialize)]
struct DisagreementRecord {
    task: u64,
    first: CountsRecord,
    second: CountsRecord,
}

/// A comparison as `compare --format json` prints it: each side's held
/// tasks as two fields, and whether they agree.
#[derive(Serialize)]
struct ComparisonRecord<'a> {
    n: u32,
    method: &'a str,
    fingerprint: &'a str,
    tasks: u64,
    held_first: u64,
    held_second: u64,
    in_both: u64,
    neither: u64,
    only_first: &'a TaskIds,
    only_second: &'a TaskIds,
    agree: bool,
    disagreeing: u64,
    disagreements: Vec<DisagreementRecord>,
}

impl Serialize for Comparison {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ComparisonRecord {
            n: self.n,
            method: &self.method,
            fingerprint: &self.fingerprint,
            tasks: self.tasks,
            held_first: self.held[0],
            held_second: self.held[1],
            in_both: self.in_both,
            neither: self.neither,
            only_first: &self.only[0],
            only_second: &self.only[1],
            agree: self.agrees(),
            disagreeing: self.disagreeing,
            disagreements: self
                .disagreements
                .iter()
                .map(|d| DisagreementRecord {
                    task: d.id,
                    first: (&d.first).into(),
                    second: (&d.second).into(),
                })
                .collect(),
        }
        .serialize(serializer)
    }
}

/// A shard comparison as `compare --format json` prints it.
#[derive(Serialize)]
struct ShardComparisonRecord<'a> {
    n: u32,
    method: &'a str,
    fingerprint: &'a str,
    tasks: u64,
    shards: u64,
    held_first: u64,
    held_second: u64,
    in_both: u64,
    only_first: &'a TaskIds,
    only_second: &'a TaskIds,
    agree: bool,
    disagreeing: u64,
    disagreements: &'a [ShardDisagreement],
}

impl Serialize for ShardComparison {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        ShardComparisonRecord {
            n: self.n,
            method: &self.method,
            fingerprint: &self.fingerprint,
            tasks: self.tasks,
            shards: self.shards,
            held_first: self.held[0],
            held_second: self.held[1],
            in_both: self.in_both,
            only_first: &self.only[0],
            only_second: &self.only[1],
            agree: self.agrees(),
            disagreeing: self.disagreeing,
            disagreements: &self.disagreements,
        }
        .serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Method, SplitDepth};
    use crate::run::journal::Journal;

    /// A journal of `plan` at `path` holding `ids`, task `id`'s solutions
    /// shifted by `shift(id)`.
    fn journal(
        path: &Path,
        plan: &Plan,
        ids: impl Iterator<Item = u64>,
        shift: &dyn Fn(u64) -> u64,
    ) {
        let (journal, _) = Journal::open(path, plan).unwrap();
        for id in ids {
            let count = TaskCount {
                solutions: id * 3 + shift(id),
                nodes: 1,
                ..TaskCount::default()
            };
            journal.record(id, &count, 0.0).unwrap();
        }
    }

    #[test]
    fn a_comparison_in_windows_finds_what_one_window_finds() {
        // The method whose tasks are counted twice to be compared.
        let plan = Plan::build(12, Method::cross_checked(), SplitDepth::Auto).unwrap();
        let tasks = plan.tasks.len() as u64;
        let dir = tempfile::tempdir().unwrap();
        let (a, b, c) = (
            dir.path().join("a"),
            dir.path().join("b"),
            dir.path().join("c"),
        );
        // a: every third task missing; b: the odd tasks and some counted
        // differently; c (of the first side too): a second record of task
        // 10 that disagrees with a's.
        journal(&a, &plan, (0..tasks).filter(|id| id % 3 != 0), &|_| 0);
        journal(&b, &plan, (0..tasks).filter(|id| id % 2 == 1), &|id| {
            u64::from(id % 37 == 0)
        });
        journal(&c, &plan, [10u64].into_iter(), &|_| 5);
        let (first, second) = ([a, c], [b]);
        let whole = compare_in_windows(&plan, &first, &second, None, tasks).unwrap();
        assert!(!whole.agrees());
        assert!(whole.disagreeing >= 2);
        assert_eq!(whole.held, [tasks - tasks.div_ceil(3), tasks / 2]);
        for window in [1, 7, 64, tasks - 1] {
            let windowed = compare_in_windows(&plan, &first, &second, None, window).unwrap();
            assert_eq!(windowed, whole, "window {window}");
        }
    }
}
