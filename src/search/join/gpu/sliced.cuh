/*
 * The stored keys' leaves bit-sliced on the GPU, as the CPU's matcher
 * slices its own (src/search/disjoint/matcher): the keys of each bucket
 * (laid out by layout.cuh) are taken in blocks of 1,024, and for each
 * chunk of up to 6 key bits and each pattern of those bits a line of
 * 1,024 bits, 32 words, says which keys of the block leave every bit of
 * the pattern free (and which slots hold a key at all). A warp takes one
 * query: its 32 lanes each hold one word of a line, so a block costs a
 * lane one load and one AND a chunk and a popcount, about 0.5 integer
 * operations a pair (the bucket walk of pairs.cuh spends 3 to 4 a pair),
 * and every load of a warp is one 128-byte line. The chunks' bits are
 * the key's bits outside the cut bits; chunk c's are those of
 * chunk_masks[c].
 *
 * Within a block, key k sits at bit k / 32 of word k % 32, so that the
 * lanes building a line read neighbouring keys. Compiled like pairs.cuh
 * (after layout.cuh, whose nq_gather and nq_split_of it takes), by NVRTC
 * for the GPU and by the host's C compiler for the tests, where each
 * item plays one lane and the lanes' sums are added one by one.
 */

#ifndef NQ_SLICED_CUH
#define NQ_SLICED_CUH

#define NQ_BLOCK_KEYS 1024u
#define NQ_LINE_WORDS 32u
#define NQ_CHUNK_BITS 6u
#define NQ_CHUNK_LINES 64u
/* 64 key bits in chunks of 6. */
#define NQ_MAX_CHUNKS 11u

/* Hooks that count the sliced matcher's work (see pairs.cuh). */
#ifndef NQ_TALLY_BLOCKS
#define NQ_TALLY_BLOCKS(lane, blocks) ((void)0)
#endif

#ifdef __CUDACC__
#define NQ_POPCOUNT(word) ((nq_u32)__popc(word))
/* The warp's sum, on lane 0: its 32 lanes hold one query's words. */
NQ_DEVICE nq_u64 nq_warp_sum(nq_u64 value)
{
    for (int offset = 16; offset > 0; offset >>= 1) {
        value += __shfl_down_sync(0xffffffffu, value, offset);
    }
    return value;
}
#define NQ_WARP_LEADS(lane) ((lane) == 0u)
#else
#define NQ_POPCOUNT(word) ((nq_u32)__builtin_popcount(word))
/* On the host each item is a lane of its own and adds its own sum. */
#define nq_warp_sum(value) (value)
#define NQ_WARP_LEADS(lane) 1
#endif

/* Words of one block's tables. */
NQ_DEVICE nq_u64 nq_block_words(nq_u32 chunks)
{
    return (nq_u64)chunks * NQ_CHUNK_LINES * NQ_LINE_WORDS;
}

/* Item `item` = (block * chunks + chunk) * 32 + word writes word `word` of
 * every line of `chunk` in block `block`, whose keys are sorted[from[block]]
 * on, count[block] of them (at most 1,024): for each pattern p of the
 * chunk's bits, the keys that have none of p's bits (the AND of the bits'
 * "free" words), among the slots that hold a key. */
NQ_DEVICE void nq_slice_item(const nq_u64 *sorted, const nq_u32 *from, const nq_u32 *count,
                             nq_u32 block_count, const nq_u64 *chunk_masks, nq_u32 chunks,
                             nq_u32 *tables, nq_u64 item)
{
    nq_u32 word = (nq_u32)(item % NQ_LINE_WORDS);
    nq_u64 rest = item / NQ_LINE_WORDS;
    nq_u32 chunk = (nq_u32)(rest % chunks);
    nq_u64 block = rest / chunks;
    if (block >= block_count) {
        return;
    }
    nq_u32 keys = count[block];
    const nq_u64 *at = sorted + from[block];
    nq_u64 mask = chunk_masks[chunk];
    nq_u32 present = 0;
    nq_u32 free[NQ_CHUNK_BITS];
    for (nq_u32 j = 0; j < NQ_CHUNK_BITS; j++) {
        free[j] = 0;
    }
    for (nq_u32 bit = 0; bit < 32u; bit++) {
        nq_u32 k = bit * NQ_LINE_WORDS + word;
        if (k < keys) {
            nq_u32 bits = nq_gather(at[k], mask);
            present |= 1u << bit;
            for (nq_u32 j = 0; j < NQ_CHUNK_BITS; j++) {
                free[j] |= (((bits >> j) & 1u) ^ 1u) << bit;
            }
        }
    }
    nq_u32 *lines = tables + (block * chunks + chunk) * NQ_CHUNK_LINES * NQ_LINE_WORDS;
    for (nq_u32 pattern = 0; pattern < NQ_CHUNK_LINES; pattern++) {
        nq_u32 line = present;
        for (nq_u32 j = 0; j < NQ_CHUNK_BITS; j++) {
            if ((pattern >> j) & 1u) {
                line &= free[j];
            }
        }
        lines[pattern * NQ_LINE_WORDS + word] = line;
    }
}

/* One lane's share of the pairs of a query (its lines' offsets within a
 * block's tables: `offsets`) with the blocks first .. end - 1. */
NQ_DEVICE nq_u64 nq_blocks_pairs(const nq_u32 *tables, nq_u32 chunks,
                                 const nq_u32 offsets[NQ_MAX_CHUNKS], nq_u32 first, nq_u32 end)
{
    nq_u64 pairs = 0;
    nq_u64 block_words = nq_block_words(chunks);
    for (nq_u32 block = first; block < end; block++) {
        const nq_u32 *lines = tables + block * block_words;
        nq_u32 line = lines[offsets[0]];
        for (nq_u32 c = 1; c < NQ_MAX_CHUNKS; c++) {
            if (c < chunks) {
                line &= lines[offsets[c]];
            }
        }
        pairs += NQ_POPCOUNT(line);
    }
    return pairs;
}

/* A lane's share of the pairs of `query` (pattern `query_pattern` on the
 * cut bits) with one group's blocks: those of every bucket whose pattern
 * leaves the query's free, block_start[p] .. block_start[p + 1] - 1 for
 * bucket p. */
NQ_DEVICE nq_u64 nq_sliced_pairs(const nq_u32 *tables, const nq_u32 *block_start, nq_u32 cuts,
                                 nq_u32 chunks, const nq_u32 offsets[NQ_MAX_CHUNKS],
                                 nq_u32 query_pattern, nq_u32 lane)
{
    nq_u32 free = ~query_pattern & ((1u << cuts) - 1u);
    nq_u64 pairs = 0;
    nq_u32 pattern = free;
    (void)lane;
    for (;;) {
        nq_u32 first = block_start[pattern];
        nq_u32 end = block_start[pattern + 1];
        NQ_TALLY_BLOCKS(lane, end - first);
        pairs += nq_blocks_pairs(tables, chunks, offsets, first, end);
        if (pattern == 0) {
            break;
        }
        pattern = (pattern - 1u) & free;
    }
    return pairs;
}

/* Lane `lane`'s offsets of `query`'s lines within a block's tables: in
 * chunk c the line of the query's bits under chunk_masks[c]. */
NQ_DEVICE void nq_query_offsets(nq_u64 query, const nq_u64 *chunk_masks, nq_u32 chunks,
                                nq_u32 lane, nq_u32 offsets[NQ_MAX_CHUNKS])
{
    for (nq_u32 c = 0; c < NQ_MAX_CHUNKS; c++) {
        nq_u32 bits = c < chunks ? nq_gather(query, chunk_masks[c]) : 0u;
        offsets[c] = (c * NQ_CHUNK_LINES + bits) * NQ_LINE_WORDS + lane;
    }
}

/* nq_grid_item (layout.cuh) with the stored groups bit-sliced: item
 * `item` is lane item % 32 of query first_query + item / 32, and a
 * group's buckets are its blocks (group g's block starts at block_starts
 * + g * (2^cuts + 1)). The warp's sum goes to totals[range]. */
NQ_DEVICE void nq_sliced_grid_item(const nq_u32 *tables, const nq_u32 *block_starts,
                                   const nq_u64 *group_keys, nq_u32 cuts,
                                   const nq_u64 *chunk_masks, nq_u32 chunks,
                                   const nq_u64 *queries, const nq_u32 *query_patterns,
                                   nq_u32 range_count, const nq_u32 *item_start,
                                   const nq_u64 *west_keys, const nq_u32 *west_patterns,
                                   const nq_u32 *meeting_start, const nq_u32 *meetings,
                                   nq_u64 *totals, nq_u32 first_query, nq_u64 item)
{
    nq_u32 lane = (nq_u32)(item % NQ_LINE_WORDS);
    nq_u64 q = first_query + item / NQ_LINE_WORDS;
    /* Whole warps leave together: the shuffles below need all 32. */
    if (q >= item_start[range_count]) {
        return;
    }
    nq_u32 range = nq_split_of(item_start, range_count, (nq_u32)q);
    nq_u64 query = queries[q];
    nq_u32 pattern = query_patterns[q] | west_patterns[range];
    nq_u32 stride = (1u << cuts) + 1u;
    nq_u32 offsets[NQ_MAX_CHUNKS];
    nq_query_offsets(query | west_keys[range], chunk_masks, chunks, lane, offsets);
    if (lane == 0) {
        NQ_TALLY_QUERY(q, range, pattern);
    }
    nq_u64 pairs = 0;
    for (nq_u32 m = meeting_start[range]; m < meeting_start[range + 1]; m++) {
        nq_u32 group = meetings[m];
        if ((query & group_keys[group]) == 0) {
            pairs += nq_sliced_pairs(tables, block_starts + (nq_u64)group * stride, cuts,
                                     chunks, offsets, pattern, lane);
        }
    }
    pairs = nq_warp_sum(pairs);
    if (NQ_WARP_LEADS(lane) && pairs != 0) {
        NQ_ADD(&totals[range], pairs);
    }
}

#ifdef __CUDACC__
extern "C" __global__ void nq_slice(const nq_u64 *sorted, const nq_u32 *from,
                                    const nq_u32 *count, nq_u32 block_count,
                                    const nq_u64 *chunk_masks, nq_u32 chunks, nq_u32 *tables)
{
    nq_slice_item(sorted, from, count, block_count, chunk_masks, chunks, tables,
                  (nq_u64)blockIdx.x * blockDim.x + threadIdx.x);
}

extern "C" __global__ void nq_sliced_grid(const nq_u32 *tables, const nq_u32 *block_starts,
                                          const nq_u64 *group_keys, nq_u32 cuts,
                                          const nq_u64 *chunk_masks, nq_u32 chunks,
                                          const nq_u64 *queries, const nq_u32 *query_patterns,
                                          nq_u32 range_count, const nq_u32 *item_start,
                                          const nq_u64 *west_keys, const nq_u32 *west_patterns,
                                          const nq_u32 *meeting_start, const nq_u32 *meetings,
                                          nq_u64 *totals, nq_u32 first_query)
{
    nq_sliced_grid_item(tables, block_starts, group_keys, cuts, chunk_masks, chunks, queries,
                        query_patterns, range_count, item_start, west_keys, west_patterns,
                        meeting_start, meetings, totals, first_query,
                        (nq_u64)blockIdx.x * blockDim.x + threadIdx.x);
}
#endif

#endif
