/*
 * Keys laid out in buckets on the GPU, as buckets.rs lays them out on the
 * host for pairs.cuh: a key's pattern is its bits under the cut mask,
 * packed from bit 0 (what the host's pext does); nq_histogram writes each
 * key's pattern and counts the keys of each pattern, the host turns the
 * counts into bucket starts, and nq_scatter moves each key to the next
 * slot of its bucket (in no fixed order within a bucket: the pairs do not
 * depend on it); one launch each lays out many ranges of keys, each in
 * buckets of its own. nq_sample takes every step-th key, from which the
 * host chooses the cut bits. nq_grid matches a grid's laid-out queries
 * of many query groups and classes against the stored buckets (with
 * pairs.cuh's walk). Compiled like pairs.cuh and boards.cuh (after them).
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

/* Keys laid out range by range: `range_count` ranges of `keys`, range r
 * the keys from[r] on, item_start[r + 1] - item_start[r] of them (its
 * threads' items; item_start[0] = 0), each range in buckets of its own
 * (2^cuts + 1 words a range of bucket_counts and next). */

/* Item `item`'s pattern on the cut bits, kept at patterns[item], counted
 * in its range's buckets. */
NQ_DEVICE void nq_histogram_item(const nq_u64 *keys, nq_u32 range_count,
                                 const nq_u32 *item_start, const nq_u32 *from,
                                 nq_u64 cut_mask, nq_u32 cuts, nq_u32 *patterns,
                                 nq_u32 *bucket_counts, nq_u32 item)
{
    if (item < item_start[range_count]) {
        nq_u32 range = nq_split_of(item_start, range_count, item);
        nq_u64 key = keys[from[range] + (item - item_start[range])];
        nq_u32 pattern = nq_gather(key, cut_mask);
        nq_u32 stride = (1u << cuts) + 1u;
        patterns[item] = pattern;
        NQ_NEXT(&bucket_counts[(nq_u64)range * stride + pattern]);
    }
}

/* Item `item`'s key written at its bucket's next slot (`next`: the
 * buckets' cursors, offsets into `sorted`); `sorted_patterns` may be null
 * (stored keys keep none). */
NQ_DEVICE void nq_scatter_item(const nq_u64 *keys, nq_u32 range_count, const nq_u32 *item_start,
                               const nq_u32 *from, nq_u32 cuts, const nq_u32 *patterns,
                               nq_u32 *next, nq_u64 *sorted, nq_u32 *sorted_patterns,
                               nq_u32 item)
{
    if (item < item_start[range_count]) {
        nq_u32 range = nq_split_of(item_start, range_count, item);
        nq_u32 pattern = patterns[item];
        nq_u32 stride = (1u << cuts) + 1u;
        nq_u32 slot = NQ_NEXT(&next[(nq_u64)range * stride + pattern]);
        sorted[slot] = keys[from[range] + (item - item_start[range])];
        if (sorted_patterns) {
            sorted_patterns[slot] = pattern;
        }
    }
}

/* A grid's queries matched, a thread a query (see whole/matching.rs). The stored
 * keys are the boards of several groups, each laid out in its own buckets
 * (group g's bucket starts at group_starts + g * (2^cuts + 1), offsets
 * into `stored`). The queries are laid out range after range, range r
 * those of one query group and class (items item_start[r] to
 * item_start[r + 1] of `queries`), which meet the stored groups
 * meetings[meeting_start[r]] to meetings[meeting_start[r + 1] - 1] (those
 * whose queens' key leaves the query group's, west_keys[r], alone). A
 * query meets a group only where it leaves the group's queens' key
 * (`group_keys`) alone, and a stored key only where that leaves the west
 * key alone: the query walks with it added (and its pattern,
 * west_patterns[r], to the query's). Range r's pairs go to totals[r]. */
NQ_DEVICE void nq_grid_item(const nq_u64 *stored, const nq_u32 *group_starts,
                            const nq_u64 *group_keys, nq_u32 cuts, const nq_u64 *queries,
                            const nq_u32 *query_patterns, nq_u32 range_count,
                            const nq_u32 *item_start, const nq_u64 *west_keys,
                            const nq_u32 *west_patterns, const nq_u32 *meeting_start,
                            const nq_u32 *meetings, nq_u64 *totals, nq_u32 item)
{
    if (item >= item_start[range_count]) {
        return;
    }
    nq_u32 range = nq_split_of(item_start, range_count, item);
    nq_u64 pairs = 0;
    nq_u64 query = queries[item];
    nq_u64 west_key = west_keys[range];
    nq_u32 pattern = query_patterns[item] | west_patterns[range];
    nq_u32 stride = (1u << cuts) + 1u;
    NQ_TALLY_QUERY(item, range, pattern);
    for (nq_u32 m = meeting_start[range]; m < meeting_start[range + 1]; m++) {
        nq_u32 group = meetings[m];
        if ((query & group_keys[group]) == 0) {
            pairs += nq_query_pairs(stored, group_starts + (nq_u64)group * stride, cuts,
                                    query | west_key, pattern);
        }
    }
    if (pairs != 0) {
        NQ_ADD(&totals[range], pairs);
    }
}

#ifdef __CUDACC__
extern "C" __global__ void nq_sample(const nq_u64 *keys, nq_u32 step, nq_u32 count, nq_u64 *out)
{
    nq_sample_item(keys, step, count, out, blockIdx.x * blockDim.x + threadIdx.x);
}

extern "C" __global__ void nq_histogram(const nq_u64 *keys, nq_u32 range_count,
                                        const nq_u32 *item_start, const nq_u32 *from,
                                        nq_u64 cut_mask, nq_u32 cuts, nq_u32 *patterns,
                                        nq_u32 *bucket_counts)
{
    nq_histogram_item(keys, range_count, item_start, from, cut_mask, cuts, patterns,
                      bucket_counts, blockIdx.x * blockDim.x + threadIdx.x);
}

extern "C" __global__ void nq_scatter(const nq_u64 *keys, nq_u32 range_count,
                                      const nq_u32 *item_start, const nq_u32 *from, nq_u32 cuts,
                                      const nq_u32 *patterns, nq_u32 *next, nq_u64 *sorted,
                                      nq_u32 *sorted_patterns)
{
    nq_scatter_item(keys, range_count, item_start, from, cuts, patterns, next, sorted,
                    sorted_patterns, blockIdx.x * blockDim.x + threadIdx.x);
}

extern "C" __global__ void nq_grid(const nq_u64 *stored, const nq_u32 *group_starts,
                                   const nq_u64 *group_keys, nq_u32 cuts, const nq_u64 *queries,
                                   const nq_u32 *query_patterns, nq_u32 range_count,
                                   const nq_u32 *item_start, const nq_u64 *west_keys,
                                   const nq_u32 *west_patterns, const nq_u32 *meeting_start,
                                   const nq_u32 *meetings, nq_u64 *totals)
{
    nq_grid_item(stored, group_starts, group_keys, cuts, queries, query_patterns, range_count,
                 item_start, west_keys, west_patterns, meeting_start, meetings, totals,
                 blockIdx.x * blockDim.x + threadIdx.x);
}
#endif

#endif
