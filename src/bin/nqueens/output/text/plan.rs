//! `nqueens plan`'s report for people: the plan, then the estimate of its
//! cost or its heaviest tasks.

use std::io::{self, Write};

use nqueens::analysis::estimate::Estimate;
use nqueens::analysis::heaviest::Heaviest;
use nqueens::plan::{estimate_costs, COST_ROWS};
use nqueens::units::human_bytes;
use nqueens::Plan;

use crate::output::{count_of, human_duration, PlanCosts};

/// The plan's header: tasks, memory, fingerprint, and how tasks are cut or
/// their costs spread.
pub fn header(
    out: &mut dyn Write,
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
    if let Some(parts) = plan.memory_parts() {
        writeln!(
            out,
            "memory: at most {} on {} ({parts})",
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
    if let Some(tasks_are) = plan.tasks_are() {
        writeln!(out, "{tasks_are}")?;
    } else {
        let mut costs = estimate_costs(plan, COST_ROWS);
        costs.sort_unstable();
        let total: u64 = costs.iter().sum();
        let mean = total as f64 / costs.len().max(1) as f64;
        let max = costs.last().copied().unwrap_or(0);
        let median = costs.get(costs.len() / 2).copied().unwrap_or(0);
        writeln!(
            out,
            "estimated cost (queens in the {COST_ROWS} rows below each task): mean {mean:.0}, median {median}, max {max}, max/mean {:.2}",
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

/// What was timed of the plan: its estimate, its heaviest tasks, or how to
/// time it.
pub fn costs(out: &mut dyn Write, costs: &PlanCosts<'_>) -> io::Result<()> {
    match (&costs.estimate, costs.heaviest) {
        (Some(on_cores), _) => estimate(out, on_cores.estimate, costs, on_cores.cores),
        (None, Some(heaviest)) => write_heaviest(out, heaviest),
        (None, None) => writeln!(
            out,
            "measure the real spread with: nqueens count {} -m {} --profile FILE, then scripts/efficiency.py FILE; predict the time with --estimate",
            costs.n, costs.method
        ),
    }
}

fn estimate(
    out: &mut dyn Write,
    estimate: &Estimate,
    costs: &PlanCosts<'_>,
    asked_cores: Option<usize>,
) -> io::Result<()> {
    let budget = costs.budget;
    let (low, high) = estimate.interval;
    writeln!(
        out,
        "estimate: {} of {} tasks timed (seed {}, {}, {})",
        estimate.sampled,
        estimate.tasks,
        costs.seed,
        count_of(estimate.threads as u64, "thread"),
        human_duration(estimate.seconds)
    )?;
    let (core, low, high) = (estimate.core_seconds, low, high);
    let precise = estimate
        .within
        .filter(|&share| (high - low) / 2.0 <= share * core);
    if estimate.stopped {
        writeln!(
            out,
            "  stopped by a signal before {} tasks: the figures are from the tasks finished",
            estimate.asked
        )?;
    } else if let Some(share) = precise.filter(|_| estimate.sampled < estimate.asked) {
        writeln!(
            out,
            "  stopped once the interval was within +-{:.0}%",
            share * 100.0
        )?;
    } else if let Some(budget) = budget.filter(|_| estimate.sampled < estimate.asked) {
        writeln!(
            out,
            "  stopped at the time asked ({} s) before {} tasks: --time SECONDS or --sample K for a closer figure",
            budget.as_secs(),
            estimate.asked
        )?;
    }
    if let Some(correlation) = estimate.cost_correlation {
        writeln!(
            out,
            "  times adjusted by the tasks' costs (correlation {correlation:.2}; every task costed in {})",
            human_duration(estimate.cost_seconds)
        )?;
    }
    writeln!(
        out,
        "  core time: {} (95% interval {} to {})",
        human_duration(estimate.core_seconds),
        human_duration(low),
        human_duration(high)
    )?;
    if let Some(per_solution) = core_ns(costs.n, estimate.core_seconds) {
        writeln!(
            out,
            "  core-ns per solution: {per_solution:.2} ({:.2} to {:.2}), against the published count",
            core_ns(costs.n, low).unwrap_or(0.0),
            core_ns(costs.n, high).unwrap_or(0.0)
        )?;
    }
    writeln!(
        out,
        "  largest sampled task: {} on one thread (mean {})",
        human_duration(estimate.largest_task),
        human_duration(estimate.core_seconds / estimate.tasks.max(1) as f64)
    )?;
    let mut cores = vec![estimate.threads];
    cores.extend(asked_cores.filter(|&cores| cores != estimate.threads));
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

/// The heaviest tasks by cost, each with its time, and the longest.
fn write_heaviest(out: &mut dyn Write, heaviest: &Heaviest) -> io::Result<()> {
    writeln!(
        out,
        "heaviest: the {} of {} tasks ranked costliest by {} (ranked in {}), timed on {} in {}",
        heaviest.heaviest.len(),
        heaviest.tasks,
        heaviest.cost_of,
        human_duration(heaviest.rank_seconds),
        count_of(heaviest.threads as u64, "thread"),
        human_duration(heaviest.time_seconds)
    )?;
    for task in &heaviest.heaviest {
        let time = task
            .seconds
            .map_or("not timed".to_string(), |seconds| format!("{seconds:.3} s"));
        writeln!(
            out,
            "  task {}: cost {:.3e} ({:.1}x the mean), {time}",
            task.id,
            task.cost,
            task.cost / heaviest.mean_cost.max(f64::MIN_POSITIVE)
        )?;
    }
    let timed: Vec<f64> = heaviest.heaviest.iter().filter_map(|t| t.seconds).collect();
    if let Some(longest) = heaviest.longest() {
        writeln!(
            out,
            "  longest: task {}, {} on one thread (the {} timed: mean {}); the heaviest a count meets, as far as the cost ranks them",
            longest.id,
            human_duration(longest.seconds.unwrap_or(0.0)),
            timed.len(),
            human_duration(timed.iter().sum::<f64>() / timed.len() as f64)
        )?;
    }
    Ok(())
}
