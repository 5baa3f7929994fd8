//! The order a plan's tasks are handed out in: runs of consecutive tasks
//! (which share their row sets' cells and caches), the runs stepped through
//! the plan so that the tasks done by any moment spread over all of it.

/// Consecutive tasks handed out together, in order: they share their row
/// sets' cells and caches.
pub(super) const SPREAD_RUN: u64 = 64;

/// Fewest runs a list of tasks is cut into: a short list (a shard of a few
/// hundred tasks) takes shorter runs, down to single tasks, so that its
/// tasks still spread over it. With runs of 64, the 374 tasks of
/// `count 22 -m d4 --shard 3/100` were five runs and a tail, each a fifth
/// of the plan, and the bar's ETA read 37% early at a fifth of the run.
/// Not more: `count 18 -j1` (24,310 `join` tasks) in runs of 23 took 1.04
/// and 1.10 of its time in runs of 64 (medians of 7, two rounds), its
/// neighbouring row sets no longer warm in the CPU's caches.
pub(super) const MIN_SPREAD_RUNS: u64 = 256;

/// The order tasks are handed out in: runs of consecutive tasks
/// (64, `SPREAD_RUN`, fewer in a short list), the runs stepped through the
/// plan by the golden ratio (run p is run p x a mod m, a the integer
/// nearest m / phi that is prime to m), so that the tasks done by any
/// moment are spread over the whole plan. Costs drift along a plan (early
/// `join` row sets are cheap), and the progress bar's ETA, the done share
/// of the tasks, then reads the share of the cost done. The last partial
/// run comes last.
#[derive(Clone, Copy, Debug)]
pub struct SpreadOrder {
    runs: u64,
    step: u64,
    run_len: u64,
}

impl SpreadOrder {
    /// The order of `len` tasks.
    pub fn new(len: u64) -> SpreadOrder {
        let run_len = (len / MIN_SPREAD_RUNS).clamp(1, SPREAD_RUN);
        SpreadOrder {
            run_len,
            ..SpreadOrder::of_runs(len / run_len)
        }
    }

    /// The order of `runs` whole runs, of any length (MPI's chunks): read
    /// with [`SpreadOrder::run_at`].
    pub fn of_runs(runs: u64) -> SpreadOrder {
        let nearest = (runs as f64 * 0.618_033_988_749_894_8).round() as u64;
        // The integer prime to `runs` nearest the golden step (1 is).
        let step = (0..runs)
            .flat_map(|offset| [nearest.saturating_sub(offset), nearest + offset])
            .find(|&step| step >= 1 && step < runs.max(2) && gcd(step, runs) == 1)
            .unwrap_or(1);
        SpreadOrder {
            runs,
            step,
            run_len: 1,
        }
    }

    /// Consecutive tasks a run of [`SpreadOrder::new`]'s order holds.
    pub fn run_len(self) -> u64 {
        self.run_len
    }

    /// The task handed out `k`th (below the length it was made for).
    pub fn at(self, k: u64) -> u64 {
        let (run, within) = (k / self.run_len, k % self.run_len);
        if run >= self.runs {
            return k;
        }
        self.run_at(run) * self.run_len + within
    }

    /// The run handed out `k`th (`k` itself past the whole runs).
    pub fn run_at(self, k: u64) -> u64 {
        if k >= self.runs {
            return k;
        }
        (u128::from(k) * u128::from(self.step) % u128::from(self.runs)) as u64
    }
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spread_order_hands_out_every_task_once() {
        for len in [0u64, 1, 63, 64, 65, 128, 1000, 4097, 92_504] {
            let order = SpreadOrder::new(len);
            let mut seen = vec![false; len as usize];
            for k in 0..len {
                let task = order.at(k);
                assert!(task < len && !seen[task as usize], "len {len}, k {k}");
                seen[task as usize] = true;
            }
        }
    }

    /// How many of the first tenth of `len` tasks handed out fall in each
    /// tenth of the plan.
    fn first_tenth_by_tenths(len: u64) -> [u64; 10] {
        let order = SpreadOrder::new(len);
        let mut per_tenth = [0u64; 10];
        for k in 0..len / 10 {
            per_tenth[(order.at(k) * 10 / len) as usize] += 1;
        }
        per_tenth
    }

    #[test]
    fn the_first_tasks_handed_out_spread_over_the_plan() {
        // The first tenth of the order puts about a tenth of its tasks in
        // every tenth of the plan; in id order they would all be in the
        // first.
        let len = 92_504u64;
        for (tenth, &count) in first_tenth_by_tenths(len).iter().enumerate() {
            assert!(
                (len / 1000 * 7..=len / 1000 * 13).contains(&count),
                "tenth {tenth}: {count} of {}",
                len / 10
            );
        }
        // Runs of consecutive tasks stay together.
        let order = SpreadOrder::new(len);
        assert_eq!(order.run_len(), SPREAD_RUN);
        for k in (0..len / SPREAD_RUN * SPREAD_RUN).step_by(SPREAD_RUN as usize) {
            let start = order.at(k);
            assert_eq!(start % SPREAD_RUN, 0);
            assert!((1..SPREAD_RUN).all(|i| order.at(k + i) == start + i));
        }
    }

    #[test]
    fn a_short_list_spreads_too() {
        // A shard's few hundred tasks: with runs of 64 the first tenth
        // handed out all lay in the first fifth of the list.
        for len in [374u64, 1_000, 5_000] {
            // Within half the share of a tenth, give or take a run.
            let expected = len / 100;
            let slack = expected / 2 + (len / MIN_SPREAD_RUNS).max(1);
            for (tenth, &count) in first_tenth_by_tenths(len).iter().enumerate() {
                assert!(
                    count.abs_diff(expected) <= slack,
                    "len {len}, tenth {tenth}: {count} where about {expected}"
                );
            }
            let order = SpreadOrder::new(len);
            assert!(
                len / order.run_len() >= MIN_SPREAD_RUNS.min(len),
                "len {len}"
            );
        }
    }
}
