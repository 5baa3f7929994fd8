//! How much of a task a thread holds at a time.

use super::{grid_levels, WHOLE_PLACEMENTS};

/// How much a task holds at a time: one part of the stored keys, one
/// batch of queries, and row sets of at most so many placements (the
/// larger make each cell when asked for).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parts {
    /// Keys in one part of the stored keys.
    pub stored_keys: usize,
    /// Keys in one batch of queries.
    pub query_keys: usize,
    /// Most placements of a row set held whole. Below
    /// `WHOLE_PLACEMENTS` every side takes the per-thread cache (tests
    /// take it tiny).
    pub whole_placements: u64,
    /// Columns a side each join is cut by (see `grid_levels`, which
    /// `None` takes; tests take others).
    pub levels: Option<u32>,
    /// How many of those levels cut the east side too, the others the
    /// west side only (see `grid_east_levels`, which `None` takes when
    /// `levels` is `None`; else `None` is every level).
    pub east_levels: Option<u32>,
    /// Most keys a grid holds of its stored groups together, and of one
    /// query group (`GRID_HELD_KEYS`), both sides within
    /// [`Parts::held_share`]; past it a grid's groups are joined pair by
    /// pair, each made again (tests take it tiny).
    pub held_keys: usize,
    /// Fewest keys of a query batch that a plain join (no grid) stores in
    /// its part's place where the batch is the larger (8,192 in a count;
    /// tests take 0, and `usize::MAX` never swaps).
    pub swap_min_keys: usize,
    /// Pairs past which a grid's query group is cut by one more west
    /// column before it meets the stored groups: its keys times the
    /// stored groups' (`u64::MAX`, what counts take: never; tests take
    /// others). At N = 28 (Zen 3, AVX2, each task timed both ways alone
    /// on the machine) cutting every query group took 1.006, 0.820 and
    /// 1.492 of the time on three tasks: it pays on groups of a million
    /// keys and more, and costs on smaller ones, and such groups are
    /// rare (none of 2,366 in 16 random tasks reached 2^20 keys), so it
    /// is worth a few percent of Q(28) at most (`docs/performance.md`).
    pub deepen_pairs: u64,
    /// Most query groups a grid holds together, so that each stored
    /// group is read from memory once for all of them
    /// ([`GROUPS_A_PASS`]; tests take others). Each has its own part of
    /// `stored_keys`.
    pub groups_a_pass: usize,
    /// Stored keys a grid's held query groups' keys are at most a share
    /// of ([`GROUPS_SHARE`]; tests take 0: groups always held together).
    pub groups_share: usize,
}

impl Parts {
    /// Most keys a grid's stored and query lists together keep resident:
    /// one and a half times a side's cap. The two sides are seldom large
    /// in one task (at N = 28 the stored groups reached 4.8 million keys
    /// together, a query group under 2 million; no task of 40 sampled at
    /// each of N = 25 to 27 was cut by the share), so the memory bound
    /// counts half a side's cap less than two whole caps (32 MiB a thread
    /// at N = 28) at no cost in time.
    pub fn held_share(&self) -> usize {
        self.held_keys.saturating_add(self.held_keys / 2)
    }

    /// The sizes counts use: [`STORED_KEYS`], [`QUERY_KEYS`] and
    /// [`WHOLE_PLACEMENTS`].
    pub const DEFAULT: Parts = Parts {
        stored_keys: STORED_KEYS,
        query_keys: QUERY_KEYS,
        whole_placements: WHOLE_PLACEMENTS,
        levels: None,
        east_levels: None,
        held_keys: GRID_HELD_KEYS,
        swap_min_keys: SWAP_MIN_KEYS,
        deepen_pairs: u64::MAX,
        groups_a_pass: GROUPS_A_PASS,
        groups_share: GROUPS_SHARE,
    };

    /// The sizes a count of an `n` board uses: [`Parts::DEFAULT`], less
    /// where a grid cuts the joins (from N = 24) and its groups never come
    /// near the caps, so that the memory bound stays near what a count
    /// takes (`memory::thread_bound`).
    pub fn of(n: u32) -> Parts {
        if grid_levels(n) == 0 {
            return Parts {
                stored_keys: plain_stored_keys(n),
                ..Parts::DEFAULT
            };
        }
        Parts {
            stored_keys: grid_stored_keys(n),
            query_keys: grid_query_keys(n),
            held_keys: grid_held_keys(n),
            ..Parts::DEFAULT
        }
    }
}

/// Fewest keys of a query batch that a plain join stores in its part's
/// place (`Join::swaps_plain`). Zen 3, AVX2, one thread, tasks counted
/// both ways in one process (each warm, then alternately, by thread CPU
/// time), swapped against not: N = 16 to 19 0.98 to 0.99, N = 20 0.94,
/// 21 0.93, 22 0.96, 23 0.86; with no floor, N = 16 1.10 and 18 1.08
/// (their batches of a few thousand keys cut a level or two, short of
/// the load they add). Whole runs in turn: `count 18` 1.006, shards of
/// N = 20, 21 and 23 0.90, 0.88 and 0.87.
pub(crate) const SWAP_MIN_KEYS: usize = 8192;

/// Most keys a grid holds of its stored groups, and of one query group:
/// 64 MiB each. At N = 27 a task's east boards reach past 4 million (one
/// sampled task took 3.3 s joined pair by pair, 2.1 s held, on one
/// AVX-512 core, Zen 4 or 5).
pub(crate) const GRID_HELD_KEYS: usize = 1 << 23;

/// Most keys a grid holds of its stored groups, and of one query group,
/// for an `n` board: about twice the largest group a sample of its tasks
/// met, so that the memory bound stays near what a count takes; a group
/// past it is joined pair by pair, the same count a little slower.
/// Measured on Zen 5 AVX-512 (`examples/task_memory.rs`, the tasks ranked
/// heaviest by cost and at random, one thread):
/// - N = 24: no group of 2,200 tasks (200 heaviest) passed 512 thousand
///   keys (18 passed 256 thousand): 1 million (8 MiB a side).
/// - N = 25: 700 tasks (100 heaviest) took 76.3 to 77.2 s held to 2
///   million (12 groups joined pair by pair), 78.3 s to 8 million and
///   79.4 s to 4: 2 million.
/// - N = 26: no group of 150 tasks (30 heaviest) passed 2 million, which
///   took 38.3 to 39.3 s against 38.5 to 38.6 s at 4 million: 2 million.
/// - N = 27 and 28: [`GRID_HELD_KEYS`]. N = 27 took 61.1 to 61.5 s held
///   to 8 million, 70.8 to 71.0 s to 4; N = 28 80.4 to 81.7 s to 4
///   million as to 8 on one thread, but 7 to 10% longer on two (`plan 28
///   -j2 --estimate --sample 40`, alternating), and 92.0 s to 2 million
///   on one.
pub(crate) fn grid_held_keys(n: u32) -> usize {
    match n {
        ..=24 => 1 << 20,
        25 | 26 => 1 << 21,
        _ => GRID_HELD_KEYS,
    }
}

/// Most stored keys a thread matches at once where no grid cuts the joins
/// of an `n` board (below N = 24): a few times the largest stored side a
/// sample of its tasks met, so that the memory bound stays near what a
/// count takes; a side past it is matched in parts, the same count a
/// little slower.
pub(crate) fn plain_stored_keys(n: u32) -> usize {
    match n {
        ..=21 => 1 << 16,
        _ => 1 << 19,
    }
}

/// Most stored keys a thread matches at once where a grid cuts the joins
/// of an `n` board: its parts hold fewer keys than [`STORED_KEYS`] anyway.
/// Measured as above: N = 24, 26 and 28 took the same time at 128
/// thousand as at 1.5 million (the tasks ranked heaviest and at random,
/// 2.5 to 2.6 s for 120 tasks of N = 24, 10.9 to 11.1 s for 36 of N = 26);
/// odd N's larger groups 3% longer at 128 thousand (N = 27: 62.4 to 63.4 s
/// against 61.1 to 61.5 s), the same at 512 thousand.
pub(crate) fn grid_stored_keys(n: u32) -> usize {
    if n.is_multiple_of(2) {
        1 << 17
    } else {
        1 << 19
    }
}

/// Query keys a grid's meeting takes in one batch for an `n` board: from
/// N = 26 twice [`QUERY_KEYS`], so that a stored part meets a large query
/// group in half as many dual splits (each folds and squeezes the part
/// again, and a larger pair of lists shares its cuts' cost). Zen 5
/// AVX-512, `scripts/ab-pinned.sh`, `--sample 3` at N = 28 (seeds 41 53 7
/// 61 89): 0.970 and 0.980; N = 26 0.950, N = 27 0.967; but N = 24 1.069
/// and 1.015, N = 25 1.015. 2^19 keys read as 2^18 (0.996), 2^20 1.008.
pub(crate) fn grid_query_keys(n: u32) -> usize {
    if n >= 26 {
        QUERY_KEYS << 1
    } else {
        QUERY_KEYS
    }
}

/// Most stored keys a thread matches at once. Larger sides (from N ~ 24)
/// are stored in parts, and every part meets all the queries, built again
/// per part. Fewer, larger parts split deeper: at N = 24, parts of ~0.8
/// million keys took 10% longer than of ~1.6 million, and ~0.4 million 18%
/// longer than ~0.8 million. A key takes up to ~90 bytes with its copies
/// and its matcher (measured at N = 25, where most pairs become keys).
pub(crate) const STORED_KEYS: usize = 3 << 19;

/// Query groups a grid holds together (within one group's room): a stored
/// group is filtered for each from the same slice in cache, not read from
/// memory once per group. Every query group (about 150 a task at N = 28)
/// read all the stored groups' keys again (0.3 to 7 million), evicted by
/// the meetings between: 0.9 ns a key on an Intel Xeon (family 6 model
/// 167, AVX-512), 5 to 12% of a task. `scripts/ab-pinned.sh` there, N =
/// 28 `--sample 4`: 0.975 (seeds 53 61), 0.987 (41 11 7), AVX2 forced
/// 0.978 (7 41); N = 27 0.934, N = 24 to 26 0.990 to 0.992. Eight read
/// the same as four (0.991, noise), at twice the parts' memory.
pub(crate) const GROUPS_A_PASS: usize = 4;

/// Query groups are held together only while their keys stay under an
/// eighth of the stored groups': where the stored side is not the larger
/// by far, four groups' meetings (their parts and query classes evicting
/// each other from the cache) cost more than the stored reads they save
/// (held together whatever their size, 1.027 at seeds 41 and 11).
pub(crate) const GROUPS_SHARE: usize = 8;

/// Query keys made in one batch: the queries are never all held at once.
pub(crate) const QUERY_KEYS: usize = 1 << 17;
