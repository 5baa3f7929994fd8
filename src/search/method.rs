//! The seam between a counting method and everything that runs one: the
//! plan, the engine and its workers, the estimate, the heaviest tasks,
//! verify, the reports and the progress bar ask a [`CountingMethod`], and
//! never name a method. Each method implements it in its own folder
//! (`plain/` for `none` and `mirror`, `d4/`, `join/`); the one registry
//! line per method is [`Method::counting`](crate::plan::Method::counting)
//! (`registry.rs`).

use std::any::Any;
use std::ops::RangeInclusive;
use std::sync::atomic::AtomicBool;

use crate::error::Error;
use crate::plan::{fnv1a, Fnv1a, Plan, SplitDepth, Task, TaskKind, MIN_N};
use crate::search::board::{Board, MAX_N};

/// What one task counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskCount {
    /// Solutions below the task's prefix, weighted.
    pub solutions: u64,
    /// Classes of solutions under symmetry counted (`d4` tasks; 0 otherwise).
    pub orbits: u64,
    /// Of those classes, how many have 2, 4 and 8 boards (`d4` tasks).
    pub orbit_sizes: [u64; 3],
    /// Queens placed.
    pub nodes: u64,
}

impl TaskCount {
    /// Task `id`'s counts (not its work measure, which builds may count
    /// differently) as one 64-bit digest. Summed over a set of tasks it
    /// gives [`RunTotals::digest`](crate::RunTotals::digest): the same whatever the order or the
    /// threads, and changed by any one task counted differently.
    pub fn digest(&self, id: u64) -> u64 {
        let mut bytes = [0u8; 48];
        let fields = [
            id,
            self.solutions,
            self.orbits,
            self.orbit_sizes[0],
            self.orbit_sizes[1],
            self.orbit_sizes[2],
        ];
        for (slot, field) in bytes.chunks_exact_mut(8).zip(fields) {
            slot.copy_from_slice(&field.to_le_bytes());
        }
        fnv1a(&bytes)
    }
}

/// Lends a caller's threads to search code, which has none of its own:
/// `map(len, job)` runs `job(i)` for every i below `len`, on any threads in
/// any order, and returns the results in the order of i.
pub(crate) type ParallelMap<'a> =
    &'a (dyn Fn(usize, &(dyn Fn(usize) -> Vec<u64> + Sync)) -> Vec<Vec<u64>> + Sync);

/// Counts a task of an `n` plan by a path of its own: its weighted
/// solutions.
pub(crate) type IndependentCount = fn(n: u32, task: &Task) -> u64;

/// What a counting method supplies. Its tasks are addressed by id (the
/// plan's [`TaskList`](crate::plan::TaskList)), counted one at a time on
/// any thread (the search is single-threaded code that the engine
/// schedules), with costs known before counting.
pub(crate) trait CountingMethod: Sync {
    /// The plan of an `n` board: its tasks (cut at `split` where the
    /// method's tasks are prefixes), and the memory a count on `threads`
    /// threads needs beyond it; refused where that exceeds `memory_limit`
    /// (`None`: the memory available now).
    fn build_plan(
        &self,
        n: u32,
        split: SplitDepth,
        memory_limit: Option<u64>,
        threads: usize,
    ) -> Result<Plan, Error>;

    /// Whether `--split-depth` shapes the tasks (for the methods whose
    /// tasks are prefixes); else a plan is rebuilt from N alone.
    fn uses_split_depth(&self) -> bool {
        true
    }

    /// The board sizes the method counts by its own search: below them
    /// its plans are `mirror`'s, past them it refuses
    /// ([`effective_method`](crate::plan::effective_method)).
    fn own_range(&self) -> RangeInclusive<u32> {
        MIN_N..=MAX_N
    }

    /// Squares of `board`'s next row open to the search of a task of
    /// kind `kind` (one of this method's) on an `n` board: free of
    /// attacks, and within whatever bounds the method's search keeps
    /// there. What the estimate's random descents and the prefix costs
    /// branch on.
    fn open_squares(&self, _kind: TaskKind, n: u32, board: &Board) -> u64 {
        board.free(n)
    }

    /// Counts one task of an `n` plan, abandoned (`None`) once `stop` is
    /// set where the method looks at it (tasks of minutes do, between
    /// parts; tasks of milliseconds run to their end).
    fn count(&self, n: u32, task: &Task, stop: Option<&AtomicBool>) -> Option<TaskCount>;

    /// Counts the part of `task` below `board`, a deeper prefix of it
    /// whose queens' columns are `prefix`: what the estimate times at the
    /// end of a random descent ([`CountingMethod::descends`]).
    fn count_below(&self, n: u32, task: &Task, board: Board, prefix: &[u8]) -> TaskCount;

    /// Whether the estimate may time a random path below a task (the
    /// depth-first methods), or must time tasks whole.
    fn descends(&self) -> bool {
        true
    }

    /// What a count builds once and every task then shares, built ahead
    /// by the estimate so that no timed task carries it; dropped to free
    /// it.
    fn shared_state(&self, _n: u32) -> Option<Box<dyn Any + Send + Sync>> {
        None
    }

    /// Makes task `index`'s thread warm as a count would meet it (caches,
    /// the tasks before it), untimed, before the estimate times it.
    fn warm(&self, _plan: &Plan, _index: usize) {}

    /// Offers every task's cost, before counting, in id order: an
    /// estimate of its time in units that compare tasks of one plan
    /// (`--heaviest`), with `map` to spread any work that precedes the
    /// costs over the caller's threads.
    fn offer_costs(&self, plan: &Plan, map: ParallelMap<'_>, offer: &mut dyn FnMut(u64, f64));

    /// What [`CountingMethod::offer_costs`] measures, for reports.
    fn cost_meaning(&self) -> String;

    /// Core-nanoseconds per solution at the sizes the method is chosen
    /// for, where measured (notes price a count by it before it starts).
    fn core_ns_per_solution(&self) -> Option<f64> {
        None
    }

    /// Whether a task's cost is cheap enough to work out for every task
    /// before a count (the progress bar's weights, the plan's spread).
    fn cheap_costs(&self) -> bool {
        true
    }

    /// What the plan's memory bound holds, where the method needs memory
    /// beyond its task list.
    fn memory_parts(&self) -> Option<&'static str> {
        None
    }

    /// A sentence on what the tasks of an `n` plan are, for `plan`, where
    /// the method's tasks are not prefixes.
    fn tasks_are(&self, _n: u32) -> Option<String> {
        None
    }

    /// Whether the counts carry classes of solutions under symmetry.
    fn counts_orbits(&self) -> bool {
        false
    }

    /// Whether a GPU worker (the `gpu` feature's) counts this method's
    /// tasks, so that `--gpu` may join a count of it.
    fn counts_on_gpu(&self) -> bool {
        false
    }

    /// A second count of a task's weighted solutions, by a different
    /// code path (for `verify`), where the method has one.
    fn independent_count(&self) -> Option<IndependentCount> {
        None
    }

    /// Checks that a count of an `n` board on `threads` threads fits in
    /// `memory_limit` (`None`: the memory available now) with its task
    /// list; returns the bytes it needs beyond the list.
    fn check_memory(
        &self,
        _n: u32,
        _memory_limit: Option<u64>,
        _threads: usize,
    ) -> Result<u64, Error> {
        Ok(0)
    }

    /// Hashes the plan's tasks into its fingerprint in a summary form, if
    /// the method has one (tasks that follow from a few fields): `false`
    /// leaves them to be hashed one by one.
    fn hash_tasks_summarily(&self, _plan: &Plan, _hash: &mut Fnv1a) -> bool {
        false
    }
}
