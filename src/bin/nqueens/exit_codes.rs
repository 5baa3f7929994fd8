//! Every exit status the program uses, named.

/// Exit status of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitCode {
    /// Everything counted and checked.
    Success = 0,
    /// A run-time failure (threads, files).
    Failure = 1,
    /// The command line was malformed or out of range.
    Usage = 2,
    /// A count disagreed with the published table.
    CountMismatch = 3,
    /// Stopped by SIGINT or SIGTERM; finished tasks are in the checkpoint.
    Interrupted = 130,
}

impl ExitCode {
    /// The status handed to the operating system.
    pub fn code(self) -> i32 {
        self as i32
    }
}
