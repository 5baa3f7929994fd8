//! What a plan asks of its method: the plan itself, and the facts about
//! it that callers show, each from the method's [`CountingMethod`](crate::search::method::CountingMethod).

use super::{check_board_size, effective_method, Method, Plan, SplitDepth};
use crate::error::Error;

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
    /// ([`estimate_costs`](super::estimate_costs)): the progress bar weighs by it, and `plan`
    /// shows its spread.
    pub fn costs_are_cheap(&self) -> bool {
        self.method.counting().cheap_costs()
    }

    /// Whether the count carries classes of solutions under symmetry.
    pub fn counts_orbits(&self) -> bool {
        self.method.counting().counts_orbits()
    }
}

impl Method {
    /// Whether `--split-depth` shapes the method's tasks.
    pub fn uses_split_depth(self) -> bool {
        self.counting().uses_split_depth()
    }
}
