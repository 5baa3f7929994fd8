//! `nqueens verify`: a sample of a join plan's tasks counted again by a
//! row-by-row search, a line per task; exit 3 names any that differ.

use std::io::{self, Write};

use crate::args::VerifyArgs;
use crate::exit_codes::ExitCode;
use crate::output::{Kind, Output, VerifyRecord};
use nqueens::analysis::verify::{cross_check, TaskCheck};
use nqueens::{resolve_threads, Method, Plan, SplitDepth};

/// Runs `nqueens verify`.
pub fn run(args: &VerifyArgs) -> anyhow::Result<ExitCode> {
    args.format.check_offers(Kind::Verify, "verify")?;
    let threads = resolve_threads(args.threads)?;
    let plan = Plan::build_within(
        args.n,
        Method::cross_checked(),
        SplitDepth::Auto,
        args.max_memory,
        threads,
    )?;
    // Refused before the header, which would promise a check that never
    // runs.
    if !plan.method.recounts_tasks() {
        return Err(nqueens::Error::cross_check_unavailable(plan.n).into());
    }
    let format = args.format;
    let header = Output::VerifyHeader {
        plan: &plan,
        sampled: args.tasks.min(plan.tasks.len()),
        seed: args.seed,
    };
    format.write(&mut io::stdout().lock(), &header)?;
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
        let _ = format.write(&mut io::stdout().lock(), &Output::VerifyRow(check));
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
            format!(
                "the {} and the search DIFFER on {}",
                plan.method,
                ids.join(", ")
            )
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
    let record = VerifyRecord {
        n: plan.n,
        fingerprint: plan.fingerprint_hex(),
        tasks: plan.tasks.len(),
        seed: args.seed,
        agree: differing.is_empty(),
        checks: &checks,
    };
    format.write(&mut out, &Output::Verified(&record))?;
    out.flush()?;
    if differing.is_empty() {
        return Ok(ExitCode::Success);
    }
    let ids: Vec<String> = differing.iter().map(u64::to_string).collect();
    eprintln!(
        "error: N = {}: the {} and the row-by-row search differ on task{} {}",
        plan.n,
        plan.method,
        if ids.len() == 1 { "" } else { "s" },
        ids.join(", ")
    );
    Ok(ExitCode::CountMismatch)
}
