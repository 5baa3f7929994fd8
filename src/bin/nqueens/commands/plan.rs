//! `nqueens plan`: the tasks of a count, its fingerprint, memory and the
//! spread of its tasks' estimated costs.

use std::io::{self, Write};

use nqueens::plan::estimate_costs;
use nqueens::units::human_bytes;
use nqueens::{Method, Plan, SplitDepth};

use crate::args::PlanArgs;
use crate::exit_codes::ExitCode;

/// Runs `nqueens plan`.
pub fn run(args: &PlanArgs) -> anyhow::Result<ExitCode> {
    let split = args.split_depth.map_or(SplitDepth::Auto, SplitDepth::Rows);
    let plan = Plan::build_within(args.n, args.method, split, args.max_memory)?;
    const PROBE_ROWS: u32 = 3;
    let mut costs = estimate_costs(&plan, PROBE_ROWS);
    costs.sort_unstable();
    let total: u64 = costs.iter().sum();
    let mean = total as f64 / costs.len().max(1) as f64;
    let max = costs.last().copied().unwrap_or(0);
    let median = costs.get(costs.len() / 2).copied().unwrap_or(0);
    let stdout = io::stdout();
    let mut out = stdout.lock();
    writeln!(
        out,
        "N = {}, method {}, split depth {}",
        plan.n, plan.method, plan.split_depth
    )?;
    writeln!(out, "tasks: {}", plan.tasks.len())?;
    if plan.method == Method::Join {
        writeln!(
            out,
            "memory: {} for the quadrant table (peak, while it is built)",
            human_bytes(plan.peak_memory_exact())
        )?;
    }
    writeln!(out, "fingerprint: {}", plan.fingerprint_hex())?;
    writeln!(
        out,
        "queens placed building the plan: {}",
        plan.prefix_nodes
    )?;
    if plan.method == Method::Join {
        writeln!(
            out,
            "tasks are row sets of the east half board, costs not estimated"
        )?;
    } else {
        writeln!(
            out,
            "estimated cost (queens in the {PROBE_ROWS} rows below each task): mean {mean:.0}, median {median}, max {max}, max/mean {:.2}",
            if mean > 0.0 { max as f64 / mean } else { 0.0 }
        )?;
    }
    writeln!(
        out,
        "measure the real spread with: nqueens count {} -m {} --profile FILE, then scripts/efficiency.py FILE",
        plan.n, plan.method
    )?;
    Ok(ExitCode::Success)
}
