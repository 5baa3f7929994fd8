/*
 * The bucket walk of pairs.cuh with each bucket's keys bit-sliced, as the
 * CPU's matcher slices its leaves (src/search/disjoint/matcher), but in
 * blocks of 32 keys, so that a bucket of k keys costs ceil(k / 32) blocks
 * and not a CPU leaf's 512: for each chunk of up to 5 key bits and each
 * of the 32 patterns of those bits, one 32-bit word says which keys of
 * the block leave every bit of the pattern free (and which slots hold a
 * key at all). A query (a thread, as in the walk) ANDs one word a chunk
 * and counts the bits: about 20 integer operations for 32 pairs, where
 * the walk spends 3 to 4 a pair. A block's words of one chunk are one
 * 128-byte line, so the threads of a warp that walk the same bucket (the
 * queries are sorted by pattern) read one line a chunk, whatever their
 * patterns. The chunks' bits are the key's bits outside the cut bits;
 * chunk c's are those of chunk_masks[c].
 *
 * Compiled like pairs.cuh (after layout.cuh, whose nq_gather and
 * nq_split_of it takes), by NVRTC for the GPU and by the host's C
 * compiler for the tests.
 */

#ifndef NQ_SLICED_CUH
#define NQ_SLICED_CUH

#define NQ_BLOCK_KEYS 32u
#define NQ_CHUNK_BITS 5u
#define NQ_CHUNK_WORDS 32u
/* 64 key bits in chunks of 5. */
#define NQ_MAX_CHUNKS 13u

/* A hook that counts the sliced walk's work (see pairs.cuh): the blocks
 * of a bucket walked, and the words each reads. */
#ifndef NQ_TALLY_BLOCKS
#define NQ_TALLY_BLOCKS(blocks, chunks) ((void)0)
#endif

#ifdef __CUDACC__
#define NQ_POPCOUNT(word) ((nq_u32)__popc(word))
#else
#define NQ_POPCOUNT(word) ((nq_u32)__builtin_popcount(word))
#endif

/* Item `item` = block * chunks + chunk writes the 32 words of `chunk` in
 * block `block`, whose keys are sorted[from[block]] on, count[block] of
 * them (at most 32; key k is bit k): for each pattern p of the chunk's
 * bits, the keys that have none of p's bits, among the slots that hold a
 * key. */
NQ_DEVICE void nq_slice_item(const nq_u64 *sorted, const nq_u32 *from, const nq_u32 *count,
                             nq_u32 block_count, const nq_u64 *chunk_masks, nq_u32 chunks,
                             nq_u32 *tables, nq_u64 item)
{
    nq_u32 chunk = (nq_u32)(item % chunks);
    nq_u64 block = item / chunks;
    if (block >= block_count) {
        return;
    }
    nq_u32 keys = count[block];
    const nq_u64 *at = sorted + from[block];
    nq_u64 mask = chunk_masks[chunk];
    nq_u32 present = keys >= 32u ? 0xffffffffu : (1u << keys) - 1u;
    /* free[j]: the keys without bit j of the chunk. */
    nq_u32 free[NQ_CHUNK_BITS];
    for (nq_u32 j = 0; j < NQ_CHUNK_BITS; j++) {
        free[j] = 0;
    }
    for (nq_u32 k = 0; k < keys; k++) {
        nq_u32 bits = nq_gather(at[k], mask);
        for (nq_u32 j = 0; j < NQ_CHUNK_BITS; j++) {
            free[j] |= (((bits >> j) & 1u) ^ 1u) << k;
        }
    }
    nq_u32 *words = tables + (block * chunks + chunk) * NQ_CHUNK_WORDS;
    for (nq_u32 pattern = 0; pattern < NQ_CHUNK_WORDS; pattern++) {
        nq_u32 word = present;
        for (nq_u32 j = 0; j < NQ_CHUNK_BITS; j++) {
            if ((pattern >> j) & 1u) {
                word &= free[j];
            }
        }
        words[pattern] = word;
    }
}

/* Where a query's word of chunk c lies within a block's tables, in bytes:
 * the word of the query's bits under chunk_masks[c]. */
#define NQ_WORD_BYTES(chunk, bits) (((chunk) * NQ_CHUNK_WORDS + (bits)) * 4u)

/* A query's words' byte offsets within a block's tables. */
NQ_DEVICE void nq_query_offsets(nq_u64 query, const nq_u64 *chunk_masks, nq_u32 chunks,
                                nq_u32 offsets[NQ_MAX_CHUNKS])
{
    for (nq_u32 c = 0; c < NQ_MAX_CHUNKS; c++) {
        nq_u32 bits = c < chunks ? nq_gather(query, chunk_masks[c]) : 0u;
        offsets[c] = NQ_WORD_BYTES(c, bits);
    }
}

/* The pairs of a query (its words' byte offsets within a block's tables:
 * `offsets`) with the blocks first .. end - 1, for `chunks` chunks a
 * block. Called with `chunks` a constant (nq_blocks_pairs), so that the
 * chunk loop unrolls, the offsets stay in registers, no chunk is guarded
 * and the ANDs fuse three words an instruction; a chunk's address is the
 * block's pointer plus its byte offset, and the unrolled blocks after the
 * first reach theirs by an immediate. For sm_90, 9 chunks: 26
 * instructions a block, where word indices and guarded chunks took 110 to
 * 144 (scripts/gpu-sass.py). */
NQ_DEVICE nq_u32 nq_blocks_pairs_of(const unsigned char *tables, nq_u32 chunks,
                                    const nq_u32 offsets[NQ_MAX_CHUNKS], nq_u32 first,
                                    nq_u32 end)
{
    nq_u32 block_bytes = chunks * NQ_CHUNK_WORDS * 4u;
    const unsigned char *at = tables + (nq_u64)first * block_bytes;
    nq_u32 pairs = 0;
#if defined(__CUDACC__) && defined(NQ_SLICED_UNROLL)
#pragma unroll NQ_SLICED_UNROLL
#endif
    for (nq_u32 block = first; block < end; block++) {
        nq_u32 word = *(const nq_u32 *)(at + offsets[0]);
        for (nq_u32 c = 1; c < chunks; c++) {
            word &= *(const nq_u32 *)(at + offsets[c]);
        }
        pairs += NQ_POPCOUNT(word);
        at += block_bytes;
    }
    return pairs;
}

#define NQ_BLOCKS_CASE(n)                                                                          \
    case n:                                                                                        \
        return nq_blocks_pairs_of(bytes, n, offsets, first, end);

/* The pairs of a query with the blocks first .. end - 1 (a bucket's:
 * far fewer than the 2^27 blocks whose pairs would pass 32 bits). */
NQ_DEVICE nq_u32 nq_blocks_pairs(const nq_u32 *tables, nq_u32 chunks,
                                 const nq_u32 offsets[NQ_MAX_CHUNKS], nq_u32 first, nq_u32 end)
{
    const unsigned char *bytes = (const unsigned char *)tables;
    NQ_TALLY_BLOCKS(end - first, chunks);
    switch (chunks) {
        NQ_BLOCKS_CASE(1)
        NQ_BLOCKS_CASE(2)
        NQ_BLOCKS_CASE(3)
        NQ_BLOCKS_CASE(4)
        NQ_BLOCKS_CASE(5)
        NQ_BLOCKS_CASE(6)
        NQ_BLOCKS_CASE(7)
        NQ_BLOCKS_CASE(8)
        NQ_BLOCKS_CASE(9)
        NQ_BLOCKS_CASE(10)
        NQ_BLOCKS_CASE(11)
        NQ_BLOCKS_CASE(12)
    default:
        return nq_blocks_pairs_of(bytes, NQ_MAX_CHUNKS, offsets, first, end);
    }
}

/* The pairs of a query (pattern `query_pattern` on the cut bits) with one
 * group's blocks: those of every bucket whose pattern leaves the query's
 * free, block_start[p] .. block_start[p + 1] - 1 for bucket p. */
NQ_DEVICE nq_u64 nq_sliced_pairs(const nq_u32 *tables, const nq_u32 *block_start, nq_u32 cuts,
                                 nq_u32 chunks, const nq_u32 offsets[NQ_MAX_CHUNKS],
                                 nq_u32 query_pattern)
{
    nq_u32 free = ~query_pattern & ((1u << cuts) - 1u);
    nq_u64 pairs = 0;
    nq_u32 pattern = free;
    for (;;) {
        pairs += nq_blocks_pairs(tables, chunks, offsets, block_start[pattern],
                                 block_start[pattern + 1]);
        if (pattern == 0) {
            break;
        }
        pattern = (pattern - 1u) & free;
    }
    return pairs;
}

/* The warp walk's collectives. On the GPU, over the 32 lanes of the
 * warp (every lane takes part: a lane past the last item brings values
 * that change nothing). In the host build, where one loop plays the
 * threads one after another, a lane cannot see the others, so each
 * answers with what some warp could have answered, chosen from the item:
 * whether the warp's lanes share a range (both answers, so the tests walk
 * both ways), and for the AND of the lanes' patterns a subset of the
 * lane's own (so the tests walk more buckets than the query meets, as a
 * warp of mixed patterns does, and must skip them). */
#ifdef __CUDACC__
/* Whether every lane holding a query has lane 0's range (lane 0 holds
 * one whenever any lane does: a warp's items run on from lane 0), which
 * goes to *shared for every lane, those past the last item too. */
NQ_DEVICE int nq_warp_uniform(int active, nq_u32 range, nq_u32 item, nq_u32 *shared)
{
    (void)item;
    *shared = __shfl_sync(0xffffffffu, range, 0);
    return __all_sync(0xffffffffu, !active || range == *shared);
}

NQ_DEVICE nq_u32 nq_warp_and(nq_u32 value, nq_u32 item, nq_u32 salt)
{
    (void)item;
    (void)salt;
    for (int lane_bit = 16; lane_bit >= 1; lane_bit >>= 1) {
        value &= __shfl_xor_sync(0xffffffffu, value, lane_bit);
    }
    return value;
}

NQ_DEVICE int nq_warp_any(int predicate)
{
    return __any_sync(0xffffffffu, predicate);
}
#else
NQ_DEVICE nq_u32 nq_mix(nq_u32 item, nq_u32 salt)
{
    nq_u32 x = item * 0x9e3779b9u ^ salt * 0x85ebca6bu;
    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    x ^= x >> 12;
    return x;
}

NQ_DEVICE int nq_warp_uniform(int active, nq_u32 range, nq_u32 item, nq_u32 *shared)
{
    (void)active;
    *shared = range;
    return (nq_mix(item / 32u, 0x51u) & 3u) != 0u;
}

NQ_DEVICE nq_u32 nq_warp_and(nq_u32 value, nq_u32 item, nq_u32 salt)
{
    return value & nq_mix(item, salt);
}

NQ_DEVICE int nq_warp_any(int predicate)
{
    return predicate;
}
#endif

/* The pairs of a query with one group's blocks, a thread walking its own
 * buckets (the submasks of its free bits): the first design. */
NQ_DEVICE nq_u64 nq_sliced_thread_pairs(const nq_u32 *tables, const nq_u32 *block_starts,
                                        const nq_u64 *group_keys, nq_u32 cuts, nq_u32 chunks,
                                        const nq_u32 offsets[NQ_MAX_CHUNKS], nq_u64 query,
                                        nq_u32 pattern, const nq_u32 *meeting_start,
                                        const nq_u32 *meetings, nq_u32 range)
{
    nq_u32 stride = (1u << cuts) + 1u;
    nq_u64 pairs = 0;
    for (nq_u32 m = meeting_start[range]; m < meeting_start[range + 1]; m++) {
        nq_u32 group = meetings[m];
        if ((query & group_keys[group]) == 0) {
            pairs += nq_sliced_pairs(tables, block_starts + (nq_u64)group * stride, cuts,
                                     chunks, offsets, pattern);
        }
    }
    return pairs;
}

/* The same pairs, the warp walking together: where its lanes share a
 * range (and so the meeting groups), they take the groups in step, and
 * in each the buckets any lane meets (the submasks of the bits no lane
 * of the group's has set), each lane counting a bucket only where its
 * own pattern leaves it free. Every lane that meets a bucket walks its
 * blocks at the same time, so the warp reads each block's lines once,
 * where lanes of different patterns walking alone would take turns. */
NQ_DEVICE nq_u64 nq_sliced_warp_pairs(const nq_u32 *tables, const nq_u32 *block_starts,
                                      const nq_u64 *group_keys, nq_u32 cuts, nq_u32 chunks,
                                      const nq_u32 offsets[NQ_MAX_CHUNKS], int active,
                                      nq_u64 query, nq_u32 pattern,
                                      const nq_u32 *meeting_start, const nq_u32 *meetings,
                                      nq_u32 range, nq_u32 item)
{
    nq_u32 stride = (1u << cuts) + 1u;
    nq_u32 all = (1u << cuts) - 1u;
    nq_u64 pairs = 0;
    for (nq_u32 m = meeting_start[range]; m < meeting_start[range + 1]; m++) {
        nq_u32 group = meetings[m];
        int meets = active && (query & group_keys[group]) == 0;
        if (!nq_warp_any(meets)) {
            continue;
        }
        /* The buckets some lane meets: free of the bits every meeting
         * lane has. */
        nq_u32 walk = ~nq_warp_and(meets ? pattern : all, item, m) & all;
        const nq_u32 *starts = block_starts + (nq_u64)group * stride;
        nq_u32 bucket = walk;
        for (;;) {
            nq_u32 first = starts[bucket];
            nq_u32 end = starts[bucket + 1];
            if (meets && (bucket & pattern) == 0) {
                pairs += nq_blocks_pairs(tables, chunks, offsets, first, end);
            }
            if (bucket == 0) {
                break;
            }
            bucket = (bucket - 1u) & walk;
        }
    }
    return pairs;
}

/* A query's pairs with the groups its range meets: the warp walking
 * together where its lanes share the range, else each lane alone (see
 * nq_sliced_grid_item). */
NQ_DEVICE nq_u64 nq_sliced_walk(const nq_u32 *tables, const nq_u32 *block_starts,
                                const nq_u64 *group_keys, nq_u32 cuts, nq_u32 chunks,
                                const nq_u32 offsets[NQ_MAX_CHUNKS], int active, nq_u64 query,
                                nq_u32 pattern, const nq_u32 *meeting_start,
                                const nq_u32 *meetings, nq_u32 range, nq_u32 item)
{
#ifndef NQ_SLICED_THREAD_WALK
    nq_u32 shared_range;
    if (nq_warp_uniform(active, range, item, &shared_range)) {
        return nq_sliced_warp_pairs(tables, block_starts, group_keys, cuts, chunks, offsets,
                                    active, query, pattern, meeting_start, meetings,
                                    shared_range, item);
    }
#endif
    if (active) {
        return nq_sliced_thread_pairs(tables, block_starts, group_keys, cuts, chunks, offsets,
                                      query, pattern, meeting_start, meetings, range);
    }
    return 0;
}

/* nq_grid_item (layout.cuh) with each stored group's buckets bit-sliced:
 * group g's block starts at block_starts + g * (2^cuts + 1). Every lane
 * of a warp runs to the end (the warp walk's collectives need them all);
 * a lane past the last item counts nothing. NQ_SLICED_THREAD_WALK makes
 * every thread walk alone (NQUEENS_GPU_SLICED_WALK=thread). */
NQ_DEVICE void nq_sliced_grid_item(const nq_u32 *tables, const nq_u32 *block_starts,
                                   const nq_u64 *group_keys, nq_u32 cuts,
                                   const nq_u64 *chunk_masks, nq_u32 chunks,
                                   const nq_u64 *queries, const nq_u32 *query_patterns,
                                   nq_u32 range_count, const nq_u32 *item_start,
                                   const nq_u64 *west_keys, const nq_u32 *west_patterns,
                                   const nq_u32 *meeting_start, const nq_u32 *meetings,
                                   nq_u64 *totals, nq_u32 item)
{
    int active = item < item_start[range_count];
    if (!nq_warp_any(active)) {
        return;
    }
    nq_u32 range = active ? nq_split_of(item_start, range_count, item) : 0u;
    nq_u64 query = active ? queries[item] : 0u;
    nq_u32 pattern = active ? query_patterns[item] | west_patterns[range] : 0u;
    nq_u32 offsets[NQ_MAX_CHUNKS];
    nq_query_offsets(query | (active ? west_keys[range] : 0u), chunk_masks, chunks, offsets);
    if (active) {
        NQ_TALLY_QUERY(item, range, pattern);
    }
    nq_u64 pairs;
    /* Each count of chunks its own walk, so that nq_blocks_pairs' switch
     * folds away and a bucket pays no dispatch. */
#define NQ_WALK_CASE(n)                                                                            \
    case n:                                                                                        \
        pairs = nq_sliced_walk(tables, block_starts, group_keys, cuts, n, offsets, active, query,   \
                               pattern, meeting_start, meetings, range, item);                     \
        break;
    switch (chunks) {
        NQ_WALK_CASE(1)
        NQ_WALK_CASE(2)
        NQ_WALK_CASE(3)
        NQ_WALK_CASE(4)
        NQ_WALK_CASE(5)
        NQ_WALK_CASE(6)
        NQ_WALK_CASE(7)
        NQ_WALK_CASE(8)
        NQ_WALK_CASE(9)
        NQ_WALK_CASE(10)
        NQ_WALK_CASE(11)
        NQ_WALK_CASE(12)
    default:
        pairs = nq_sliced_walk(tables, block_starts, group_keys, cuts, NQ_MAX_CHUNKS, offsets,
                               active, query, pattern, meeting_start, meetings, range, item);
        break;
    }
#undef NQ_WALK_CASE
    if (pairs != 0) {
        NQ_ADD(&totals[range], pairs);
    }
}

#ifdef __CUDACC__
/* The matcher's registers: where NQ_SLICED_MIN_BLOCKS (blocks of 256
 * threads an SM holds at once) is defined, the compiler keeps within the
 * registers that many blocks leave a thread (NQUEENS_GPU_SLICED_BLOCKS). */
#if defined(NQ_SLICED_MIN_BLOCKS) && NQ_SLICED_MIN_BLOCKS > 0
#define NQ_SLICED_BOUNDS __launch_bounds__(256, NQ_SLICED_MIN_BLOCKS)
#else
#define NQ_SLICED_BOUNDS
#endif

extern "C" __global__ void nq_slice(const nq_u64 *sorted, const nq_u32 *from,
                                    const nq_u32 *count, nq_u32 block_count,
                                    const nq_u64 *chunk_masks, nq_u32 chunks, nq_u32 *tables)
{
    nq_slice_item(sorted, from, count, block_count, chunk_masks, chunks, tables,
                  (nq_u64)blockIdx.x * blockDim.x + threadIdx.x);
}

extern "C" __global__ void NQ_SLICED_BOUNDS nq_sliced_grid(const nq_u32 *tables, const nq_u32 *block_starts,
                                          const nq_u64 *group_keys, nq_u32 cuts,
                                          const nq_u64 *chunk_masks, nq_u32 chunks,
                                          const nq_u64 *queries, const nq_u32 *query_patterns,
                                          nq_u32 range_count, const nq_u32 *item_start,
                                          const nq_u64 *west_keys, const nq_u32 *west_patterns,
                                          const nq_u32 *meeting_start, const nq_u32 *meetings,
                                          nq_u64 *totals)
{
    nq_sliced_grid_item(tables, block_starts, group_keys, cuts, chunk_masks, chunks, queries,
                        query_patterns, range_count, item_start, west_keys, west_patterns,
                        meeting_start, meetings, totals,
                        blockIdx.x * blockDim.x + threadIdx.x);
}
#endif

#endif
