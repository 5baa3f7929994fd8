//! Count reports: a table for people, JSON lines and CSV for programs. Rows
//! are written and flushed as each count finishes.

use std::io::{self, Write};

use nqueens::Report;
use serde::Serialize;

use super::human_rate;
use crate::args::Format;

/// One count as programs read it; the JSON object and the CSV record.
#[derive(Debug, Serialize)]
pub struct CountRecord {
    /// Board size.
    pub n: u32,
    /// All solutions counted.
    pub solutions: u128,
    /// Solutions up to symmetry (Burnside); null if the run was incomplete.
    pub unique: Option<u128>,
    /// P: solutions unchanged by a half turn.
    pub half_turn_symmetric: u128,
    /// R: solutions unchanged by a quarter turn.
    pub quarter_turn_symmetric: u128,
    /// Method counted with.
    pub method: String,
    /// Worker threads.
    pub threads: usize,
    /// Wall time in seconds.
    pub seconds: f64,
    /// Queens placed (by this run, for a resumed count).
    pub nodes: u128,
    /// Nodes per second of wall time.
    pub nodes_per_second: f64,
    /// Whether the count equals A000170; null where the table ends.
    pub matches_published: Option<bool>,
    /// Whether the unique count equals A002562 (and, for `d4`, the leaf
    /// classification agrees); null where the table ends.
    pub unique_matches_published: Option<bool>,
    /// Unique solutions as the `d4` leaves classified them; null for other
    /// methods.
    pub unique_from_orbits: Option<u128>,
    /// A count resumed from a checkpoint: the runs it took (this one
    /// included); `seconds` and `nodes_per_second` are then this run's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<u64>,
    /// Wall seconds over all runs (JSON only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_wall_seconds: Option<f64>,
    /// Seconds the finished tasks took over all runs, summed over threads:
    /// the core time of the count (JSON only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_task_seconds: Option<f64>,
    /// Queens placed over all runs (JSON only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_nodes: Option<u128>,
}

impl From<&Report> for CountRecord {
    fn from(report: &Report) -> CountRecord {
        CountRecord {
            n: report.n,
            solutions: report.solutions,
            unique: report.unique,
            half_turn_symmetric: report.half_turn_symmetric,
            quarter_turn_symmetric: report.quarter_turn_symmetric,
            method: report.method.to_string(),
            threads: report.threads,
            seconds: report.seconds,
            nodes: report
                .history
                .map_or(report.nodes, |history| history.session_nodes),
            nodes_per_second: report.nodes_per_second(),
            matches_published: report.matches_published(),
            unique_matches_published: report.unique_matches_published(),
            unique_from_orbits: report.orbits.map(|orbits| orbits.unique),
            runs: report.history.map(|history| history.sessions),
            total_wall_seconds: report.history.map(|history| history.wall_seconds),
            total_task_seconds: report.history.map(|history| history.task_seconds),
            total_nodes: report.history.map(|_| report.nodes),
        }
    }
}

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
        let record = CountRecord::from(report);
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
                let check = if !report.complete {
                    "incomplete".to_string()
                } else {
                    match (
                        report.matches_published(),
                        report.unique_matches_published(),
                    ) {
                        (Some(true), Some(true)) => "ok".to_string(),
                        (None, _) => "unknown".to_string(),
                        _ => "MISMATCH".to_string(),
                    }
                };
                let unique = record
                    .unique
                    .map_or("?".to_string(), |unique| unique.to_string());
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
            Format::Json => {
                serde_json::to_writer(&mut self.out, &record)?;
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
