//! The `nqueens` command: parses, dispatches to one command, maps errors to
//! exit statuses. Only this file prints errors and exits the process, but
//! for the two ends in `exit_codes.rs` that a signal takes while the
//! count's threads still run.

// Every unsafe block says why it is sound.
#![deny(clippy::undocumented_unsafe_blocks)]
// An unsafe function's body is not one unsafe block: each unsafe
// operation in it has a block of its own with its reason.
#![deny(unsafe_op_in_unsafe_fn)]

mod args;
mod commands;
mod exit_codes;
mod output;
mod parse;
mod progress;
mod resume;
mod signals;
mod usage;

use clap::error::ErrorKind;
use clap::Parser;

use crate::args::{Cli, Command};
use crate::exit_codes::ExitCode;

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
            eprintln!("{}", parse::one_line_error(&err));
            std::process::exit(ExitCode::Usage.code());
        }
    };
    // Fault injection for tests, from FAILPOINTS (feature `failpoints`).
    #[cfg(feature = "failpoints")]
    let _faults = fail::FailScenario::setup();
    if let Err(err) = nqueens::check_environment() {
        eprintln!("error: {err}");
        std::process::exit(ExitCode::Usage.code());
    }
    let code = match run(cli) {
        Ok(code) => code,
        Err(err) if commands::is_broken_pipe(&err) => ExitCode::Success,
        Err(err) => {
            eprintln!("error: {}", commands::describe(&err));
            commands::exit_code_of(&err)
        }
    };
    std::process::exit(code.code());
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Count(args) => commands::count::run(&args),
        Command::List(args) => commands::list::run(&args),
        Command::Solve(args) => commands::solve::run(&args),
        Command::Check(args) => commands::check::run(&args),
        Command::Bench(args) => commands::bench::run(&args),
        Command::Merge(args) => commands::merge::run(&args),
        Command::Plan(args) => commands::plan::run(&args),
        Command::Compare(args) => commands::compare::run(&args),
        Command::Verify(args) => commands::verify::run(&args),
        #[cfg(feature = "gpu")]
        Command::Gpu(args) => commands::gpu::time(&args),
        Command::Completions(args) => commands::completions::completions(args.shell),
        Command::Manpage => commands::completions::manpage(),
    }
}
