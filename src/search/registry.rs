//! The registry of counting methods: which code counts each method (its
//! [`CountingMethod`], in its folder under `search/`), and everything asked
//! of that code by name of method: a plan's tasks and facts, its
//! fingerprint, a method's price and range of N, whether it counts on a
//! GPU or recounts its tasks, the squares its search opens. The one file
//! outside the methods' folders that links them; their names and codes,
//! which a plan records, and `auto`'s picks are one floor down
//! (`plan/method.rs`), so that the plan's types do not depend on the
//! methods that build plans. Adding a method adds its folder, a variant in
//! `plan/method.rs` and a line in each `counting` here.

use std::ops::RangeInclusive;

use super::board::{Board, MAX_N};
use super::method::CountingMethod;
use super::{d4, join, plain};
use crate::error::Error;
use crate::plan::{
    check_board_size, effective_method, Fnv1a, Method, Plan, SplitDepth, TaskKind, MIN_N,
};

impl Method {
    /// The implementation of the method (`auto` is resolved by
    /// [`effective_method`] before it gets here; it would mean `mirror`).
    pub(crate) fn counting(self) -> &'static dyn CountingMethod {
        match self {
            Method::NoSymmetry => &plain::NONE,
            Method::Mirror | Method::Auto => &plain::MIRROR,
            Method::D4 => &d4::D4,
            Method::Join => &join::JOIN,
        }
    }

    /// Whether a GPU worker counts this method's tasks (`--gpu`): asked
    /// of the method, as a plan's resolved method (`auto` means
    /// `mirror` here).
    pub fn counts_on_gpu(self) -> bool {
        self.counting().counts_on_gpu()
    }

    /// Whether `verify` can count this method's tasks again by a second
    /// code path (a plan's resolved method).
    pub fn recounts_tasks(self) -> bool {
        self.counting().independent_count().is_some()
    }

    /// Core-nanoseconds per solution a count by this method takes at the
    /// sizes it is chosen for, where measured: what a note prices a count
    /// at before it starts.
    pub fn core_ns_per_solution(self) -> Option<f64> {
        self.counting().core_ns_per_solution()
    }

    /// Whether `--split-depth` shapes the method's tasks.
    pub fn uses_split_depth(self) -> bool {
        self.counting().uses_split_depth()
    }

    /// The board sizes this method counts by its own search: below them
    /// its plans are `mirror`'s ([`effective_method`]), past them it
    /// refuses (`auto`: every size).
    pub fn own_range(self) -> RangeInclusive<u32> {
        match self {
            Method::Auto => MIN_N..=MAX_N,
            method => method.counting().own_range(),
        }
    }

    /// The method whose tasks `verify` counts again by a second code path
    /// (the first that can).
    pub fn cross_checked() -> Method {
        Method::first_that(Method::recounts_tasks).expect("a method recounts its tasks")
    }

    /// The method a GPU worker counts (the first that a GPU can), whose
    /// tasks `nqueens gpu` times.
    pub fn on_gpu() -> Method {
        Method::first_that(Method::counts_on_gpu).expect("a method counts on a GPU")
    }

    /// The first searching method (in [`Method::SEARCHING`]'s order) that
    /// has `property`: how callers, tests among them, ask for "a method
    /// that ..." without naming one, so that a method added or renamed
    /// changes its folder and `plan/method.rs`, not them.
    pub fn first_that(property: impl Fn(Method) -> bool) -> Option<Method> {
        Method::SEARCHING
            .into_iter()
            .find(|&method| property(method))
    }
}

impl TaskKind {
    /// The implementation that counts a task of this kind (`none` and
    /// `mirror` tasks count alike: the weight tells them apart).
    pub(crate) fn counting(self) -> &'static dyn CountingMethod {
        match self {
            TaskKind::Plain => &plain::MIRROR,
            TaskKind::D4Corner { .. } | TaskKind::D4Edge { .. } => &d4::D4,
            TaskKind::Join { .. } => &join::JOIN,
        }
    }

    /// Squares of `board`'s next row open to the search of a task of this
    /// kind on an `n` board: free of attacks and within the bounds its
    /// method's search keeps (`d4`'s shapes).
    pub fn open_squares(self, n: u32, board: &Board) -> u64 {
        self.counting().open_squares(self, n, board)
    }
}

impl Error {
    /// Refuses a cross-check of an `n` board, which the method that
    /// recounts its tasks ([`Method::cross_checked`]) does not count here.
    /// (Here, not in `error.rs`: the errors name methods without
    /// depending on the registry.)
    pub fn cross_check_unavailable(n: u32) -> Error {
        let method = Method::cross_checked();
        let range = method.own_range();
        Error::CrossCheckNeeds {
            method: method.name(),
            n,
            min: *range.start(),
            max: *range.end(),
        }
    }
}

/// The GPU worker of the method a GPU counts ([`Method::on_gpu`]), for
/// `nqueens::gpu` to offer the program.
#[cfg(feature = "gpu")]
pub(crate) mod gpu_worker {
    pub use crate::search::join::gpu::{
        sample_ids, time_tasks, BoardsTiming, GpuBoardMaker, GpuDevice, GpuJoinWorker as GpuWorker,
        GpuPairCounter, HostPairCounter, TaskTiming, Timing, GPU_BATCH,
    };
}

// A plan, built by its method, and the facts about it that callers show.
impl Plan {
    /// Builds the plan of `method` for an `n` board, for a count on one
    /// thread within the memory this machine has available now.
    pub fn build(n: u32, method: Method, split: SplitDepth) -> Result<Plan, Error> {
        Plan::build_within(n, method, split, None, 1)
    }

    /// The plan a file names (a journal's header, a shard result): `method`
    /// at split depth `split_depth` (ignored by a method whose tasks are
    /// not prefixes), with no memory limit: reading a file needs the plan,
    /// not the count.
    pub fn rebuild(n: u32, method: Method, split_depth: u32) -> Result<Plan, Error> {
        let split = if method.counting().uses_split_depth() {
            SplitDepth::Rows(split_depth)
        } else {
            SplitDepth::Auto
        };
        Plan::build_within(n, method, split, Some(u64::MAX), 1)
    }

    /// Builds the plan of `method` for an `n` board, for a count on
    /// `threads` threads. A plan whose count would not fit in
    /// `memory_limit` bytes (`None`: the memory available now) is refused,
    /// or for `auto` replaced by the method `auto` takes where memory is
    /// short.
    pub fn build_within(
        n: u32,
        method: Method,
        split: SplitDepth,
        memory_limit: Option<u64>,
        threads: usize,
    ) -> Result<Plan, Error> {
        let n = check_board_size(u64::from(n))?;
        let effective = effective_method(n, method);
        match effective
            .counting()
            .build_plan(n, split, memory_limit, threads)
        {
            Err(Error::TooBig { .. }) if method == Method::Auto => {
                let fallback = effective_method(n, Method::auto_when_memory_is_short(n));
                fallback
                    .counting()
                    .build_plan(n, split, memory_limit, threads)
            }
            built => built,
        }
    }

    /// Checks that a count of `method` (as `auto` resolves it) on an `n`
    /// board on `threads` threads fits in `memory_limit` (`None`: the
    /// memory available now) with its task list; returns the bytes it
    /// needs beyond the task list.
    pub fn check_memory(
        n: u32,
        method: Method,
        memory_limit: Option<u64>,
        threads: usize,
    ) -> Result<u64, Error> {
        effective_method(n, method)
            .counting()
            .check_memory(n, memory_limit, threads)
    }

    /// What the plan's memory bound ([`Plan::memory_bytes`]) holds, where
    /// its method needs memory beyond the task list.
    pub fn memory_parts(&self) -> Option<&'static str> {
        self.method.counting().memory_parts()
    }

    /// A sentence on what the tasks are, where they are not prefixes.
    pub fn tasks_are(&self) -> Option<String> {
        self.method.counting().tasks_are(self.n)
    }

    /// Whether every task's cost can be worked out cheaply before a count
    /// ([`estimate_costs`](crate::plan::estimate_costs)): the progress bar weighs by it, and `plan`
    /// shows its spread.
    pub fn costs_are_cheap(&self) -> bool {
        self.method.counting().cheap_costs()
    }

    /// Whether the count carries classes of solutions under symmetry.
    pub fn counts_orbits(&self) -> bool {
        self.method.counting().counts_orbits()
    }
}

// The fingerprint: the method may hash its tasks in summary.
impl Plan {
    /// A hash over N, method, depth and every task: two plans with the same
    /// fingerprint hand out the same work under the same ids. Worked out
    /// once per plan and kept (hashing the 65 million tasks of N = 27
    /// takes seconds, and a count asks for it several times).
    pub fn fingerprint(&self) -> u64 {
        *self.fingerprint.get_or_init(|| self.hash_tasks())
    }

    fn hash_tasks(&self) -> u64 {
        let mut hash = Fnv1a::new();
        hash.write(b"nqueens-plan-v1");
        hash.write(&self.n.to_le_bytes());
        hash.write(&[self.method.code()]);
        hash.write(&self.split_depth.to_le_bytes());
        hash.write(&(self.tasks.len() as u64).to_le_bytes());
        if self.method.counting().hash_tasks_summarily(self, &mut hash) {
            return hash.finish();
        }
        for task in self.tasks.iter() {
            hash.write(&task.id.to_le_bytes());
            hash.write(&task.weight.to_le_bytes());
            hash.write(&task.board.row.to_le_bytes());
            hash.write(&task.board.cols.to_le_bytes());
            hash.write(&task.board.ld.to_le_bytes());
            hash.write(&task.board.rd.to_le_bytes());
            task.kind.hash_into(&mut hash);
            hash.write(task.prefix_columns());
        }
        hash.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::join::JOIN_MAX_N;

    #[test]
    fn only_the_join_counts_on_a_gpu_and_recounts_its_tasks() {
        for method in Method::SEARCHING {
            let join = method == Method::Join;
            assert_eq!(method.counts_on_gpu(), join, "{method}");
            assert_eq!(method.recounts_tasks(), join, "{method}");
        }
        assert_eq!(Method::cross_checked(), Method::Join);
        assert_eq!(Method::on_gpu(), Method::Join);
    }

    #[test]
    fn the_method_auto_falls_back_to_is_priced() {
        let fallback = Method::auto_when_memory_is_short(JOIN_MAX_N);
        assert_ne!(fallback, Method::Join);
        let price = fallback.core_ns_per_solution().expect("priced");
        assert!(price > 0.0 && price.is_finite(), "{price}");
    }
}
