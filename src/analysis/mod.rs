//! What reads a plan or its results without being a count: the estimate
//! of a count's time, the heaviest tasks, the cross-check of sampled
//! tasks by a second code path, the comparison of journals and shards,
//! and the benchmark. Each runs tasks through [`crate::run`].

pub mod bench;
pub mod compare;
pub mod estimate;
pub mod heaviest;
pub mod verify;
