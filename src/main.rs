//! The `nqueens` command: parses, calls the library, prints. Only this file
//! exits the process or prints errors.

mod cli;
mod exit_codes;
mod output;
mod progress;

use std::io::{self, Write};

use anyhow::Context;
use clap::error::ErrorKind;
use clap::Parser;
use nqueens::{count_with_hooks, Report, RunHooks, TaskOutcome};

use crate::cli::{Cli, Command, CountArgs};
use crate::exit_codes::ExitCode;
use crate::output::ReportWriter;

fn main() {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err)
            if matches!(
                err.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) =>
        {
            let _ = err.print();
            std::process::exit(ExitCode::Success.code());
        }
        Err(err) if err.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = err.print();
            std::process::exit(ExitCode::Usage.code());
        }
        Err(err) => {
            eprintln!("{}", cli::one_line_error(&err));
            std::process::exit(ExitCode::Usage.code());
        }
    };
    let code = match run(cli) {
        Ok(code) => code,
        Err(err) if is_broken_pipe(&err) => ExitCode::Success,
        Err(err) => {
            eprintln!("error: {err:#}");
            exit_code_of(&err)
        }
    };
    std::process::exit(code.code());
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Count(args) => run_count(&args),
    }
}

fn run_count(args: &CountArgs) -> anyhow::Result<ExitCode> {
    let options = args.count_options();
    let stdout = io::stdout();
    let mut writer = ReportWriter::new(stdout.lock(), args.format);
    let mut mismatches = Vec::new();
    for n in args.board_sizes() {
        let bar = progress::task_bar(args.progress, format!("N={n}"));
        let on_task = |_: &TaskOutcome| bar.inc(1);
        let hooks = RunHooks {
            on_task: Some(&on_task),
            ..RunHooks::default()
        };
        let report = count_with_hooks(n, &options, &hooks, |plan| {
            bar.set_length(plan.tasks.len() as u64)
        })?;
        bar.finish_and_clear();
        writer.write(&report).context("cannot write the result")?;
        mismatches.extend(mismatch(&report));
    }
    if mismatches.is_empty() {
        return Ok(ExitCode::Success);
    }
    for mismatch in &mismatches {
        eprintln!("error: WRONG COUNT: {mismatch}");
    }
    io::stderr().flush().ok();
    Ok(ExitCode::CountMismatch)
}

/// The complaint about a count that disagrees with the published tables, or
/// whose two routes to the unique count disagree.
fn mismatch(report: &Report) -> Option<String> {
    if report.is_consistent() {
        return None;
    }
    let n = report.n;
    let shown = |value: Option<u128>| value.map_or("none".to_string(), |value| value.to_string());
    let mut complaints = Vec::new();
    if report.matches_published() == Some(false) {
        complaints.push(format!(
            "counted {} solutions but A000170 says {}",
            report.solutions,
            shown(report.published())
        ));
    }
    if report.unique_matches_published() == Some(false) || report.unique.is_none() {
        complaints.push(format!(
            "unique {} (Burnside) but A002562 says {}",
            shown(report.unique),
            shown(report.published_unique())
        ));
    }
    if let Some(orbits) = report.orbits {
        if Some(orbits.unique) != report.unique {
            complaints.push(format!(
                "the d4 leaves found {} classes but Burnside gives {}",
                orbits.unique,
                shown(report.unique)
            ));
        }
    }
    Some(format!("N = {n}: {}", complaints.join("; ")))
}

/// Mistakes in what the user asked for are usage errors; the rest failures.
fn exit_code_of(err: &anyhow::Error) -> ExitCode {
    match err.downcast_ref::<nqueens::Error>() {
        Some(nqueens::Error::ThreadPool { .. }) | None => ExitCode::Failure,
        Some(_) => ExitCode::Usage,
    }
}

/// A reader closing the pipe early (`nqueens ... | head`) is not a failure.
fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|io_err| io_err.kind() == io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use nqueens::{count, CountOptions};

    #[test]
    fn a_wrong_count_is_named_and_a_right_one_is_not() {
        let mut report = count(10, &CountOptions::default()).unwrap();
        assert_eq!(mismatch(&report), None);
        report.solutions += 1;
        let complaint = mismatch(&report).unwrap();
        assert!(
            complaint.contains("counted 725 solutions but A000170 says 724"),
            "{complaint}"
        );
        report.solutions -= 1;
        report.unique = Some(91);
        let complaint = mismatch(&report).unwrap();
        assert!(
            complaint.contains("unique 91 (Burnside) but A002562 says 92"),
            "{complaint}"
        );
        assert!(
            complaint.contains("the d4 leaves found 92 classes"),
            "{complaint}"
        );
        // Past the tables only the two unique routes can be compared.
        report.n = 28;
        assert!(mismatch(&report).is_some());
        report.unique = Some(92);
        assert_eq!(mismatch(&report), None);
    }

    #[test]
    fn input_mistakes_are_usage_errors() {
        let usage = anyhow::Error::new(nqueens::Error::ZeroThreads);
        assert_eq!(exit_code_of(&usage), ExitCode::Usage);
        let failure = anyhow::anyhow!("disk full");
        assert_eq!(exit_code_of(&failure), ExitCode::Failure);
    }
}
