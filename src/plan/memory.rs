//! How much memory a plan's count needs, and whether this machine has it.

use super::{Method, Plan};
use crate::error::Error;
use crate::search::join::{self, JOIN_MAX_N};
use crate::system;

/// Checks that a `join` count of an `n` board fits in `memory_limit`
/// (`None`: the memory available now); returns the bytes it needs, or an
/// upper bound of them when that bound fits.
pub fn join_fits(n: u32, memory_limit: Option<u64>) -> Result<u64, Error> {
    if n > JOIN_MAX_N {
        return Err(Error::JoinTooLarge { n, max: JOIN_MAX_N });
    }
    let limit = memory_limit.or_else(system::available_memory);
    // The bound is free; the exact figure enumerates the table once, so it
    // is only worked out when the bound does not settle it.
    let bound = join::memory_bound(n);
    if limit.is_none_or(|limit| bound <= limit) {
        return Ok(bound);
    }
    let needed = join::memory_needed(n);
    match limit {
        Some(limit) if needed > limit => Err(Error::JoinTooBig { n, needed, limit }),
        _ => Ok(needed),
    }
}

impl Plan {
    /// The bytes the plan's tasks take: with [`Plan::peak_memory_exact`],
    /// the peak a count of this plan takes beyond the program itself.
    pub fn task_bytes(&self) -> u64 {
        self.tasks.len() as u64 * std::mem::size_of::<super::Task>() as u64
    }

    /// The peak bytes a count of this plan needs beyond the plan itself,
    /// exactly: the quadrant table of a `join` plan (worked out by
    /// enumerating it, a moment at large N), 0 for the depth-first methods.
    pub fn peak_memory_exact(&self) -> u64 {
        if self.method == Method::Join {
            join::memory_needed(self.n)
        } else {
            0
        }
    }
}
