//! What a caller of the library can get wrong, one variant per mistake, each
//! with a message that says what was wrong and what is accepted.

use thiserror::Error;

use crate::units::human_bytes;

/// Errors of the counting library.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The board size is outside what the kernel supports.
    #[error("N = {n} is out of range: N must be from {min} to {max}")]
    BoardSizeOutOfRange {
        /// The size asked for.
        n: u64,
        /// Smallest accepted size.
        min: u32,
        /// Largest accepted size.
        max: u32,
    },
    /// The split depth would give an unreasonably large plan.
    #[error(
        "split depth {depth} is too deep for N = {n} (more than {limit} tasks, or too long to expand): use a smaller split depth, or the automatic one"
    )]
    SplitTooDeep {
        /// Board size.
        n: u32,
        /// Depth asked for.
        depth: u32,
        /// Largest number of tasks a plan may hold.
        limit: usize,
    },
    /// A split depth deeper than the board.
    #[error("split depth {depth} is out of range: for N = {n} it must be from 0 to {deepest}")]
    SplitDeeperThanBoard {
        /// Board size.
        n: u32,
        /// Depth asked for.
        depth: u32,
        /// Deepest split accepted for this N.
        deepest: u32,
    },
    /// A count by `method` would not fit in memory.
    #[error(
        "the {method} method needs {} for N = {n} on these threads, but the memory limit is {}: count with fewer threads or with {instead} (little memory), or raise the limit",
        human_bytes(*needed),
        human_bytes(*limit)
    )]
    TooBig {
        /// The name of the method that would not fit.
        method: &'static str,
        /// Board size.
        n: u32,
        /// Bytes the count needs at its peak.
        needed: u64,
        /// Bytes allowed.
        limit: u64,
        /// The name of the method that counts in little memory, suggested
        /// instead.
        instead: &'static str,
    },
    /// A board too large for `method` at all.
    #[error(
        "the {method} method counts N up to {max}, not {n}: count larger boards with {instead}"
    )]
    TooLarge {
        /// The name of the method whose range ends below `n`.
        method: &'static str,
        /// Board size.
        n: u32,
        /// Largest N accepted.
        max: u32,
        /// The name of the method that counts boards this large, suggested
        /// instead.
        instead: &'static str,
    },
    /// Zero worker threads.
    #[error("the thread count must be at least 1")]
    ZeroThreads,
    /// The method name is not one this build knows.
    #[error("unknown method '{name}': accepted methods are {accepted}")]
    UnknownMethod {
        /// The name given.
        name: String,
        /// The names accepted, comma-separated.
        accepted: String,
    },
    /// A benchmark needs a known answer to check every run against.
    #[error("no published count for N = {n}: bench needs N from 1 to {largest}, whose counts are published")]
    NoPublishedCount {
        /// Board size.
        n: u32,
        /// The largest N with a published count.
        largest: u32,
    },
    /// A benchmark with no timed runs.
    #[error("the number of runs must be at least 1")]
    NoRuns,
    /// An estimate asked to time no task at all.
    #[error("the sample must hold at least 1 task")]
    EmptySample,
    /// An estimate stopped before any task of its sample was timed.
    #[error("the estimate was stopped before any task was timed")]
    NothingTimed,
    /// A benchmark run counted a different number than expected.
    #[error("WRONG COUNT with {threads} threads: N = {n} counted {counted}, expected {expected}")]
    WrongCount {
        /// Board size.
        n: u32,
        /// Threads of the failing run.
        threads: usize,
        /// What the run counted.
        counted: u128,
        /// What it should have counted.
        expected: u128,
    },
    /// A cross-check was asked of a plan whose method has no second
    /// code path: `method` names the one that has
    /// ([`Method::cross_checked`](crate::Method::cross_checked)), counting
    /// N in `min..=max`.
    #[error("the cross-check recounts {method} tasks, but N = {n} is not counted with {method} here: it takes N from {min} to {max} with memory for the {method} (see --max-memory)")]
    CrossCheckNeeds {
        /// The name of the method whose tasks the cross-check counts again.
        method: &'static str,
        /// Board size.
        n: u32,
        /// Smallest N that method counts.
        min: u32,
        /// Largest N that method counts.
        max: u32,
    },
    /// MPI failed or the ranks disagree.
    #[error("MPI: {0}")]
    Mpi(String),

    /// A checkpoint journal cannot be used (MPI counts open it here).
    #[error(transparent)]
    Checkpoint(#[from] JournalError),

    /// An environment variable that steers the searches has a value they
    /// do not accept; the message names it and what is accepted.
    #[error("{0}")]
    Environment(String),
    /// Rayon could not start its threads.
    #[error("could not start {threads} worker threads: {reason}")]
    ThreadPool {
        /// Threads asked for.
        threads: usize,
        /// What the system said.
        reason: String,
    },
}

/// At most `chars` characters of `text`, escaped: what a message quotes of
/// input it refuses, so that no control byte reaches a terminal and no
/// huge value fills it.
pub fn excerpt(text: &str, chars: usize) -> String {
    let mut short: String = text.chars().take(chars).collect();
    if short.len() < text.len() {
        short.push_str("...");
    }
    short.escape_debug().to_string()
}

/// Why a journal cannot be used.
/// (Defined here, beside [`enum@Error`] that wraps it, and re-exported as
/// `run::journal::JournalError`: the error types sit below every layer.)
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum JournalError {
    /// The file could not be read or written.
    #[error("checkpoint {path}: {reason}")]
    Io {
        /// The journal.
        path: String,
        /// What the system said.
        reason: String,
    },
    /// The file is not a journal, or its header is damaged.
    #[error("checkpoint {path} is not an nqueens journal or its header is damaged: {reason}")]
    BadHeader {
        /// The journal.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The journal belongs to another plan.
    #[error("checkpoint {path} is for {found}, but this run is {expected} ({differing}): use another file or the matching options")]
    Foreign {
        /// The journal.
        path: String,
        /// The fields that differ, with both values.
        differing: String,
        /// The plan of this run.
        expected: String,
        /// The plan the journal records.
        found: String,
    },
    /// The path is a device, a pipe or a directory.
    #[error("checkpoint {path} is not a regular file (a checkpoint is a file of its own, not a device, pipe or directory)")]
    NotRegular {
        /// The path.
        path: String,
    },
    /// Another process is counting into the journal now.
    #[error("checkpoint {path} is in use by {holder}; wait for it to finish or stop it first")]
    InUse {
        /// The journal.
        path: String,
        /// Who holds it, as far as the system tells.
        holder: String,
    },
    /// The journal cannot be written, and the count it records is not
    /// finished.
    #[error("checkpoint {path} is read-only and its count is not finished ({finished} of {tasks} tasks); make it writable to go on")]
    ReadOnly {
        /// The journal.
        path: String,
        /// Tasks it records.
        finished: usize,
        /// Tasks in the plan.
        tasks: u64,
    },
    /// One task is recorded twice with different counts.
    #[error("checkpoint {path} records task {task} twice with different counts ({first}; {second}); one of them is wrong: compare against another run, or delete the file to count again")]
    Conflict {
        /// The journal.
        path: String,
        /// The task.
        task: u64,
        /// Its first record.
        first: String,
        /// The record that disagrees.
        second: String,
    },
    /// A line before the last is damaged.
    #[error("checkpoint {path} is damaged at line {line} ({reason}); refusing to trust it (to resume from the {whole_bytes} bytes of whole lines before it: head -c {whole_bytes} {path} > KEPT)")]
    Corrupt {
        /// The journal.
        path: String,
        /// Line number, from 1.
        line: usize,
        /// What is wrong.
        reason: String,
        /// Bytes of whole lines before it.
        whole_bytes: u64,
    },
}
