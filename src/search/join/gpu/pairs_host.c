/* The GPU kernels' logic on the host: one loop plays every thread of a
 * launch (tests run it against the CPU join). */
#include <stdint.h>
#include <stdlib.h>

#include "pairs.cuh"
#include "boards.cuh"
#include "layout.cuh"
#include "cells.cuh"
#include "sliced.cuh"
#include "tiles.cuh"

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

/* One list of placements moved by `how`, through the kernel's code. */
void nq_place_host(const nq_u64 *diags, nq_u32 count, const nq_move *how, nq_u64 *checks,
                   nq_u64 *keys)
{
    nq_u64 lists[1] = {(nq_u64)(uintptr_t)diags};
    nq_u32 item_start[2] = {0, count};
    for (nq_u32 item = 0; item < count; item++) {
        nq_place_item(lists, item_start, 1, how, checks, keys, item);
    }
}

/* Plays `items` threads (the launch may have more than there are items). */
void nq_boards_host(const nq_u64 *north_checks, const nq_u64 *north_keys,
                    const nq_u64 *south_checks, const nq_u64 *south_keys, const nq_u32 *splits,
                    const nq_u32 *item_start, nq_u32 split_count, nq_u64 extra, nq_u64 *out,
                    nq_u32 capacity, nq_u32 *counts, nq_u32 items)
{
    for (nq_u32 item = 0; item < items; item++) {
        nq_boards_item(north_checks, north_keys, south_checks, south_keys, splits, item_start,
                       split_count, extra, out, capacity, counts, item);
    }
}

/* A staged batch through the three kernels' code: its jobs' boards into
 * the stage, their places in the class lists, and the move there. */
void nq_boards_staged_host(const nq_u64 *checks, const nq_u64 *keys, const nq_u32 *table,
                           const nq_u32 *jobs, const nq_u32 *job_items, nq_u32 job_count,
                           nq_u64 *stage, nq_u32 *stage_counts, nq_u32 *counts, nq_u32 *after,
                           nq_u32 *cursors, nq_u32 *unstage_start, nq_u64 *out,
                           nq_u32 capacity)
{
    for (nq_u32 item = 0; job_count > 0 && item < job_items[job_count]; item++) {
        nq_boards_staged_item(checks, keys, table, jobs, job_items, job_count, stage,
                              stage_counts, item);
    }
    nq_stage_scan(stage_counts, job_count, counts, after, cursors, unstage_start);
    nq_unstage_items(stage, jobs, unstage_start, job_count, cursors, out, capacity, 0, 1);
}

void nq_cells_host(const nq_prefix *prefixes, nq_u32 prefix_count, nq_u32 side, nq_u32 *counts,
                   const nq_u64 *outs)
{
    for (nq_u32 item = 0; item < prefix_count; item++) {
        nq_cells_item(prefixes, prefix_count, side, counts, outs, item);
    }
}

/* Every block's tables (sliced.cuh), as the slicing launch makes them. */
void nq_slice_host(const nq_u64 *sorted, const nq_u32 *from, const nq_u32 *count,
                   nq_u32 block_count, const nq_u64 *chunk_masks, nq_u32 chunks, nq_u32 *tables)
{
    for (nq_u64 item = 0; item < (nq_u64)block_count * chunks; item++) {
        nq_slice_item(sorted, from, count, block_count, chunk_masks, chunks, tables, item);
    }
}

/* A grid's launch of the sliced walk, a thread an item (`threads`, past
 * the last item too, as a launch rounds up). */
void nq_sliced_grid_host(const nq_u32 *tables, const nq_u32 *block_starts,
                         const nq_u64 *group_keys, nq_u32 cuts, const nq_u64 *chunk_masks,
                         nq_u32 chunks, const nq_u64 *queries, const nq_u32 *query_patterns,
                         nq_u32 range_count, const nq_u32 *item_start, const nq_u64 *west_keys,
                         const nq_u32 *west_patterns, const nq_u32 *meeting_start,
                         const nq_u32 *meetings, nq_u64 *totals, nq_u32 threads)
{
    for (nq_u32 item = 0; item < threads; item++) {
        nq_sliced_grid_item(tables, block_starts, group_keys, cuts, chunk_masks, chunks, queries,
                            query_patterns, range_count, item_start, west_keys, west_patterns,
                            meeting_start, meetings, totals, item);
    }
}

/* One group's stored keys sliced (sliced.cuh) and a batch of queries
 * matched against them, through the kernels' code: every thread of the
 * table launch, then a thread a query. */
nq_u64 nq_sliced_host(const nq_u64 *sorted, const nq_u32 *from, const nq_u32 *count,
                      nq_u32 block_count, const nq_u32 *block_start, nq_u32 cuts,
                      const nq_u64 *chunk_masks, nq_u32 chunks, const nq_u64 *queries,
                      const nq_u32 *query_patterns, nq_u32 query_count)
{
    nq_u64 words = (nq_u64)(block_count ? block_count : 1) * chunks * NQ_CHUNK_WORDS;
    nq_u32 *tables = (nq_u32 *)malloc(words * sizeof(nq_u32));
    if (tables == 0) {
        abort();
    }
    nq_slice_host(sorted, from, count, block_count, chunk_masks, chunks, tables);
    /* One range, one group that every query meets, no west key. */
    nq_u64 group_key = 0, west_key = 0, total = 0;
    nq_u32 west_pattern = 0, item_start[2] = {0, query_count}, meeting_start[2] = {0, 1};
    nq_u32 meeting = 0;
    nq_sliced_grid_host(tables, block_start, &group_key, cuts, chunk_masks, chunks, queries,
                        query_patterns, 1, item_start, &west_key, &west_pattern, meeting_start,
                        &meeting, &total, query_count);
    free(tables);
    return total;
}

/* The same grid through the tiled matcher's code (tiles.cuh): the
 * queries' chunk patterns made, then a warp a meeting (`warps`, past the
 * last meeting too). */
void nq_tiled_host(const nq_u32 *tables, const nq_u32 *block_starts, const nq_u64 *group_keys,
                   nq_u32 cuts, const nq_u64 *chunk_masks, nq_u32 chunks,
                   const nq_u64 *queries, nq_u32 range_count, const nq_u32 *item_start,
                   const nq_u64 *west_keys, const nq_u32 *west_patterns,
                   const nq_u32 *meeting_start, const nq_u32 *meetings,
                   const nq_u32 *bucket_lists, const nq_u32 *bucket_patterns,
                   const nq_u32 *bucket_from, const nq_u32 *bucket_count, nq_u64 *totals,
                   nq_u32 warps)
{
    nq_u32 items = item_start[range_count];
    nq_u32 *query_chunks =
        (nq_u32 *)malloc(((size_t)items + 1) * NQ_QUERY_CHUNK_WORDS * sizeof(nq_u32));
    if (query_chunks == 0) {
        abort();
    }
    for (nq_u32 item = 0; item < items; item++) {
        nq_query_chunks_item(queries, range_count, item_start, west_keys, chunk_masks, chunks,
                             query_chunks, item);
    }
    for (nq_u32 warp = 0; warp < warps; warp++) {
        nq_tiled_warp(tables, block_starts, group_keys, cuts, chunks, queries, query_chunks,
                      range_count, west_patterns, meeting_start, meetings, bucket_lists,
                      bucket_patterns, bucket_from, bucket_count, totals, warp);
    }
    free(query_chunks);
}
