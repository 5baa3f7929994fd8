/*
 * The half boards of a join made on the GPU: the glue's work (see
 * src/search/join/glue/mod.rs and halves.rs) as two kernels. Like
 * pairs.cuh, which must come first, this file is compiled by NVRTC for
 * the GPU and by the host's C compiler for the tests, where one loop
 * plays every thread.
 *
 * nq_place moves every placement of several lists (quadrants' row sets,
 * each with its own move, in one launch) onto the board: for each, its
 * overlap check and its key, with two flags in the key's top bits
 * (which no key uses: a key has 2 (N - 1) <= 54 bits): NQ_BARRED where
 * the half forbids one of its diagonals, NQ_CLASSED where it takes a
 * class diagonal. nq_boards pairs, for every split of the open columns
 * between the north and south quadrants, each north placement of the
 * split's north cell with each south placement of its south cell: a pair
 * whose checks are disjoint is a half board, its key the OR of theirs,
 * its class how many of the two are classed (`extra` is added to every
 * key: an odd N's middle-row queen). Each class's keys are
 * appended to its own list (in no fixed order: a count does not depend
 * on it); a list that would pass `capacity` keys takes no more, and its
 * count says how many it wanted.
 */

#ifndef NQ_BOARDS_CUH
#define NQ_BOARDS_CUH

#define NQ_BARRED (1ull << 63)
#define NQ_CLASSED (1ull << 62)
#define NQ_FLAGS (NQ_BARRED | NQ_CLASSED)

#ifdef __CUDACC__
/* The next slot of class `class_`'s list: the lanes of a warp that append
 * together take one atomic add a class between them (all of a warp's
 * boards go to one list when it makes stored boards), each its rank among
 * that class's lanes after the leader's base. Every lane active here runs
 * the three ballots, whatever its class. */
__device__ __forceinline__ nq_u32 nq_append(nq_u32 *counts, nq_u32 class_)
{
    unsigned active = __activemask();
    unsigned lane = threadIdx.x & 31u;
    nq_u32 slot = 0;
    for (nq_u32 c = 0; c < 3; c++) {
        unsigned group = __ballot_sync(active, class_ == c);
        if (group == 0) {
            continue;
        }
        int leader = __ffs(group) - 1;
        nq_u32 base = 0;
        if ((int)lane == leader) {
            base = atomicAdd(&counts[c], (nq_u32)__popc(group));
        }
        base = __shfl_sync(active, base, leader);
        if (class_ == c) {
            slot = base + (nq_u32)__popc(group & ((1u << lane) - 1u));
        }
    }
    return slot;
}

/* Whether every active lane of the warp holds the same `counts`. */
__device__ __forceinline__ bool nq_same_counts(unsigned active, const nq_u32 *counts)
{
    unsigned long long mine = (unsigned long long)counts;
    return __all_sync(active, __shfl_sync(active, mine, __ffs(active) - 1) == mine);
}

/* nq_append where lanes may hold the counts of different jobs (a warp
 * across jobs' boundary): one atomic a lane there. */
__device__ __forceinline__ nq_u32 nq_append_to(nq_u32 *counts, nq_u32 class_)
{
    if (nq_same_counts(__activemask(), counts)) {
        return nq_append(counts, class_);
    }
    return atomicAdd(&counts[class_], 1u);
}

/* A staged board's slot in its job's stage, `counts` the job's words (the
 * boards staged, then each class's): a warp of one job takes one atomic
 * for the slots and one a class; a warp across jobs, two a lane. */
__device__ __forceinline__ nq_u32 nq_stage_slot(nq_u32 *counts, nq_u32 class_)
{
    unsigned active = __activemask();
    if (!nq_same_counts(active, counts)) {
        atomicAdd(&counts[1 + class_], 1u);
        return atomicAdd(&counts[0], 1u);
    }
    unsigned lane = threadIdx.x & 31u;
    int first = __ffs(active) - 1;
    for (nq_u32 c = 0; c < 3; c++) {
        unsigned group = __ballot_sync(active, class_ == c);
        if (group != 0 && (int)lane == __ffs(group) - 1) {
            atomicAdd(&counts[1 + c], (nq_u32)__popc(group));
        }
    }
    nq_u32 base = 0;
    if ((int)lane == first) {
        base = atomicAdd(&counts[0], (nq_u32)__popc(active));
    }
    base = __shfl_sync(active, base, first);
    return base + (nq_u32)__popc(active & ((1u << lane) - 1u));
}
#else
#define nq_append(counts, class_) ((counts)[class_]++)
#define nq_append_to(counts, class_) ((counts)[class_]++)
NQ_DEVICE nq_u32 nq_stage_slot(nq_u32 *counts, nq_u32 class_)
{
    counts[1 + class_]++;
    return counts[0]++;
}
#endif

/* How a quadrant's placements move onto the board for one half (the
 * host's `Move`): shifts from local to board diagonals, shifts taking the
 * overlap to the low bits, forbidden diagonals, class diagonals' key bits
 * and where the crossing diagonals start and how many there are. */
typedef struct {
    nq_u64 forbid1;
    nq_u64 forbid2;
    nq_u64 class_keys;
    nq_u32 shift1;
    nq_u32 shift2;
    nq_u32 overlap1;
    nq_u32 overlap2;
    nq_u32 lo;
    nq_u32 width;
} nq_move;

/* One placement (local diagonals: i - j + side - 1 in the low 32 bits,
 * i + j in the high) moved by `how`: its check, and its key with flags. */
NQ_DEVICE void nq_place_one(nq_u64 diag, const nq_move *how, nq_u64 *check, nq_u64 *key)
{
    nq_u64 d1 = (diag & 0xffffffffull) << how->shift1;
    nq_u64 d2 = (diag >> 32) << how->shift2;
    nq_u64 mask = (1ull << how->width) - 1;
    nq_u64 k = ((d1 >> how->lo) & mask) | (((d2 >> how->lo) & mask) << how->width);
    *check = (d1 >> how->overlap1) | ((d2 >> how->overlap2) << 32);
    if (((d1 & how->forbid1) | (d2 & how->forbid2)) != 0) {
        k |= NQ_BARRED;
    }
    if ((k & how->class_keys) != 0) {
        k |= NQ_CLASSED;
    }
    *key = k;
}

/* The split holding north placement `item`: the last s with
 * item_start[s] <= item (item_start rises, item_start[0] = 0). */
NQ_DEVICE nq_u32 nq_split_of(const nq_u32 *item_start, nq_u32 split_count, nq_u32 item)
{
    nq_u32 low = 0, high = split_count;
    while (high - low > 1) {
        nq_u32 middle = low + (high - low) / 2;
        if (item_start[middle] <= item) {
            low = middle;
        } else {
            high = middle;
        }
    }
    return low;
}

/* Placement `item` of several lists, each moved its own way: list l's
 * placements are at the address lists[l], items item_start[l] to
 * item_start[l + 1] - 1 (item_start[0] = 0), moved by moves[l]; their
 * checks and keys go to checks[item] and keys[item]. */
NQ_DEVICE void nq_place_item(const nq_u64 *lists, const nq_u32 *item_start, nq_u32 list_count,
                             const nq_move *moves, nq_u64 *checks, nq_u64 *keys, nq_u32 item)
{
    if (item < item_start[list_count]) {
        nq_u32 list = nq_split_of(item_start, list_count, item);
        const nq_u64 *diags = (const nq_u64 *)lists[list];
        nq_place_one(diags[item - item_start[list]], &moves[list], &checks[item], &keys[item]);
    }
}

/* The half boards of north placement `item` (counted over every split's
 * north cell in turn): `splits` holds three words a split (where its north
 * cell starts among the north placements, where its south cell starts
 * among the south ones, and the south cell's length), `item_start` where
 * each split's items start (split_count + 1 words, the last the total). */
NQ_DEVICE void nq_boards_item(const nq_u64 *north_checks, const nq_u64 *north_keys,
                              const nq_u64 *south_checks, const nq_u64 *south_keys,
                              const nq_u32 *splits, const nq_u32 *item_start,
                              nq_u32 split_count, nq_u64 extra, nq_u64 *out,
                              nq_u32 capacity, nq_u32 *counts, nq_u32 item)
{
    if (split_count == 0 || item >= item_start[split_count]) {
        return;
    }
    nq_u32 split = nq_split_of(item_start, split_count, item);
    nq_u32 north = splits[3 * split] + (item - item_start[split]);
    nq_u64 north_key = north_keys[north];
    if ((north_key & NQ_BARRED) != 0) {
        return;
    }
    nq_u64 north_check = north_checks[north];
    nq_u32 north_class = (north_key & NQ_CLASSED) != 0;
    nq_u32 from = splits[3 * split + 1];
    nq_u32 to = from + splits[3 * split + 2];
    for (nq_u32 south = from; south < to; south++) {
        nq_u64 south_key = south_keys[south];
        if ((south_key & NQ_BARRED) == 0 && (south_checks[south] & north_check) == 0) {
            nq_u32 class_ = north_class + ((south_key & NQ_CLASSED) != 0);
            nq_u32 slot = nq_append(counts, class_);
            if (slot < capacity) {
                out[(nq_u64)class_ * capacity + slot] = ((north_key | south_key) & ~NQ_FLAGS) | extra;
            }
        }
    }
}

/* A staged launch's table of jobs, NQ_JOB_WORDS words a job: where its
 * north and its south placements start among the placed checks and keys,
 * where its splits start in the table (in words; its item starts follow
 * them, as nq_boards_item reads them), its split count, where its stage
 * starts (in keys), and its extra (low and high words). */
#define NQ_JOB_WORDS 8

/* nq_boards_item for a batch of jobs in one launch: north placement
 * `item` over every job's (job j's from job_items[j]), its boards staged
 * in its job's region of `stage` (room for every pair of its splits),
 * each key with its class in the two flag bits; `stage_counts` four words
 * a job: the boards staged, then each class's. */
NQ_DEVICE void nq_boards_staged_item(const nq_u64 *checks, const nq_u64 *keys,
                                     const nq_u32 *table, const nq_u32 *jobs,
                                     const nq_u32 *job_items, nq_u32 job_count, nq_u64 *stage,
                                     nq_u32 *stage_counts, nq_u32 item)
{
    if (job_count == 0 || item >= job_items[job_count]) {
        return;
    }
    nq_u32 job = nq_split_of(job_items, job_count, item);
    const nq_u32 *words = jobs + NQ_JOB_WORDS * job;
    const nq_u32 *splits = table + words[2];
    nq_u32 split_count = words[3];
    const nq_u32 *item_start = splits + 3 * split_count;
    nq_u32 local = item - job_items[job];
    if (split_count == 0 || local >= item_start[split_count]) {
        return;
    }
    nq_u32 split = nq_split_of(item_start, split_count, local);
    nq_u32 north = words[0] + splits[3 * split] + (local - item_start[split]);
    nq_u64 north_key = keys[north];
    if ((north_key & NQ_BARRED) != 0) {
        return;
    }
    nq_u64 north_check = checks[north];
    nq_u32 north_class = (north_key & NQ_CLASSED) != 0;
    nq_u64 extra = (nq_u64)words[5] | ((nq_u64)words[6] << 32);
    nq_u32 from = words[1] + splits[3 * split + 1];
    nq_u32 to = from + splits[3 * split + 2];
    nq_u64 *out = stage + words[4];
    nq_u32 *counts = stage_counts + 4 * job;
    for (nq_u32 south = from; south < to; south++) {
        nq_u64 south_key = keys[south];
        if ((south_key & NQ_BARRED) == 0 && (checks[south] & north_check) == 0) {
            nq_u32 class_ = north_class + ((south_key & NQ_CLASSED) != 0);
            nq_u32 slot = nq_stage_slot(counts, class_);
            out[slot] = ((north_key | south_key) & ~NQ_FLAGS) | extra | ((nq_u64)class_ << 62);
        }
    }
}

/* After a staged launch (one thread): where each job's boards of each
 * class go in the class lists (`cursors`, three words a job), job after
 * job from the lists' counts, which it moves on; the counts after each
 * job (`after`, three words a job); and where each job's staged boards
 * start among them all (`unstage_start`, job_count + 1 words). */
NQ_DEVICE void nq_stage_scan(const nq_u32 *stage_counts, nq_u32 job_count, nq_u32 *counts,
                             nq_u32 *after, nq_u32 *cursors, nq_u32 *unstage_start)
{
    nq_u32 total = 0;
    for (nq_u32 job = 0; job < job_count; job++) {
        unstage_start[job] = total;
        total += stage_counts[4 * job];
        for (nq_u32 c = 0; c < 3; c++) {
            cursors[3 * job + c] = counts[c];
            counts[c] += stage_counts[4 * job + 1 + c];
            after[3 * job + c] = counts[c];
        }
    }
    unstage_start[job_count] = total;
}

/* Staged boards `first`, first + stride, ... (of all the jobs', counted
 * by `unstage_start`) moved to their class lists, where the list has
 * room (`capacity` keys). */
NQ_DEVICE void nq_unstage_items(const nq_u64 *stage, const nq_u32 *jobs,
                                const nq_u32 *unstage_start, nq_u32 job_count, nq_u32 *cursors,
                                nq_u64 *out, nq_u32 capacity, nq_u32 first, nq_u32 stride)
{
    if (job_count == 0) {
        return;
    }
    for (nq_u32 item = first; item < unstage_start[job_count]; item += stride) {
        nq_u32 job = nq_split_of(unstage_start, job_count, item);
        nq_u64 key = stage[jobs[NQ_JOB_WORDS * job + 4] + (item - unstage_start[job])];
        nq_u32 class_ = (nq_u32)(key >> 62);
        nq_u32 slot = nq_append_to(cursors + 3 * job, class_);
        if (slot < capacity) {
            out[(nq_u64)class_ * capacity + slot] = key & ~NQ_FLAGS;
        }
    }
}

#ifdef __CUDACC__
extern "C" __global__ void nq_place(const nq_u64 *lists, const nq_u32 *item_start,
                                    nq_u32 list_count, const nq_move *moves, nq_u64 *checks,
                                    nq_u64 *keys)
{
    nq_place_item(lists, item_start, list_count, moves, checks, keys,
                  blockIdx.x * blockDim.x + threadIdx.x);
}

extern "C" __global__ void nq_boards(const nq_u64 *north_checks, const nq_u64 *north_keys,
                                     const nq_u64 *south_checks, const nq_u64 *south_keys,
                                     const nq_u32 *splits, const nq_u32 *item_start,
                                     nq_u32 split_count, nq_u64 extra, nq_u64 *out,
                                     nq_u32 capacity, nq_u32 *counts)
{
    nq_boards_item(north_checks, north_keys, south_checks, south_keys, splits, item_start,
                   split_count, extra, out, capacity, counts,
                   blockIdx.x * blockDim.x + threadIdx.x);
}

extern "C" __global__ void nq_boards_staged(const nq_u64 *checks, const nq_u64 *keys,
                                            const nq_u32 *table, const nq_u32 *jobs,
                                            const nq_u32 *job_items, nq_u32 job_count,
                                            nq_u64 *stage, nq_u32 *stage_counts)
{
    nq_boards_staged_item(checks, keys, table, jobs, job_items, job_count, stage, stage_counts,
                          blockIdx.x * blockDim.x + threadIdx.x);
}

extern "C" __global__ void nq_stage_scan_kernel(const nq_u32 *stage_counts, nq_u32 job_count,
                                                nq_u32 *counts, nq_u32 *after, nq_u32 *cursors,
                                                nq_u32 *unstage_start)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        nq_stage_scan(stage_counts, job_count, counts, after, cursors, unstage_start);
    }
}

extern "C" __global__ void nq_unstage(const nq_u64 *stage, const nq_u32 *jobs,
                                      const nq_u32 *unstage_start, nq_u32 job_count,
                                      nq_u32 *cursors, nq_u64 *out, nq_u32 capacity)
{
    nq_unstage_items(stage, jobs, unstage_start, job_count, cursors, out, capacity,
                     blockIdx.x * blockDim.x + threadIdx.x, gridDim.x * blockDim.x);
}
#endif

#endif
