//! Count reports: a table for people, a Markdown table for pages, JSON
//! lines and CSV for programs. Rows are written and flushed as each count
//! finishes.

use std::io::{self, Write};

use nqueens::run::report::ReportRecord;
use nqueens::Report;

use super::human_rate;
use crate::args::Format;

/// Writes count reports in one format.
pub struct ReportWriter<W: Write> {
    out: W,
    format: Format,
    wrote_header: bool,
}

const CSV_HEADER: &str =
    "n,solutions,unique,half_turn_symmetric,quarter_turn_symmetric,method,threads,seconds,nodes,nodes_per_second,matches_published,unique_matches_published";

impl<W: Write> ReportWriter<W> {
    /// A writer of `format` onto `out`.
    pub fn new(out: W, format: Format) -> ReportWriter<W> {
        ReportWriter {
            out,
            format,
            wrote_header: false,
        }
    }

    /// Writes one report (after the header, the first time) and flushes.
    pub fn write(&mut self, report: &Report) -> io::Result<()> {
        let record = ReportRecord::from(report);
        let unique = record
            .unique
            .map_or("?".to_string(), |unique| unique.to_string());
        match self.format {
            Format::Text => {
                if !self.wrote_header {
                    writeln!(
                        self.out,
                        "{:>3} {:>19} {:>18} {:>6} {:>4} {:>6} {:>7} {:>9} {:>20} {:>11}  published",
                        "N", "solutions", "unique", "P", "R", "method", "threads", "seconds", "nodes",
                        "nodes/s"
                    )?;
                }
                let check = published_check(report);
                writeln!(
                    self.out,
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
                    check
                )?;
                if let Some(history) = report.history {
                    writeln!(
                        self.out,
                        "    resumed: nodes, seconds and rate above are this run's; the whole count took {}, {} nodes, {:.3} s wall and {:.3} core-seconds of tasks",
                        super::count_of(history.sessions, "run"),
                        report.nodes,
                        history.wall_seconds,
                        history.task_seconds
                    )?;
                }
            }
            Format::Markdown => {
                if !self.wrote_header {
                    writeln!(self.out, "| N | solutions | unique | P | R | method | threads | seconds | nodes | published |")?;
                    writeln!(
                        self.out,
                        "| ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- |"
                    )?;
                }
                // A resumed count says in its own cells which figures are
                // this run's and what the whole count took: a table has no
                // room for the text format's note line.
                let (seconds, nodes) = match report.history {
                    Some(history) => (
                        format!(
                            "{:.3} (this run; {} took {:.3} s wall, {:.3} core-s)",
                            record.seconds,
                            super::count_of(history.sessions, "run"),
                            history.wall_seconds,
                            history.task_seconds
                        ),
                        format!("{} (this run; {} in all)", record.nodes, report.nodes),
                    ),
                    None => (format!("{:.3}", record.seconds), record.nodes.to_string()),
                };
                writeln!(
                    self.out,
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    record.n,
                    record.solutions,
                    unique,
                    record.half_turn_symmetric,
                    record.quarter_turn_symmetric,
                    record.method,
                    record.threads,
                    seconds,
                    nodes,
                    published_check(report),
                )?;
            }
            Format::Json => {
                serde_json::to_writer(&mut self.out, report)?;
                writeln!(self.out)?;
            }
            Format::Csv => {
                if !self.wrote_header {
                    writeln!(self.out, "{CSV_HEADER}")?;
                }
                let blank_or = |value: Option<String>| value.unwrap_or_default();
                writeln!(
                    self.out,
                    "{},{},{},{},{},{},{},{:.6},{},{:.0},{},{}",
                    record.n,
                    record.solutions,
                    blank_or(record.unique.map(|unique| unique.to_string())),
                    record.half_turn_symmetric,
                    record.quarter_turn_symmetric,
                    record.method,
                    record.threads,
                    record.seconds,
                    record.nodes,
                    record.nodes_per_second,
                    blank_or(record.matches_published.map(|known| known.to_string())),
                    blank_or(
                        record
                            .unique_matches_published
                            .map(|known| known.to_string())
                    ),
                )?;
            }
        }
        self.wrote_header = true;
        self.out.flush()
    }
}

/// What the published tables say of a report: `ok`, `unknown` past them,
/// `MISMATCH`, or `incomplete` for a run that stopped early.
fn published_check(report: &Report) -> &'static str {
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
