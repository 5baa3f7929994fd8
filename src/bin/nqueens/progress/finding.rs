//! The line `list --nth` shows while it fixes rows: the row being
//! counted, its share done and, once that says enough, its time left.

use std::sync::Mutex;
use std::time::Instant;

use crate::output::human_duration;

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
        format!(", {} left", human_duration(seconds * (1.0 - share) / share))
    } else {
        String::new()
    };
    format!("{fixed}, row {row} {percent}% counted{left}")
}

#[cfg(test)]
mod tests {
    use super::*;

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
            "finding: 0 of 20 rows fixed, row 1 25% counted, 3.00 min left"
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
}
