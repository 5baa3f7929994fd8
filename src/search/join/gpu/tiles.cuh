/*
 * The tiled matcher (not yet in the count; docs/gpu.md, "What the next GPU
 * session should build"): the loops of sliced.cuh's walk turned, so that
 * the lanes of a warp share the stored side rather than a query's pattern.
 * A warp takes one meeting of a grid (a range of queries and one stored
 * group it meets) and walks the group's stored buckets in step; for each,
 * its lanes test the range's nonempty query buckets 32 at a time, keep
 * those whose patterns leave the stored bucket's free, and lay the kept
 * buckets' queries out over the lanes (a scan of their sizes), a query a
 * lane, 32 to a round; every lane ANDs its own query's words against the
 * same blocks, so the warp reads each block's lines once a round and no
 * lane waits on another's walk. A query's chunk patterns (the words it
 * reads in a block) are made once, by nq_query_chunks.
 *
 * One source for the GPU and the host's C compiler, as sliced.cuh, but a
 * warp's lanes work together here, so the code is written a warp at a
 * time: NQ_LANES runs its body for the thread's own lane on the GPU and
 * for each of the 32 lanes in turn on the host, a per-lane variable
 * (NQ_LANE_VAR, read and written as NQ_L) is a register on the GPU and an
 * array of 32 on the host, and each exchange between lanes (a ballot, a
 * scan, a shuffle, a sum) is a warp instruction on the GPU and a loop over
 * those arrays on the host. Compiled after sliced.cuh (its offsets and
 * popcount) and boards.cuh (nq_split_of).
 */

#ifndef NQ_TILES_CUH
#define NQ_TILES_CUH

/* Bytes of chunk patterns a query keeps: one a chunk, up to NQ_MAX_CHUNKS,
 * in four words. */
#define NQ_QUERY_CHUNK_WORDS 4u

#ifdef __CUDACC__
#define NQ_FULL_WARP 0xffffffffu
#define NQ_LANE_VAR(type, name) type name
#define NQ_L(name) (name)
#define NQ_LANES for (nq_u32 lane = threadIdx.x & 31u, nq_lanes_once = 1u; nq_lanes_once; nq_lanes_once = 0u)
#else
#define NQ_LANE_VAR(type, name) type name[32]
#define NQ_L(name) (name[lane])
#define NQ_LANES for (nq_u32 lane = 0; lane < 32u; lane++)
#endif

/* The lanes whose `flag` is set, as a mask (the same in every lane). */
#ifdef __CUDACC__
#define NQ_BALLOT(out, flag) ((out) = __ballot_sync(NQ_FULL_WARP, (flag)))
#else
#define NQ_BALLOT(out, flag)                                                                   \
    do {                                                                                       \
        (out) = 0u;                                                                            \
        for (nq_u32 nq_lane = 0; nq_lane < 32u; nq_lane++) {                                   \
            (out) |= (nq_u32)((flag)[nq_lane] != 0) << nq_lane;                                \
        }                                                                                      \
    } while (0)
#endif

/* The exchanges take a per-lane variable by its name. */

/* The OR of every lane's `value` (the same in every lane). */
#ifdef __CUDACC__
#define NQ_OR_ALL(out, value)                                                                  \
    do {                                                                                       \
        nq_u32 nq_or = (value);                                                                \
        for (int nq_bit = 16; nq_bit >= 1; nq_bit >>= 1) {                                     \
            nq_or |= __shfl_xor_sync(NQ_FULL_WARP, nq_or, nq_bit);                             \
        }                                                                                      \
        (out) = nq_or;                                                                         \
    } while (0)
#else
#define NQ_OR_ALL(out, value)                                                                  \
    do {                                                                                       \
        (out) = 0u;                                                                            \
        for (nq_u32 nq_lane = 0; nq_lane < 32u; nq_lane++) {                                   \
            (out) |= (value)[nq_lane];                                                         \
        }                                                                                      \
    } while (0)
#endif

/* `out` = the sum of `value` over the lanes up to and with this one. */
#ifdef __CUDACC__
#define NQ_SCAN(out, value)                                                                    \
    do {                                                                                       \
        nq_u32 nq_sum = (value);                                                               \
        nq_u32 nq_lane = threadIdx.x & 31u;                                                    \
        for (nq_u32 nq_step = 1; nq_step < 32u; nq_step <<= 1) {                               \
            nq_u32 nq_below = __shfl_up_sync(NQ_FULL_WARP, nq_sum, nq_step);                   \
            if (nq_lane >= nq_step) {                                                          \
                nq_sum += nq_below;                                                            \
            }                                                                                  \
        }                                                                                      \
        (out) = nq_sum;                                                                        \
    } while (0)
#else
#define NQ_SCAN(out, value)                                                                    \
    do {                                                                                       \
        nq_u32 nq_sum = 0;                                                                     \
        for (nq_u32 nq_lane = 0; nq_lane < 32u; nq_lane++) {                                   \
            nq_sum += (value)[nq_lane];                                                        \
            (out)[nq_lane] = nq_sum;                                                           \
        }                                                                                      \
    } while (0)
#endif

/* `out` = `value` of lane `from` (a lane of its own for each). */
#ifdef __CUDACC__
#define NQ_SHUFFLE(out, value, from) ((out) = __shfl_sync(NQ_FULL_WARP, (value), (from)))
#else
#define NQ_SHUFFLE(out, value, from)                                                           \
    do {                                                                                       \
        for (nq_u32 nq_lane = 0; nq_lane < 32u; nq_lane++) {                                   \
            (out)[nq_lane] = (value)[(from)[nq_lane]];                                         \
        }                                                                                      \
    } while (0)
#endif

/* `value` of lane `from` (the same lane for all: a uniform result). */
#ifdef __CUDACC__
#define NQ_FROM_LANE(out, value, from) ((out) = __shfl_sync(NQ_FULL_WARP, (value), (from)))
#else
#define NQ_FROM_LANE(out, value, from) ((out) = (value)[from])
#endif

/* The sum of every lane's 64-bit `value` (the same in every lane). */
#ifdef __CUDACC__
#define NQ_SUM_ALL(out, value)                                                                 \
    do {                                                                                       \
        nq_u64 nq_total = (value);                                                             \
        for (int nq_bit = 16; nq_bit >= 1; nq_bit >>= 1) {                                     \
            nq_total += __shfl_xor_sync(NQ_FULL_WARP, nq_total, nq_bit);                       \
        }                                                                                      \
        (out) = nq_total;                                                                      \
    } while (0)
#else
#define NQ_SUM_ALL(out, value)                                                                 \
    do {                                                                                       \
        (out) = 0u;                                                                            \
        for (nq_u32 nq_lane = 0; nq_lane < 32u; nq_lane++) {                                   \
            (out) += (value)[nq_lane];                                                         \
        }                                                                                      \
    } while (0)
#endif

/* The `rank`-th set bit of `mask` (0 the lowest); `mask` has more. */
NQ_DEVICE nq_u32 nq_nth_bit(nq_u32 mask, nq_u32 rank)
{
    for (nq_u32 k = 0; k < rank; k++) {
        mask &= mask - 1u;
    }
#ifdef __CUDACC__
    return (nq_u32)(__ffs((int)mask) - 1);
#else
    return (nq_u32)__builtin_ctz(mask);
#endif
}

/* Query `item`'s chunk patterns (of its key with its range's west key
 * added, as nq_query_offsets takes them), a byte a chunk, into
 * NQ_QUERY_CHUNK_WORDS words at out + item * NQ_QUERY_CHUNK_WORDS. */
NQ_DEVICE void nq_query_chunks_item(const nq_u64 *queries, nq_u32 range_count,
                                    const nq_u32 *item_start, const nq_u64 *west_keys,
                                    const nq_u64 *chunk_masks, nq_u32 chunks, nq_u32 *out,
                                    nq_u32 item)
{
    if (item >= item_start[range_count]) {
        return;
    }
    nq_u32 range = nq_split_of(item_start, range_count, item);
    nq_u64 key = queries[item] | west_keys[range];
    nq_u32 words[NQ_QUERY_CHUNK_WORDS] = {0u, 0u, 0u, 0u};
    for (nq_u32 c = 0; c < chunks; c++) {
        words[c / 4u] |= nq_gather(key, chunk_masks[c]) << (8u * (c % 4u));
    }
    for (nq_u32 w = 0; w < NQ_QUERY_CHUNK_WORDS; w++) {
        out[(nq_u64)item * NQ_QUERY_CHUNK_WORDS + w] = words[w];
    }
}

/* The pairs of query `item` (its chunk patterns at `query_chunks`) with the
 * blocks first .. end - 1: nq_blocks_pairs with the offsets unpacked. */
NQ_DEVICE nq_u64 nq_tile_query_pairs(const nq_u32 *tables, nq_u32 chunks,
                                     const nq_u32 *query_chunks, nq_u32 item, nq_u32 first,
                                     nq_u32 end)
{
    nq_u32 offsets[NQ_MAX_CHUNKS];
    const nq_u32 *words = query_chunks + (nq_u64)item * NQ_QUERY_CHUNK_WORDS;
    for (nq_u32 c = 0; c < NQ_MAX_CHUNKS; c++) {
        offsets[c] = NQ_WORD_BYTES(c, (words[c / 4u] >> (8u * (c % 4u))) & 0xffu);
    }
    return nq_blocks_pairs(tables, chunks, offsets, first, end);
}

/* Warp `warp` of the tiled matcher: meeting `warp` of the grid's meeting
 * lists (range r's are meetings[meeting_start[r]] to
 * meetings[meeting_start[r + 1] - 1]), its range's queries (laid out in
 * buckets: bucket_lists[r] to bucket_lists[r + 1] - 1 index the range's
 * nonempty buckets, each a pattern on the cut bits, the item its queries
 * start at and how many) against the group's sliced blocks (as
 * nq_sliced_grid_item's tables and starts). A query counts only where it
 * leaves the group's queen alone (`group_keys`), a stored bucket only
 * where it leaves the range's west pattern free (the west key's
 * diagonals are in each query's chunk patterns). The warp's pairs go to
 * totals[r]. */
NQ_DEVICE void nq_tiled_warp(const nq_u32 *tables, const nq_u32 *block_starts,
                             const nq_u64 *group_keys, nq_u32 cuts, nq_u32 chunks,
                             const nq_u64 *queries, const nq_u32 *query_chunks,
                             nq_u32 range_count, const nq_u32 *west_patterns,
                             const nq_u32 *meeting_start, const nq_u32 *meetings,
                             const nq_u32 *bucket_lists, const nq_u32 *bucket_patterns,
                             const nq_u32 *bucket_from, const nq_u32 *bucket_count,
                             nq_u64 *totals, nq_u32 warp)
{
    if (warp >= meeting_start[range_count]) {
        return;
    }
    nq_u32 range = nq_split_of(meeting_start, range_count, warp);
    nq_u32 group = meetings[warp];
    nq_u64 group_key = group_keys[group];
    nq_u32 west = west_patterns[range];
    nq_u32 buckets = 1u << cuts;
    const nq_u32 *starts = block_starts + (nq_u64)group * (buckets + 1u);
    nq_u32 list_from = bucket_lists[range];
    nq_u32 list_end = bucket_lists[range + 1];
    NQ_LANE_VAR(nq_u64, pairs);
    NQ_LANE_VAR(nq_u32, count);
    NQ_LANE_VAR(nq_u32, from);
    NQ_LANE_VAR(nq_u32, upto);
    NQ_LANE_VAR(nq_u32, reached);
    NQ_LANE_VAR(nq_u32, head);
    NQ_LANE_VAR(nq_u32, owner);
    NQ_LANE_VAR(nq_u32, owner_from);
    NQ_LANE_VAR(nq_u32, owner_upto);
    NQ_LANE_VAR(nq_u32, owner_count);
    NQ_LANES
    {
        NQ_L(pairs) = 0u;
    }
    for (nq_u32 stored = 0; stored < buckets; stored++) {
        nq_u32 first = starts[stored];
        nq_u32 end = starts[stored + 1];
        if (first == end || (stored & west) != 0u) {
            continue;
        }
        for (nq_u32 list = list_from; list < list_end; list += 32u) {
            /* This round's query buckets that meet the stored bucket, and
             * where each one's queries end among them. */
            NQ_LANES
            {
                nq_u32 k = list + lane;
                int meets = k < list_end && (bucket_patterns[k] & stored) == 0u;
                NQ_L(count) = meets ? bucket_count[k] : 0u;
                NQ_L(from) = meets ? bucket_from[k] : 0u;
            }
            NQ_SCAN(upto, count);
            nq_u32 total;
            NQ_FROM_LANE(total, upto, 31u);
            nq_u32 nonempty;
            NQ_LANES
            {
                NQ_L(head) = NQ_L(count) != 0u;
            }
            NQ_BALLOT(nonempty, head);
            for (nq_u32 base = 0; base < total; base += 32u) {
                /* Position base + lane belongs to the nonempty bucket whose
                 * queries end past it first: its rank among the nonempty
                 * ones is how many end at or before it, those ending by
                 * `base` (a ballot) and those ending within this round
                 * before it (a bit each at its end's place, OR-ed). */
                nq_u32 done_before;
                nq_u32 ends_within;
                NQ_LANES
                {
                    NQ_L(reached) = NQ_L(count) != 0u && NQ_L(upto) <= base;
                    nq_u32 at = NQ_L(upto) - base;
                    NQ_L(head) = NQ_L(count) != 0u && NQ_L(upto) > base && at < 32u ? 1u << at : 0u;
                }
                NQ_BALLOT(done_before, reached);
                NQ_OR_ALL(ends_within, head);
                NQ_LANES
                {
                    nq_u32 position = base + lane;
                    nq_u32 before_me = lane == 31u ? ends_within : ends_within & ((2u << lane) - 1u);
                    nq_u32 rank = NQ_POPCOUNT(done_before) + NQ_POPCOUNT(before_me);
                    NQ_L(owner) = position < total ? nq_nth_bit(nonempty, rank) : 0u;
                }
                NQ_SHUFFLE(owner_from, from, owner);
                NQ_SHUFFLE(owner_upto, upto, owner);
                NQ_SHUFFLE(owner_count, count, owner);
                NQ_LANES
                {
                    nq_u32 position = base + lane;
                    if (position < total) {
                        nq_u32 item = NQ_L(owner_from) + NQ_L(owner_count) -
                                      (NQ_L(owner_upto) - position);
                        if ((queries[item] & group_key) == 0u) {
                            NQ_L(pairs) +=
                                nq_tile_query_pairs(tables, chunks, query_chunks, item, first, end);
                        }
                    }
                }
            }
        }
    }
    nq_u64 sum;
    NQ_SUM_ALL(sum, pairs);
    nq_u32 lane_zero = 1u;
#ifdef __CUDACC__
    lane_zero = (threadIdx.x & 31u) == 0u;
#endif
    if (lane_zero && sum != 0u) {
        NQ_ADD(&totals[range], sum);
    }
}

#ifdef __CUDACC__
extern "C" __global__ void nq_query_chunks(const nq_u64 *queries, nq_u32 range_count,
                                           const nq_u32 *item_start, const nq_u64 *west_keys,
                                           const nq_u64 *chunk_masks, nq_u32 chunks,
                                           nq_u32 *out)
{
    nq_query_chunks_item(queries, range_count, item_start, west_keys, chunk_masks, chunks, out,
                         blockIdx.x * blockDim.x + threadIdx.x);
}

/* A warp a meeting: the launch's threads are 32 times the meetings,
 * rounded up to whole blocks; a warp past the last returns whole. */
extern "C" __global__ void NQ_SLICED_BOUNDS nq_tiled_grid(const nq_u32 *tables, const nq_u32 *block_starts,
                                         const nq_u64 *group_keys, nq_u32 cuts, nq_u32 chunks,
                                         const nq_u64 *queries, const nq_u32 *query_chunks,
                                         nq_u32 range_count, const nq_u32 *west_patterns,
                                         const nq_u32 *meeting_start, const nq_u32 *meetings,
                                         const nq_u32 *bucket_lists,
                                         const nq_u32 *bucket_patterns,
                                         const nq_u32 *bucket_from, const nq_u32 *bucket_count,
                                         nq_u64 *totals)
{
    nq_tiled_warp(tables, block_starts, group_keys, cuts, chunks, queries, query_chunks,
                  range_count, west_patterns, meeting_start, meetings, bucket_lists,
                  bucket_patterns, bucket_from, bucket_count, totals,
                  (blockIdx.x * blockDim.x + threadIdx.x) / 32u);
}
#endif

#endif
