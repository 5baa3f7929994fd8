//! `join` as a [`CountingMethod`]: one task per row set (cut beside the
//! middle line from N = 24), a memory bound for the cells, keys and
//! matchers of the threads, costs from the quadrants' placement counts,
//! and a second count of any task by the queen-by-queen search.

use std::any::Any;
use std::ops::RangeInclusive;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use super::{
    count_task, count_task_by_rows, count_task_until, cut_queens, memory_needed, prepare_cells,
    shared_cells, task_cost, JoinTally, JoinTask, JoinTasks, QuadrantCounts, JOIN_MAX_N,
    JOIN_MIN_N, SHARED_MAX_SIDE,
};
use crate::error::Error;
use crate::plan::MAX_PREFIX_ROWS;
use crate::plan::{
    effective_method, Fnv1a, Method, Plan, SplitDepth, Task, TaskKind, TaskList, TaskSource,
};
use crate::search::board::Board;
use crate::search::method::{CountingMethod, IndependentCount, ParallelMap, TaskCount};
use crate::system;

/// Half boards joined on their crossing diagonals.
pub(crate) struct JoinMethod;

/// The `join` method.
pub(crate) static JOIN: JoinMethod = JoinMethod;

/// Tasks run, untimed, before a sampled task of a small board (whose
/// quadrant cells are shared), so that it is timed as warm as a count
/// meets it: with one such task N = 19 reads 15% high, with 4 still 12%;
/// with 8, N = 19 and 20 read within 3% of counts in the same sitting.
const WARM_TASKS: usize = 8;

impl TaskCount {
    /// A join task's counts: its solutions, and its pairs of half boards as
    /// its work measure.
    pub(crate) fn of_join(tally: JoinTally) -> TaskCount {
        TaskCount {
            solutions: tally.solutions,
            nodes: tally.pairs,
            ..TaskCount::default()
        }
    }
}

impl JoinTask {
    /// The join task of plan task `task`, if it is one.
    pub(crate) fn of(task: &Task) -> Option<JoinTask> {
        match task.kind {
            TaskKind::Join { east_rows, middle } => Some(JoinTask { east_rows, middle }),
            _ => None,
        }
    }

    /// The plan task `id` of this join task.
    fn plan_task(self, id: u64) -> Task {
        Task {
            id,
            weight: 8,
            board: Board::EMPTY,
            kind: TaskKind::Join {
                east_rows: self.east_rows,
                middle: self.middle,
            },
            prefix: [0; MAX_PREFIX_ROWS],
        }
    }
}

/// The join task of a task of a join plan.
fn join_task(task: &Task) -> JoinTask {
    JoinTask::of(task).expect("a join plan holds join tasks")
}

impl TaskSource for JoinTasks {
    fn len(&self) -> u64 {
        JoinTasks::len(self)
    }

    fn get(&self, id: u64) -> Task {
        JoinTasks::get(self, id).plan_task(id)
    }

    fn iter(&self) -> Box<dyn Iterator<Item = Task> + '_> {
        Box::new(
            JoinTasks::iter(self)
                .enumerate()
                .map(|(id, task)| task.plan_task(id as u64)),
        )
    }

    fn bytes(&self) -> u64 {
        JoinTasks::bytes(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Checks that a `join` count of an `n` board on `threads` threads fits in
/// `memory_limit` (`None`: the memory available now), the plan's
/// `task_list_bytes` included; returns the bytes it needs beyond the plan.
fn join_fits(
    n: u32,
    memory_limit: Option<u64>,
    threads: usize,
    task_list_bytes: u64,
) -> Result<u64, Error> {
    if n > JOIN_MAX_N {
        return Err(too_large(n));
    }
    let needed = memory_needed(n, threads);
    match memory_limit.or_else(system::available_memory) {
        Some(limit) if needed.saturating_add(task_list_bytes) > limit => Err(Error::TooBig {
            method: Method::Join.name(),
            n,
            needed: needed.saturating_add(task_list_bytes),
            limit,
            instead: Method::auto_when_memory_is_short(n).name(),
        }),
        _ => Ok(needed),
    }
}

/// Refuses an `n` board past the join's range, naming the method `auto`
/// counts it with.
fn too_large(n: u32) -> Error {
    Error::TooLarge {
        method: Method::Join.name(),
        n,
        max: JOIN_MAX_N,
        instead: effective_method(n, Method::Auto).name(),
    }
}

/// The bytes a `join` plan of an `n` board holds for its task list, known
/// before the plan is built (what [`join_fits`] is given ahead of it).
fn join_task_list_bytes(n: u32) -> u64 {
    JoinTasks::new(n).bytes()
}

impl CountingMethod for JoinMethod {
    fn build_plan(
        &self,
        n: u32,
        _split: SplitDepth,
        memory_limit: Option<u64>,
        threads: usize,
    ) -> Result<Plan, Error> {
        if n > JOIN_MAX_N {
            return Err(too_large(n));
        }
        let tasks = JoinTasks::new(n);
        let memory_bytes = join_fits(n, memory_limit, threads, tasks.bytes())?;
        let tasks = TaskList::generated(Arc::new(tasks));
        Ok(Plan::from_parts(n, Method::Join, 0, tasks, 0, memory_bytes))
    }

    fn own_range(&self) -> RangeInclusive<u32> {
        JOIN_MIN_N..=JOIN_MAX_N
    }

    fn uses_split_depth(&self) -> bool {
        false
    }

    fn count(&self, n: u32, task: &Task, stop: Option<&AtomicBool>) -> Option<TaskCount> {
        let task = join_task(task);
        let tally = match stop {
            Some(stop) => count_task_until(n, &task, stop)?,
            None => count_task(n, &task),
        };
        Some(TaskCount::of_join(tally))
    }

    fn count_below(&self, n: u32, task: &Task, _board: Board, _prefix: &[u8]) -> TaskCount {
        TaskCount::of_join(count_task(n, &join_task(task)))
    }

    fn descends(&self) -> bool {
        false
    }

    fn shared_state(&self, n: u32) -> Option<Box<dyn Any + Send + Sync>> {
        (n / 2 <= SHARED_MAX_SIDE)
            .then(|| Box::new(shared_cells(n / 2)) as Box<dyn Any + Send + Sync>)
    }

    fn warm(&self, plan: &Plan, index: usize) {
        // A count meets a task warm: its thread's cells, buffers and caches
        // as the tasks before it left them (the same row sets come in
        // runs); a lone sampled task would be cold. Timed cold, N = 20 read
        // 15% above the real count; timed warm (the task itself run
        // first), N = 24 read 12% below the times a count journaled for
        // the same tasks, as a count builds the cells of a new row set
        // where a warm task finds them made.
        let n = plan.n;
        let before = |back: usize| {
            index
                .checked_sub(back)
                .and_then(|id| JoinTask::of(&plan.tasks.get(id)))
        };
        if n / 2 <= SHARED_MAX_SIDE {
            // Tasks of milliseconds: the tasks before it run first, untimed.
            for back in (1..=WARM_TASKS).rev() {
                if let Some(task) = before(back) {
                    std::hint::black_box(count_task(n, &task));
                }
            }
        } else if let Some(task) = before(1).or_else(|| before(0)) {
            // Tasks of seconds to minutes (N >= 24), where the caches
            // matter little but a new row set's cells are built: only the
            // cells of the task before are made (running it doubles an
            // estimate of hours at N = 28).
            prepare_cells(n, &task);
        }
    }

    fn offer_costs(&self, plan: &Plan, map: ParallelMap<'_>, offer: &mut dyn FnMut(u64, f64)) {
        let quadrants = QuadrantCounts::counted_by(plan.n / 2, map);
        for task in plan.tasks.iter() {
            offer(task.id, task_cost(plan.n, &quadrants, &join_task(&task)));
        }
    }

    fn cost_meaning(&self) -> String {
        "the product of the task's quadrants' placement counts".to_string()
    }

    fn cheap_costs(&self) -> bool {
        false
    }

    fn memory_parts(&self) -> Option<&'static str> {
        Some("quadrant cells, keys and matchers")
    }

    fn tasks_are(&self, n: u32) -> Option<String> {
        let cut = match cut_queens(n) {
            0 => "",
            1 => ", each cut by the row of its east queen beside the middle line",
            _ => ", each cut by the rows of its two queens beside the middle line",
        };
        Some(format!(
            "tasks are row sets of the east half board{cut}, costs ranked by --heaviest K"
        ))
    }

    fn counts_on_gpu(&self) -> bool {
        true
    }

    fn independent_count(&self) -> Option<IndependentCount> {
        Some(|n, task| count_task_by_rows(n, &join_task(task)))
    }

    fn check_memory(
        &self,
        n: u32,
        memory_limit: Option<u64>,
        threads: usize,
    ) -> Result<u64, Error> {
        join_fits(n, memory_limit, threads, join_task_list_bytes(n))
    }

    fn hash_tasks_summarily(&self, plan: &Plan, hash: &mut Fnv1a) -> bool {
        let Some(tasks) = plan
            .tasks
            .source()
            .and_then(|source| source.downcast_ref::<JoinTasks>())
            .filter(|tasks| tasks.cut_code() != 0)
        else {
            return false;
        };
        // An even-N join cut beside the middle: its tasks follow from its
        // row sets and the cut, so those are hashed (3.4 billion tasks at
        // N = 28 took 4 minutes to hash one by one on an x86-64 core, 5 s
        // this way).
        hash.write(&[6, tasks.cut_code()]);
        for (rows, count) in tasks.row_sets() {
            hash.write(&rows.to_le_bytes());
            hash.write(&count.to_le_bytes());
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::{Method, SplitDepth};

    /// The costs a join plan offers through the seam (what `--heaviest`
    /// ranks and the estimate regresses on) are each task's `task_cost`,
    /// once per task, from a quadrant table built in parallel that is the
    /// one built on one thread.
    #[test]
    fn the_offered_costs_are_each_tasks_quadrant_product() {
        for n in [12, 13, 17] {
            let plan = Plan::build(n, Method::Join, SplitDepth::Auto).unwrap();
            let quadrants = QuadrantCounts::new(n / 2);
            let mut offered = Vec::new();
            let reversed = |len: usize, job: &(dyn Fn(usize) -> Vec<u64> + Sync)| {
                // Jobs run out of order, as on a pool's threads.
                let mut parts: Vec<(usize, Vec<u64>)> =
                    (0..len).rev().map(|at| (at, job(at))).collect();
                parts.sort_by_key(|&(at, _)| at);
                parts.into_iter().map(|(_, part)| part).collect()
            };
            JOIN.offer_costs(&plan, &reversed, &mut |id, cost| offered.push((id, cost)));
            let expected: Vec<(u64, f64)> = plan
                .tasks
                .iter()
                .map(|task| (task.id, task_cost(n, &quadrants, &join_task(&task))))
                .collect();
            assert_eq!(offered, expected, "N = {n}");
            assert!(offered.iter().any(|&(_, cost)| cost > 0.0));
        }
    }
}
