//! `nqueens merge`: the result files of shards 0..K-1 of one count, checked
//! to belong together, summed.

use std::fs;

use anyhow::Context;
use nqueens::run::report::{make_report, PlanSummary, SymmetricCounts};
use nqueens::run::shard::{merge, ShardResult};
use nqueens::{Method, RunTotals};

use super::{print_report, usage};
use crate::args::MergeArgs;
use crate::exit_codes::ExitCode;

/// Runs `nqueens merge`.
pub fn run(args: &MergeArgs) -> anyhow::Result<ExitCode> {
    let mut results = Vec::new();
    for path in &args.files {
        let name = path.display().to_string();
        let text = fs::read_to_string(path).with_context(|| format!("cannot read {name}"))?;
        let result: ShardResult = serde_json::from_str(&text)
            .map_err(|err| usage(format!("{name} is not an nqueens shard file: {err}")))?;
        results.push((name, result));
    }
    let merged = merge(&results).map_err(usage)?;
    let first = &merged.first;
    let method: Method = first.method.parse()?;
    let fingerprint = u64::from_str_radix(&first.fingerprint, 16)
        .map_err(|_| usage(format!("{} has a malformed fingerprint", results[0].0)))?;
    let summary = PlanSummary {
        n: first.n,
        method,
        split_depth: first.split_depth,
        tasks: first.tasks_in_plan as usize,
        fingerprint,
        prefix_nodes: 0,
    };
    let totals = RunTotals {
        solutions: merged.solutions,
        orbits: merged.orbits,
        orbit_sizes: merged.orbit_sizes,
        nodes: merged.nodes,
        ..RunTotals::default()
    };
    let symmetric = SymmetricCounts::of(summary.n);
    let report = make_report(
        &summary,
        merged.threads,
        &totals,
        merged.seconds,
        true,
        symmetric,
    );
    print_report(&report, args.format)
}
