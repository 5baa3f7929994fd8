//! Trusting a count where no table exists: a sample of a `join` plan's
//! tasks counted again by a different code path (a queen-by-queen search
//! of the task's whole boards, the most constrained queen first), task by
//! task.
//!
//! The tables check whole counts up to N = 27; past them, two runs
//! compared task by task catch a fault of one machine, and this catches a
//! fault of the join itself (its cells, glue, keys, split or matcher) on
//! the tasks it samples.

use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use crate::error::Error;
use crate::plan::Plan;
use crate::random::SplitMix64;
use crate::run::engine::worker_pool;

/// One sampled task, counted both ways.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct TaskCheck {
    /// The task's id in the plan.
    pub id: u64,
    /// Its weighted solutions as its method counts them (the JSON key
    /// `join` is the record's published name, from the method that is
    /// [`Method::cross_checked`](crate::Method::cross_checked)).
    #[serde(rename = "join")]
    pub counted: u64,
    /// Its weighted solutions as the queen-by-queen search counts them.
    pub rows: u64,
    /// Seconds its method took on one thread (JSON `join_seconds`).
    #[serde(rename = "join_seconds")]
    pub counted_seconds: f64,
    /// Seconds the queen-by-queen search took on one thread.
    pub rows_seconds: f64,
}

impl TaskCheck {
    /// Whether the two counts agree.
    pub fn agrees(&self) -> bool {
        self.counted == self.rows
    }
}

/// Counts `tasks` tasks of a `join` plan (all of them if it has fewer),
/// one drawn from each of as many equal runs of the plan with `seed`, by
/// the join and by the queen-by-queen search, on `threads` threads; in id
/// order. `checked` is told of each task as soon as both counts of it are
/// in (at N = 28 the search takes minutes a task).
pub fn cross_check(
    plan: &Plan,
    tasks: usize,
    seed: u64,
    threads: usize,
    checked: &(dyn Fn(&TaskCheck) + Sync),
) -> Result<Vec<TaskCheck>, Error> {
    let method = plan.method.counting();
    let Some(count_independently) = method.independent_count() else {
        return Err(Error::cross_check_unavailable(plan.n));
    };
    if tasks == 0 {
        return Err(Error::EmptySample);
    }
    let pool = worker_pool(threads)?;
    let total = plan.tasks.len();
    let sampled = tasks.min(total);
    let mut rng = SplitMix64(seed ^ 0x7665_7269_6679);
    let ids: Vec<usize> = (0..sampled)
        .map(|stratum| {
            let low = stratum * total / sampled;
            let high = (stratum + 1) * total / sampled;
            low + rng.below(high - low)
        })
        .collect();
    let n = plan.n;
    Ok(pool.install(|| {
        ids.par_iter()
            .with_max_len(1)
            .map(|&id| {
                let task = plan.tasks.get(id);
                let started = Instant::now();
                let counted = method
                    .count(n, &task, None)
                    .expect("a count without a stop flag runs to its end")
                    .solutions;
                // Fault injection for tests: the faulty task's count is one
                // too many, as a faulty machine would make it.
                #[cfg(feature = "failpoints")]
                let counted =
                    counted + u64::from(crate::run::task::faulty_task() == Some(id as u64));
                let counted_seconds = started.elapsed().as_secs_f64();
                let started = Instant::now();
                let rows = count_independently(n, &task);
                let check = TaskCheck {
                    id: id as u64,
                    counted,
                    rows,
                    counted_seconds,
                    rows_seconds: started.elapsed().as_secs_f64(),
                };
                checked(&check);
                check
            })
            .collect()
    }))
}
