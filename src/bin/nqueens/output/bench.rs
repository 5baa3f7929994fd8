//! Benchmark reports: a table, JSON, CSV or Markdown.

use std::io::{self, Write};

use nqueens::analysis::bench::BenchReport;

use super::human_rate;
use crate::args::BenchFormat;

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
                "nqueens {} ({}) bench: N = {}, method {}, {} solutions checked per run, {} nodes per run, {} per thread count",
                report.version,
                report.profile,
                report.n,
                report.method,
                report.solutions,
                report.nodes,
                super::count_of(report.runs as u64, "timed run")
            )?;
            if markdown {
                writeln!(out)?;
            }
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
