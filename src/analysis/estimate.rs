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

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Serialize, Serializer};

use crate::error::Error;
use crate::plan::Plan;
use crate::random::SplitMix64;
use crate::run::engine::worker_pool;
use crate::search::board::MAX_N;

/// A probe times the subtree it reaches once at most this many rows are
/// left below it: from a few milliseconds to a second of work.
pub(crate) const PROBE_ROWS_LEFT: u32 = 16;

/// Sampled tasks by default, at most: more than the default budget times
/// below N = 24, so that the sample spans the whole half minute. A
/// virtual machine's speed drifts by 10% or more over seconds; on a 2-core
/// Zen 3 VM 1,000 tasks of N = 21, timed in 4 s, read from -11% to +22% of
/// the count from run to run, 8,000 in 30 s -6% to -1.5%.
pub const DEFAULT_SAMPLE: usize = 10_000;

/// Seconds a sample takes by default, at most (past its first
/// 10 (`MIN_TIMED`) tasks): about half a minute at any N.
pub const DEFAULT_BUDGET: Duration = Duration::from_secs(30);

/// Tasks a sample with a time budget times whatever the budget, so that
/// its interval means something.
pub(crate) const MIN_TIMED: usize = 10;

/// Tasks timed before a sample may stop on its interval's width: fewer
/// read the spread too loosely to trust the width (and the batch means
/// need 20).
pub(crate) const CHECK_FROM: usize = 20;

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

/// Every task's cost known before counting, as the regression estimator
/// takes it: the plan's mean cost and the sampled tasks' own.
struct TaskCosts {
    /// The mean cost of the plan's tasks.
    mean: f64,
    /// The sampled tasks, by id, and their costs.
    sampled: Vec<(usize, f64)>,
}

impl TaskCosts {
    /// The costs of `plan`'s tasks, the sampled ones of `picks` kept,
    /// counted on `pool`'s threads; `None` where the method has none.
    fn of(plan: &Plan, picks: &[(usize, u64)], pool: &rayon::ThreadPool) -> Option<TaskCosts> {
        let mut sampled: Vec<(usize, f64)> = picks.iter().map(|&(task, _)| (task, 0.0)).collect();
        sampled.sort_unstable_by_key(|&(task, _)| task);
        let mut sum = 0.0;
        let mut offered = 0u64;
        let mut offer = |id: u64, cost: f64| {
            sum += cost;
            offered += 1;
            if let Ok(at) = sampled.binary_search_by_key(&(id as usize), |&(task, _)| task) {
                sampled[at].1 = cost;
            }
        };
        let map = |len: usize, job: &(dyn Fn(usize) -> Vec<u64> + Sync)| {
            use rayon::prelude::*;
            pool.install(|| (0..len).into_par_iter().map(job).collect())
        };
        plan.method.counting().offer_costs(plan, &map, &mut offer);
        (offered == plan.tasks.len() as u64 && offered > 0).then(|| TaskCosts {
            mean: sum / offered as f64,
            sampled,
        })
    }

    /// The cost of task `task`, one of the sampled.
    fn of_task(&self, task: usize) -> f64 {
        self.sampled
            .binary_search_by_key(&task, |&(id, _)| id)
            .map_or(self.mean, |at| self.sampled[at].1)
    }
}

/// The predicted core-seconds of a plan of `total` tasks from `samples`
/// (task, thread-seconds) of a sample of `strata` strata, the standard
/// error of that prediction, and, where `costs` adjust the times, the
/// correlation of times and costs. The error is the wider of the
/// sample's (stratified where every stratum was timed, else a simple
/// random sample's) and the batch means' (see the module notes).
fn summarize(
    samples: &[(usize, f64)],
    strata: usize,
    total: usize,
    costs: Option<&TaskCosts>,
) -> (f64, f64, Option<f64>) {
    let sampled = samples.len();
    if sampled == 0 {
        return (0.0, 0.0, None);
    }
    // The regression estimator: each time less the slope times its task's
    // cost above the plan's mean cost; the mean of the adjusted times
    // estimates the mean time, with what the cost explains taken out of
    // its spread.
    let (adjusted, correlation) = match costs {
        Some(costs) => {
            let (slope, correlation) = slope_and_correlation(samples, costs);
            let adjusted: Vec<(usize, f64)> = samples
                .iter()
                .map(|&(task, time)| (task, time - slope * (costs.of_task(task) - costs.mean)))
                .collect();
            (adjusted, Some(correlation))
        }
        None => (samples.to_vec(), None),
    };
    let times: Vec<f64> = adjusted.iter().map(|&(_, time)| time).collect();
    let mean = times.iter().sum::<f64>() / sampled as f64;
    // The finite population correction (a sample of every task has no
    // error).
    let correction = 1.0 - sampled as f64 / total as f64;
    // A sample of every stratum is stratified along the plan, and tasks
    // near each other cost alike (odd N's tasks come in runs of one middle
    // distance whose costs differ 14-fold from run to run): its error is
    // read from the differences of neighbouring sampled tasks, not from
    // the spread of all of them, which holds the differences between runs
    // as well. A sample cut short holds strata drawn at random: the
    // spread of all of them is its error.
    let (neighbour_deviation, local) = neighbour_spread(&adjusted);
    let deviation = if sampled >= strata || sampled < 2 {
        neighbour_deviation
    } else {
        (times.iter().map(|time| (time - mean).powi(2)).sum::<f64>() / (sampled - 1) as f64).sqrt()
    };
    let sample_error = total as f64 * (deviation.powi(2) / sampled as f64 * correction).sqrt();
    // The machine's speed drifts while the sample runs (a virtual
    // machine's by 10% over seconds), which neighbouring tasks do not
    // see: the means of consecutive batches of the timed tasks' costs
    // above their neighbours' do (the batch means method), and the wider
    // of the two bounds the interval.
    // (A cost less its two neighbours' mean spreads sqrt(3/2) times as
    // far as a cost about its stratum's mean: scaled back, so that without
    // drift the two bounds agree.)
    let above_neighbours: Vec<f64> = times
        .iter()
        .zip(&local)
        .map(|(cost, near)| (cost - near) * (2.0f64 / 3.0).sqrt())
        .collect();
    let error = sample_error.max(total as f64 * batch_means_error(&above_neighbours, correction));
    // Adjusted times may go below zero one by one; their mean may not.
    ((mean * total as f64).max(0.0), error, correlation)
}

/// The least-squares slope of the sampled times on their tasks' costs,
/// and their correlation (0 and 0 where the costs do not vary or fewer
/// than 3 tasks were timed).
fn slope_and_correlation(samples: &[(usize, f64)], costs: &TaskCosts) -> (f64, f64) {
    let n = samples.len() as f64;
    if samples.len() < 3 {
        return (0.0, 0.0);
    }
    let xs: Vec<f64> = samples
        .iter()
        .map(|&(task, _)| costs.of_task(task))
        .collect();
    let mean_x = xs.iter().sum::<f64>() / n;
    let mean_y = samples.iter().map(|&(_, time)| time).sum::<f64>() / n;
    let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
    for (x, &(_, y)) in xs.iter().zip(samples) {
        sxx += (x - mean_x).powi(2);
        sxy += (x - mean_x) * (y - mean_y);
        syy += (y - mean_y).powi(2);
    }
    if sxx <= 0.0 || syy <= 0.0 {
        return (0.0, 0.0);
    }
    (sxy / sxx, sxy / (sxx * syy).sqrt())
}

/// Whether the tasks timed so far are enough.
pub(crate) type Enough<'a> = &'a (dyn Fn(&[(usize, f64)]) -> bool + Sync);

/// When a timing of sampled tasks starts no more of them.
#[derive(Clone, Copy)]
pub(crate) struct Until<'a> {
    /// When the timing (or the estimate) began.
    pub(crate) started: Instant,
    /// No task starts past `started + budget` (past the first 10).
    pub(crate) budget: Option<Duration>,
    /// No task starts once it is set.
    pub(crate) stop: Option<&'a AtomicBool>,
    /// No task starts once it says the tasks timed are enough.
    pub(crate) enough: Enough<'a>,
}

/// Times the tasks of `picks` (task, probe seed) on `pool`, each worker
/// taking the next pick in turn, so that the tasks timed are the first
/// picks however far the budget (past the first 10, `MIN_TIMED`) reaches;
/// none starts once the stop flag is set, nor once `enough` says the
/// tasks timed so far are enough (asked from [`CHECK_FROM`] tasks on,
/// then every twentieth of them). Returns (task,
/// thread-seconds) in the order they finished.
pub(crate) fn time_picks(
    plan: &Plan,
    pool: &rayon::ThreadPool,
    picks: &[(usize, u64)],
    until: &Until<'_>,
    progress: &(dyn Fn(usize) + Sync),
) -> Vec<(usize, f64)> {
    let Until {
        started,
        budget,
        stop,
        enough,
    } = *until;
    // The join's shared quadrant cells are built once per count, not per
    // task: built here, untimed, so no sampled task carries their cost
    // times the plan's size (that put N = 19 at +61% and N = 20 at +17%).
    let _shared = plan.method.counting().shared_state(plan.n);
    // Each worker takes the next pick in turn, so the tasks timed are the
    // first picks, however far the budget reaches.
    let next = AtomicUsize::new(0);
    let satisfied = AtomicBool::new(false);
    let stopped = || stop.is_some_and(|stop| stop.load(Ordering::Relaxed));
    let timed = Mutex::new(Vec::with_capacity(picks.len()));
    pool.install(|| {
        rayon::broadcast(|_| loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            let Some(&(task, probe_seed)) = picks.get(index) else {
                break;
            };
            let spent = budget.is_some_and(|budget| started.elapsed() >= budget);
            if (index >= MIN_TIMED && spent) || stopped() || satisfied.load(Ordering::Relaxed) {
                break;
            }
            let Some(cost) = probe(plan, task, probe_seed, stop) else {
                break;
            };
            let mut timed = timed
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            timed.push((task, cost));
            progress(timed.len());
            let len = timed.len();
            if len >= CHECK_FROM && len % (len / 20).max(1) == 0 && enough(&timed) {
                satisfied.store(true, Ordering::Relaxed);
            }
        })
    });
    timed
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// From `samples` (task, cost) of a sample stratified over the task ids:
/// the standard deviation of a task's cost about its stratum's mean, from
/// the squared differences of the tasks next to each other in id order
/// (the successive differences estimator of a systematic sample: half
/// their mean square), and each sample's neighbours' mean cost (the
/// tasks before and after it in id order), in the samples' order. A
/// sample of one task has no spread.
fn neighbour_spread(samples: &[(usize, f64)]) -> (f64, Vec<f64>) {
    let mut by_task: Vec<usize> = (0..samples.len()).collect();
    by_task.sort_by_key(|&i| samples[i].0);
    let cost = |rank: usize| samples[by_task[rank]].1;
    let mut local = vec![0.0; samples.len()];
    for rank in 0..by_task.len() {
        let neighbours: Vec<f64> = [rank.checked_sub(1), Some(rank + 1)]
            .into_iter()
            .flatten()
            .filter(|&near| near < by_task.len())
            .map(cost)
            .collect();
        local[by_task[rank]] = if neighbours.is_empty() {
            cost(rank)
        } else {
            neighbours.iter().sum::<f64>() / neighbours.len() as f64
        };
    }
    if samples.len() < 2 {
        return (0.0, local);
    }
    let square_differences: f64 = (1..by_task.len())
        .map(|rank| (cost(rank) - cost(rank - 1)).powi(2))
        .sum();
    let variance = square_differences / (2.0 * (by_task.len() - 1) as f64);
    (variance.sqrt(), local)
}

/// Batches the batch means method cuts a sample into.
const BATCHES: usize = 10;

/// The standard error of the mean cost from the means of [`BATCHES`]
/// consecutive batches of `costs` (in the order they were timed), as a
/// 95% half-width over 1.96 (Student's t with 9 degrees of freedom, 2.262,
/// scaled so the caller's 1.96 gives it); 0 for a sample too small to
/// batch. `correction` is the finite population correction.
fn batch_means_error(costs: &[f64], correction: f64) -> f64 {
    let per_batch = costs.len() / BATCHES;
    if per_batch < 2 {
        return 0.0;
    }
    let means: Vec<f64> = costs
        .chunks_exact(per_batch)
        .take(BATCHES)
        .map(|batch| batch.iter().sum::<f64>() / per_batch as f64)
        .collect();
    let mean = means.iter().sum::<f64>() / BATCHES as f64;
    let variance = means.iter().map(|m| (m - mean).powi(2)).sum::<f64>() / (BATCHES - 1) as f64;
    const T_9: f64 = 2.262;
    (variance / BATCHES as f64 * correction).sqrt() * T_9 / 1.96
}

/// The estimated thread-seconds of task `index`: timed whole, or probed
/// below 16 (`PROBE_ROWS_LEFT`) rows with the random stream `seed`; `None`
/// if a `join` task was abandoned because `stop` was set.
fn probe(plan: &Plan, index: usize, seed: u64, stop: Option<&AtomicBool>) -> Option<f64> {
    let n = plan.n;
    let task = plan.tasks.get(index);
    let mut board = task.board;
    let mut prefix = [0u8; MAX_N as usize];
    prefix[..task.prefix_columns().len()].copy_from_slice(task.prefix_columns());
    let mut weight = 1.0;
    let mut rng = SplitMix64(seed);
    let method = task.kind.counting();
    while method.descends() && n - board.row > PROBE_ROWS_LEFT {
        let open = task.kind.open_squares(n, &board);
        if open == 0 {
            // A dead end: this path has no subtree to time.
            return Some(0.0);
        }
        let choices = open.count_ones();
        let mut pick = open;
        for _ in 0..rng.below(choices as usize) {
            pick &= pick - 1;
        }
        let bit = pick & pick.wrapping_neg();
        prefix[board.row as usize] = bit.trailing_zeros() as u8;
        board = board.place(bit);
        weight *= f64::from(choices);
    }
    let search = || {
        if board == task.board {
            std::hint::black_box(method.count(n, &task, stop)).map(|_| ())
        } else {
            let prefix = &prefix[..board.row as usize];
            std::hint::black_box(method.count_below(n, &task, board, prefix));
            Some(())
        }
    };
    method.warm(plan, index);
    // CPU time, not wall time: a task of a millisecond whose thread lost
    // its core for 0.1 s (another process, the VM's host) moves an estimate
    // of N = 21 by up to 20% from run to run of one seed.
    let timing = crate::system::thread_cpu_seconds();
    search()?;
    Some(weight * (crate::system::thread_cpu_seconds() - timing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_see_the_spread_within_runs_not_between_them() {
        // Two runs of tasks whose costs differ tenfold, each task within
        // 1% of its run's cost: the spread is that 1%, not the runs'.
        let samples: Vec<(usize, f64)> = (0..400)
            .map(|task| {
                let run = if task < 200 { 1.0 } else { 10.0 };
                (task, run * if task % 2 == 0 { 0.99 } else { 1.01 })
            })
            .collect();
        let (deviation, local) = neighbour_spread(&samples);
        // Within a run the successive differences are 2% of 1 or 10; the
        // one step between the runs adds little over 399 differences.
        assert!(deviation < 0.5, "{deviation}");
        let all_mean = samples.iter().map(|s| s.1).sum::<f64>() / 400.0;
        let all_spread = (samples
            .iter()
            .map(|s| (s.1 - all_mean).powi(2))
            .sum::<f64>()
            / 399.0)
            .sqrt();
        assert!(all_spread > 4.0, "{all_spread}");
        // A task's neighbours are the tasks beside it in id order, whatever
        // order the samples came in.
        let mut shuffled = samples.clone();
        shuffled.reverse();
        let (again, local_shuffled) = neighbour_spread(&shuffled);
        assert!((again - deviation).abs() < 1e-12);
        assert_eq!(local[10], local_shuffled[389]);
        assert!((local[10] - 1.01).abs() < 1e-12, "{}", local[10]);
        assert!((local[0] - 1.01).abs() < 1e-12, "{}", local[0]);
        // One task: no spread, its own cost as its neighbourhood.
        assert_eq!(neighbour_spread(&[(3, 2.5)]), (0.0, vec![2.5]));
    }

    #[test]
    fn batch_means_see_a_drift_that_task_variance_does_not() {
        // Alternating costs, no drift: the batch means agree.
        let steady: Vec<f64> = (0..1000)
            .map(|i| if i % 2 == 0 { 1.0 } else { 3.0 })
            .collect();
        assert!(batch_means_error(&steady, 1.0) < 1e-12);
        // The same costs, the machine 20% slower in the second half: the
        // batch means differ, and the error grows with the drift.
        let drifting: Vec<f64> = steady
            .iter()
            .enumerate()
            .map(|(i, cost)| if i < 500 { *cost } else { cost * 1.2 })
            .collect();
        let error = batch_means_error(&drifting, 1.0);
        assert!(error > 0.05, "{error}");
        let steeper: Vec<f64> = steady
            .iter()
            .enumerate()
            .map(|(i, cost)| if i < 500 { *cost } else { cost * 1.4 })
            .collect();
        assert!(batch_means_error(&steeper, 1.0) > 1.9 * error);
        // Too few tasks to batch: no bound from batches.
        assert_eq!(batch_means_error(&steady[..19], 1.0), 0.0);
    }
    use crate::plan::{Method, SplitDepth};

    #[test]
    fn a_spent_budget_times_the_first_picks_only() {
        let plan = Plan::build(12, Method::Mirror, SplitDepth::Rows(3)).unwrap();
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
        // Join tasks, which a stop abandons in flight.
        let plan = Plan::build(16, Method::Join, SplitDepth::Auto).unwrap();
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

    /// Times that follow their tasks' costs exactly leave nothing to the
    /// adjusted times' spread: the estimate is the slope times the plan's
    /// cost, with no error; the times alone, spread by the costs, have
    /// one. Costs that explain nothing leave the times as they were.
    #[test]
    fn costs_that_explain_the_times_take_their_spread_out() {
        let total = 1000;
        let cost = |task: usize| ((task * 7919) % 97) as f64 + 1.0;
        let mean = (0..total).map(cost).sum::<f64>() / total as f64;
        let sampled: Vec<usize> = (0..total).step_by(10).collect();
        let costs = TaskCosts {
            mean,
            sampled: sampled.iter().map(|&task| (task, cost(task))).collect(),
        };
        let samples: Vec<(usize, f64)> = sampled
            .iter()
            .map(|&task| (task, 0.002 * cost(task)))
            .collect();
        let (adjusted, error, correlation) =
            summarize(&samples, samples.len(), total, Some(&costs));
        assert!(
            (adjusted - 0.002 * mean * total as f64).abs() < 1e-9,
            "{adjusted}"
        );
        assert!(error < 1e-9, "{error}");
        assert!((correlation.unwrap() - 1.0).abs() < 1e-9);
        let (plain, plain_error, none) = summarize(&samples, samples.len(), total, None);
        assert!(plain_error > 0.01 * plain, "{plain_error} of {plain}");
        assert_eq!(none, None);
        // A cost the same for every task: no slope, the plain estimate.
        let flat = TaskCosts {
            mean: 1.0,
            sampled: sampled.iter().map(|&task| (task, 1.0)).collect(),
        };
        let (same, same_error, zero) = summarize(&samples, samples.len(), total, Some(&flat));
        assert!((same - plain).abs() < 1e-12 && (same_error - plain_error).abs() < 1e-12);
        assert_eq!(zero, Some(0.0));
    }

    /// Times that climb along the plan: a sample of every stratum reads
    /// its error from neighbours, who differ little; the same tasks as a
    /// sample cut short (strata drawn at random) read the whole spread,
    /// the climb included.
    #[test]
    fn a_sample_cut_short_is_read_as_a_random_one() {
        let total = 10_000;
        let samples: Vec<(usize, f64)> = (0..100)
            .map(|k| {
                let task = k * 100 + 50;
                (task, 1.0 + task as f64 / 1000.0 + if k % 2 == 0 { 0.01 } else { 0.0 })
            })
            .collect();
        let (whole, stratified, _) = summarize(&samples, 100, total, None);
        let (cut, random, _) = summarize(&samples, 10_000, total, None);
        assert_eq!(whole, cut);
        assert!(random > 20.0 * stratified, "{random} vs {stratified}");
    }

    /// A sample asked to stop at a loose interval stops early, once it
    /// has the tasks it checks from; the join's costs are taken.
    #[test]
    fn a_sample_stops_once_its_interval_is_narrow_enough() {
        let plan = Plan::build(16, Method::Join, SplitDepth::Auto).unwrap();
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
        let plan = Plan::build(8, Method::Mirror, SplitDepth::Auto).unwrap();
        let err = estimate(&plan, 1, 0, 0).unwrap_err();
        assert_eq!(err, Error::EmptySample);
        assert_eq!(err.to_string(), "the sample must hold at least 1 task");
    }
}
