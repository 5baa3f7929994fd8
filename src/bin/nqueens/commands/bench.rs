//! `nqueens bench`: a fixed, checked count timed at several thread counts.

use std::io;

use nqueens::analysis::bench;

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
    bar.set_length(config.total_runs() as u64);
    let first_threads = config.thread_counts.first().copied().unwrap_or(1) as u64;
    bar.set_message(if config.warmup {
        format!("warming up, {}", output::count_of(first_threads, "thread"))
    } else {
        output::count_of(first_threads, "thread")
    });
    // A signal ends the benchmark at once, the bar cleared: medians of
    // half the runs would not be the figures asked for.
    let stopped = || {
        // Read before the clearing, which moves the bar to its end.
        let (done, runs) = (bar.position(), bar.length().unwrap_or(0));
        bar.finish_and_clear();
        eprintln!(
            "interrupted: the benchmark stopped after {done} of {runs} runs; nothing was reported"
        );
    };
    let report = crate::signals::ended_at_once_by_a_signal(&stopped, || {
        bench::run_bench(&config, |step| {
            bar.set_length(step.total as u64);
            bar.set_position(step.done as u64);
            bar.set_message(output::count_of(step.threads as u64, "thread"));
        })
    });
    bar.finish_and_clear();
    let report = report?;
    args.format
        .write(&mut io::stdout().lock(), &output::Output::Bench(&report))?;
    for warning in bench::busy_warnings(&report) {
        eprintln!("warning: {warning}; the figures may be low");
    }
    Ok(ExitCode::Success)
}
