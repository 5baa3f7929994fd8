//! `nqueens merge`: the result files of shards 0..K-1 of one count, checked
//! to belong together, summed.

use std::fs;
use std::io::Read;
use std::path::Path;

use anyhow::Context;
use nqueens::run::report::unique_by_burnside;
use nqueens::run::report::{make_report, PlanSummary, SymmetricCounts};
use nqueens::run::shard::{
    check_checksum, check_mac, check_plan, merge, merge_partial, Merged, Missing, ShardResult,
    MAX_SHARD_FILE_BYTES,
};
use nqueens::units::human_bytes;
use nqueens::{Method, RunTotals};

use super::{complain, mismatch, usage};
use crate::args::{Format, MergeArgs};
use crate::exit_codes::ExitCode;
use crate::output::{Kind, Output, PartialMerge};

/// Reads a shard result file, bounded in size: (its name, its contents).
/// A file that cannot be read is an I/O error; one that is no shard file
/// a usage error.
pub fn read_shard_file(path: &Path) -> anyhow::Result<(String, ShardResult)> {
    super::must_be_regular(path, "a shard result")?;
    let name = path.display().to_string();
    let mut text = String::new();
    fs::File::open(path)
        .and_then(|file| {
            file.take(MAX_SHARD_FILE_BYTES + 1)
                .read_to_string(&mut text)
        })
        .with_context(|| format!("cannot read {name}"))?;
    if text.len() as u64 > MAX_SHARD_FILE_BYTES {
        return Err(usage(format!(
            "{name} is not an nqueens shard file: it is larger than {} (a shard file is under 1 KiB)",
            human_bytes(MAX_SHARD_FILE_BYTES)
        )));
    }
    let result: ShardResult = serde_json::from_str(&text)
        .map_err(|err| usage(format!("{name} is not an nqueens shard file: {err}")))?;
    Ok((name, result))
}

/// Runs `nqueens merge`.
pub fn run(args: &MergeArgs) -> anyhow::Result<ExitCode> {
    if args.partial {
        args.format
            .check_offers(Kind::PartialMerge, "merge --partial")?;
    }
    let key = super::run_key(args.key.as_deref())?;
    let results = args
        .files
        .iter()
        .map(|path| read_shard_file(path))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let (merged, missing) = if args.partial {
        merge_partial(&results).map_err(usage)?
    } else {
        (merge(&results).map_err(usage)?, Missing::NONE)
    };
    // Every file is checked against the plan it names (they agree with each
    // other by now, so the first stands for all).
    check_plan(&results[0].0, &merged.first).map_err(usage)?;
    // Last, so that the checks above name what a crafted file got wrong;
    // any other change to a file is caught here.
    for (name, result) in &results {
        check_checksum(name, result).map_err(usage)?;
    }
    // With the run's key, only results its workers made are taken.
    if let Some(key) = &key {
        for (name, result) in &results {
            check_mac(name, result, key).map_err(usage)?;
        }
    }
    if missing.count > 0 {
        write_partial(&merged, &missing, results.len(), args.format)?;
        return Ok(ExitCode::Success);
    }
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
    // Shards carry their parts of P and R; files of earlier versions do
    // not, and then both searches run here, on every core.
    let symmetric = merged
        .symmetric
        .unwrap_or_else(|| SymmetricCounts::of_on_all_cores(summary.n));
    if merged.symmetric.is_some()
        && unique_by_burnside(
            summary.n,
            totals.solutions,
            symmetric.half_turn,
            symmetric.quarter_turn,
        )
        .is_none()
    {
        // Every honest set of shards passes: a failure is a wrong part of
        // P or R, or a wrong total, in some file with a valid checksum.
        eprintln!(
            "error: DISAGREEMENT: the shards' total {} and their parts of P ({}) and R ({}) break Burnside's lemma (total + P + 2R is not a multiple of 8): some shard counted wrong; compare against a second run",
            totals.solutions, symmetric.half_turn, symmetric.quarter_turn
        );
        return Ok(ExitCode::CountMismatch);
    }
    let report = make_report(
        &summary,
        merged.threads,
        &totals,
        merged.seconds,
        true,
        symmetric,
    );
    let total = Output::Merged {
        report: &report,
        shards: results.len(),
        task_seconds: merged.task_seconds,
    };
    args.format
        .write(&mut std::io::stdout().lock(), &total)
        .context("cannot write the result")?;
    Ok(complain(&Vec::from_iter(mismatch(&report))))
}

/// What the shards given hold, and what is missing, for a run still
/// going. Interleaved shards hold alike shares of the cost, so the core
/// time so far scales by the tasks to the whole count's.
fn write_partial(
    merged: &Merged,
    missing: &Missing,
    given: usize,
    format: Format,
) -> anyhow::Result<()> {
    let first = &merged.first;
    let mut out = std::io::stdout().lock();
    let tasks_done = merged.tasks_done;
    let projected = if tasks_done > 0 {
        merged.task_seconds * first.tasks_in_plan as f64 / tasks_done as f64
    } else {
        0.0
    };
    let partial = PartialMerge {
        partial: true,
        n: first.n,
        method: &first.method,
        fingerprint: &first.fingerprint,
        shards: first.shards,
        shards_given: given,
        tasks_in_plan: first.tasks_in_plan,
        tasks_done,
        solutions: merged.solutions.to_string(),
        task_seconds: merged.task_seconds,
        projected_task_seconds: projected,
        missing_count: missing.count,
        missing_first: &missing.first,
    };
    format.write(&mut out, &Output::PartialMerge(&partial))?;
    Ok(())
}
