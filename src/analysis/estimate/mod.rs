//! What a count will cost, before it starts: a random sample of the plan's
//! tasks is timed and scaled up to the whole plan.
//!
//! The sample is stratified over the task order (one task drawn from each
//! of K equal runs of ids), because neighbouring tasks cost alike and the
//! cost drifts along the plan. A task with more than 16 (`PROBE_ROWS_LEFT`)
//! rows below its prefix would take too long to time (a `d4` task of
//! N = 28 is days of work), so it is probed instead: from its prefix, one
//! random open square per row down to that depth, and the subtree reached
//! is timed and weighted by the product of the branching factors on the
//! way (Knuth's estimator of a tree's size, applied to time). Either way
//! each sampled task yields an unbiased estimate of its own cost. The 95%
//! interval is the normal one, its error the wider of the sample's and
//! the batch means' (which sees the machine's speed drift while the
//! sample runs). A sample that timed every stratum is a stratified one,
//! its error read from the differences of tasks next to each other in id
//! order, since neighbouring tasks cost alike; one cut short (by the time
//! budget, a precision reached or a stop) holds the strata first in a
//! random order, a simple random sample of the plan, whose error is the
//! plain spread of its times: read from neighbours, it had missed the
//! drift of cost along the plan (over every task of N = 21, 2-core Zen 5,
//! such intervals held the count 82 times in 100 instead of 95).
//!
//! Where the method knows each task's cost before counting (`join`: the
//! product of its quadrants' placement counts), the times can be adjusted
//! by it ([`Sampling::by_cost`]): the regression estimator, each time less
//! the slope times its task's cost above the plan's mean cost. The
//! adjusted times carry what the cost does not explain and the interval
//! narrows with the correlation (measured with a Zen 5 core: 0.87 over
//! every task of N = 21, whose samples of 200 then err within 2.8% where
//! the times alone err within 4.6%, 95 times in 100; 0.75 over 400 sampled
//! tasks of N = 26, a third narrower). Costing every task takes a pass
//! over the plan (65 s on 2 threads at N = 28). A sample can also stop as
//! soon as its interval is narrow enough ([`Sampling::within`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Serialize, Serializer};

use crate::error::Error;
use crate::plan::Plan;
use crate::random::SplitMix64;
use crate::run::engine::worker_pool;

mod interval;
mod timing;

use interval::{summarize, TaskCosts};
pub(crate) use timing::{time_picks, Until};

/// Sampled tasks by default, at most: more than the default budget times
/// below N = 24, so that the sample spans the whole half minute. A
/// virtual machine's speed drifts by 10% or more over seconds; on a 2-core
/// Zen 3 VM 1,000 tasks of N = 21, timed in 4 s, read from -11% to +22% of
/// the count from run to run, 8,000 in 30 s -6% to -1.5%.
pub const DEFAULT_SAMPLE: usize = 10_000;

/// Seconds a sample takes by default, at most (past its first
/// 10 (`MIN_TIMED`) tasks): about half a minute at any N.
pub const DEFAULT_BUDGET: Duration = Duration::from_secs(30);

/// How an estimate samples the plan: how many tasks at most, drawn with
/// which seed, within what time, how close an interval is close enough,
/// and whether the tasks' costs adjust the times.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub struct Sampling {
    /// Tasks sampled, at most.
    pub sample: usize,
    /// The seed the sample is drawn with.
    pub seed: u64,
    /// No sampled task starts past it (past the first 10).
    pub budget: Option<Duration>,
    /// Timing stops once the 95% interval is within this share of the
    /// estimate either way (0.15: +-15%), checked from 20 tasks on.
    pub within: Option<f64>,
    /// Adjust the times by the tasks' costs known before counting, where
    /// the method has such costs.
    pub by_cost: bool,
}

impl Sampling {
    /// `sample` tasks at most drawn with `seed`, no time budget, no
    /// precision to stop at, the times as timed.
    pub fn new(sample: usize, seed: u64) -> Sampling {
        Sampling {
            sample,
            seed,
            budget: None,
            within: None,
            by_cost: false,
        }
    }

    /// This sampling within `budget`.
    pub fn budget(self, budget: Option<Duration>) -> Sampling {
        Sampling { budget, ..self }
    }

    /// This sampling stopped once its interval is within `share` of the
    /// estimate either way.
    pub fn within(self, share: Option<f64>) -> Sampling {
        Sampling {
            within: share,
            ..self
        }
    }

    /// This sampling with the times adjusted by the tasks' costs (or not).
    pub fn by_cost(self, by_cost: bool) -> Sampling {
        Sampling { by_cost, ..self }
    }
}

/// The predicted cost of counting a plan.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Estimate {
    /// The board size.
    pub n: u32,
    /// The seed the sample was drawn with.
    pub seed: u64,
    /// The time the sample was given, if any.
    pub budget: Option<Duration>,
    /// Tasks timed (or probed).
    pub sampled: usize,
    /// Tasks the sample was to hold (`sampled` is fewer when the time
    /// budget ran out first).
    pub asked: usize,
    /// Tasks in the plan.
    pub tasks: usize,
    /// Predicted thread-seconds of all the tasks.
    pub core_seconds: f64,
    /// The 95% interval of `core_seconds`.
    pub interval: (f64, f64),
    /// Threads the sample ran on.
    pub threads: usize,
    /// Wall seconds the estimate took.
    pub seconds: f64,
    /// Thread-seconds of the costliest sampled task (as timed, or as
    /// probed): what a worker loses at most when stopped mid-task, and
    /// how long a cluster's tail can be.
    pub largest_task: f64,
    /// The sampled tasks and their estimated thread-seconds, in the order
    /// they were timed: what the interval was computed from, for a
    /// second look.
    pub samples: Vec<(usize, f64)>,
    /// Whether the sample was stopped (by the caller's stop flag) before
    /// the tasks asked for or the time budget: the figures are from the
    /// tasks finished by then.
    pub stopped: bool,
    /// The share of the estimate either way the sample was to stop at.
    pub within: Option<f64>,
    /// Where the times were adjusted by the tasks' costs: the correlation
    /// of the sampled tasks' times with their costs.
    pub cost_correlation: Option<f64>,
    /// Seconds taken costing every task of the plan (0 without).
    pub cost_seconds: f64,
}

impl Estimate {
    /// Predicted wall seconds of the count on `cores` cores: the tasks
    /// spread evenly.
    pub fn wall_seconds(&self, cores: usize) -> (f64, f64, f64) {
        let cores = cores.max(1) as f64;
        let spread = |core_seconds: f64| core_seconds / cores;
        (
            spread(self.core_seconds),
            spread(self.interval.0),
            spread(self.interval.1),
        )
    }

    /// Predicted core-nanoseconds per solution, where the count is
    /// published.
    pub fn core_ns_per_solution(&self) -> Option<f64> {
        crate::published::total(self.n).map(|total| self.core_seconds * 1e9 / total as f64)
    }
}

/// An estimate as `plan --estimate --format json` prints it (seconds;
/// the wall times on the threads it ran on).
#[derive(Serialize)]
struct EstimateRecord<'a> {
    sampled: usize,
    asked: usize,
    time_budget_seconds: Option<u64>,
    seed: u64,
    threads: usize,
    estimated_core_seconds: f64,
    interval_low: f64,
    interval_high: f64,
    estimated_wall_seconds: f64,
    wall_low: f64,
    wall_high: f64,
    core_ns_per_solution: Option<f64>,
    largest_task_seconds: f64,
    estimate_seconds: f64,
    stopped: bool,
    within: Option<f64>,
    cost_correlation: Option<f64>,
    cost_seconds: f64,
    /// `[task, seconds]` in the order timed.
    samples: &'a [(usize, f64)],
}

impl Serialize for Estimate {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (wall, wall_low, wall_high) = self.wall_seconds(self.threads);
        EstimateRecord {
            sampled: self.sampled,
            asked: self.asked,
            time_budget_seconds: self.budget.map(|budget| budget.as_secs()),
            seed: self.seed,
            threads: self.threads,
            estimated_core_seconds: self.core_seconds,
            interval_low: self.interval.0,
            interval_high: self.interval.1,
            estimated_wall_seconds: wall,
            wall_low,
            wall_high,
            core_ns_per_solution: self.core_ns_per_solution(),
            largest_task_seconds: self.largest_task,
            estimate_seconds: self.seconds,
            stopped: self.stopped,
            within: self.within,
            cost_correlation: self.cost_correlation,
            cost_seconds: self.cost_seconds,
            samples: &self.samples,
        }
        .serialize(serializer)
    }
}

/// Times a sample of `sample` tasks of `plan` (all of them if it has
/// fewer), drawn with `seed`, on `threads` threads.
pub fn estimate(plan: &Plan, threads: usize, sample: usize, seed: u64) -> Result<Estimate, Error> {
    estimate_within(plan, threads, sample, seed, None, None, &|_| {})
}

/// [`estimate`] that starts no task once `budget` has passed (past the
/// first 10 (`MIN_TIMED`)) or `stop` is set, calling `progress` with the
/// tasks timed so far after each one.
///
/// The strata are timed in a random order, so the tasks timed when the
/// budget runs out are a random sample of the plan's (each task as likely
/// as any other), whatever their costs: which tasks start depends on the
/// order alone, and every task started is finished. A stop does not wait
/// for the tasks in flight (a `join` task of N = 28 takes a minute): they
/// are abandoned within a fraction of a second (probes of other methods,
/// of a second at most, are finished) and the estimate is made from the
/// tasks finished, with [`Estimate::stopped`] set; dropping the tasks in
/// flight leans it low, as a long task is likelier to be in flight, by
/// about their share of the tasks timed. [`Error::NothingTimed`] if none
/// was finished.
pub fn estimate_within(
    plan: &Plan,
    threads: usize,
    sample: usize,
    seed: u64,
    budget: Option<Duration>,
    stop: Option<&AtomicBool>,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Estimate, Error> {
    let sampling = Sampling::new(sample, seed).budget(budget);
    estimate_sampling(plan, threads, &sampling, stop, progress)
}

/// [`estimate_within`] as `sampling` asks: with it, timing also stops once
/// the interval is narrow enough, and the times may be adjusted by the
/// tasks' costs (every task costed first, on `threads` threads).
pub fn estimate_sampling(
    plan: &Plan,
    threads: usize,
    sampling: &Sampling,
    stop: Option<&AtomicBool>,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Estimate, Error> {
    let Sampling {
        sample,
        seed,
        budget,
        within,
        by_cost,
    } = *sampling;
    if sample == 0 {
        return Err(Error::EmptySample);
    }
    let started = Instant::now();
    let pool = worker_pool(threads)?;
    let total = plan.tasks.len();
    let asked = sample.min(total);
    // One task from each of `asked` equal runs of the plan, the runs in a
    // random order (so that a sample cut short by the budget or a stop is
    // still a random one).
    let picks: Vec<(usize, u64)> = {
        let mut rng = SplitMix64(seed ^ 0x6573_7469_6d61_7465);
        let mut picks: Vec<(usize, u64)> = (0..asked)
            .map(|stratum| {
                let low = stratum * total / asked;
                let high = (stratum + 1) * total / asked;
                (low + rng.below(high - low), rng.next())
            })
            .collect();
        for last in (1..picks.len()).rev() {
            picks.swap(last, rng.below(last + 1));
        }
        picks
    };
    let costing = Instant::now();
    let covariate = by_cost
        .then(|| TaskCosts::of(plan, &picks, &pool))
        .flatten();
    let cost_seconds = covariate
        .as_ref()
        .map_or(0.0, |_| costing.elapsed().as_secs_f64());
    let enough = |timed: &[(usize, f64)]| {
        within.is_some_and(|share| {
            let (core_seconds, error, _) = summarize(timed, asked, total, covariate.as_ref());
            core_seconds > 0.0 && 1.96 * error <= share * core_seconds
        })
    };
    let until = Until {
        started,
        budget,
        stop,
        enough: &enough,
    };
    let samples = time_picks(plan, &pool, &picks, &until, progress);
    let sampled = samples.len();
    if sampled == 0 {
        return Err(Error::NothingTimed);
    }
    let (core_seconds, error, cost_correlation) =
        summarize(&samples, asked, total, covariate.as_ref());
    Ok(Estimate {
        n: plan.n,
        seed,
        budget,
        sampled,
        asked,
        tasks: total,
        core_seconds,
        interval: (
            (core_seconds - 1.96 * error).max(0.0),
            core_seconds + 1.96 * error,
        ),
        threads,
        seconds: started.elapsed().as_secs_f64(),
        largest_task: samples.iter().map(|&(_, cost)| cost).fold(0.0, f64::max),
        samples,
        stopped: stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) && sampled < asked,
        within,
        cost_correlation,
        cost_seconds,
    })
}

#[cfg(test)]
mod tests {
    use super::timing::{CHECK_FROM, MIN_TIMED};
    use super::*;

    use crate::plan::{Method, SplitDepth};

    /// A method whose tasks the estimate times whole, not by a random
    /// descent below them.
    fn timed_whole() -> Method {
        Method::first_that(|method| !method.counting().descends()).unwrap()
    }

    #[test]
    fn a_spent_budget_times_the_first_picks_only() {
        let depth_first = Method::first_that(Method::uses_split_depth).unwrap();
        let plan = Plan::build(12, depth_first, SplitDepth::Rows(3)).unwrap();
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let progress = |timed: usize| {
            calls.fetch_add(1, Ordering::Relaxed);
            assert!(timed <= MIN_TIMED);
        };
        let spent = Some(Duration::ZERO);
        let estimate = estimate_within(&plan, 2, 100, 7, spent, None, &progress).unwrap();
        assert_eq!((estimate.sampled, estimate.asked), (MIN_TIMED, 100));
        assert_eq!(calls.load(Ordering::Relaxed), MIN_TIMED);
        assert!(!estimate.stopped);
        // Without a budget every task asked for is timed, and the same
        // seed draws the same tasks either way: the budget's are among
        // them.
        let whole = estimate_within(&plan, 2, 100, 7, None, None, &|_| {}).unwrap();
        assert_eq!((whole.sampled, whole.asked), (100, 100));
        assert!(whole.interval.0 <= whole.core_seconds && whole.core_seconds <= whole.interval.1);
        let drawn: Vec<usize> = whole.samples.iter().map(|&(task, _)| task).collect();
        assert!(estimate
            .samples
            .iter()
            .all(|(task, _)| drawn.contains(task)));
    }

    #[test]
    fn a_stop_makes_the_estimate_from_the_tasks_finished() {
        // Tasks timed whole (not by a descent), which a stop abandons in
        // flight.
        let plan = Plan::build(16, timed_whole(), SplitDepth::Auto).unwrap();
        let stop = AtomicBool::new(false);
        let stop_at_five = |timed: usize| {
            if timed >= 5 {
                stop.store(true, Ordering::Relaxed);
            }
        };
        let cut = estimate_within(&plan, 2, 1000, 3, None, Some(&stop), &stop_at_five).unwrap();
        assert!(cut.stopped);
        assert!((5..1000).contains(&cut.sampled), "{}", cut.sampled);
        assert_eq!(cut.samples.len(), cut.sampled);
        assert!(cut.core_seconds > 0.0);
        // Stopped before it starts: nothing to estimate from.
        let err = estimate_within(&plan, 2, 1000, 3, None, Some(&stop), &|_| {}).unwrap_err();
        assert_eq!(err, Error::NothingTimed);
        // A stop flag never set changes nothing.
        let unset = AtomicBool::new(false);
        let whole = estimate_within(&plan, 2, 50, 3, None, Some(&unset), &|_| {}).unwrap();
        assert!(!whole.stopped);
        assert_eq!(whole.sampled, 50);
    }

    /// A sample asked to stop at a loose interval stops early, once it
    /// has the tasks it checks from; the costs are taken.
    #[test]
    fn a_sample_stops_once_its_interval_is_narrow_enough() {
        let plan = Plan::build(16, timed_whole(), SplitDepth::Auto).unwrap();
        let sampling = Sampling::new(2000, 5).within(Some(0.5)).by_cost(true);
        let estimate = estimate_sampling(&plan, 2, &sampling, None, &|_| {}).unwrap();
        assert!(
            (CHECK_FROM..2000).contains(&estimate.sampled),
            "{}",
            estimate.sampled
        );
        assert!(estimate.cost_correlation.is_some());
        assert_eq!(estimate.within, Some(0.5));
        let (low, high) = estimate.interval;
        assert!(low <= estimate.core_seconds && estimate.core_seconds <= high);
        // Without a precision to stop at, every task asked for is timed.
        let all = estimate_sampling(&plan, 2, &Sampling::new(60, 5), None, &|_| {}).unwrap();
        assert_eq!((all.sampled, all.cost_correlation), (60, None));
    }

    #[test]
    fn an_empty_sample_is_refused_in_its_own_words() {
        let plan = Plan::build(8, Method::Auto, SplitDepth::Auto).unwrap();
        let err = estimate(&plan, 1, 0, 0).unwrap_err();
        assert_eq!(err, Error::EmptySample);
        assert_eq!(err.to_string(), "the sample must hold at least 1 task");
    }
}
