//! SIGINT and SIGTERM: the first stops the count within [`STOP_GRACE`]
//! (finished tasks kept, tasks in flight abandoned if they would take
//! longer), a second exits at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use nqueens::run::stop::{Abandoned, StopGrace};
use nqueens::run::tracked::{Tracked, TrackedOutcome, Watch};
use nqueens::run::workers::WorkerFailure;
use nqueens::TaskOutcome;

use crate::commands::gpu::{failure_line, Devices};

use crate::exit_codes::{end_now, ExitCode};
use crate::resume::{resume_line, NOTHING_SAVED};

/// Set by the SIGINT/SIGTERM handler: stop handing out tasks.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// How long the tasks in flight get to finish after the first signal
/// before they are abandoned: depth-first tasks of large N take minutes,
/// and a person waiting for a prompt should not.
pub const STOP_GRACE: Duration = Duration::from_millis(1500);

/// [`STOP_GRACE`] under MPI: Open MPI's `mpirun` passes a signal on to the
/// ranks and kills them 1 s later (`odls_base_sigkill_timeout`), so rank 0
/// must have synced its journal and said how to resume before then.
#[cfg(feature = "mpi")]
pub const MPI_STOP_GRACE: Duration = Duration::from_millis(500);

/// When the first signal came.
static FIRST_SIGNAL: OnceLock<Instant> = OnceLock::new();

/// Set once a count journals its tasks: a second signal's exit then says
/// how to resume, as the first's does.
static SAVED_ON_EXIT: AtomicBool = AtomicBool::new(false);

/// Says that finished tasks are in a checkpoint from now on.
pub fn saved_on_exit() {
    SAVED_ON_EXIT.store(true, Ordering::SeqCst);
}

/// Installs the handler: the first signal asks the run to stop; a second
/// one exits at once (every finished task is already in the journal).
pub fn install_handler() {
    install_handler_ignoring_repeats(Duration::ZERO);
}

/// [`install_handler`], where a signal within `window` of the first is
/// taken as a repeat of it: `mpirun` may pass a stop on to a rank more
/// than once, and rank 0 must stay to journal what the others finished.
pub fn install_handler_ignoring_repeats(window: Duration) {
    let _ = ctrlc::set_handler(move || {
        let first = *FIRST_SIGNAL.get_or_init(Instant::now);
        if INTERRUPTED.swap(true, Ordering::SeqCst) && first.elapsed() >= window {
            // The line the first message or the bar left open is ended.
            if SAVED_ON_EXIT.load(Ordering::SeqCst) {
                eprintln!(
                    "\nsecond signal: exiting now; the finished tasks are in the checkpoint; {}",
                    resume_line(false)
                );
            } else {
                eprintln!("\nsecond signal: exiting now");
            }
            end_now(ExitCode::Interrupted);
        }
    });
}

/// How a count stopped by a signal ends when tasks are in flight, as
/// `--mpi` or not: the grace, the line said at once, and the lines said
/// past the grace before the process (or the MPI job) ends.
pub struct Stopping<'a> {
    /// Clears the progress bar before a line is said.
    pub clear: &'a (dyn Fn() + Sync),
    /// Says a line above the progress bar.
    pub say: &'a (dyn Fn(String) + Sync),
    /// `Some(n)` for a count of one N without a journal.
    pub board: Option<u32>,
    /// Whether the count runs under `mpirun`.
    pub mpi: bool,
}

impl Stopping<'_> {
    /// The grace: [`STOP_GRACE`], or [`MPI_STOP_GRACE`] under MPI.
    pub fn grace(&self) -> Duration {
        #[cfg(feature = "mpi")]
        if self.mpi {
            return MPI_STOP_GRACE;
        }
        STOP_GRACE
    }

    /// Calls `body` with this stopping as the library takes it.
    pub fn with_grace<T>(&self, body: impl FnOnce(&StopGrace<'_>) -> T) -> T {
        let told = |in_flight, grace| self.stopping(in_flight, grace);
        let abandon = |abandoned: &Abandoned| self.abandon(abandoned);
        body(&StopGrace {
            grace: self.grace(),
            stopping: &told,
            abandon: &abandon,
        })
    }

    /// Runs `tracked` until done or stopped by a signal, telling `on_task`
    /// of every task finished; `devices` count beside the CPU threads.
    pub fn run(
        &self,
        tracked: Tracked,
        on_task: &(dyn Fn(&TaskOutcome) + Sync),
        devices: &Devices,
    ) -> Result<TrackedOutcome, nqueens::Error> {
        let workers = devices.workers();
        let on_failed = |failure: &WorkerFailure| (self.say)(failure_line(failure));
        self.with_grace(|grace| {
            tracked.run(&Watch {
                on_task,
                stop: &INTERRUPTED,
                grace: Some(grace),
                workers: &workers,
                on_worker_failed: Some(&on_failed),
                workers_only: devices.alone,
            })
        })
    }

    /// What is said at once on a stop.
    pub fn stopping(&self, in_flight: Option<u64>, grace: Duration) {
        let who = in_flight.map_or_else(
            || "tasks in flight on every rank get".to_string(),
            |count| format!("{count} task(s) in flight get"),
        );
        let second = if self.mpi {
            ""
        } else {
            " (a second signal exits at once)"
        };
        (self.say)(format!(
            "stopping: {who} {:.1} s to finish, then are abandoned{second}",
            grace.as_secs_f64()
        ));
    }

    /// What is said past the grace; then the process (every rank) ends.
    pub fn abandon(&self, abandoned: &Abandoned) {
        (self.clear)();
        let in_flight = abandoned.in_flight.map_or_else(
            || "tasks in flight abandoned".to_string(),
            |count| format!("{count} in flight abandoned"),
        );
        let line = match (&abandoned.journal, abandoned.counted, self.board) {
            (Some(Ok(())), counted, _) => format!(
                "interrupted: {} of {} tasks counted and saved, {in_flight} (counted again on resume); {}",
                counted.unwrap_or(0),
                abandoned.tasks,
                resume_line(self.mpi)
            ),
            (Some(Err(err)), counted, _) => format!(
                "interrupted: {} of {} tasks counted, {in_flight}; the checkpoint could not be synced ({err}): it may hold fewer",
                counted.unwrap_or(0),
                abandoned.tasks
            ),
            (None, _, Some(n)) => {
                format!("interrupted: N = {n} not finished, {in_flight}{NOTHING_SAVED}")
            }
            (None, Some(counted), None) => format!(
                "interrupted: {counted} of {} tasks counted, {in_flight}{NOTHING_SAVED}",
                abandoned.tasks
            ),
            (None, None, None) => format!("interrupted: {in_flight}{NOTHING_SAVED}"),
        };
        eprintln!("{line}");
        #[cfg(feature = "mpi")]
        if self.mpi {
            crate::exit_codes::abort_job(ExitCode::Interrupted);
        }
        end_now(ExitCode::Interrupted);
    }

    /// The line a count stopped within the grace ends with: `counted` of
    /// `tasks`, the cost so far, and whether a journal `saved` them.
    pub fn stopped(&self, counted: u64, tasks: u64, cost: &str, saved: bool) -> String {
        match (saved, self.board) {
            (true, _) => format!(
                "interrupted: {counted} of {tasks} tasks counted{cost} and saved; {}",
                resume_line(self.mpi)
            ),
            (false, Some(n)) => format!("interrupted: N = {n} not finished{NOTHING_SAVED}"),
            (false, None) => {
                format!("interrupted: {counted} of {tasks} tasks counted{cost}{NOTHING_SAVED}")
            }
        }
    }
}

/// Runs `setup` (building the plan, opening the journal: seconds at large
/// N) so that a signal during it ends the process at once, with `say`
/// called first: nothing has been counted yet, so nothing can be lost.
pub fn answered_during<T: Send>(say: &(dyn Fn() + Sync), setup: impl FnOnce() -> T) -> T {
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let watcher = scope.spawn(|| {
            while !done.load(Ordering::SeqCst) {
                if INTERRUPTED.load(Ordering::SeqCst) {
                    say();
                    end_now(ExitCode::Interrupted);
                }
                std::thread::park_timeout(Duration::from_millis(10));
            }
        });
        let value = setup();
        done.store(true, Ordering::SeqCst);
        // Woken at once: a count of milliseconds does not wait out a poll.
        watcher.thread().unpark();
        value
    })
}

/// For a command that saves nothing (an estimate, a search, a benchmark,
/// a cross-check): installs the handler and runs `body` so that a signal
/// ends the process at once, `say` called first.
pub fn ended_at_once_by_a_signal<T: Send>(say: &(dyn Fn() + Sync), body: impl FnOnce() -> T) -> T {
    install_handler();
    answered_during(say, body)
}
