//! The estimate's arithmetic: the mean and its error from the timed
//! tasks (stratified or random, see the module notes of
//! [`super`]), the batch means that see the machine drift, and the
//! regression on the tasks' costs.

use crate::plan::Plan;

/// Every task's cost known before counting, as the regression estimator
/// takes it: the plan's mean cost and the sampled tasks' own.
pub(super) struct TaskCosts {
    /// The mean cost of the plan's tasks.
    pub(super) mean: f64,
    /// The sampled tasks, by id, and their costs.
    pub(super) sampled: Vec<(usize, f64)>,
}

impl TaskCosts {
    /// The costs of `plan`'s tasks, the sampled ones of `picks` kept,
    /// counted on `pool`'s threads; `None` where the method has none.
    pub(super) fn of(
        plan: &Plan,
        picks: &[(usize, u64)],
        pool: &rayon::ThreadPool,
    ) -> Option<TaskCosts> {
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
pub(super) fn summarize(
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
                (
                    task,
                    1.0 + task as f64 / 1000.0 + if k % 2 == 0 { 0.01 } else { 0.0 },
                )
            })
            .collect();
        let (whole, stratified, _) = summarize(&samples, 100, total, None);
        let (cut, random, _) = summarize(&samples, 10_000, total, None);
        assert_eq!(whole, cut);
        assert!(random > 20.0 * stratified, "{random} vs {stratified}");
    }
}
