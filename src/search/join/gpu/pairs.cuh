/*
 * The GPU's part of a join: for one part of stored keys and a batch of
 * query keys, the pairs with no bit in common (the half boards whose
 * diagonals do not meet). This file is compiled twice: by NVRTC for the
 * GPU, where each thread takes queries, and by the host's C compiler,
 * where one loop plays every thread, so the tests check on the CPU the
 * very code the GPU runs.
 *
 * Layout (made on the host, see src/gpu/buckets.rs): the stored keys are
 * sorted by their pattern on the cut bits (up to NQ_MAX_CUTS bits), with
 * bucket_start[p] .. bucket_start[p + 1] the keys of pattern p. A query
 * with pattern q meets only the buckets whose pattern has no bit of q: the
 * submasks of ~q. The queries are sorted by pattern too, so the threads of
 * a warp walk the same buckets.
 */

#ifndef NQ_PAIRS_CUH
#define NQ_PAIRS_CUH

#define NQ_MAX_CUTS 16

#ifdef __CUDACC__
typedef unsigned long long nq_u64;
typedef unsigned int nq_u32;
#define NQ_DEVICE __device__ __forceinline__
#define NQ_ADD(total, value) atomicAdd((total), (value))
#else
#include <stdint.h>
typedef uint64_t nq_u64;
typedef uint32_t nq_u32;
#define NQ_DEVICE static inline
#define NQ_ADD(total, value) (*(total) += (value))
#endif

/* Hooks that count the matcher's work: nothing on the GPU and in the
 * tests' host build; the stand-in driver (tests/gpu/fake_cuda.c) defines
 * them to tally the buckets walked, the pairs decided and the patterns a
 * warp's queries take (FAKE_CUDA_TALLY, docs/gpu.md). */
#ifndef NQ_TALLY_BUCKET
#define NQ_TALLY_BUCKET(keys) ((void)0)
#endif
#ifndef NQ_TALLY_QUERY
#define NQ_TALLY_QUERY(item, range, pattern) ((void)0)
#endif

/* The stored keys of bucket `pattern` with no bit of `query`. */
NQ_DEVICE nq_u64 nq_bucket_pairs(const nq_u64 *stored, const nq_u32 *bucket_start,
                                 nq_u32 pattern, nq_u64 query)
{
    nq_u64 pairs = 0;
    nq_u32 start = bucket_start[pattern];
    nq_u32 end = bucket_start[pattern + 1];
    NQ_TALLY_BUCKET(end - start);
    for (nq_u32 e = start; e < end; e++) {
        pairs += (stored[e] & query) == 0;
    }
    return pairs;
}

/* The stored keys with no bit of `query`, whose pattern on the cut bits
 * is `query_pattern`: every bucket whose pattern leaves it free, the
 * submasks of its complement, from the whole complement down to 0. */
NQ_DEVICE nq_u64 nq_query_pairs(const nq_u64 *stored, const nq_u32 *bucket_start,
                                nq_u32 cuts, nq_u64 query, nq_u32 query_pattern)
{
    nq_u32 free = ~query_pattern & ((1u << cuts) - 1u);
    nq_u64 pairs = 0;
    nq_u32 pattern = free;
    for (;;) {
        pairs += nq_bucket_pairs(stored, bucket_start, pattern, query);
        if (pattern == 0) {
            break;
        }
        pattern = (pattern - 1u) & free;
    }
    return pairs;
}

/* One thread's share: queries thread, thread + threads, ... summed into
 * *total (one addition per thread). */
NQ_DEVICE void nq_pairs_thread(const nq_u64 *stored, const nq_u32 *bucket_start, nq_u32 cuts,
                               const nq_u64 *queries, const nq_u32 *query_patterns,
                               nq_u32 query_count, nq_u32 thread, nq_u32 threads,
                               nq_u64 *total)
{
    nq_u64 pairs = 0;
    for (nq_u32 q = thread; q < query_count; q += threads) {
        pairs += nq_query_pairs(stored, bucket_start, cuts, queries[q], query_patterns[q]);
    }
    if (pairs != 0) {
        NQ_ADD(total, pairs);
    }
}

#ifdef __CUDACC__
extern "C" __global__ void nq_pairs(const nq_u64 *stored, const nq_u32 *bucket_start,
                                    nq_u32 cuts, const nq_u64 *queries,
                                    const nq_u32 *query_patterns, nq_u32 query_count,
                                    nq_u64 *total)
{
    nq_pairs_thread(stored, bucket_start, cuts, queries, query_patterns, query_count,
                    blockIdx.x * blockDim.x + threadIdx.x, gridDim.x * blockDim.x, total);
}
#endif

#endif
