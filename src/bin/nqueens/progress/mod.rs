//! Progress bars on stderr. The engine only calls a hook per finished task;
//! everything about terminals stays here.

mod finding;
mod weights;

use std::fmt;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressFinish, ProgressState, ProgressStyle};

use crate::args::ProgressMode;
use crate::output::{human_duration, si_three_digits};

pub use finding::RowClock;
use weights::weighted_eta;
pub use weights::{task_finished, weigh_tasks};

/// Redraws per second: often enough to look alive, rare enough to cost nothing.
const REFRESH_HZ: u8 = 8;

/// Where this run's own work started (when, and how many tasks were
/// already done): rate and ETA count from it, so a resumed count's earlier
/// tasks do not pass for this run's speed. One count's bar is shown at a
/// time.
pub(crate) static SESSION: Mutex<Option<(Instant, u64)>> = Mutex::new(None);

/// A bar for one count, drawn according to `mode` (hidden when off). It
/// starts as a phase line with a running clock ("building the plan") until
/// [`begin_tasks`] turns it into the task bar.
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
    let hidden = target.is_hidden();
    // Cleared when dropped: an error ends the count without a stale line.
    let bar = ProgressBar::with_draw_target(None, target).with_finish(ProgressFinish::AndClear);
    let style = ProgressStyle::with_template("{prefix} [{elapsed_precise}] {msg}")
        .expect("the phase template is valid");
    bar.set_style(style);
    bar.set_prefix(label);
    bar.set_message("building the plan");
    if !hidden {
        // The clock moves even while no task has finished yet.
        bar.enable_steady_tick(Duration::from_millis(250));
    }
    bar
}

/// Turns `bar` into the task bar: `len` tasks in all, `done` of them
/// finished by earlier runs (a resumed checkpoint).
pub fn begin_tasks(bar: &ProgressBar, len: u64, done: u64) {
    *SESSION.lock().unwrap_or_else(|p| p.into_inner()) = Some((Instant::now(), done));
    let style = ProgressStyle::with_template(
        "{prefix} [{elapsed_precise}] {bar:30} {pos}/{len} tasks ({session_rate}, ETA {session_eta})",
    )
    .expect("the progress template is valid")
    .with_key("session_rate", |state: &ProgressState, out: &mut dyn fmt::Write| {
        let text = session_rate(state).map_or("-".to_string(), |rate| {
            format!("{} tasks/s", si_three_digits(rate))
        });
        let _ = out.write_str(&text);
    })
    .with_key("session_eta", |state: &ProgressState, out: &mut dyn fmt::Write| {
        let text = match (weighted_eta(), session_rate(state), state.len()) {
            (Some(eta), _, _) => human_duration(eta),
            (None, Some(rate), Some(len)) if rate > 0.0 => {
                human_duration(len.saturating_sub(state.pos()) as f64 / rate)
            }
            _ => "?".to_string(),
        };
        let _ = out.write_str(&text);
    });
    bar.set_length(len);
    bar.set_position(done);
    bar.set_style(style);
}

/// Tasks per second this run, from its own finished tasks; `None` before
/// the first.
fn session_rate(state: &ProgressState) -> Option<f64> {
    let (start, done_before) = (*SESSION.lock().unwrap_or_else(|p| p.into_inner()))?;
    let done = state
        .pos()
        .checked_sub(done_before)
        .filter(|&done| done > 0)?;
    let seconds = start.elapsed().as_secs_f64();
    (seconds > 0.0).then(|| done as f64 / seconds)
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
