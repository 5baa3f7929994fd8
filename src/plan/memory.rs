//! How much memory a plan's count needs.

use super::Plan;

impl Plan {
    /// The bytes the plan's task list takes.
    pub fn task_bytes(&self) -> u64 {
        self.tasks.bytes()
    }

    /// The peak bytes a count of this plan takes beyond the program: the
    /// task list, and what the method needs beyond it on the threads it
    /// was planned for (a bound; for `join`, its quadrant cells, keys and
    /// matchers).
    pub fn peak_memory(&self) -> u64 {
        self.task_bytes().saturating_add(self.memory_bytes)
    }
}
