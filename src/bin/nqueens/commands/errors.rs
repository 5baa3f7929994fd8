//! How errors become one line and an exit status: the library's errors
//! about an option worded with its flag, usage mistakes apart from
//! failures, and a closed pipe that is no failure at all.

use std::io;

use nqueens::run::journal::JournalError;
use nqueens::units::human_bytes;

use super::UsageError;
use crate::exit_codes::ExitCode;

/// The one-line message for `err`: the library's errors that concern an
/// option are worded with the option's flag.
pub fn describe(err: &anyhow::Error) -> String {
    let flagged = match err.downcast_ref::<nqueens::Error>() {
        Some(nqueens::Error::TooBig {
            method,
            n,
            needed,
            limit,
            instead,
        }) => Some(format!(
            "--method {method} needs {} for N = {n} on these threads, but the limit is {}: use fewer threads (-j), --method {instead} (little memory), or raise --max-memory",
            human_bytes(*needed),
            human_bytes(*limit)
        )),
        Some(nqueens::Error::TooLarge {
            method,
            n,
            max,
            instead,
        }) => Some(format!(
            "--method {method} counts N up to {max}, not {n}: use --method {instead} for larger boards"
        )),
        Some(nqueens::Error::SplitTooDeep { n, depth, limit }) => Some(format!(
            "split depth {depth} is too deep for N = {n} (more than {limit} tasks, or too long to expand): use a smaller --split-depth, or leave it out to choose automatically"
        )),
        // Every file and input is read and written with its own context,
        // so a bare I/O error is a write to standard output (or error)
        // failing: a full disk, say.
        None if err.chain().count() == 1 => err.downcast_ref::<io::Error>().map(|io_err| {
            format!(
                "cannot write the output: {}",
                crate::output::without_os_code(io_err)
            )
        }),
        _ => None,
    };
    match flagged {
        // Only a bare library error is reworded; context stays as written.
        Some(text) if err.chain().count() == 1 => text,
        _ => format!("{err:#}"),
    }
}

/// Mistakes in what the user asked for are usage errors; the rest failures.
pub fn exit_code_of(err: &anyhow::Error) -> ExitCode {
    if err.downcast_ref::<UsageError>().is_some() {
        return ExitCode::Usage;
    }
    match err.downcast_ref::<JournalError>() {
        Some(JournalError::Io { .. }) => return ExitCode::Failure,
        Some(_) => return ExitCode::Usage,
        None => {}
    }
    match err.downcast_ref::<nqueens::Error>() {
        Some(nqueens::Error::WrongCount { .. }) => ExitCode::CountMismatch,
        Some(nqueens::Error::Checkpoint(JournalError::Io { .. })) => ExitCode::Failure,
        Some(nqueens::Error::ThreadPool { .. }) | None => ExitCode::Failure,
        Some(_) => ExitCode::Usage,
    }
}

/// A reader closing the pipe early (`nqueens ... | head`) is not a failure.
pub fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|io_err| io_err.kind() == io::ErrorKind::BrokenPipe)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_mistakes_are_usage_errors() {
        let usage = anyhow::Error::new(nqueens::Error::ZeroThreads);
        assert_eq!(exit_code_of(&usage), ExitCode::Usage);
        let failure = anyhow::anyhow!("disk full");
        assert_eq!(exit_code_of(&failure), ExitCode::Failure);
    }

    #[test]
    fn library_errors_about_options_name_their_flags() {
        let err = anyhow::Error::new(nqueens::Error::TooLarge {
            method: "join",
            n: 30,
            max: 25,
            instead: "d4",
        });
        assert_eq!(
            describe(&err),
            "--method join counts N up to 25, not 30: use --method d4 for larger boards"
        );
        let wrapped = err.context("while planning");
        assert!(describe(&wrapped).starts_with("while planning: the join method"));
    }
}
