//! CSV: a header and a record per count (or merge), or per thread count
//! of a benchmark.

use std::io::{self, Write};

use nqueens::analysis::bench::BenchReport;
use nqueens::run::report::ReportRecord;
use nqueens::Report;

use super::{Exporter, Kind, Output};

/// Comma-separated values.
pub struct Csv;

const COUNT_HEADER: &str =
    "n,solutions,unique,half_turn_symmetric,quarter_turn_symmetric,method,threads,seconds,nodes,nodes_per_second,matches_published,unique_matches_published";

const BENCH_HEADER: &str = "n,method,threads,runs,median_seconds,min_seconds,max_seconds,spread_percent,solutions,nodes,nodes_per_second,nodes_per_second_per_thread,speedup,efficiency_percent,cpu_model,version,profile";

impl Exporter for Csv {
    fn offers(&self, kind: Kind) -> bool {
        matches!(kind, Kind::Count | Kind::Merge | Kind::Bench)
    }

    fn write(&self, out: &mut dyn Write, output: &Output<'_>) -> io::Result<()> {
        match output {
            Output::Count { report, first } => count(out, report, *first),
            Output::Merged { report, .. } => count(out, report, true),
            Output::Bench(report) => bench(out, report),
            _ => Ok(()),
        }
    }
}

fn count(out: &mut dyn Write, report: &Report, first: bool) -> io::Result<()> {
    let record = ReportRecord::from(report);
    if first {
        writeln!(out, "{COUNT_HEADER}")?;
    }
    let blank_or = |value: Option<String>| value.unwrap_or_default();
    writeln!(
        out,
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
    )
}

fn bench(out: &mut dyn Write, report: &BenchReport) -> io::Result<()> {
    let optional = |value: Option<f64>, digits: usize| {
        value.map_or(String::new(), |value| format!("{value:.digits$}"))
    };
    writeln!(out, "{BENCH_HEADER}")?;
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
