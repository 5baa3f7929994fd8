/* The GPU kernel's logic on the host: one loop plays every thread of a
 * launch of `threads` threads (tests run it against the CPU join). */
#include "pairs.cuh"

nq_u64 nq_pairs_host(const nq_u64 *stored, const nq_u32 *bucket_start, nq_u32 cuts,
                     const nq_u64 *queries, const nq_u32 *query_patterns,
                     nq_u32 query_count, nq_u32 threads)
{
    nq_u64 total = 0;
    for (nq_u32 thread = 0; thread < threads; thread++) {
        nq_pairs_thread(stored, bucket_start, cuts, queries, query_patterns, query_count,
                        thread, threads, &total);
    }
    return total;
}
