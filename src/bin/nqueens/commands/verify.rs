//! `nqueens verify`: a sample of a join plan's tasks counted again by a
//! row-by-row search, a line per task; exit 3 names any that differ.

use std::io::{self, Write};

use nqueens::analysis::verify::{cross_check, TaskCheck};
use nqueens::{resolve_threads, Method, Plan, SplitDepth};
use serde::Serialize;

use crate::args::{PlanFormat, VerifyArgs};
use crate::exit_codes::ExitCode;

/// The cross-check as programs read it.
#[derive(Debug, Serialize)]
struct VerifyRecord<'a> {
    n: u32,
    fingerprint: String,
    tasks: usize,
    seed: u64,
    agree: bool,
    checks: &'a [TaskCheck],
}

/// Runs `nqueens verify`.
pub fn run(args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    let threads = resolve_threads(args.threads)?;
    let plan = Plan::build_within(
        args.n,
        Method::Join,
        SplitDepth::Auto,
        args.max_memory,
        threads,
    )?;
    // Refused before the header, which would promise a check that never
    // runs.
    if plan.method != Method::Join {
        return Err(nqueens::Error::CrossCheckNeedsJoin { n: plan.n }.into());
    }
    let json = args.format == PlanFormat::Json;
    if !json {
        let mut out = io::stdout().lock();
        writeln!(
            out,
            "N = {}: {} of {} join tasks (seed {}), each counted by the join and by a queen-by-queen search",
            plan.n,
            args.tasks.min(plan.tasks.len()),
            plan.tasks.len(),
            args.seed
        )?;
        writeln!(
            out,
            "{:>12} {:>20} {:>20} {:>10} {:>10}  agree",
            "task", "join", "search", "join s", "search s"
        )?;
        out.flush()?;
    }
    // How many tasks were checked so far, and the ids of those that
    // differ: what a stop by a signal reports.
    let so_far = std::sync::Mutex::new((0usize, Vec::<u64>::new()));
    // A line per task as soon as it is checked (the search takes minutes a
    // task at N = 28), in the order they finish.
    let checked = |check: &TaskCheck| {
        {
            let mut so_far = so_far
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            so_far.0 += 1;
            if !check.agrees() {
                so_far.1.push(check.id);
            }
        }
        if json {
            return;
        }
        let mut out = io::stdout().lock();
        let _ = writeln!(
            out,
            "{:>12} {:>20} {:>20} {:>10.3} {:>10.3}  {}",
            check.id,
            check.join,
            check.rows,
            check.join_seconds,
            check.rows_seconds,
            if check.agrees() { "yes" } else { "NO" }
        );
        let _ = out.flush();
    };
    // A signal ends the check at once (a task's search takes minutes at
    // N = 28), saying what was checked.
    let asked = args.tasks.min(plan.tasks.len());
    let stopped = || {
        let (done, differing) = so_far
            .lock()
            .map(|so_far| so_far.clone())
            .unwrap_or_else(|poisoned| poisoned.into_inner().clone());
        let verdict = if differing.is_empty() {
            "all agree".to_string()
        } else {
            let ids: Vec<String> = differing.iter().map(u64::to_string).collect();
            format!("the join and the search DIFFER on {}", ids.join(", "))
        };
        eprintln!("interrupted: {done} of {asked} tasks checked, {verdict}");
    };
    let checks = crate::signals::ended_at_once_by_a_signal(&stopped, || {
        cross_check(&plan, args.tasks, args.seed, threads, &checked)
    })?;
    let differing: Vec<u64> = checks
        .iter()
        .filter(|check| !check.agrees())
        .map(|check| check.id)
        .collect();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    if json {
        let record = VerifyRecord {
            n: plan.n,
            fingerprint: plan.fingerprint_hex(),
            tasks: plan.tasks.len(),
            seed: args.seed,
            agree: differing.is_empty(),
            checks: &checks,
        };
        serde_json::to_writer(&mut out, &record)?;
        writeln!(out)?;
    }
    out.flush()?;
    if differing.is_empty() {
        return Ok(ExitCode::Success);
    }
    let ids: Vec<String> = differing.iter().map(u64::to_string).collect();
    eprintln!(
        "error: N = {}: the join and the row-by-row search differ on task{} {}",
        plan.n,
        if ids.len() == 1 { "" } else { "s" },
        ids.join(", ")
    );
    Ok(ExitCode::CountMismatch)
}
