//! `nqueens plan`: the tasks of a count, its fingerprint, memory and the
//! spread of its tasks' estimated costs; with `--estimate`, its predicted
//! time from a timed sample.

use std::io::{self, IsTerminal, Write};
use std::time::Duration;

use crate::args::PlanArgs;
use crate::exit_codes::ExitCode;
use crate::output::{EstimateOnCores, Kind, Output, PlanCosts};
use nqueens::analysis::estimate::{
    estimate_sampling, Estimate, Sampling, DEFAULT_BUDGET, DEFAULT_SAMPLE,
};
use nqueens::analysis::heaviest::{heaviest, Heaviest};
use nqueens::units::human_bytes;
use nqueens::{resolve_threads, Plan, SplitDepth};

/// Runs `nqueens plan`.
pub fn run(args: &PlanArgs) -> anyhow::Result<ExitCode> {
    args.format.check_offers(Kind::Plan, "plan")?;
    let split = args.split_depth.map_or(SplitDepth::Auto, SplitDepth::Rows);
    let threads = resolve_threads(args.threads)?;
    let plan = Plan::build_within(args.n, args.method, split, args.max_memory, threads)?;
    super::warn_ignored_split(args.split_depth, &plan);
    note_first_pick_left_out(args, &plan, threads);
    let peak_memory = plan.peak_memory();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    // A person sees the plan at once; the estimate follows.
    let header = Output::PlanHeader {
        plan: &plan,
        threads,
        peak_memory,
    };
    args.format.write(&mut out, &header)?;
    // Half a minute unless a sample, a time or a precision is asked for.
    let budget = match (args.time, args.sample, args.within) {
        (Some(seconds), _, _) => Some(Duration::from_secs(seconds)),
        (None, None, None) => Some(DEFAULT_BUDGET),
        (None, _, _) => None,
    };
    let estimated = if args.estimate {
        let sampling = Sampling::new(args.sample.unwrap_or(DEFAULT_SAMPLE), args.seed)
            .budget(budget)
            .within(args.within.map(|percent| f64::from(percent) / 100.0))
            .by_cost(args.by_cost || args.within.is_some());
        Some(estimate_talking(&plan, threads, &sampling)?)
    } else {
        None
    };
    let heaviest = match args.heaviest {
        Some(k) => Some(heaviest_talking(&plan, threads, k)?),
        None => None,
    };
    let costs = PlanCosts {
        n: plan.n,
        method: plan.method.to_string(),
        split_depth: plan.split_depth,
        tasks: plan.tasks.len(),
        fingerprint: plan.fingerprint_hex(),
        peak_memory_bytes: peak_memory,
        estimate: estimated.as_ref().map(|estimate| EstimateOnCores {
            estimate,
            cores: args.cores,
            cores_wall_seconds: args.cores.map(|cores| estimate.wall_seconds(cores).0),
        }),
        heaviest: heaviest.as_ref(),
        seed: args.seed,
        budget,
    };
    args.format.write(&mut out, &Output::PlanCosts(&costs))?;
    if let Some(heaviest) = heaviest.filter(|heaviest| heaviest.stopped) {
        out.flush()?;
        let timed = heaviest
            .heaviest
            .iter()
            .filter(|task| task.seconds.is_some());
        eprintln!(
            "interrupted: {} of the {} heaviest tasks were timed (the task in flight dropped)",
            timed.count(),
            heaviest.heaviest.len()
        );
        return Ok(ExitCode::Interrupted);
    }
    match estimated.filter(|estimate| estimate.stopped) {
        Some(estimate) => {
            out.flush()?;
            say_estimate_stopped(&estimate);
            Ok(ExitCode::Interrupted)
        }
        None => Ok(ExitCode::Success),
    }
}

/// A line on a terminal saying how far a timing of `asked` tasks is,
/// redrawn at most 8 times a second; none where stderr is not one.
fn progress_line(doing: &'static str, asked: usize, limit: String) -> impl Fn(usize) + Sync {
    let talk = io::stderr().is_terminal();
    let started = std::time::Instant::now();
    let drawn = std::sync::atomic::AtomicU64::new(0);
    move |timed: usize| {
        let now = started.elapsed().as_millis() as u64;
        let last = drawn.load(std::sync::atomic::Ordering::Relaxed);
        if talk && (timed == 0 || now >= last + 125) {
            drawn.store(now, std::sync::atomic::Ordering::Relaxed);
            // Fits 80 columns; \x1b[K clears what a longer line left.
            // "of K" only where no time limit cuts the sample short: with
            // one, K is a cap the time may not reach (60 of 10,000 fit 30 s
            // at N = 28 on 2 Zen 5 threads).
            let of = if limit.is_empty() {
                format!(" of {asked}")
            } else {
                String::new()
            };
            eprint!(
                "\r{doing}: {timed}{of} tasks timed, {:.0} s{limit}\x1b[K",
                started.elapsed().as_secs_f64()
            );
        }
    }
}

/// Clears the progress line, where one was drawn.
fn clear_progress_line() {
    if io::stderr().is_terminal() {
        eprint!("\r\x1b[K");
    }
}

/// The estimate, with a line on a terminal saying how far it is.
fn estimate_talking(plan: &Plan, threads: usize, sampling: &Sampling) -> anyhow::Result<Estimate> {
    let asked = sampling.sample.min(plan.tasks.len());
    let limit = match (sampling.budget, sampling.within) {
        (Some(budget), _) => format!(" of at most {} s (and {asked} tasks)", budget.as_secs()),
        (None, Some(share)) => format!(" until +-{:.0}% (or {asked} tasks)", share * 100.0),
        (None, None) => String::new(),
    };
    if sampling.by_cost && io::stderr().is_terminal() {
        // The progress line that follows overwrites it.
        eprint!("costing the plan's {} tasks first\r", plan.tasks.len());
    }
    let progress = progress_line("estimating", asked, limit);
    progress(0);
    // A signal stops the estimate at once: the tasks in flight (up to a
    // minute each at N = 28) are dropped, and the tasks finished make the
    // estimate (a second signal exits at once).
    crate::signals::install_handler();
    let estimate = estimate_sampling(
        plan,
        threads,
        sampling,
        Some(&crate::signals::INTERRUPTED),
        &progress,
    );
    clear_progress_line();
    if let Err(nqueens::Error::NothingTimed) = estimate {
        eprintln!(
            "interrupted: the estimate stopped before any of {asked} tasks was timed; nothing was estimated (--time SECONDS bounds it)"
        );
        crate::exit_codes::end_now(ExitCode::Interrupted);
    }
    Ok(estimate?)
}

/// The `k` heaviest tasks by cost, timed, with a line on a terminal saying
/// how far the timing is (a signal stops it; the tasks timed are kept).
fn heaviest_talking(plan: &Plan, threads: usize, k: usize) -> anyhow::Result<Heaviest> {
    let asked = k.min(plan.tasks.len());
    let progress = progress_line("timing the heaviest", asked, String::new());
    if io::stderr().is_terminal() {
        eprint!("\rranking {} tasks by cost\x1b[K", plan.tasks.len());
    }
    crate::signals::install_handler();
    let found = heaviest(
        plan,
        threads,
        k,
        Some(&crate::signals::INTERRUPTED),
        &progress,
    );
    clear_progress_line();
    Ok(found?)
}

/// The line that ends an estimate a signal stopped, printed below it.
fn say_estimate_stopped(estimate: &Estimate) {
    eprintln!(
        "interrupted: the estimate stopped after {} of {} tasks timed; its figures are from those (tasks in flight dropped)",
        estimate.sampled, estimate.asked
    );
}

/// A plan is often made for other machines than this one: when `auto`
/// plans another method because its first pick does not fit the memory
/// here, says so on one line with what the first would need (else a
/// cluster's plan of years would pass for the best there is).
fn note_first_pick_left_out(args: &PlanArgs, plan: &Plan, threads: usize) {
    let left_out =
        super::fallback::first_pick_left_out(args.n, args.method, args.max_memory, threads);
    if let Some(short) = left_out {
        eprintln!(
            "note: {first} needs {} for N = {} on {threads} thread(s) but may take {} here, so auto plans {}; for machines with the memory, plan {first} with --max-memory SIZE (their memory)",
            human_bytes(short.needed),
            args.n,
            human_bytes(short.limit),
            plan.method.name(),
            first = short.method,
        );
    }
}
