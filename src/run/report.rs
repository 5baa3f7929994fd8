//! What a count reports: the totals, the unique count by two routes, and
//! the checks against the published tables.

use serde::Serialize;

use super::engine::RunTotals;
use crate::plan::{Method, Plan};
use crate::published;
/// Solutions up to symmetry from the total and the boards fixed by a half
/// turn (P) and a quarter turn (R), by Burnside's lemma.
pub use crate::search::symmetric::unique_by_burnside;
use crate::search::symmetric::{self, Turn};

/// The result of one count. Serializes as its [`ReportRecord`].
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(into = "ReportRecord")]
#[non_exhaustive]
pub struct Report {
    /// Board size.
    pub n: u32,
    /// Method counted with.
    pub method: Method,
    /// Rows expanded into task prefixes.
    pub split_depth: u32,
    /// Tasks in the plan.
    pub tasks: usize,
    /// Worker threads used.
    pub threads: usize,
    /// Solutions counted (all of them, symmetric images included).
    pub solutions: u128,
    /// Solutions up to the 8 symmetries of the square, by Burnside's lemma
    /// from `solutions`, P and R; `None` if they are inconsistent.
    pub unique: Option<u128>,
    /// P: solutions unchanged by a half turn (0 when the run was
    /// cancelled: its search is not waited for).
    pub half_turn_symmetric: u128,
    /// R: solutions unchanged by a quarter turn (0 when cancelled).
    pub quarter_turn_symmetric: u128,
    /// Unique solutions as the `d4` leaves classified them, with how many
    /// classes have 2, 4 and 8 boards; `None` for other methods.
    pub orbits: Option<Orbits>,
    /// Work done: queens placed, while building the plan and in the kernel
    /// (depth-first methods), or pairs of half boards decided (`join`).
    pub nodes: u128,
    /// Wall time, plan building included.
    pub seconds: f64,
    /// The plan's fingerprint.
    pub fingerprint: u64,
    /// False when the run was cancelled before every task was counted.
    pub complete: bool,
    /// For a count resumed from a checkpoint: its cost over every run.
    /// `seconds` and the rate are then this run's alone.
    pub history: Option<History>,
}

/// The cost of a count spread over several runs (resumed from its
/// checkpoint journal).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct History {
    /// Runs the count took, this one included.
    pub sessions: u64,
    /// Wall seconds over those runs (a run killed before it could record
    /// its end is missing here; its finished tasks are not).
    pub wall_seconds: f64,
    /// Seconds the finished tasks took, summed over threads and runs: the
    /// core time of the work kept.
    pub task_seconds: f64,
    /// Work done by this run alone (the rate is this over `seconds`).
    pub session_nodes: u128,
}

/// The classes of solutions a `d4` count found at its leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Orbits {
    /// Classes counted: the unique solutions.
    pub unique: u128,
    /// Classes of 2, 4 and 8 boards.
    pub by_size: [u128; 3],
}

impl Report {
    /// The published count for this N, where one is known.
    pub fn published(&self) -> Option<u128> {
        published::total(self.n)
    }

    /// The published unique count for this N, where one is known.
    pub fn published_unique(&self) -> Option<u128> {
        published::unique(self.n)
    }

    /// Whether the count equals the published one; `None` past the table.
    pub fn matches_published(&self) -> Option<bool> {
        self.published().map(|known| known == self.solutions)
    }

    /// Whether the unique count (and the leaf classification, where there
    /// is one) equals the published one; `None` past the table.
    pub fn unique_matches_published(&self) -> Option<bool> {
        let known = self.published_unique()?;
        let leaves_agree = self.orbits.is_none_or(|orbits| orbits.unique == known);
        Some(self.unique == Some(known) && leaves_agree)
    }

    /// Whether every check that can be made passed: the total and unique
    /// counts against the tables, the two unique routes against each other.
    pub fn is_consistent(&self) -> bool {
        let routes_agree = match (self.unique, self.orbits) {
            (Some(unique), Some(orbits)) => unique == orbits.unique,
            (Some(_), None) => true,
            (None, _) => false,
        };
        routes_agree
            && self.matches_published() != Some(false)
            && self.unique_matches_published() != Some(false)
    }

    /// Nodes per second of wall time.
    pub fn nodes_per_second(&self) -> f64 {
        // A resumed count's earlier work took earlier runs' time.
        let nodes = self
            .history
            .map_or(self.nodes, |history| history.session_nodes);
        if self.seconds > 0.0 {
            nodes as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// The solutions unchanged by a half turn (P) and by a quarter turn (R),
/// from the symmetric searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SymmetricCounts {
    /// P.
    pub half_turn: u128,
    /// R.
    pub quarter_turn: u128,
}

impl SymmetricCounts {
    /// Runs both symmetric searches for an `n` board.
    pub fn of(n: u32) -> SymmetricCounts {
        SymmetricCounts::part_of(n, 0, 1)
    }

    /// Part `part` of `parts` of both searches
    /// (`count_symmetric_part`): what a shard carries.
    pub fn part_of(n: u32, part: u64, parts: u64) -> SymmetricCounts {
        SymmetricCounts {
            half_turn: u128::from(symmetric::count_symmetric_part(n, Turn::Half, part, parts)),
            quarter_turn: u128::from(symmetric::count_symmetric_part(
                n,
                Turn::Quarter,
                part,
                parts,
            )),
        }
    }

    /// Both searches on every core of rayon's global pool.
    pub fn of_on_all_cores(n: u32) -> SymmetricCounts {
        use rayon::prelude::*;
        const PARTS: u64 = 256;
        (0..PARTS)
            .into_par_iter()
            .map(|part| SymmetricCounts::part_of(n, part, PARTS))
            .reduce(
                || SymmetricCounts {
                    half_turn: 0,
                    quarter_turn: 0,
                },
                |a, b| a.plus(b),
            )
    }

    /// The sum of two parts.
    pub fn plus(self, other: SymmetricCounts) -> SymmetricCounts {
        SymmetricCounts {
            half_turn: self.half_turn + other.half_turn,
            quarter_turn: self.quarter_turn + other.quarter_turn,
        }
    }
}

/// What a report needs to know of the plan a count ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanSummary {
    /// Board size.
    pub n: u32,
    /// Method (resolved).
    pub method: Method,
    /// Split depth.
    pub split_depth: u32,
    /// Tasks in the plan.
    pub tasks: usize,
    /// The plan's fingerprint.
    pub fingerprint: u64,
    /// Queens placed building the plan.
    pub prefix_nodes: u64,
}

impl PlanSummary {
    /// The summary of `plan`.
    pub fn of(plan: &Plan) -> PlanSummary {
        PlanSummary {
            n: plan.n,
            method: plan.method,
            split_depth: plan.split_depth,
            tasks: plan.tasks.len(),
            fingerprint: plan.fingerprint(),
            prefix_nodes: plan.prefix_nodes,
        }
    }
}

/// The report of a count from its totals and the symmetric counts; the
/// unique count is derived only when the count is `complete`.
pub fn make_report(
    plan: &PlanSummary,
    threads: usize,
    totals: &RunTotals,
    seconds: f64,
    complete: bool,
    symmetric: SymmetricCounts,
) -> Report {
    let n = plan.n;
    let SymmetricCounts {
        half_turn,
        quarter_turn,
    } = symmetric;
    let orbits = (plan.method.counting().counts_orbits() && complete).then_some(Orbits {
        unique: totals.orbits,
        by_size: totals.orbit_sizes,
    });
    Report {
        n,
        method: plan.method,
        split_depth: plan.split_depth,
        tasks: plan.tasks,
        threads,
        solutions: totals.solutions,
        unique: complete
            .then(|| symmetric::unique_by_burnside(n, totals.solutions, half_turn, quarter_turn))
            .flatten(),
        half_turn_symmetric: half_turn,
        quarter_turn_symmetric: quarter_turn,
        orbits,
        nodes: totals.nodes + u128::from(plan.prefix_nodes),
        seconds,
        fingerprint: plan.fingerprint,
        complete,
        history: None,
    }
}

/// A report as programs read it: what [`Report`] serializes to (the JSON
/// object of `nqueens count --format json`, and the CSV record's fields),
/// with the rate and the checks against the tables worked out.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ReportRecord {
    /// Board size.
    pub n: u32,
    /// All solutions counted.
    pub solutions: u128,
    /// Solutions up to symmetry (Burnside); null if the run was incomplete.
    pub unique: Option<u128>,
    /// P: solutions unchanged by a half turn.
    pub half_turn_symmetric: u128,
    /// R: solutions unchanged by a quarter turn.
    pub quarter_turn_symmetric: u128,
    /// Method counted with.
    pub method: String,
    /// Worker threads.
    pub threads: usize,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Queens placed (by this run, for a resumed count).
    pub nodes: u128,
    /// Nodes per second of wall time.
    pub nodes_per_second: f64,
    /// Whether the count equals A000170; null where the table ends.
    pub matches_published: Option<bool>,
    /// Whether the unique count equals A002562 (and, for `d4`, the leaf
    /// classification agrees); null where the table ends.
    pub unique_matches_published: Option<bool>,
    /// Unique solutions as the `d4` leaves classified them; null for other
    /// methods.
    pub unique_from_orbits: Option<u128>,
    /// A count resumed from a checkpoint: the runs it took (this one
    /// included); `seconds` and `nodes_per_second` are then this run's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<u64>,
    /// Wall seconds over all runs (JSON only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_wall_seconds: Option<f64>,
    /// Seconds the finished tasks took over all runs, summed over threads:
    /// the core time of the count (JSON only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_task_seconds: Option<f64>,
    /// Queens placed over all runs (JSON only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_nodes: Option<u128>,
}

impl From<&Report> for ReportRecord {
    fn from(report: &Report) -> ReportRecord {
        ReportRecord {
            n: report.n,
            solutions: report.solutions,
            unique: report.unique,
            half_turn_symmetric: report.half_turn_symmetric,
            quarter_turn_symmetric: report.quarter_turn_symmetric,
            method: report.method.to_string(),
            threads: report.threads,
            seconds: report.seconds,
            nodes: report
                .history
                .map_or(report.nodes, |history| history.session_nodes),
            nodes_per_second: report.nodes_per_second(),
            matches_published: report.matches_published(),
            unique_matches_published: report.unique_matches_published(),
            unique_from_orbits: report.orbits.map(|orbits| orbits.unique),
            runs: report.history.map(|history| history.sessions),
            total_wall_seconds: report.history.map(|history| history.wall_seconds),
            total_task_seconds: report.history.map(|history| history.task_seconds),
            total_nodes: report.history.map(|_| report.nodes),
        }
    }
}

impl From<Report> for ReportRecord {
    fn from(report: Report) -> ReportRecord {
        ReportRecord::from(&report)
    }
}
