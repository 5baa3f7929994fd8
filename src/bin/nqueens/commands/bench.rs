//! `nqueens bench`: a fixed, checked count timed at several thread counts.

use std::io::{self, Write};

use nqueens::run::bench;

use crate::args::BenchArgs;
use crate::exit_codes::ExitCode;
use crate::{output, progress};

/// Runs `nqueens bench`.
pub fn run(args: &BenchArgs) -> anyhow::Result<ExitCode> {
    let mut config = bench::BenchConfig::standard(args.n, args.method)?;
    config.runs = args.runs;
    config.warmup = !args.no_warmup;
    if let Some(list) = &args.threads {
        config.thread_counts = list.0.clone();
    }
    let bar = progress::bench_bar(args.quiet);
    let report = bench::run_bench(&config, |step| {
        bar.set_length(step.total as u64);
        bar.set_position(step.done as u64);
        bar.set_message(format!("{} threads", step.threads));
    });
    bar.finish_and_clear();
    let report = report?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    output::write_bench(&mut out, &report, args.format)?;
    out.flush()?;
    for warning in bench::busy_warnings(&report) {
        eprintln!("warning: {warning}; the figures may be low");
    }
    Ok(ExitCode::Success)
}
