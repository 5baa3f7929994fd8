/*
 * A stand-in for the CUDA driver and NVRTC, for the tests of the `gpu`
 * feature on machines with no GPU: "device" memory is host memory, a
 * launch runs the kernel's code (pairs.cuh, compiled for the host) over
 * every thread of its grid, and NVRTC hands back a token image. It checks
 * what the program passes (the kernel's name, the architecture option, the
 * launch's arguments) as far as the real ones would, and can be told to
 * fail: FAKE_CUDA_DEVICES (GPUs seen, default 1), FAKE_CUDA_CC (compute
 * capability as 90 for 9.0), FAKE_CUDA_FREE_MIB (free memory when no
 * buffer is held, default 8192: the bytes buffers hold count as used),
 * FAKE_CUDA_FAIL_LAUNCH (the launch, from 1, whose run fails as an illegal
 * address does, reported at the next synchronisation), FAKE_CUDA_NO_WORK
 * (launches count nothing: what is left to time is the host's side),
 * FAKE_CUDA_SKIP_MATCH (every kernel runs but the matchers: a task's
 * buffers are made as a count makes them, its count is zero),
 * FAKE_CUDA_TALLY (at exit, print the launches and copies made: on a GPU
 * each waits for the GPU, so their count bounds a task's time; and the
 * matcher's work: queries, buckets walked, pairs decided, and the patterns
 * the queries of each warp of a grid launch take, which on a GPU walk
 * different buckets).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void fake_tally_bucket(uint64_t keys);
static void fake_tally_query(uint64_t item, uint32_t range, uint32_t pattern);
static void fake_tally_blocks(uint64_t blocks, uint32_t chunks);
#define NQ_TALLY_BUCKET(keys) fake_tally_bucket(keys)
#define NQ_TALLY_BLOCKS(blocks, chunks) fake_tally_blocks((blocks), (chunks))
#define NQ_TALLY_QUERY(item, range, pattern) fake_tally_query((item), (range), (pattern))

#include "pairs.cuh"
#include "boards.cuh"
#include "layout.cuh"
#include "cells.cuh"
#include "sliced.cuh"
#include "tiles.cuh"

typedef int CUresult;
typedef int CUdevice;
typedef uint64_t CUdeviceptr;

static int env_int(const char *name, int fallback)
{
    const char *text = getenv(name);
    return text ? atoi(text) : fallback;
}

static int launches;
static int launches_of[17];
static long copies;
/* Allocations and memory queries (FAKE_CUDA_TALLY): on a GPU a free and a
 * query of free memory wait for the GPU as a copy back does. */
static long allocations, frees, memory_queries;
static long held; /* buffers allocated and not freed */
static long long held_bytes; /* and their bytes */
static long long copied_bytes;
static CUresult pending;

/* The matcher's work (FAKE_CUDA_TALLY); feeders may launch at once. */
static uint64_t tally_buckets, tally_pairs, tally_queries, tally_warps, tally_warp_patterns;
/* A model of the sliced matcher's walks, in buckets over 2^cuts (a
 * pattern of b bits meets 2^-b of them): a warp whose lanes walk alone
 * takes its distinct patterns' walks in turn, one that walks together
 * (sliced.cuh's warp walk, where its lanes share a range) the walk of the
 * AND of its patterns; summed over warps. */
static double tally_thread_walks, tally_warp_walks;
/* A model of a matcher whose warp takes one stored bucket and streams the
 * queries that meet it, 32 to a round (FAKE_CUDA_TALLY): over every range
 * and meeting group, the blocks ANDed by a query (as the sliced walk's,
 * before the group test), the rounds of 32 queries a stored block takes,
 * and the pairs of nonempty buckets, query side by stored side. */
static double tally_tile_query_blocks, tally_tile_rounds, tally_tile_bucket_pairs,
    tally_tile_compatible_pairs;
static pthread_mutex_t tally_walks_lock = PTHREAD_MUTEX_INITIALIZER;

static void fake_warp_walks(const uint64_t *seen, uint32_t count)
{
    uint32_t and_pattern = UINT32_MAX;
    int same_range = 1;
    double alone = 0;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t pattern = (uint32_t)seen[k];
        and_pattern &= pattern;
        same_range &= (seen[k] >> 32) == (seen[0] >> 32);
        alone += 1.0 / (double)(1ull << __builtin_popcount(pattern));
    }
    double together = same_range ? 1.0 / (double)(1ull << __builtin_popcount(and_pattern)) : alone;
    pthread_mutex_lock(&tally_walks_lock);
    tally_thread_walks += alone;
    tally_warp_walks += together;
    pthread_mutex_unlock(&tally_walks_lock);
}
/* The sliced walk's: buckets walked, blocks of 32 keys ANDed, the words
 * they read (a chunk each), and the chunks of blocks built (a thread of
 * nq_slice each; 128 bytes of GPU memory each), in all and in the largest
 * launch. */
static uint64_t tally_sliced_buckets, tally_blocks, tally_words, tally_built, tally_built_most;

static void fake_tally_blocks(uint64_t blocks, uint32_t chunks)
{
    __atomic_fetch_add(&tally_sliced_buckets, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&tally_blocks, blocks, __ATOMIC_RELAXED);
    __atomic_fetch_add(&tally_words, blocks * chunks, __ATOMIC_RELAXED);
}

static void fake_tally_bucket(uint64_t keys)
{
    __atomic_fetch_add(&tally_buckets, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&tally_pairs, keys, __ATOMIC_RELAXED);
}

/* A launch plays its threads in order, so a warp is 32 items in a row:
 * the distinct (range, pattern) among them. */
static void fake_tally_query(uint64_t item, uint32_t range, uint32_t pattern)
{
    static _Thread_local uint64_t seen[32], warp = UINT64_MAX;
    static _Thread_local uint32_t seen_count;
    uint64_t id = ((uint64_t)range << 32) | pattern;
    uint32_t k = 0;
    __atomic_fetch_add(&tally_queries, 1, __ATOMIC_RELAXED);
    if (item / 32 != warp || item % 32 == 0) {
        if (seen_count != 0) {
            fake_warp_walks(seen, seen_count);
        }
        warp = item / 32;
        seen_count = 0;
        __atomic_fetch_add(&tally_warps, 1, __ATOMIC_RELAXED);
    }
    while (k < seen_count && seen[k] != id) {
        k++;
    }
    if (k == seen_count && seen_count < 32) {
        seen[seen_count++] = id;
        __atomic_fetch_add(&tally_warp_patterns, 1, __ATOMIC_RELAXED);
    }
}

static void fake_tile_model(const nq_u32 *block_starts, nq_u32 cuts,
                            const nq_u32 *query_patterns, nq_u32 range_count,
                            const nq_u32 *item_start, const nq_u32 *west_patterns,
                            const nq_u32 *meeting_start, const nq_u32 *meetings)
{
    nq_u32 patterns = 1u << cuts, stride = patterns + 1u;
    nq_u32 *queries = calloc(patterns, sizeof(nq_u32));
    nq_u32 *nonempty = calloc(patterns, sizeof(nq_u32));
    double query_blocks = 0, rounds = 0, bucket_pairs = 0, compatible = 0;
    for (nq_u32 r = 0; r < range_count; r++) {
        nq_u32 distinct = 0;
        for (nq_u32 item = item_start[r]; item < item_start[r + 1]; item++) {
            nq_u32 p = query_patterns[item] | west_patterns[r];
            if (queries[p]++ == 0) {
                nonempty[distinct++] = p;
            }
        }
        for (nq_u32 m = meeting_start[r]; m < meeting_start[r + 1]; m++) {
            const nq_u32 *starts = block_starts + (uint64_t)meetings[m] * stride;
            for (nq_u32 ps = 0; ps < patterns; ps++) {
                nq_u32 blocks = starts[ps + 1] - starts[ps];
                if (blocks == 0) {
                    continue;
                }
                uint64_t meeting = 0;
                for (nq_u32 k = 0; k < distinct; k++) {
                    nq_u32 pq = nonempty[k];
                    bucket_pairs += 1;
                    if ((pq & ps) == 0) {
                        compatible += 1;
                        meeting += queries[pq];
                    }
                }
                query_blocks += (double)meeting * blocks;
                rounds += (double)((meeting + 31) / 32) * blocks;
            }
        }
        for (nq_u32 k = 0; k < distinct; k++) {
            queries[nonempty[k]] = 0;
        }
    }
    free(queries);
    free(nonempty);
    pthread_mutex_lock(&tally_walks_lock);
    tally_tile_query_blocks += query_blocks;
    tally_tile_rounds += rounds;
    tally_tile_bucket_pairs += bucket_pairs;
    tally_tile_compatible_pairs += compatible;
    pthread_mutex_unlock(&tally_walks_lock);
}

__attribute__((destructor)) static void tally(void)
{
    if (env_int("FAKE_CUDA_TALLY", 0)) {
        fprintf(stderr,
                "fake cuda: %d launches, %ld copies, %lld bytes copied, %ld buffers held at "
                "exit; launches of kernels 2 to 14:",
                launches, copies, copied_bytes, held);
        for (int k = 2; k < 15; k++) {
            fprintf(stderr, " %d", launches_of[k]);
        }
        fprintf(stderr, "\n");
        fprintf(stderr, "fake cuda: memory: %ld allocations, %ld frees, %ld queries of free memory\n",
                allocations, frees, memory_queries);
        fprintf(stderr,
                "fake cuda: matcher: %llu queries, %llu buckets walked, %llu pairs decided, "
                "%llu warps taking %llu patterns\n",
                (unsigned long long)tally_queries, (unsigned long long)tally_buckets,
                (unsigned long long)tally_pairs, (unsigned long long)tally_warps,
                (unsigned long long)tally_warp_patterns);
        fprintf(stderr, "fake cuda: walks, in buckets over 2^cuts: lanes alone %.1f, warps together %.1f\n",
                tally_thread_walks, tally_warp_walks);
        fprintf(stderr,
                "fake cuda: a warp a stored bucket: %.0f blocks ANDed by queries, %.0f rounds of "
                "32 queries on a block, %.0f pairs of nonempty buckets, %.0f of them meeting\n",
                tally_tile_query_blocks, tally_tile_rounds, tally_tile_bucket_pairs,
                tally_tile_compatible_pairs);
        if (tally_blocks != 0 || tally_sliced_buckets != 0) {
            fprintf(stderr,
                    "fake cuda: sliced: %llu buckets walked, %llu blocks ANDed, %llu words "
                    "read, %llu chunks of blocks built (at most %llu a launch)\n",
                    (unsigned long long)tally_sliced_buckets, (unsigned long long)tally_blocks,
                    (unsigned long long)tally_words, (unsigned long long)tally_built,
                    (unsigned long long)tally_built_most);
        }
    }
}

CUresult cuInit(unsigned flags) { return flags == 0 ? 0 : 1; }
CUresult cuDriverGetVersion(int *version) { *version = 13000; return 0; }
CUresult cuDeviceGetCount(int *count) { *count = env_int("FAKE_CUDA_DEVICES", 1); return 0; }

CUresult cuDeviceGet(CUdevice *device, int index)
{
    if (index < 0 || index >= env_int("FAKE_CUDA_DEVICES", 1)) {
        return 101; /* CUDA_ERROR_INVALID_DEVICE */
    }
    *device = index;
    return 0;
}

CUresult cuDeviceGetName(char *name, int length, CUdevice device)
{
    snprintf(name, (size_t)length, "Fake GPU %d (host)", device);
    return 0;
}

CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice device)
{
    (void)device;
    int cc = env_int("FAKE_CUDA_CC", 90);
    switch (attribute) {
    case 75: *value = cc / 10; return 0;
    case 76: *value = cc % 10; return 0;
    case 16: *value = 4; return 0;
    case 13: *value = 1000000; return 0;
    default: return 1;
    }
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice device) { (void)device; *bytes = (size_t)8 << 30; return 0; }
CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice device, unsigned flags) { (void)device; (void)flags; return 0; }
CUresult cuDevicePrimaryCtxRetain(void **context, CUdevice device) { *context = (void *)(intptr_t)(device + 1); return 0; }
CUresult cuCtxSetCurrent(void *context) { return context ? 0 : 201; }

/* A kernel's failure is sticky, as the driver's are: every call that
 * waits for the GPU reports it from then on. */
CUresult cuCtxSynchronize(void) { return pending; }

/* Whether `name` followed by `end` (a NUL in a cubin's string table, a
 * parenthesis in PTX) appears in the `length` bytes of `image`. */
static int image_names(const char *image, size_t length, const char *name, char end)
{
    size_t name_length = strlen(name);
    for (size_t i = 0; i + name_length < length; i++) {
        if (memcmp(image + i, name, name_length) == 0 && image[i + name_length] == end) {
            return 1;
        }
    }
    return 0;
}

/* The last image loaded, where it is a real NVRTC's output: the kernels'
 * names are looked up in it, as the real driver would find them or not. */
static const char *loaded_image;
static size_t loaded_length;
static char loaded_end;

/* The token image of the stand-in NVRTC, or a real NVRTC's output: a
 * cubin (an ELF file, its length from its header) or PTX (text), which
 * must define the pair-counting kernel. */
CUresult cuModuleLoadData(void **module, const void *image)
{
    const char *bytes = image;
    loaded_image = NULL;
    if (strncmp(bytes, "FAKE", 4) == 0) {
        *module = (void *)1;
        return 0;
    }
    if (memcmp(bytes, "\x7f" "ELF", 4) == 0 && bytes[4] == 2) {
        uint64_t section_offset;
        uint16_t entry_size, entries;
        memcpy(&section_offset, bytes + 0x28, 8);
        memcpy(&entry_size, bytes + 0x3a, 2);
        memcpy(&entries, bytes + 0x3c, 2);
        loaded_length = section_offset + (uint64_t)entry_size * entries;
        loaded_end = '\0';
    } else if (strstr(bytes, ".version") != NULL) {
        loaded_length = strlen(bytes);
        loaded_end = '(';
    } else {
        return 200; /* CUDA_ERROR_INVALID_IMAGE */
    }
    loaded_image = bytes;
    *module = (void *)1;
    return 0;
}

CUresult cuModuleGetFunction(void **function, void *module, const char *name)
{
    (void)module;
    /* Handles 2 on: the kernels of pairs.cuh, boards.cuh, layout.cuh,
     * cells.cuh, sliced.cuh and tiles.cuh. */
    static const char *const kernels[] = {
        "nq_pairs", "nq_place",         "nq_boards",            "nq_sample",
        "nq_histogram", "nq_scatter",   "nq_grid",              "nq_cells",
        "nq_boards_staged", "nq_stage_scan_kernel", "nq_unstage", "nq_slice",
        "nq_sliced_grid", "nq_query_chunks", "nq_tiled_grid"};
    if (loaded_image != NULL) {
        char entry[64];
        snprintf(entry, sizeof entry, "%s%s", loaded_end == '(' ? ".entry " : "", name);
        if (!image_names(loaded_image, loaded_length, entry, loaded_end)) {
            return 500; /* CUDA_ERROR_NOT_FOUND */
        }
    }
    for (int k = 0; k < 15; k++) {
        if (strcmp(name, kernels[k]) == 0) {
            *function = (void *)(intptr_t)(k + 2);
            return 0;
        }
    }
    return 500; /* CUDA_ERROR_NOT_FOUND */
}

/* Each buffer's size sits in 16 bytes before it, so that the bytes held
 * are known (cuMemGetInfo's free memory is the GPU's less them, and the
 * program's peak GPU memory what it held). */
#define HEADER 16

CUresult cuMemAlloc_v2(CUdeviceptr *pointer, size_t bytes)
{
    unsigned char *memory = malloc(bytes + HEADER);
    if (!memory) {
        return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
    }
    memcpy(memory, &bytes, sizeof bytes);
    *pointer = (CUdeviceptr)(uintptr_t)(memory + HEADER);
    __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&held, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&held_bytes, (long long)bytes, __ATOMIC_RELAXED);
    return 0;
}

CUresult cuMemFree_v2(CUdeviceptr pointer)
{
    if (pointer == 0) {
        return 0;
    }
    unsigned char *memory = (unsigned char *)(uintptr_t)pointer - HEADER;
    __atomic_fetch_add(&frees, 1, __ATOMIC_RELAXED);
    size_t bytes;
    memcpy(&bytes, memory, sizeof bytes);
    __atomic_fetch_sub(&held_bytes, (long long)bytes, __ATOMIC_RELAXED);
    free(memory);
    __atomic_fetch_sub(&held, 1, __ATOMIC_RELAXED);
    return 0;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr to, const void *from, size_t bytes)
{
    copies++;
    copied_bytes += (long long)bytes;
    if (pending) {
        return pending;
    }
    memcpy((void *)(uintptr_t)to, from, bytes);
    return 0;
}

CUresult cuMemcpyDtoH_v2(void *to, CUdeviceptr from, size_t bytes)
{
    copies++;
    copied_bytes += (long long)bytes;
    if (pending) {
        return pending;
    }
    memcpy(to, (const void *)(uintptr_t)from, bytes);
    return 0;
}

CUresult cuMemsetD32_v2(CUdeviceptr to, unsigned value, size_t words)
{
    if (pending) {
        return pending;
    }
    unsigned *at = (unsigned *)(uintptr_t)to;
    for (size_t k = 0; k < words; k++) {
        at[k] = value;
    }
    return 0;
}

CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    __atomic_fetch_add(&memory_queries, 1, __ATOMIC_RELAXED);
    long long held_now = __atomic_load_n(&held_bytes, __ATOMIC_RELAXED);
    long long free_mib = env_int("FAKE_CUDA_FREE_MIB", 8192);
    long long left = (free_mib << 20) - held_now;
    *free_bytes = (size_t)(left > 0 ? left : 0);
    *total = (size_t)8 << 30;
    return 0;
}

CUresult cuLaunchKernel(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, void *stream, void **params,
                        void **extra)
{
    (void)stream;
    intptr_t kernel = (intptr_t)function;
    if (kernel < 2 || kernel > 16 || gy != 1 || gz != 1 || by != 1 || bz != 1 || shared != 0 ||
        extra != NULL || bx == 0 || bx > 1024 || gx == 0) {
        return 1; /* CUDA_ERROR_INVALID_VALUE */
    }
    launches++;
    launches_of[kernel]++;
    if (launches == env_int("FAKE_CUDA_FAIL_LAUNCH", -1)) {
        pending = 700; /* CUDA_ERROR_ILLEGAL_ADDRESS, seen at the next wait */
        return 0;
    }
    if (env_int("FAKE_CUDA_NO_WORK", 0)) {
        return 0;
    }
    /* Every kernel but the matchers (the bucket walk, the sliced walk and
     * the first design's): a task's boards, layout and buffers as a count
     * makes them, so its GPU memory is measured where matching it on one
     * host core would take hours (N = 28); its counts are then zero. */
    if (env_int("FAKE_CUDA_SKIP_MATCH", 0) && (kernel == 2 || kernel == 8 || kernel == 14 || kernel == 16)) {
        return 0;
    }
    nq_u32 threads = gx * bx;
#define ARG(type, i) (*(type *)params[i])
#define POINTER(type, i) ((type *)(uintptr_t)ARG(CUdeviceptr, i))
    if (kernel == 3) {
        for (nq_u32 item = 0; item < threads; item++) {
            nq_place_item(POINTER(const nq_u64, 0), POINTER(const nq_u32, 1), ARG(nq_u32, 2),
                          POINTER(const nq_move, 3), POINTER(nq_u64, 4), POINTER(nq_u64, 5),
                          item);
        }
        return 0;
    }
    if (kernel == 4) {
        for (nq_u32 item = 0; item < threads; item++) {
            nq_boards_item(POINTER(const nq_u64, 0), POINTER(const nq_u64, 1),
                           POINTER(const nq_u64, 2), POINTER(const nq_u64, 3),
                           POINTER(const nq_u32, 4), POINTER(const nq_u32, 5), ARG(nq_u32, 6),
                           ARG(nq_u64, 7), POINTER(nq_u64, 8), ARG(nq_u32, 9), POINTER(nq_u32, 10),
                           item);
        }
        return 0;
    }
    if (kernel == 5) {
        for (nq_u32 item = 0; item < threads; item++) {
            nq_sample_item(POINTER(const nq_u64, 0), ARG(nq_u32, 1), ARG(nq_u32, 2),
                           POINTER(nq_u64, 3), item);
        }
        return 0;
    }
    if (kernel == 6) {
        for (nq_u32 item = 0; item < threads; item++) {
            nq_histogram_item(POINTER(const nq_u64, 0), ARG(nq_u32, 1), POINTER(const nq_u32, 2),
                              POINTER(const nq_u32, 3), ARG(nq_u64, 4), ARG(nq_u32, 5),
                              POINTER(nq_u32, 6), POINTER(nq_u32, 7), item);
        }
        return 0;
    }
    if (kernel == 7) {
        for (nq_u32 item = 0; item < threads; item++) {
            nq_scatter_item(POINTER(const nq_u64, 0), ARG(nq_u32, 1), POINTER(const nq_u32, 2),
                            POINTER(const nq_u32, 3), ARG(nq_u32, 4), POINTER(const nq_u32, 5),
                            POINTER(nq_u32, 6), POINTER(nq_u64, 7), POINTER(nq_u32, 8), item);
        }
        return 0;
    }
    if (kernel == 8) {
        if (ARG(nq_u32, 3) > NQ_MAX_CUTS) {
            pending = 700;
            return 0;
        }
        for (nq_u32 item = 0; item < threads; item++) {
            nq_grid_item(POINTER(const nq_u64, 0), POINTER(const nq_u32, 1),
                         POINTER(const nq_u64, 2), ARG(nq_u32, 3), POINTER(const nq_u64, 4),
                         POINTER(const nq_u32, 5), ARG(nq_u32, 6), POINTER(const nq_u32, 7),
                         POINTER(const nq_u64, 8), POINTER(const nq_u32, 9),
                         POINTER(const nq_u32, 10), POINTER(const nq_u32, 11),
                         POINTER(nq_u64, 12), item);
        }
        return 0;
    }
    if (kernel == 9) {
        for (nq_u32 item = 0; item < threads; item++) {
            nq_cells_item(POINTER(const nq_prefix, 0), ARG(nq_u32, 1), ARG(nq_u32, 2),
                          POINTER(nq_u32, 3), POINTER(const nq_u64, 4), item);
        }
        return 0;
    }
    if (kernel == 10) {
        for (nq_u32 item = 0; item < threads; item++) {
            nq_boards_staged_item(POINTER(const nq_u64, 0), POINTER(const nq_u64, 1),
                                  POINTER(const nq_u32, 2), POINTER(const nq_u32, 3),
                                  POINTER(const nq_u32, 4), ARG(nq_u32, 5), POINTER(nq_u64, 6),
                                  POINTER(nq_u32, 7), item);
        }
        return 0;
    }
    if (kernel == 11) {
        nq_stage_scan(POINTER(const nq_u32, 0), ARG(nq_u32, 1), POINTER(nq_u32, 2),
                      POINTER(nq_u32, 3), POINTER(nq_u32, 4), POINTER(nq_u32, 5));
        return 0;
    }
    if (kernel == 12) {
        for (nq_u32 item = 0; item < threads; item++) {
            nq_unstage_items(POINTER(const nq_u64, 0), POINTER(const nq_u32, 1),
                             POINTER(const nq_u32, 2), ARG(nq_u32, 3), POINTER(nq_u32, 4),
                             POINTER(nq_u64, 5), ARG(nq_u32, 6), item, threads);
        }
        return 0;
    }
    if (kernel == 13) {
        nq_u64 built = (nq_u64)ARG(nq_u32, 3) * ARG(nq_u32, 5);
        __atomic_fetch_add(&tally_built, built, __ATOMIC_RELAXED);
        if (built > tally_built_most) {
            tally_built_most = built;
        }
        for (nq_u64 item = 0; item < threads; item++) {
            nq_slice_item(POINTER(const nq_u64, 0), POINTER(const nq_u32, 1),
                          POINTER(const nq_u32, 2), ARG(nq_u32, 3), POINTER(const nq_u64, 4),
                          ARG(nq_u32, 5), POINTER(nq_u32, 6), item);
        }
        return 0;
    }
    if (kernel == 14) {
        if (ARG(nq_u32, 3) > NQ_MAX_CUTS || ARG(nq_u32, 5) == 0 ||
            ARG(nq_u32, 5) > NQ_MAX_CHUNKS) {
            pending = 700;
            return 0;
        }
        if (env_int("FAKE_CUDA_TALLY", 0)) {
            fake_tile_model(POINTER(const nq_u32, 1), ARG(nq_u32, 3), POINTER(const nq_u32, 7),
                            ARG(nq_u32, 8), POINTER(const nq_u32, 9), POINTER(const nq_u32, 11),
                            POINTER(const nq_u32, 12), POINTER(const nq_u32, 13));
        }
        for (nq_u32 item = 0; item < threads; item++) {
            nq_sliced_grid_item(POINTER(const nq_u32, 0), POINTER(const nq_u32, 1),
                                POINTER(const nq_u64, 2), ARG(nq_u32, 3),
                                POINTER(const nq_u64, 4), ARG(nq_u32, 5),
                                POINTER(const nq_u64, 6), POINTER(const nq_u32, 7),
                                ARG(nq_u32, 8), POINTER(const nq_u32, 9),
                                POINTER(const nq_u64, 10), POINTER(const nq_u32, 11),
                                POINTER(const nq_u32, 12), POINTER(const nq_u32, 13),
                                POINTER(nq_u64, 14), item);
        }
        return 0;
    }
    if (kernel == 15) {
        for (nq_u32 item = 0; item < threads; item++) {
            nq_query_chunks_item(POINTER(const nq_u64, 0), ARG(nq_u32, 1),
                                 POINTER(const nq_u32, 2), POINTER(const nq_u64, 3),
                                 POINTER(const nq_u64, 4), ARG(nq_u32, 5), POINTER(nq_u32, 6),
                                 item);
        }
        return 0;
    }
    if (kernel == 16) {
        if (ARG(nq_u32, 3) > NQ_MAX_CUTS || ARG(nq_u32, 4) == 0 ||
            ARG(nq_u32, 4) > NQ_MAX_CHUNKS || bx % 32u != 0u) {
            pending = 700;
            return 0;
        }
        /* A warp a meeting: the warp's lanes played together. */
        for (nq_u32 warp = 0; warp < threads / 32u; warp++) {
            nq_tiled_warp(POINTER(const nq_u32, 0), POINTER(const nq_u32, 1),
                          POINTER(const nq_u64, 2), ARG(nq_u32, 3), ARG(nq_u32, 4),
                          POINTER(const nq_u64, 5), POINTER(const nq_u32, 6), ARG(nq_u32, 7),
                          POINTER(const nq_u32, 8), POINTER(const nq_u32, 9),
                          POINTER(const nq_u32, 10), POINTER(const nq_u32, 11),
                          POINTER(const nq_u32, 12), POINTER(const nq_u32, 13),
                          POINTER(const nq_u32, 14), POINTER(nq_u64, 15), warp);
        }
        return 0;
    }
    const nq_u64 *stored = (const nq_u64 *)(uintptr_t) * (CUdeviceptr *)params[0];
    const nq_u32 *bucket_start = (const nq_u32 *)(uintptr_t) * (CUdeviceptr *)params[1];
    nq_u32 cuts = *(nq_u32 *)params[2];
    const nq_u64 *queries = (const nq_u64 *)(uintptr_t) * (CUdeviceptr *)params[3];
    const nq_u32 *patterns = (const nq_u32 *)(uintptr_t) * (CUdeviceptr *)params[4];
    nq_u32 count = *(nq_u32 *)params[5];
    nq_u64 *total = (nq_u64 *)(uintptr_t) * (CUdeviceptr *)params[6];
    if (cuts > NQ_MAX_CUTS) {
        pending = 700;
        return 0;
    }
    for (nq_u32 thread = 0; thread < threads; thread++) {
        nq_pairs_thread(stored, bucket_start, cuts, queries, patterns, count, thread, threads, total);
    }
    return 0;
}

CUresult cuGetErrorString(CUresult result, const char **text)
{
    switch (result) {
    case 2: *text = "out of memory"; return 0;
    case 101: *text = "invalid device ordinal"; return 0;
    case 700: *text = "an illegal memory access was encountered"; return 0;
    default: *text = "fake error"; return 0;
    }
}

/* NVRTC */

typedef struct {
    char *source;
    int ok;
} program;

int nvrtcVersion(int *major, int *minor) { *major = 13; *minor = 0; return 0; }

int nvrtcCreateProgram(void **out, const char *source, const char *name, int headers,
                       const char *const *contents, const char *const *names)
{
    (void)name; (void)contents; (void)names;
    if (headers != 0) {
        return 1;
    }
    program *p = calloc(1, sizeof *p);
    p->source = strdup(source);
    *out = p;
    return 0;
}

int nvrtcCompileProgram(void *handle, int count, const char *const *options)
{
    program *p = handle;
    p->ok = count >= 1 && strncmp(options[0], "--gpu-architecture=sm_", 22) == 0 &&
            strstr(p->source, "__global__ void nq_pairs(") != NULL;
    return p->ok ? 0 : 6; /* NVRTC_ERROR_COMPILATION */
}

int nvrtcGetProgramLogSize(void *handle, size_t *size) { (void)handle; *size = 32; return 0; }
int nvrtcGetProgramLog(void *handle, char *log) { (void)handle; strcpy(log, "fake: refused\n"); return 0; }
int nvrtcGetCUBINSize(void *handle, size_t *size) { (void)handle; *size = 5; return 0; }
int nvrtcGetCUBIN(void *handle, char *image) { (void)handle; memcpy(image, "FAKE", 5); return 0; }
int nvrtcGetPTXSize(void *handle, size_t *size) { (void)handle; *size = 5; return 0; }
int nvrtcGetPTX(void *handle, char *image) { (void)handle; memcpy(image, "FAKE", 5); return 0; }

int nvrtcDestroyProgram(void **handle)
{
    program *p = *handle;
    free(p->source);
    free(p);
    *handle = NULL;
    return 0;
}

CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr to, CUdeviceptr from, size_t bytes)
{
    if (pending) {
        return pending;
    }
    memmove((void *)(uintptr_t)to, (const void *)(uintptr_t)from, bytes);
    return 0;
}

/* The per-thread default stream's entry points, which the program calls:
 * the stand-in runs everything at once, so they are the same calls. */
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr to, const void *from, size_t bytes)
{
    return cuMemcpyHtoD_v2(to, from, bytes);
}

CUresult cuMemcpyDtoH_v2_ptds(void *to, CUdeviceptr from, size_t bytes)
{
    return cuMemcpyDtoH_v2(to, from, bytes);
}

CUresult cuMemsetD32_v2_ptds(CUdeviceptr to, unsigned value, size_t words)
{
    return cuMemsetD32_v2(to, value, words);
}

CUresult cuLaunchKernel_ptsz(void *function, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                             unsigned by, unsigned bz, unsigned shared, void *stream,
                             void **params, void **extra)
{
    return cuLaunchKernel(function, gx, gy, gz, bx, by, bz, shared, stream, params, extra);
}
