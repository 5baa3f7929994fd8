//! The GPU kernel's logic run on the host: the same source (`pairs.cuh`)
//! compiled by the host's C compiler, one loop playing every thread. A join
//! counted through it must equal the CPU join; the tests check it so on
//! machines with no GPU.

use super::buckets::{QueryLayout, StoredLayout};
use crate::search::join::PairCounter;

extern "C" {
    fn nq_pairs_host(
        stored: *const u64,
        bucket_start: *const u32,
        cuts: u32,
        queries: *const u64,
        query_patterns: *const u32,
        query_count: u32,
        threads: u32,
    ) -> u64;
}

/// Counts pairs with the kernel's code on the host, as a launch of
/// `threads` threads would.
#[derive(Debug, Default)]
pub struct HostPairCounter {
    stored: StoredLayout,
    queries: QueryLayout,
    /// Threads of the launch it plays (their shares of the queries are
    /// summed as the GPU's are).
    pub threads: u32,
}

impl HostPairCounter {
    /// A counter that plays launches of `threads` threads.
    pub fn new(threads: u32) -> HostPairCounter {
        HostPairCounter {
            threads: threads.max(1),
            ..HostPairCounter::default()
        }
    }
}

impl PairCounter for HostPairCounter {
    fn load(&mut self, stored: &[u64], cuts: &[u64]) -> bool {
        self.stored.fill(stored, cuts);
        true
    }

    fn sum_disjoint(&mut self, queries: &[u64], extra: u64) -> Option<u64> {
        let count = u32::try_from(queries.len()).ok()?;
        self.queries.fill(queries, extra, &self.stored);
        // SAFETY: the pointers are to live buffers of the lengths the C
        // code reads: `bucket_start` holds 2^cuts + 1 offsets into the
        // stored keys, and both query arrays hold `count` entries.
        Some(unsafe {
            nq_pairs_host(
                self.stored.keys.as_ptr(),
                self.stored.bucket_start().as_ptr(),
                self.stored.cut_count(),
                self.queries.keys.as_ptr(),
                self.queries.patterns.as_ptr(),
                count,
                self.threads.max(1),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::buckets::keys;
    use super::*;
    use crate::search::join::{count_task, count_task_on, JoinTasks};

    fn naive(stored: &[u64], queries: &[u64], extra: u64) -> u64 {
        queries
            .iter()
            .map(|query| {
                stored
                    .iter()
                    .filter(|&&key| key & (query | extra) == 0)
                    .count() as u64
            })
            .sum()
    }

    #[test]
    fn the_kernel_on_the_host_counts_every_disjoint_pair() {
        // Sparse and dense keys, any number of cuts and of threads.
        for (seed, stored_len, query_len, density) in [
            (1, 0, 10, 2),
            (2, 10, 0, 2),
            (3, 500, 300, 2),
            (4, 3000, 200, 3),
            (5, 64, 64, 1),
            // Enough keys for the kernel's most cuts.
            (6, 300_000, 40, 2),
        ] {
            let stored = keys(seed, stored_len, density);
            let queries = keys(seed + 100, query_len, density);
            for cut_count in [0, 1, 5, 12, 16] {
                let cuts: Vec<u64> = (0..cut_count).map(|i| 1u64 << (i * 5 % 64)).collect();
                for threads in [1, 7, 256] {
                    let mut counter = HostPairCounter::new(threads);
                    assert!(counter.load(&stored, &cuts));
                    for extra in [0, 1 << 10] {
                        assert_eq!(
                            counter.sum_disjoint(&queries, extra),
                            Some(naive(&stored, &queries, extra)),
                            "seed {seed}, {cut_count} cuts, {threads} threads, extra {extra:x}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn random_join_tasks_counted_by_the_kernel_on_the_host_are_the_cpus() {
        // N = 8..20, a few tasks each (more at small N), spread over the
        // plan; the GPU counts the same with the same code.
        for n in 8..=20u32 {
            let tasks = JoinTasks::new(n);
            let len = tasks.len();
            let picks = if n <= 16 { 8 } else { 3 };
            let mut solutions = 0;
            for k in 0..picks {
                let id = (k * 104_729 + u64::from(n) * 31) % len;
                let task = tasks.get(id);
                let cpu = count_task(n, &task);
                let mut counter = HostPairCounter::new(64);
                let host = count_task_on(n, &task, &mut counter, None).unwrap();
                assert_eq!(host, cpu, "N = {n}, task {id}");
                solutions += cpu.solutions;
            }
            assert!(
                n < 10 || solutions > 0,
                "N = {n}: the picks count something"
            );
        }
    }
}
