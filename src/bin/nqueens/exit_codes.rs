//! Every exit status the program uses, named, and the ends a signal takes
//! while the count's threads still run (so `main` cannot return).

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

/// Ends the process now with `code`: for a stop whose tasks in flight
/// outlast the grace, and a second signal (the count's threads are still
/// running, so `main` cannot return).
pub fn end_now(code: ExitCode) -> ! {
    std::process::exit(code.code())
}

/// Ends every rank of an MPI job now with `code` (a stop past its grace,
/// once rank 0 has synced its journal).
#[cfg(feature = "mpi")]
pub fn abort_job(code: ExitCode) -> ! {
    use mpi::topology::{Communicator, SimpleCommunicator};
    SimpleCommunicator::world().abort(code.code())
}
