//! `nqueens plan`: the tasks of a count, its fingerprint, memory and the
//! spread of its tasks' estimated costs; with `--estimate`, its predicted
//! time from a timed sample.

use std::io::{self, IsTerminal, Write};
use std::time::Duration;

use nqueens::plan::estimate_costs;
use nqueens::run::estimate::{estimate_within, Estimate, DEFAULT_BUDGET, DEFAULT_SAMPLE};
use nqueens::search::join::{BESIDE_MIN_N, BOTH_BESIDE_MIN_N};
use nqueens::units::human_bytes;
use nqueens::{resolve_threads, Method, Plan, SplitDepth};
use serde::Serialize;

use crate::args::{PlanArgs, PlanFormat};
use crate::exit_codes::ExitCode;
use crate::output::{count_of, human_duration};

/// A plan and its estimate as programs read them.
#[derive(Debug, Serialize)]
struct PlanRecord {
    n: u32,
    method: String,
    split_depth: u32,
    tasks: usize,
    fingerprint: String,
    /// The plan's tasks and a join count's cells, keys and matchers on the
    /// threads asked for, in bytes (a bound).
    peak_memory_bytes: u64,
    #[serde(flatten)]
    estimate: Option<EstimateRecord>,
}

/// The `--estimate` fields (seconds).
#[derive(Debug, Serialize)]
struct EstimateRecord {
    sampled: usize,
    /// Tasks the sample was to hold, and the seconds it was given.
    asked: usize,
    time_budget_seconds: Option<u64>,
    seed: u64,
    threads: usize,
    estimated_core_seconds: f64,
    interval_low: f64,
    interval_high: f64,
    estimated_wall_seconds: f64,
    wall_low: f64,
    wall_high: f64,
    cores: Option<usize>,
    cores_wall_seconds: Option<f64>,
    /// Core-seconds per solution in nanoseconds, where the count is
    /// published.
    core_ns_per_solution: Option<f64>,
    /// Thread-seconds of the costliest sampled task.
    largest_task_seconds: f64,
    estimate_seconds: f64,
}

/// Runs `nqueens plan`.
pub fn run(args: &PlanArgs) -> anyhow::Result<ExitCode> {
    let split = args.split_depth.map_or(SplitDepth::Auto, SplitDepth::Rows);
    let threads = resolve_threads(args.threads)?;
    let plan = Plan::build_within(args.n, args.method, split, args.max_memory, threads)?;
    super::warn_ignored_split(args.split_depth, &plan);
    let peak_memory = plan.peak_memory();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    // A person sees the plan at once; the estimate follows.
    if args.format == PlanFormat::Text {
        write_plan(&mut out, &plan, threads, peak_memory)?;
        out.flush()?;
    }
    // Half a minute unless a sample or a time is asked for.
    let budget = match (args.time, args.sample) {
        (Some(seconds), _) => Some(Duration::from_secs(seconds)),
        (None, None) => Some(DEFAULT_BUDGET),
        (None, Some(_)) => None,
    };
    let estimated = if args.estimate {
        let sample = args.sample.unwrap_or(DEFAULT_SAMPLE);
        Some(estimate_talking(&plan, threads, sample, args.seed, budget)?)
    } else {
        None
    };
    if args.format == PlanFormat::Json {
        let record = PlanRecord {
            n: plan.n,
            method: plan.method.to_string(),
            split_depth: plan.split_depth,
            tasks: plan.tasks.len(),
            fingerprint: plan.fingerprint_hex(),
            peak_memory_bytes: peak_memory,
            estimate: estimated.as_ref().map(|estimate| {
                let (wall, low, high) = estimate.wall_seconds(estimate.threads);
                EstimateRecord {
                    sampled: estimate.sampled,
                    asked: estimate.asked,
                    time_budget_seconds: budget.map(|budget| budget.as_secs()),
                    seed: args.seed,
                    threads: estimate.threads,
                    estimated_core_seconds: estimate.core_seconds,
                    interval_low: estimate.interval.0,
                    interval_high: estimate.interval.1,
                    estimated_wall_seconds: wall,
                    wall_low: low,
                    wall_high: high,
                    cores: args.cores,
                    cores_wall_seconds: args.cores.map(|cores| estimate.wall_seconds(cores).0),
                    core_ns_per_solution: core_ns(plan.n, estimate.core_seconds),
                    largest_task_seconds: estimate.largest_task,
                    estimate_seconds: estimate.seconds,
                }
            }),
        };
        serde_json::to_writer(&mut out, &record)?;
        writeln!(out)?;
        return Ok(ExitCode::Success);
    }
    match &estimated {
        Some(estimate) => write_estimate(&mut out, estimate, args, budget)?,
        None => writeln!(
            out,
            "measure the real spread with: nqueens count {} -m {} --profile FILE, then scripts/efficiency.py FILE; predict the time with --estimate",
            plan.n, plan.method
        )?,
    }
    Ok(ExitCode::Success)
}

/// The estimate, with a line on a terminal saying how far it is.
fn estimate_talking(
    plan: &Plan,
    threads: usize,
    sample: usize,
    seed: u64,
    budget: Option<Duration>,
) -> anyhow::Result<Estimate> {
    let asked = sample.min(plan.tasks.len());
    let talk = io::stderr().is_terminal();
    let limit = budget.map_or(String::new(), |budget| {
        format!(" (at most {} s)", budget.as_secs())
    });
    let started = std::time::Instant::now();
    // Redrawn at most 8 times a second.
    let drawn = std::sync::atomic::AtomicU64::new(0);
    let progress = |timed: usize| {
        let now = started.elapsed().as_millis() as u64;
        let last = drawn.load(std::sync::atomic::Ordering::Relaxed);
        if talk && (timed == 0 || now >= last + 125) {
            drawn.store(now, std::sync::atomic::Ordering::Relaxed);
            // Fits 80 columns; \x1b[K clears what a longer line left.
            eprint!(
                "\restimating: {timed} of {asked} tasks timed, {:.0} s{limit}\x1b[K",
                started.elapsed().as_secs_f64()
            );
        }
    };
    progress(0);
    let estimate = estimate_within(plan, threads, sample, seed, budget, &progress);
    if talk {
        eprint!("\r\x1b[K");
    }
    Ok(estimate?)
}

/// The plan's header: tasks, memory, fingerprint, and how tasks are cut or
/// their costs spread.
fn write_plan(
    out: &mut impl Write,
    plan: &Plan,
    threads: usize,
    peak_memory: u64,
) -> io::Result<()> {
    writeln!(
        out,
        "N = {}, method {}, split depth {}",
        plan.n, plan.method, plan.split_depth
    )?;
    writeln!(out, "tasks: {}", plan.tasks.len())?;
    if plan.method == Method::Join {
        writeln!(
            out,
            "memory: at most {} on {} (quadrant cells, keys and matchers)",
            human_bytes(plan.memory_bytes),
            count_of(threads as u64, "thread")
        )?;
    }
    writeln!(
        out,
        "peak memory: at most {} (with the plan's {} task list)",
        human_bytes(peak_memory),
        human_bytes(plan.task_bytes())
    )?;
    writeln!(out, "fingerprint: {}", plan.fingerprint_hex())?;
    writeln!(
        out,
        "queens placed building the plan: {}",
        plan.prefix_nodes
    )?;
    if plan.method == Method::Join {
        let cut = if plan.n % 2 == 1 || plan.n < BESIDE_MIN_N {
            ""
        } else if plan.n < BOTH_BESIDE_MIN_N {
            ", each cut by the row of its east queen beside the middle line"
        } else {
            ", each cut by the rows of its two queens beside the middle line"
        };
        writeln!(
            out,
            "tasks are row sets of the east half board{cut}, costs not estimated"
        )?;
    } else {
        const PROBE_ROWS: u32 = 3;
        let mut costs = estimate_costs(plan, PROBE_ROWS);
        costs.sort_unstable();
        let total: u64 = costs.iter().sum();
        let mean = total as f64 / costs.len().max(1) as f64;
        let max = costs.last().copied().unwrap_or(0);
        let median = costs.get(costs.len() / 2).copied().unwrap_or(0);
        writeln!(
            out,
            "estimated cost (queens in the {PROBE_ROWS} rows below each task): mean {mean:.0}, median {median}, max {max}, max/mean {:.2}",
            if mean > 0.0 { max as f64 / mean } else { 0.0 }
        )?;
    }
    Ok(())
}

/// Nanoseconds of core time per solution of an `n` board, where its count
/// is published.
fn core_ns(n: u32, core_seconds: f64) -> Option<f64> {
    nqueens::published::total(n).map(|total| core_seconds * 1e9 / total as f64)
}

fn write_estimate(
    out: &mut impl Write,
    estimate: &Estimate,
    args: &PlanArgs,
    budget: Option<Duration>,
) -> io::Result<()> {
    let (low, high) = estimate.interval;
    writeln!(
        out,
        "estimate: {} of {} tasks timed (seed {}, {}, {})",
        estimate.sampled,
        estimate.tasks,
        args.seed,
        count_of(estimate.threads as u64, "thread"),
        human_duration(estimate.seconds)
    )?;
    if let Some(budget) = budget.filter(|_| estimate.sampled < estimate.asked) {
        writeln!(
            out,
            "  stopped at the time asked ({} s) before {} tasks: --time SECONDS or --sample K for a closer figure",
            budget.as_secs(),
            estimate.asked
        )?;
    }
    writeln!(
        out,
        "  core time: {} (95% interval {} to {})",
        human_duration(estimate.core_seconds),
        human_duration(low),
        human_duration(high)
    )?;
    if let Some(per_solution) = core_ns(args.n, estimate.core_seconds) {
        writeln!(
            out,
            "  core-ns per solution: {per_solution:.2} ({:.2} to {:.2}), against the published count",
            core_ns(args.n, low).unwrap_or(0.0),
            core_ns(args.n, high).unwrap_or(0.0)
        )?;
    }
    writeln!(
        out,
        "  largest sampled task: {} on one thread (mean {})",
        human_duration(estimate.largest_task),
        human_duration(estimate.core_seconds / estimate.tasks.max(1) as f64)
    )?;
    let mut cores = vec![estimate.threads];
    cores.extend(args.cores.filter(|&cores| cores != estimate.threads));
    for cores in cores {
        let (wall, low, high) = estimate.wall_seconds(cores);
        let here = if cores == estimate.threads {
            " (this machine's threads)"
        } else {
            ""
        };
        writeln!(
            out,
            "  wall time on {}{here}: {} ({} to {})",
            count_of(cores as u64, "core"),
            human_duration(wall),
            human_duration(low),
            human_duration(high)
        )?;
    }
    Ok(())
}
