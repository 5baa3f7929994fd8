//! The heaviest tasks of a plan, found before counting and then timed:
//! what bounds the tail of a long count (no run ends before its longest
//! task) and what a cluster run would start first.
//!
//! Every task is ranked by a cost its method knows without counting it
//! (for `join`, the product of its quadrants' placement counts; for the
//! depth-first methods, the queens placed in the rows below its prefix),
//! and the K
//! ranked highest are timed as an estimate times its sample. The cost
//! ranks tasks, it does not measure them: the timed tasks are the heaviest
//! it finds, not proven the heaviest of the plan.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use super::estimate::{time_picks, Until};
use crate::error::Error;
use crate::plan::Plan;
use crate::run::engine::worker_pool;

/// One of the heaviest tasks: its cost, and its time once timed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct HeavyTask {
    /// The task's id in the plan.
    pub id: u64,
    /// Its cost, as ranked (see the module).
    pub cost: f64,
    /// Thread-seconds it took, timed as `plan --estimate` times a task
    /// (CPU time of its thread, warmed as a count would; a depth-first
    /// task with more than 16 rows below its prefix probed along one
    /// random path); `None` if a stop came before it was timed.
    pub seconds: Option<f64>,
}

/// The heaviest tasks of a plan, by cost, with their times.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Heaviest {
    /// The board size.
    pub n: u32,
    /// Tasks in the plan, all ranked.
    pub tasks: u64,
    /// What the cost counts.
    pub cost_of: String,
    /// The mean cost over every task of the plan.
    pub mean_cost: f64,
    /// Seconds the ranking took (the quadrant table and every task's cost).
    pub rank_seconds: f64,
    /// Threads the tasks were timed on.
    pub threads: usize,
    /// Seconds the timing took, on the wall clock.
    pub time_seconds: f64,
    /// Whether a stop came before every task was timed.
    pub stopped: bool,
    /// The heaviest tasks by cost, heaviest first (ties by id).
    pub heaviest: Vec<HeavyTask>,
}

impl Heaviest {
    /// The longest of the tasks timed, if any.
    pub fn longest(&self) -> Option<&HeavyTask> {
        self.heaviest
            .iter()
            .filter(|task| task.seconds.is_some())
            .max_by(|a, b| {
                a.seconds
                    .partial_cmp(&b.seconds)
                    .expect("times are numbers")
            })
    }
}

/// The `k` tasks of `plan` with the largest costs (heaviest first, ties by
/// id) and the mean cost of all (the quadrant table built on `pool`'s
/// threads, the tasks then ranked one after another).
pub fn rank_heaviest(plan: &Plan, k: usize, pool: &rayon::ThreadPool) -> (Vec<(u64, f64)>, f64) {
    let mut heap: BinaryHeap<Reverse<(u64, Reverse<u64>)>> = BinaryHeap::with_capacity(k + 1);
    let mut total = 0.0;
    let mut offer = |id: u64, cost: f64| {
        total += cost;
        // Costs are never negative, so their bits order as they do.
        let entry = Reverse((cost.to_bits(), Reverse(id)));
        if heap.len() < k {
            heap.push(entry);
        } else if heap.peek().is_some_and(|least| entry < *least) {
            heap.pop();
            heap.push(entry);
        }
    };
    let map = |len: usize, job: &(dyn Fn(usize) -> Vec<u64> + Sync)| -> Vec<Vec<u64>> {
        pool.install(|| (0..len).into_par_iter().map(job).collect())
    };
    plan.method.counting().offer_costs(plan, &map, &mut offer);
    let mut ranked: Vec<(u64, f64)> = heap
        .into_iter()
        .map(|Reverse((bits, Reverse(id)))| (id, f64::from_bits(bits)))
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mean = total / plan.tasks.len().max(1) as f64;
    (ranked, mean)
}

/// Ranks every task of `plan`, then times the `k` heaviest on `threads`
/// threads, heaviest first; none starts once `stop` is set. `progress`
/// hears the tasks timed so far after each one.
pub fn heaviest(
    plan: &Plan,
    threads: usize,
    k: usize,
    stop: Option<&AtomicBool>,
    progress: &(dyn Fn(usize) + Sync),
) -> Result<Heaviest, Error> {
    if k == 0 {
        return Err(Error::EmptySample);
    }
    let pool = worker_pool(threads)?;
    let started = Instant::now();
    let (ranked, mean_cost) = rank_heaviest(plan, k, &pool);
    let rank_seconds = started.elapsed().as_secs_f64();
    let started = Instant::now();
    let picks: Vec<(usize, u64)> = ranked.iter().map(|&(id, _)| (id as usize, 0)).collect();
    let until = Until {
        started,
        budget: None,
        stop,
        enough: &|_| false,
    };
    let timed = time_picks(plan, &pool, &picks, &until, progress);
    let seconds: HashMap<u64, f64> = timed
        .iter()
        .map(|&(task, seconds)| (task as u64, seconds))
        .collect();
    let heaviest: Vec<HeavyTask> = ranked
        .iter()
        .map(|&(id, cost)| HeavyTask {
            id,
            cost,
            seconds: seconds.get(&id).copied(),
        })
        .collect();
    Ok(Heaviest {
        n: plan.n,
        tasks: plan.tasks.len() as u64,
        cost_of: plan.method.counting().cost_meaning(),
        mean_cost,
        rank_seconds,
        threads,
        time_seconds: started.elapsed().as_secs_f64(),
        stopped: stop.is_some_and(|stop| stop.load(Ordering::Relaxed))
            && timed.len() < ranked.len(),
        heaviest,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{estimate_costs, Method, SplitDepth, COST_ROWS};

    fn ranked(n: u32, method: Method, k: usize) -> (Plan, Vec<(u64, f64)>, f64) {
        let plan = Plan::build(n, method, SplitDepth::Auto).expect("plan");
        let pool = worker_pool(2).expect("pool");
        let (ranked, mean) = rank_heaviest(&plan, k, &pool);
        (plan, ranked, mean)
    }

    /// Every task's cost as its method offers it, by id: the naive twin
    /// of the ranking's heap.
    fn all_costs(plan: &Plan) -> Vec<(u64, f64)> {
        let mut costs = Vec::new();
        let map = |len: usize, job: &(dyn Fn(usize) -> Vec<u64> + Sync)| -> Vec<Vec<u64>> {
            (0..len).map(job).collect()
        };
        plan.method
            .counting()
            .offer_costs(plan, &map, &mut |id, cost| costs.push((id, cost)));
        costs
    }

    #[test]
    fn the_ranking_holds_the_k_largest_costs_in_order() {
        // Every method's small plans, and a large plan of a method whose
        // tasks are timed whole (their costs need no probe).
        let timed_whole = Method::first_that(|method| !method.counting().descends());
        let plans = Method::SEARCHING
            .into_iter()
            .flat_map(|method| [(12, method), (13, method)])
            .chain(timed_whole.map(|method| (24, method)));
        for (n, method) in plans {
            let (plan, top, mean) = ranked(n, method, 20);
            let mut costs = all_costs(&plan);
            assert_eq!(
                costs.len(),
                plan.tasks.len(),
                "N = {n} {method}: a cost per task"
            );
            let expected_mean =
                costs.iter().map(|&(_, cost)| cost).sum::<f64>() / costs.len() as f64;
            assert!(
                (mean - expected_mean).abs() <= 1e-9 * expected_mean,
                "N = {n} {method}"
            );
            costs.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            costs.truncate(20);
            assert_eq!(top, costs, "N = {n} {method}");
        }
    }

    #[test]
    fn depth_first_plans_rank_by_their_probe_costs() {
        let depth_first = Method::first_that(Method::uses_split_depth).expect("a method");
        let (plan, top, mean) = ranked(14, depth_first, 5);
        let costs = estimate_costs(&plan, COST_ROWS);
        let largest = *costs.iter().max().expect("tasks");
        assert_eq!(top[0].1, largest as f64);
        let expected = costs.iter().sum::<u64>() as f64 / costs.len() as f64;
        assert!((mean - expected).abs() < 1e-9 * expected);
    }

    #[test]
    fn every_ranked_task_is_timed_and_named() {
        let plan = Plan::build(14, Method::Auto, SplitDepth::Auto).expect("plan");
        let found = heaviest(&plan, 2, 6, None, &|_| {}).expect("timed");
        assert_eq!(found.heaviest.len(), 6);
        assert!(found.heaviest.iter().all(|task| task.seconds.is_some()));
        assert!(!found.stopped);
        assert_eq!(found.tasks, plan.tasks.len() as u64);
        // Every task of the plan (the times found by id, not by a search).
        let all = heaviest(&plan, 2, plan.tasks.len(), None, &|_| {}).expect("timed");
        assert!(all.heaviest.iter().all(|task| task.seconds.is_some()));
        // K past the plan's size: every task timed is not a stop, even if
        // a signal came after the last one.
        let late = AtomicBool::new(false);
        let past = heaviest(&plan, 2, plan.tasks.len() + 5, Some(&late), &|timed| {
            if timed == plan.tasks.len() {
                late.store(true, Ordering::Relaxed);
            }
        })
        .expect("timed");
        assert_eq!(past.heaviest.len(), plan.tasks.len());
        assert!(!past.stopped);
        let stop = AtomicBool::new(true);
        let none = heaviest(&plan, 2, 6, Some(&stop), &|_| {}).expect("ranked");
        assert!(none.stopped && none.longest().is_none());
        assert!(matches!(
            heaviest(&plan, 2, 0, None, &|_| {}),
            Err(Error::EmptySample)
        ));
    }
}
