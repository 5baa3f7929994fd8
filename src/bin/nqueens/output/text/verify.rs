//! `nqueens verify` for people: a line per task as soon as it is checked.

use std::io::{self, Write};

use nqueens::analysis::verify::TaskCheck;
use nqueens::Plan;

/// What is checked, and the table's header.
pub fn header(out: &mut dyn Write, plan: &Plan, sampled: usize, seed: u64) -> io::Result<()> {
    writeln!(
        out,
        "N = {}: {sampled} of {} {method} tasks (seed {seed}), each counted by the {method} and by a queen-by-queen search",
        plan.n,
        plan.tasks.len(),
        method = plan.method,
    )?;
    writeln!(
        out,
        "{:>12} {:>20} {:>20} {:>10} {:>10}  agree",
        "task",
        plan.method.name(),
        "search",
        format!("{} s", plan.method),
        "search s"
    )
}

/// One task's line.
pub fn row(out: &mut dyn Write, check: &TaskCheck) -> io::Result<()> {
    writeln!(
        out,
        "{:>12} {:>20} {:>20} {:>10.3} {:>10.3}  {}",
        check.id,
        check.counted,
        check.rows,
        check.counted_seconds,
        check.rows_seconds,
        if check.agrees() { "yes" } else { "NO" }
    )
}
