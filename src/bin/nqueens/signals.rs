//! SIGINT and SIGTERM: the first stops the count within [`STOP_GRACE`]
//! (finished tasks kept, tasks in flight abandoned if they would take
//! longer), a second exits at once.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::exit_codes::ExitCode;

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
            eprintln!("\nsecond signal: exiting now");
            std::process::exit(ExitCode::Interrupted.code());
        }
    });
}

/// Watches a count while `running` is true: on the first signal sets
/// `stop` and says at once what happens (`say`, with the tasks in flight
/// from `in_flight`); if the count has not ended within [`STOP_GRACE`],
/// calls `abandon` (which keeps what must be kept and says how to go on)
/// and exits with status 130. Run it in a thread beside the count.
pub fn watch(
    running: &AtomicBool,
    stop: &AtomicBool,
    in_flight: &dyn Fn() -> u64,
    say: &dyn Fn(String),
    abandon: &dyn Fn(u64),
) {
    while !INTERRUPTED.load(Ordering::SeqCst) {
        if !running.load(Ordering::SeqCst) {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    stop.store(true, Ordering::SeqCst);
    say(format!(
        "stopping: {} task(s) in flight get {:.1} s to finish, then are abandoned (a second signal exits at once)",
        in_flight(),
        STOP_GRACE.as_secs_f64()
    ));
    let deadline = Instant::now() + STOP_GRACE;
    while Instant::now() < deadline {
        if !running.load(Ordering::SeqCst) {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    abandon(in_flight());
    std::process::exit(ExitCode::Interrupted.code());
}

/// Runs `setup` (building the plan, opening the journal: seconds at large
/// N) so that a signal during it ends the process at once, with `say`
/// called first: nothing has been counted yet, so nothing can be lost.
pub fn answered_during<T: Send>(say: &(dyn Fn() + Sync), setup: impl FnOnce() -> T) -> T {
    let done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while !done.load(Ordering::SeqCst) {
                if INTERRUPTED.load(Ordering::SeqCst) {
                    say();
                    std::process::exit(ExitCode::Interrupted.code());
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        });
        let value = setup();
        done.store(true, Ordering::SeqCst);
        value
    })
}
