//! A benchmark as aligned columns, with the machine above and the score
//! below (the Markdown table shares its lines and cells).

use std::io::{self, Write};

use nqueens::analysis::bench::{BenchReport, ThreadResult};

use crate::output::{count_of, human_rate};

/// The columns of a benchmark's table.
pub const BENCH_HEADER: [&str; 9] = [
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

/// The table for people.
pub fn table(out: &mut dyn Write, report: &BenchReport) -> io::Result<()> {
    bench_heading(out, report, "")?;
    aligned(out, &BENCH_HEADER.map(str::to_string))?;
    for result in &report.results {
        aligned(out, &bench_cells(result))?;
    }
    bench_score(out, report)
}

fn aligned(out: &mut dyn Write, cells: &[String; 9]) -> io::Result<()> {
    writeln!(
        out,
        "{:>7} {:>9} {:>9} {:>9} {:>7} {:>12} {:>15} {:>8} {:>10}",
        cells[0], cells[1], cells[2], cells[3], cells[4], cells[5], cells[6], cells[7], cells[8]
    )
}

/// The workload, then (after `between`) the machine, then a blank line.
pub fn bench_heading(out: &mut dyn Write, report: &BenchReport, between: &str) -> io::Result<()> {
    writeln!(
        out,
        "nqueens {} ({}) bench: N = {}, method {}, {} solutions checked per run, {} nodes per run, {} per thread count",
        report.version,
        report.profile,
        report.n,
        report.method,
        report.solutions,
        report.nodes,
        count_of(report.runs as u64, "timed run")
    )?;
    write!(out, "{between}")?;
    writeln!(
        out,
        "CPU: {} ({} logical, {} physical cores; {}; lanes {}, matcher {}) at {}",
        report.cpu_model,
        report.logical_cores,
        report.physical_cores,
        report.cpu_features.join(" "),
        report.lanes,
        report.matcher,
        report.timestamp
    )?;
    writeln!(out)
}

/// One thread count's cells, as [`BENCH_HEADER`] names them.
pub fn bench_cells(result: &ThreadResult) -> [String; 9] {
    [
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
    ]
}

/// A blank line and the score.
pub fn bench_score(out: &mut dyn Write, report: &BenchReport) -> io::Result<()> {
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
