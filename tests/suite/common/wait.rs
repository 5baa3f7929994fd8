//! Waiting for an event in a test: a condition polled until it holds. The
//! limit is there only so that a broken program fails the test instead of
//! hanging it; reaching it is a failure that names what never came, never
//! a fixed time after which the test carries on. Limits are minutes, so a
//! loaded machine (a newcomer's run at load 5 to 8) only makes the wait
//! longer.

use std::time::{Duration, Instant};

/// The first poll interval; it doubles up to [`LONGEST_INTERVAL`], so an
/// event on an idle machine is seen within milliseconds and a long wait
/// costs little.
const FIRST_INTERVAL: Duration = Duration::from_millis(5);
const LONGEST_INTERVAL: Duration = Duration::from_millis(100);

/// Polls `ready` until it gives a value, and returns it; `None` once
/// `limit` has passed without one (`ready` is asked once more after the
/// limit, so a slow poll cannot miss an event that came during it).
pub fn poll<T>(limit: Duration, mut ready: impl FnMut() -> Option<T>) -> Option<T> {
    let started = Instant::now();
    let mut interval = FIRST_INTERVAL;
    loop {
        let past_limit = started.elapsed() >= limit;
        if let Some(value) = ready() {
            return Some(value);
        }
        if past_limit {
            return None;
        }
        std::thread::sleep(interval);
        interval = (interval * 2).min(LONGEST_INTERVAL);
    }
}

/// Polls `ready` until it gives a value, and returns it; fails the test,
/// naming `what` was awaited, if `limit` passes first.
pub fn wait_until<T>(what: &str, limit: Duration, ready: impl FnMut() -> Option<T>) -> T {
    poll(limit, ready).unwrap_or_else(|| panic!("waited {limit:?} for {what}, in vain"))
}

/// Polls `holds` until it is true; fails the test, naming `what` was
/// awaited, if `limit` passes first.
pub fn wait_for(what: &str, limit: Duration, mut holds: impl FnMut() -> bool) {
    wait_until(what, limit, || holds().then_some(()));
}
