//! The ETA's weights: where a plan's tasks differ in cost, the bar's time
//! left counts their estimated costs, not their number.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::RwLock;

use indicatif::ProgressBar;
use nqueens::plan::estimate_costs;
use nqueens::Plan;

use super::SESSION;

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
pub(super) fn weighted_eta() -> Option<f64> {
    let (start, _) = (*SESSION.lock().unwrap_or_else(|p| p.into_inner()))?;
    let weights = WEIGHTS.read().unwrap_or_else(|p| p.into_inner());
    let to_do = weights.as_ref()?.to_do as f64;
    let done = DONE_COST.load(Ordering::Relaxed) as f64;
    let seconds = start.elapsed().as_secs_f64();
    (done > 0.0 && seconds > 0.0).then(|| (to_do - done).max(0.0) * seconds / done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use indicatif::ProgressDrawTarget;
    use nqueens::Method;

    #[test]
    fn the_eta_weighs_tasks_by_their_estimated_cost() {
        // A drawn bar (a terminal-like target is never hidden).
        let bar = ProgressBar::with_draw_target(
            None,
            ProgressDrawTarget::term_like(Box::new(console::Term::buffered_stderr())),
        );
        let plan_of = |method| Plan::build(12, method, nqueens::SplitDepth::Auto).unwrap();
        // A method whose costs are cheap to work out, and one whose are not.
        let cheap = Method::first_that(|method| plan_of(method).costs_are_cheap()).unwrap();
        let dear = Method::first_that(|method| !plan_of(method).costs_are_cheap()).unwrap();
        let plan = plan_of(cheap);
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
        // Tasks whose costs are dear weigh alike: the ETA counts tasks.
        weigh_tasks(&bar, &plan_of(dear), &|_| true);
        assert!(WEIGHTS.read().unwrap().is_none());
        assert_eq!(DONE_COST.load(Ordering::Relaxed), 0);
    }
}
