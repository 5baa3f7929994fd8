//! Helpers shared by the integration tests.

use nqueens::{CountOptions, Method, SplitDepth};

/// Options for `method` on `threads` threads, cut at `split_depth`, with the
/// default memory limit.
pub fn options(method: Method, threads: usize, split_depth: SplitDepth) -> CountOptions {
    CountOptions {
        method,
        threads: Some(threads),
        split_depth,
        memory_limit: None,
    }
}
