//! Markdown: a table to paste into a page, of counts (or a merge) or of a
//! benchmark with its machine above it.

use std::io::{self, Write};

use nqueens::analysis::bench::BenchReport;
use nqueens::run::report::ReportRecord;
use nqueens::Report;

use super::text::{
    bench_cells, bench_heading, bench_score, published_check, unique_cell, BENCH_HEADER,
};
use super::{count_of, Exporter, Kind, Output};

/// Markdown tables.
pub struct Markdown;

impl Exporter for Markdown {
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
    let unique = unique_cell(&record);
    if first {
        writeln!(
            out,
            "| N | solutions | unique | P | R | method | threads | seconds | nodes | published |"
        )?;
        writeln!(
            out,
            "| ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | --- |"
        )?;
    }
    // A resumed count says in its own cells which figures are this run's
    // and what the whole count took: a table has no room for the text
    // format's note line.
    let (seconds, nodes) = match report.history {
        Some(history) => (
            format!(
                "{:.3} (this run; {} took {:.3} s wall, {:.3} core-s)",
                record.seconds,
                count_of(history.sessions, "run"),
                history.wall_seconds,
                history.task_seconds
            ),
            format!("{} (this run; {} in all)", record.nodes, report.nodes),
        ),
        None => (format!("{:.3}", record.seconds), record.nodes.to_string()),
    };
    writeln!(
        out,
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
    )
}

fn bench(out: &mut dyn Write, report: &BenchReport) -> io::Result<()> {
    bench_heading(out, report, "\n")?;
    writeln!(out, "| {} |", BENCH_HEADER.join(" | "))?;
    writeln!(out, "|{}", " ---: |".repeat(BENCH_HEADER.len()))?;
    for result in &report.results {
        writeln!(out, "| {} |", bench_cells(result).join(" | "))?;
    }
    bench_score(out, report)
}
