//! Progress bars on stderr. The engine only calls a hook per finished task;
//! everything about terminals stays here.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, RwLock};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressFinish, ProgressState, ProgressStyle};

use nqueens::plan::estimate_costs;
use nqueens::Plan;

use crate::args::ProgressMode;

/// Redraws per second: often enough to look alive, rare enough to cost nothing.
const REFRESH_HZ: u8 = 8;

/// Where this run's own work started (when, and how many tasks were
/// already done): rate and ETA count from it, so a resumed count's earlier
/// tasks do not pass for this run's speed. One count's bar is shown at a
/// time.
static SESSION: Mutex<Option<(Instant, u64)>> = Mutex::new(None);

/// Rows below a task's prefix whose queens weigh it for the ETA: `d4`
/// tasks differ in cost a hundredfold, and at N = 17 (tasks in plan order)
/// weights from two rows put the worst ETA error at 16% where equal
/// weights had 28%; `mirror` read alike either way (30% at a tenth of the
/// tasks, 1% at 90%), and `join` tasks weigh 1 each. (Measured with the
/// tasks handed out in id order; they are now spread over the plan, see
/// `nqueens::run::engine::SpreadOrder`, which evens out the drift of
/// costs along it.)
const WEIGHT_ROWS: u32 = 2;

/// The ETA's weights: each task's estimated cost by id, and the total of
/// the tasks this run has to do.
struct Weights {
    costs: Vec<u32>,
    to_do: u64,
}

static WEIGHTS: RwLock<Option<Weights>> = RwLock::new(None);

/// Estimated cost of the tasks this run finished so far.
static DONE_COST: AtomicU64 = AtomicU64::new(0);

/// Weighs the ETA of `bar` by each task's estimated cost ([`WEIGHT_ROWS`]
/// rows below its prefix) where the plan's tasks differ (`mirror`, `d4`),
/// over the tasks `to_do` says this run will count. Not computed for a
/// hidden bar.
pub fn weigh_tasks(bar: &ProgressBar, plan: &Plan, to_do: &dyn Fn(&nqueens::Task) -> bool) {
    let mut weights = WEIGHTS.write().unwrap_or_else(|p| p.into_inner());
    *weights = None;
    DONE_COST.store(0, Ordering::Relaxed);
    if bar.is_hidden() || !plan.costs_are_cheap() {
        return;
    }
    let costs: Vec<u32> = estimate_costs(plan, WEIGHT_ROWS)
        .into_iter()
        .map(|cost| u32::try_from(cost.max(1)).unwrap_or(u32::MAX))
        .collect();
    let to_do = plan
        .tasks
        .iter()
        .filter(|task| to_do(task))
        .map(|task| u64::from(costs[task.id as usize]))
        .sum();
    *weights = Some(Weights { costs, to_do });
}

/// Counts task `id`'s weight as done in this run.
pub fn task_finished(id: u64) {
    let weights = WEIGHTS.read().unwrap_or_else(|p| p.into_inner());
    if let Some(cost) = weights.as_ref().and_then(|w| w.costs.get(id as usize)) {
        DONE_COST.fetch_add(u64::from(*cost), Ordering::Relaxed);
    }
}

/// Seconds left by the weights, once this run has finished a task.
fn weighted_eta() -> Option<f64> {
    let (start, _) = (*SESSION.lock().unwrap_or_else(|p| p.into_inner()))?;
    let weights = WEIGHTS.read().unwrap_or_else(|p| p.into_inner());
    let to_do = weights.as_ref()?.to_do as f64;
    let done = DONE_COST.load(Ordering::Relaxed) as f64;
    let seconds = start.elapsed().as_secs_f64();
    (done > 0.0 && seconds > 0.0).then(|| (to_do - done).max(0.0) * seconds / done)
}

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
            format!("{} tasks/s", three_digits(rate))
        });
        let _ = out.write_str(&text);
    })
    .with_key("session_eta", |state: &ProgressState, out: &mut dyn fmt::Write| {
        let text = match (weighted_eta(), session_rate(state), state.len()) {
            (Some(eta), _, _) => duration_text(eta),
            (None, Some(rate), Some(len)) if rate > 0.0 => {
                duration_text(len.saturating_sub(state.pos()) as f64 / rate)
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

/// `value` with three significant digits, and k, M or G past a thousand.
pub fn three_digits(value: f64) -> String {
    let (scaled, unit) = match value {
        v if v >= 1e9 => (v / 1e9, "G"),
        v if v >= 1e6 => (v / 1e6, "M"),
        v if v >= 1e3 => (v / 1e3, "k"),
        v => (v, ""),
    };
    format!("{}{unit}", crate::output::three_digits(scaled))
}

/// A duration for people: "45s", "12m 05s", "3h 20m", "2d 04h".
fn duration_text(seconds: f64) -> String {
    let seconds = seconds.round() as u64;
    match seconds {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m {:02}s", s / 60, s % 60),
        s if s < 86_400 => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
        s => format!("{}d {:02}h", s / 86_400, s % 86_400 / 3600),
    }
}

/// When the row `list --nth` is counting began, to tell a person how long
/// it has left: the first row alone is minutes at N = 20.
pub struct RowClock {
    started: Mutex<(u32, Instant)>,
}

/// Share of a row done before its time left is guessed: the first
/// finished row sets or subtrees say little.
const ROW_GUESS_FROM: f64 = 0.05;

impl Default for RowClock {
    fn default() -> RowClock {
        RowClock {
            started: Mutex::new((0, Instant::now())),
        }
    }
}

impl RowClock {
    /// The line's message for `progress` on the `n` board, timing the
    /// row being counted from the first progress heard for it.
    pub fn text(&self, n: u32, progress: nqueens::NthProgress) -> String {
        let mut started = self.started.lock().unwrap_or_else(|p| p.into_inner());
        if started.0 != progress.rows_fixed {
            *started = (progress.rows_fixed, Instant::now());
        }
        finding_text(n, progress, started.1.elapsed().as_secs_f64())
    }
}

/// "finding: F of N rows fixed, row K NN% counted, T left" while row K
/// is counted `seconds` so far (the time left guessed from this row's own
/// pace, once [`ROW_GUESS_FROM`] of it is done); without the row as a
/// row is decided. With the bar's prefix and clock it fits 80 columns.
fn finding_text(n: u32, progress: nqueens::NthProgress, seconds: f64) -> String {
    let fixed = format!("finding: {} of {n} rows fixed", progress.rows_fixed);
    let share = progress.next_row_done;
    if share <= 0.0 {
        return fixed;
    }
    let row = progress.rows_fixed + 1;
    let percent = (share * 100.0).floor();
    let left = if (ROW_GUESS_FROM..1.0).contains(&share) {
        format!(", {} left", duration_text(seconds * (1.0 - share) / share))
    } else {
        String::new()
    };
    format!("{fixed}, row {row} {percent}% counted{left}")
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

#[cfg(test)]
mod tests {
    use super::*;
    use nqueens::Method;

    #[test]
    fn the_eta_weighs_tasks_by_their_estimated_cost() {
        // A drawn bar (a terminal-like target is never hidden).
        let bar = ProgressBar::with_draw_target(
            None,
            ProgressDrawTarget::term_like(Box::new(console::Term::buffered_stderr())),
        );
        let plan = Plan::build(12, Method::D4, nqueens::SplitDepth::Auto).unwrap();
        let costs = estimate_costs(&plan, WEIGHT_ROWS);
        // A resumed run: the even tasks are done already.
        weigh_tasks(&bar, &plan, &|task| task.id % 2 == 1);
        let to_do: u64 = costs.iter().skip(1).step_by(2).map(|&c| c.max(1)).sum();
        let weights = WEIGHTS.read().unwrap().as_ref().map(|w| w.to_do);
        assert_eq!(weights, Some(to_do));
        assert!(
            costs.iter().max() > costs.iter().min(),
            "tasks differ in cost"
        );
        task_finished(3);
        assert_eq!(DONE_COST.load(Ordering::Relaxed), costs[3].max(1));
        // Join tasks weigh alike: the ETA counts tasks.
        let join = Plan::build(12, Method::Join, nqueens::SplitDepth::Auto).unwrap();
        weigh_tasks(&bar, &join, &|_| true);
        assert!(WEIGHTS.read().unwrap().is_none());
        assert_eq!(DONE_COST.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn a_row_being_counted_shows_its_share_and_then_its_time_left() {
        let progress = |rows_fixed, next_row_done| nqueens::NthProgress {
            rows_fixed,
            next_row_done,
        };
        assert_eq!(
            finding_text(20, progress(0, 0.0), 0.0),
            "finding: 0 of 20 rows fixed"
        );
        assert_eq!(
            finding_text(20, progress(0, 0.01), 3.0),
            "finding: 0 of 20 rows fixed, row 1 1% counted"
        );
        assert_eq!(
            finding_text(20, progress(0, 0.25), 60.0),
            "finding: 0 of 20 rows fixed, row 1 25% counted, 3m 00s left"
        );
        assert_eq!(
            finding_text(20, progress(2, 1.0), 60.0),
            "finding: 2 of 20 rows fixed, row 3 100% counted"
        );
        // The widest lines, with the bar's prefix and clock: N = 32 and
        // guesses of years.
        for (share, seconds) in [(0.05, 1e7), (0.999, 1e9), (0.5, 86_399.0)] {
            let line = format!(
                "N=32 [99:59:59] {}",
                finding_text(32, progress(31, share), seconds)
            );
            assert!(line.len() <= 80, "{} columns: {line}", line.len());
        }
        // The clock restarts as a row is decided.
        let clock = RowClock::default();
        assert_eq!(
            clock.text(20, progress(0, 0.01)),
            "finding: 0 of 20 rows fixed, row 1 1% counted"
        );
        assert_eq!(
            clock.text(20, progress(1, 0.0)),
            "finding: 1 of 20 rows fixed"
        );
        assert_eq!(clock.started.lock().unwrap().0, 1);
    }

    #[test]
    fn rates_have_three_significant_digits() {
        assert_eq!(three_digits(4143.8288), "4.14k");
        assert_eq!(three_digits(0.5), "0.50");
        assert_eq!(three_digits(12.345), "12.3");
        assert_eq!(three_digits(999.9), "1000");
        assert_eq!(three_digits(123_456_789.0), "123M");
        assert_eq!(three_digits(9.996e9), "10.0G");
    }

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(duration_text(45.2), "45s");
        assert_eq!(duration_text(725.0), "12m 05s");
        assert_eq!(duration_text(12_000.0), "3h 20m");
        assert_eq!(duration_text(187_200.0), "2d 04h");
    }
}
