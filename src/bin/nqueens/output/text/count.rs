//! A count's row of the aligned table, with a note under a resumed
//! count's; what the published tables say of a count.

use std::io::{self, Write};

use nqueens::run::report::ReportRecord;
use nqueens::Report;

use crate::output::{count_of, human_rate};

/// One count's row, the header first where `first`.
pub fn row(out: &mut dyn Write, report: &Report, first: bool) -> io::Result<()> {
    let record = ReportRecord::from(report);
    let unique = unique_cell(&record);
    if first {
        writeln!(
            out,
            "{:>3} {:>19} {:>18} {:>6} {:>4} {:>6} {:>7} {:>9} {:>20} {:>11}  published",
            "N",
            "solutions",
            "unique",
            "P",
            "R",
            "method",
            "threads",
            "seconds",
            "nodes",
            "nodes/s"
        )?;
    }
    writeln!(
        out,
        "{:>3} {:>19} {:>18} {:>6} {:>4} {:>6} {:>7} {:>9.3} {:>20} {:>11}  {}",
        record.n,
        record.solutions,
        unique,
        record.half_turn_symmetric,
        record.quarter_turn_symmetric,
        record.method,
        record.threads,
        record.seconds,
        record.nodes,
        // A run that counted nothing has no rate.
        if record.nodes == 0 {
            "-".to_string()
        } else {
            human_rate(record.nodes_per_second)
        },
        published_check(report)
    )?;
    if let Some(history) = report.history {
        writeln!(
            out,
            "    resumed: nodes, seconds and rate above are this run's; the whole count took {}, {} nodes, {:.3} s wall and {:.3} core-seconds of tasks",
            count_of(history.sessions, "run"),
            report.nodes,
            history.wall_seconds,
            history.task_seconds
        )?;
    }
    Ok(())
}

/// The unique count as a table shows it: `?` where the run did not find
/// it.
pub fn unique_cell(record: &ReportRecord) -> String {
    record
        .unique
        .map_or("?".to_string(), |unique| unique.to_string())
}

/// What the published tables say of a report: `ok`, `unknown` past them,
/// `MISMATCH`, or `incomplete` for a run that stopped early.
pub fn published_check(report: &Report) -> &'static str {
    if !report.complete {
        return "incomplete";
    }
    match (
        report.matches_published(),
        report.unique_matches_published(),
    ) {
        (Some(true), Some(true)) => "ok",
        (None, _) => "unknown",
        _ => "MISMATCH",
    }
}
