//! Output formats for count reports: a table for people, JSON lines and CSV
//! for programs. Rows are written and flushed as each count finishes.

use std::io::{self, Write};

use nqueens::bench::BenchReport;
use nqueens::Report;
use serde::Serialize;

use crate::cli::{BenchFormat, Format};

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
    /// Queens placed.
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
            nodes: report.nodes,
            nodes_per_second: report.nodes_per_second(),
            matches_published: report.matches_published(),
            unique_matches_published: report.unique_matches_published(),
            unique_from_orbits: report.orbits.map(|orbits| orbits.unique),
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
                    human_rate(record.nodes_per_second),
                    check
                )?;
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

/// Writes a benchmark report in `format`.
pub fn write_bench<W: Write>(
    out: &mut W,
    report: &BenchReport,
    format: BenchFormat,
) -> io::Result<()> {
    let optional = |value: Option<f64>, digits: usize| {
        value.map_or(String::new(), |value| format!("{value:.digits$}"))
    };
    match format {
        BenchFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, report)?;
            writeln!(out)
        }
        BenchFormat::Csv => {
            writeln!(out, "{BENCH_CSV_HEADER}")?;
            for result in &report.results {
                writeln!(
                    out,
                    "{},{},{},{},{:.6},{:.6},{:.6},{:.3},{},{},{:.0},{:.0},{},{},\"{}\",{},{}",
                    report.n,
                    report.method,
                    result.threads,
                    report.runs,
                    result.median_seconds,
                    result.min_seconds,
                    result.max_seconds,
                    result.spread_percent,
                    report.solutions,
                    report.nodes,
                    result.nodes_per_second,
                    result.nodes_per_second_per_thread,
                    optional(result.speedup, 4),
                    optional(result.efficiency_percent, 2),
                    report.cpu_model.replace('"', "'"),
                    report.version,
                    report.profile
                )?;
            }
            Ok(())
        }
        BenchFormat::Table | BenchFormat::Markdown => {
            let markdown = format == BenchFormat::Markdown;
            writeln!(
                out,
                "nqueens {} ({}) bench: N = {}, method {}, {} solutions checked per run, {} nodes per run, {} timed runs per thread count",
                report.version, report.profile, report.n, report.method, report.solutions, report.nodes, report.runs
            )?;
            if markdown {
                writeln!(out)?;
            }
            writeln!(
                out,
                "CPU: {} ({} logical, {} physical cores)",
                report.cpu_model, report.logical_cores, report.physical_cores
            )?;
            writeln!(out)?;
            let header = [
                "threads",
                "median s",
                "min s",
                "max s",
                "spread",
                "nodes/s",
                "nodes/s/thread",
                "speedup",
                "efficiency",
            ];
            if markdown {
                writeln!(out, "| {} |", header.join(" | "))?;
                writeln!(out, "|{}", " ---: |".repeat(header.len()))?;
            } else {
                writeln!(
                    out,
                    "{:>7} {:>9} {:>9} {:>9} {:>7} {:>12} {:>15} {:>8} {:>10}",
                    header[0],
                    header[1],
                    header[2],
                    header[3],
                    header[4],
                    header[5],
                    header[6],
                    header[7],
                    header[8]
                )?;
            }
            for result in &report.results {
                let cells = [
                    result.threads.to_string(),
                    format!("{:.3}", result.median_seconds),
                    format!("{:.3}", result.min_seconds),
                    format!("{:.3}", result.max_seconds),
                    format!("{:.1}%", result.spread_percent),
                    human_rate(result.nodes_per_second),
                    human_rate(result.nodes_per_second_per_thread),
                    result
                        .speedup
                        .map_or("-".to_string(), |s| format!("{s:.2}x")),
                    result
                        .efficiency_percent
                        .map_or("-".to_string(), |e| format!("{e:.1}%")),
                ];
                if markdown {
                    writeln!(out, "| {} |", cells.join(" | "))?;
                } else {
                    writeln!(
                        out,
                        "{:>7} {:>9} {:>9} {:>9} {:>7} {:>12} {:>15} {:>8} {:>10}",
                        cells[0],
                        cells[1],
                        cells[2],
                        cells[3],
                        cells[4],
                        cells[5],
                        cells[6],
                        cells[7],
                        cells[8]
                    )?;
                }
            }
            let widest = report.results.iter().map(|r| r.threads).max().unwrap_or(1);
            writeln!(out)?;
            let per_second = |rate: f64| human_rate(rate).replace("/s", "nodes/s");
            write!(
                out,
                "score: {} on {widest} threads",
                per_second(report.score_all_cores)
            )?;
            if let Some(one) = report.score_one_core {
                write!(out, ", {} on 1 thread", per_second(one))?;
            }
            writeln!(out)
        }
    }
}

const BENCH_CSV_HEADER: &str = "n,method,threads,runs,median_seconds,min_seconds,max_seconds,spread_percent,solutions,nodes,nodes_per_second,nodes_per_second_per_thread,speedup,efficiency_percent,cpu_model,version,profile";

/// A rate with an SI prefix, e.g. `412.3 M/s`.
pub fn human_rate(per_second: f64) -> String {
    const PREFIXES: [(f64, &str); 4] = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    for (scale, prefix) in PREFIXES {
        if per_second >= scale {
            return format!("{:.1} {prefix}/s", per_second / scale);
        }
    }
    format!("{per_second:.0} /s")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_get_prefixes() {
        assert_eq!(human_rate(412_345_678.0), "412.3 M/s");
        assert_eq!(human_rate(2_500.0), "2.5 k/s");
        assert_eq!(human_rate(12.0), "12 /s");
        assert_eq!(human_rate(3.2e9), "3.2 G/s");
    }
}
