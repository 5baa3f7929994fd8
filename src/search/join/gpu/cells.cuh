/*
 * Row sets' quadrant cells built on the GPU: every placement of a queen
 * on each of the rows `rows_left` names, in distinct open columns and on
 * distinct diagonals (the host's search in cells.rs, each_placement_within),
 * as its column set and its local diagonals (i - j + side - 1 in the low
 * 32 bits, i + j in the high). The host expands the first rows into
 * prefixes; a thread searches below one prefix, without recursion. One
 * launch builds several row sets (of one side; each within its own open
 * columns, which its prefixes carry): each prefix names its row set in
 * `build`. Pass 1 (outs null) counts the
 * placements of build b's column set cols into counts[b << side | cols];
 * the host turns the counts into each cell's start; pass 2 writes each
 * placement at the next slot of its cell (counts then holds the cursors)
 * in build b's buffer, whose address is outs[b].
 * Compiled like pairs.cuh, boards.cuh and layout.cuh (after them).
 */

#ifndef NQ_CELLS_CUH
#define NQ_CELLS_CUH

#ifdef __CUDACC__
#define NQ_LOWEST(x) ((nq_u32)(__ffs((int)(x)) - 1))
#else
#define NQ_LOWEST(x) ((nq_u32)__builtin_ctz(x))
#endif

#define NQ_MAX_SIDE 16

/* The search's state after some rows: the columns taken, the columns of
 * row `row` attacked along each diagonal direction, the rows still to
 * place, the diagonals taken, the columns queens may take, and which of
 * the launch's row sets it belongs to. */
typedef struct {
    nq_u64 diag;
    nq_u32 rows_left;
    nq_u32 row;
    nq_u32 cols;
    nq_u32 left;
    nq_u32 right;
    nq_u32 open;
    nq_u32 build;
    nq_u32 unused;
} nq_prefix;

NQ_DEVICE void nq_cell_visit(nq_u32 cols, nq_u64 diag, nq_u32 *counts, nq_u64 *out)
{
    nq_u32 slot = NQ_NEXT(&counts[cols]);
    if (out) {
        out[slot] = diag;
    }
}

/* The columns of the next row (the lowest of `rows_left`) a queen may
 * take below `state`. */
NQ_DEVICE nq_u32 nq_cell_free(const nq_prefix *state, nq_u32 side)
{
    nq_u32 next = NQ_LOWEST(state->rows_left);
    nq_u32 gap = next - state->row;
    nq_u32 left = state->left >> gap;
    nq_u32 right = (state->right << gap) & ((1u << side) - 1u);
    return ~(state->cols | left | right) & state->open;
}

/* Every placement below prefix `item`. */
NQ_DEVICE void nq_cells_item(const nq_prefix *prefixes, nq_u32 prefix_count, nq_u32 side,
                             nq_u32 *all_counts, const nq_u64 *outs, nq_u32 item)
{
    if (item >= prefix_count) {
        return;
    }
    nq_prefix stack[NQ_MAX_SIDE + 1];
    nq_u32 free[NQ_MAX_SIDE + 1];
    stack[0] = prefixes[item];
    nq_u32 *counts = all_counts + ((nq_u64)stack[0].build << side);
    nq_u64 *out = outs ? (nq_u64 *)outs[stack[0].build] : 0;
    if (stack[0].rows_left == 0) {
        nq_cell_visit(stack[0].cols, stack[0].diag, counts, out);
        return;
    }
    free[0] = nq_cell_free(&stack[0], side);
    int depth = 0;
    while (depth >= 0) {
        if (free[depth] == 0) {
            depth--;
            continue;
        }
        const nq_prefix *state = &stack[depth];
        nq_u32 col = NQ_LOWEST(free[depth]);
        free[depth] &= free[depth] - 1u;
        nq_u32 next = NQ_LOWEST(state->rows_left);
        nq_u32 gap = next - state->row;
        nq_u32 bit = 1u << col;
        nq_prefix below;
        below.rows_left = state->rows_left & (state->rows_left - 1u);
        below.row = next;
        below.cols = state->cols | bit;
        below.left = (state->left >> gap) | bit;
        below.right = ((state->right << gap) & ((1u << side) - 1u)) | bit;
        below.diag = state->diag | (1ull << (next + side - 1u - col)) | (1ull << (32u + next + col));
        below.open = state->open;
        below.build = state->build;
        below.unused = 0;
        if (below.rows_left == 0) {
            nq_cell_visit(below.cols, below.diag, counts, out);
            continue;
        }
        depth++;
        stack[depth] = below;
        free[depth] = nq_cell_free(&stack[depth], side);
    }
}

#ifdef __CUDACC__
extern "C" __global__ void nq_cells(const nq_prefix *prefixes, nq_u32 prefix_count, nq_u32 side,
                                    nq_u32 *counts, const nq_u64 *outs)
{
    nq_cells_item(prefixes, prefix_count, side, counts, outs,
                  blockIdx.x * blockDim.x + threadIdx.x);
}
#endif

#endif
