//! How much memory a plan's count needs, and whether this machine has it.

use super::Plan;
use crate::error::Error;
use crate::search::join::{self, JOIN_MAX_N};
use crate::system;

/// Checks that a `join` count of an `n` board on `threads` threads fits in
/// `memory_limit` (`None`: the memory available now), the plan's
/// `task_list_bytes` included; returns the bytes it needs beyond the plan.
pub fn join_fits(
    n: u32,
    memory_limit: Option<u64>,
    threads: usize,
    task_list_bytes: u64,
) -> Result<u64, Error> {
    if n > JOIN_MAX_N {
        return Err(Error::JoinTooLarge { n, max: JOIN_MAX_N });
    }
    let needed = join::memory_needed(n, threads);
    match memory_limit.or_else(system::available_memory) {
        Some(limit) if needed.saturating_add(task_list_bytes) > limit => Err(Error::JoinTooBig {
            n,
            needed: needed.saturating_add(task_list_bytes),
            limit,
        }),
        _ => Ok(needed),
    }
}

/// The bytes a `join` plan of an `n` board holds for its task list, known
/// before the plan is built (what [`join_fits`] is given ahead of it).
pub fn join_task_list_bytes(n: u32) -> u64 {
    join::JoinTasks::new(n).bytes()
}

impl Plan {
    /// The bytes the plan's task list takes.
    pub fn task_bytes(&self) -> u64 {
        self.tasks.bytes()
    }

    /// The peak bytes a count of this plan takes beyond the program: the
    /// task list, and for `join` the quadrant cells, keys and matchers of
    /// the threads it was planned for (a bound; see
    /// [`join::memory_needed`]).
    pub fn peak_memory(&self) -> u64 {
        self.task_bytes().saturating_add(self.memory_bytes)
    }
}
