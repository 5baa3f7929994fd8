//! SIGINT and SIGTERM: the first asks the count to stop after the tasks in
//! flight, a second exits at once.

use std::sync::atomic::{AtomicBool, Ordering};

use crate::exit_codes::ExitCode;

/// Set by the SIGINT/SIGTERM handler: stop handing out tasks.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Installs the handler: the first signal asks the run to stop after the
/// tasks in flight; a second one exits at once (every finished task is
/// already in the journal).
pub fn install_handler() {
    let _ = ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            std::process::exit(ExitCode::Interrupted.code());
        }
    });
}
