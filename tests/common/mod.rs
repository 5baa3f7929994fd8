//! Helpers shared by the integration tests.

use nqueens::{count_with_hooks, CountOptions, Method, RunHooks, SplitDepth, Task};

/// Options for `method` on `threads` threads, cut at `split_depth`, with the
/// default memory limit.
pub fn options(method: Method, threads: usize, split_depth: SplitDepth) -> CountOptions {
    CountOptions::default()
        .with_method(method)
        .with_threads(Some(threads))
        .with_split_depth(split_depth)
}

/// Solutions of the shard `index` of `shards` (tasks whose id is `index`
/// modulo `shards`), checking that the report calls itself incomplete.
// Each test binary compiles this module; not all of them shard.
#[allow(dead_code)]
pub fn shard_solutions(n: u32, options: &CountOptions, shards: u64, index: u64) -> u128 {
    let skip = move |task: &Task| task.id % shards != index;
    let hooks = RunHooks {
        skip: Some(&skip),
        ..RunHooks::default()
    };
    let part = count_with_hooks(n, options, &hooks, |_| {}).unwrap();
    assert!(
        !part.complete,
        "n={n} shard {index}/{shards} reported complete"
    );
    part.solutions
}
