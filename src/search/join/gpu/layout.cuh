/*
 * Keys laid out in buckets on the GPU, as buckets.rs lays them out on the
 * host for pairs.cuh: a key's pattern is its bits under the cut mask,
 * packed from bit 0 (what the host's pext does); nq_histogram writes each
 * key's pattern and counts the keys of each pattern, the host turns the
 * counts into bucket starts, and nq_scatter moves each key to the next
 * slot of its bucket (in no fixed order within a bucket: the pairs do not
 * depend on it). nq_sample takes every step-th key, from which the host
 * chooses the cut bits. Compiled like pairs.cuh and boards.cuh (after
 * them).
 */

#ifndef NQ_LAYOUT_CUH
#define NQ_LAYOUT_CUH

#ifdef __CUDACC__
#define NQ_NEXT(counter) atomicAdd((counter), 1u)
#else
#define NQ_NEXT(counter) ((*(counter))++)
#endif

/* The bits of `key` under `mask`, packed from bit 0 in their order. */
NQ_DEVICE nq_u32 nq_gather(nq_u64 key, nq_u64 mask)
{
    nq_u32 pattern = 0;
    nq_u32 bit = 0;
    while (mask != 0) {
        nq_u64 low = mask & (~mask + 1);
        pattern |= (nq_u32)((key & low) != 0) << bit;
        bit++;
        mask ^= low;
    }
    return pattern;
}

/* out[item] = keys[item * step], for item < count. */
NQ_DEVICE void nq_sample_item(const nq_u64 *keys, nq_u32 step, nq_u32 count, nq_u64 *out,
                              nq_u32 item)
{
    if (item < count) {
        out[item] = keys[(nq_u64)item * step];
    }
}

NQ_DEVICE void nq_histogram_item(const nq_u64 *keys, nq_u32 count, nq_u64 cut_mask,
                                 nq_u32 *patterns, nq_u32 *bucket_counts, nq_u32 item)
{
    if (item < count) {
        nq_u32 pattern = nq_gather(keys[item], cut_mask);
        patterns[item] = pattern;
        NQ_NEXT(&bucket_counts[pattern]);
    }
}

/* `sorted_patterns` may be null (stored keys keep none). */
NQ_DEVICE void nq_scatter_item(const nq_u64 *keys, const nq_u32 *patterns, nq_u32 count,
                               nq_u32 *next, nq_u64 *sorted, nq_u32 *sorted_patterns,
                               nq_u32 item)
{
    if (item < count) {
        nq_u32 pattern = patterns[item];
        nq_u32 slot = NQ_NEXT(&next[pattern]);
        sorted[slot] = keys[item];
        if (sorted_patterns) {
            sorted_patterns[slot] = pattern;
        }
    }
}

#ifdef __CUDACC__
extern "C" __global__ void nq_sample(const nq_u64 *keys, nq_u32 step, nq_u32 count, nq_u64 *out)
{
    nq_sample_item(keys, step, count, out, blockIdx.x * blockDim.x + threadIdx.x);
}

extern "C" __global__ void nq_histogram(const nq_u64 *keys, nq_u32 count, nq_u64 cut_mask,
                                        nq_u32 *patterns, nq_u32 *bucket_counts)
{
    nq_histogram_item(keys, count, cut_mask, patterns, bucket_counts,
                      blockIdx.x * blockDim.x + threadIdx.x);
}

extern "C" __global__ void nq_scatter(const nq_u64 *keys, const nq_u32 *patterns, nq_u32 count,
                                      nq_u32 *next, nq_u64 *sorted, nq_u32 *sorted_patterns)
{
    nq_scatter_item(keys, patterns, count, next, sorted, sorted_patterns,
                    blockIdx.x * blockDim.x + threadIdx.x);
}
#endif

#endif
