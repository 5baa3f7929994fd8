//! Progress bars on stderr. The engine only calls a hook per finished task;
//! everything about terminals stays here.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::args::ProgressMode;

/// Redraws per second: often enough to look alive, rare enough to cost nothing.
const REFRESH_HZ: u8 = 8;

/// A task bar for one count, drawn according to `mode` (hidden when off).
pub fn task_bar(mode: ProgressMode, label: String) -> ProgressBar {
    let target = match mode {
        ProgressMode::Never => ProgressDrawTarget::hidden(),
        // Hidden by indicatif itself when stderr is not a terminal.
        ProgressMode::Auto => ProgressDrawTarget::stderr_with_hz(REFRESH_HZ),
        // A TermLike target skips indicatif's terminal check.
        ProgressMode::Always => {
            ProgressDrawTarget::term_like_with_hz(Box::new(console::Term::stderr()), REFRESH_HZ)
        }
    };
    let bar = ProgressBar::with_draw_target(None, target);
    let style = ProgressStyle::with_template(
        "{prefix} [{elapsed_precise}] {bar:30} {pos}/{len} tasks ({per_sec}, ETA {eta})",
    )
    .expect("the progress template is valid");
    bar.set_style(style);
    bar.set_prefix(label);
    bar
}

/// The benchmark's progress line: runs done, current thread count, elapsed.
/// Hidden with `quiet` or when stderr is not a terminal.
pub fn bench_bar(quiet: bool) -> ProgressBar {
    let target = if quiet {
        ProgressDrawTarget::hidden()
    } else {
        ProgressDrawTarget::stderr_with_hz(REFRESH_HZ)
    };
    let bar = ProgressBar::with_draw_target(None, target);
    let style =
        ProgressStyle::with_template("bench [{elapsed_precise}] {bar:30} {pos}/{len} runs ({msg})")
            .expect("the progress template is valid");
    bar.set_style(style);
    bar
}
