//! How much a GPU's counters hold and batch at once: GPU memory against
//! round trips. Each has a default and a setting, read when the GPU is
//! opened; a malformed one is refused in one line saying what it expects.

use std::str::FromStr;

use super::buckets::{DEFAULT_CUTS, MAX_CUTS};

/// Bytes of quadrant cells each feeder keeps on its GPU by default: every
/// row set of a task, and the groups' row sets of a grid, many times over
/// (the largest row set at side 14 holds 29.6 million placements, 236 MB).
const CELLS_MIB: u64 = 2048;

/// Half boards a chunk of query groups may make at most by default (by the
/// bound of their pairs of placements): 2^26, so their lists stay within
/// about 1.5 GiB (three classes of 8-byte keys).
const CHUNK_BOARDS: u64 = 1 << 26;

/// Placements moved onto the board in one launch at most by default
/// (their checks and keys: 512 MiB); a job with more takes a launch alone.
const PLACED_AT_ONCE: u64 = 1 << 25;

/// Half boards a batch of board jobs stages at most by default (by the
/// bound of their pairs, 8 bytes each: 512 MiB): the batch's boards made
/// in one launch into a region per job, then moved into the class lists;
/// a job with more is made alone, straight into the lists. As many as a
/// chunk of query groups makes, so that a chunk is one batch (at 2^25 a
/// task of N = 26 took 57 launches, at 2^26 42, on the stand-in driver).
const STAGED_BOARDS: u64 = 1 << 26;

/// Query groups of a grid whose cells are built and held on the GPU at
/// once by default: each group takes its own row sets (within the columns
/// its queens leave open).
const QUERY_WINDOW: usize = 64;

/// Stored keys a bucket the sliced walk's cuts leave at least, on average,
/// by default: four blocks' worth. Fewer cut bits than the bucket walk
/// takes (4 keys a bucket), since a bucket costs whole blocks of 32 slots
/// and a walk's step costs more than a block. On an H200 (3 tasks of
/// N = 28, seed 1, one run): 128 keys 5% faster than 32 (6.10e9 against
/// 5.80e9 solutions a second), 512 20% slower; on the stand-in's tally of
/// N = 24 16 keys read about as many words as 32 but walked 1.5x the
/// buckets.
const SLICED_KEYS: usize = 128;

/// Blocks of 256 threads an SM holds at once that the sliced matcher's
/// registers are fitted to, and how far its loop over blocks is unrolled,
/// by default: 4 and 2 (64 registers a thread on sm_90, 32 bytes spilled,
/// where the compiler alone takes 96 and 2 blocks). On an H200 (3 tasks of
/// N = 28, seed 1, one run) with 128 keys a bucket: 6.77e9 solutions a
/// second against 6.10e9 with the compiler's choice (at 32 keys 5.99e9
/// against 5.80e9; 3 blocks, 80 registers, 5.77e9).
const SLICED_BLOCKS: u32 = 4;
const SLICED_UNROLL: u32 = 2;

/// How the GPU matches a grid's queries against its stored keys. Sliced
/// unless told: on the stand-in's tally of N = 26 (4 tasks, seed 1) it
/// spends about 63 integer operations a solution where the walk spends
/// 279 at 12 cut bits and 157 at 16 (`docs/gpu.md`); no GPU has timed
/// either yet (the device check's steps 6 and 7 time both).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum GpuMatcher {
    /// A thread a query walks the buckets' keys one by one (`nq_grid`).
    Buckets,
    /// A thread a query ANDs the buckets' bit-sliced blocks of 32 keys
    /// (`sliced.cuh`).
    Sliced,
    /// A warp a meeting of a query range and a stored group ANDs its
    /// lanes' queries against each stored bucket's blocks in step
    /// (`tiles.cuh`; not yet timed on a GPU).
    Tiles,
}

impl FromStr for GpuMatcher {
    type Err = ();

    fn from_str(text: &str) -> Result<GpuMatcher, ()> {
        match text {
            "buckets" => Ok(GpuMatcher::Buckets),
            "sliced" => Ok(GpuMatcher::Sliced),
            "tiles" => Ok(GpuMatcher::Tiles),
            _ => Err(()),
        }
    }
}

/// How the sliced matcher's threads walk a query's buckets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SlicedWalk {
    /// A warp whose queries share a range walks in step: every bucket any
    /// lane meets once, each lane counting those its pattern leaves free.
    Warp,
    /// Each thread walks its own buckets (the first design; a warp of
    /// mixed patterns takes turns).
    Thread,
}

impl FromStr for SlicedWalk {
    type Err = ();

    fn from_str(text: &str) -> Result<SlicedWalk, ()> {
        match text {
            "warp" => Ok(SlicedWalk::Warp),
            "thread" => Ok(SlicedWalk::Thread),
            _ => Err(()),
        }
    }
}

/// The settings of one GPU's counters.
#[derive(Clone, Copy, Debug)]
pub(super) struct GpuSettings {
    /// Bytes of quadrant cells each feeder keeps (`NQUEENS_GPU_CELLS_MIB`).
    pub(super) cells_budget: u64,
    /// Half boards a chunk of query groups may make at most
    /// (`NQUEENS_GPU_CHUNK_BOARDS`).
    pub(super) chunk_boards: u64,
    /// Placements a board maker moves onto the board in one launch
    /// (`NQUEENS_GPU_PLACED_AT_ONCE`).
    pub(super) placed_at_once: u64,
    /// Query groups of a grid whose cells are on the GPU at once
    /// (`NQUEENS_GPU_QUERY_WINDOW`, at least 1).
    pub(super) query_window: usize,
    /// Half boards a batch of board jobs stages at most, by their bound
    /// (`NQUEENS_GPU_STAGED_BOARDS`; 0 makes every job alone).
    pub(super) staged_boards: u64,
    /// Cut bits a layout of a task's stored keys takes at most
    /// (`NQUEENS_GPU_CUTS`, 0 to [`MAX_CUTS`]).
    pub(super) cuts: usize,
    /// The matcher of a grid's pairs (`NQUEENS_GPU_MATCHER`).
    pub(super) matcher: GpuMatcher,
    /// Stored keys a bucket the sliced matcher's cuts leave at least, on
    /// average over the largest group (`NQUEENS_GPU_SLICED_KEYS`, from 1).
    pub(super) sliced_keys: usize,
    /// Blocks of 256 threads an SM holds at once that the sliced matcher's
    /// registers are fitted to (`NQUEENS_GPU_SLICED_BLOCKS`, 0 to 8; 0
    /// leaves the compiler free: 96 registers a thread on sm_90, 2 blocks).
    pub(super) sliced_blocks: u32,
    /// How far the compiler unrolls the sliced matcher's loop over a
    /// bucket's blocks (`NQUEENS_GPU_SLICED_UNROLL`, 0 to 8; 0 its choice).
    pub(super) sliced_unroll: u32,
    /// How the sliced matcher walks (`NQUEENS_GPU_SLICED_WALK`).
    pub(super) sliced_walk: SlicedWalk,
}

impl GpuSettings {
    /// The defaults, each replaced by its setting where one is given.
    pub(super) fn from_env() -> Result<GpuSettings, String> {
        Ok(GpuSettings {
            cells_budget: setting(
                "NQUEENS_GPU_CELLS_MIB",
                CELLS_MIB,
                "a whole number of MiB (GPU memory for each feeder's quadrant cells)",
                |_| true,
            )? << 20,
            chunk_boards: setting(
                "NQUEENS_GPU_CHUNK_BOARDS",
                CHUNK_BOARDS,
                "a whole number (half boards a chunk of query groups may make at most)",
                |_| true,
            )?,
            placed_at_once: setting(
                "NQUEENS_GPU_PLACED_AT_ONCE",
                PLACED_AT_ONCE,
                "a whole number (placements moved onto the board in one launch at most)",
                |_| true,
            )?,
            query_window: setting(
                "NQUEENS_GPU_QUERY_WINDOW",
                QUERY_WINDOW,
                "a whole number from 1 (query groups whose cells are on the GPU at once)",
                |&groups| groups > 0,
            )?,
            staged_boards: setting(
                "NQUEENS_GPU_STAGED_BOARDS",
                STAGED_BOARDS,
                "a whole number (half boards a batch of board jobs stages at most)",
                |_| true,
            )?,
            cuts: setting(
                "NQUEENS_GPU_CUTS",
                DEFAULT_CUTS,
                "a whole number from 0 to 16 (cut bits a layout of stored keys takes at most)",
                |&cuts| cuts <= MAX_CUTS,
            )?,
            matcher: setting(
                "NQUEENS_GPU_MATCHER",
                GpuMatcher::Sliced,
                "buckets, sliced or tiles (how the GPU matches a grid's pairs)",
                |_| true,
            )?,
            sliced_keys: setting(
                "NQUEENS_GPU_SLICED_KEYS",
                SLICED_KEYS,
                "a whole number from 1 (stored keys a bucket of the sliced matcher at least)",
                |&keys| keys > 0,
            )?,
            sliced_blocks: setting(
                "NQUEENS_GPU_SLICED_BLOCKS",
                SLICED_BLOCKS,
                "a whole number from 0 to 8 (blocks an SM holds at once that the sliced matcher's registers are fitted to; 0 the compiler's choice)",
                |&blocks| blocks <= 8,
            )?,
            sliced_unroll: setting(
                "NQUEENS_GPU_SLICED_UNROLL",
                SLICED_UNROLL,
                "a whole number from 0 to 8 (how far the sliced matcher's loop over blocks is unrolled; 0 the compiler's choice)",
                |&unroll| unroll <= 8,
            )?,
            sliced_walk: setting(
                "NQUEENS_GPU_SLICED_WALK",
                SlicedWalk::Warp,
                "warp or thread (how the sliced matcher's threads walk a query's buckets)",
                |_| true,
            )?,
        })
    }

    /// The kernel's source as these settings compile it: the defines the
    /// matcher's variants read, then the source.
    pub(super) fn kernel_source(&self, source: &str) -> String {
        let mut defines = String::new();
        if self.sliced_blocks > 0 {
            defines += &format!("#define NQ_SLICED_MIN_BLOCKS {}\n", self.sliced_blocks);
        }
        if self.sliced_unroll > 0 {
            defines += &format!("#define NQ_SLICED_UNROLL {}\n", self.sliced_unroll);
        }
        if self.sliced_walk == SlicedWalk::Thread {
            defines += "#define NQ_SLICED_THREAD_WALK 1\n";
        }
        defines + source
    }
}

/// The setting `name`: `default` where it is not set, else its value if
/// it parses and is `valid`, else an error saying it expected `expects`.
fn setting<T: FromStr>(
    name: &str,
    default: T,
    expects: &str,
    valid: impl Fn(&T) -> bool,
) -> Result<T, String> {
    match std::env::var(name) {
        Err(_) => Ok(default),
        Ok(text) => text
            .trim()
            .parse::<T>()
            .ok()
            .filter(valid)
            .ok_or_else(|| format!("{name}={text}: expected {expects}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(blocks: u32, unroll: u32, walk: SlicedWalk) -> GpuSettings {
        GpuSettings {
            cells_budget: CELLS_MIB << 20,
            chunk_boards: CHUNK_BOARDS,
            placed_at_once: PLACED_AT_ONCE,
            query_window: QUERY_WINDOW,
            staged_boards: STAGED_BOARDS,
            cuts: DEFAULT_CUTS,
            matcher: GpuMatcher::Sliced,
            sliced_keys: SLICED_KEYS,
            sliced_blocks: blocks,
            sliced_unroll: unroll,
            sliced_walk: walk,
        }
    }

    #[test]
    fn the_kernel_source_carries_the_defines_its_settings_ask_for() {
        let plain = with(0, 0, SlicedWalk::Warp).kernel_source("body");
        assert_eq!(plain, "body", "no define where the compiler chooses");
        let fitted = with(4, 2, SlicedWalk::Thread).kernel_source("body");
        assert_eq!(
            fitted,
            "#define NQ_SLICED_MIN_BLOCKS 4\n#define NQ_SLICED_UNROLL 2\n\
             #define NQ_SLICED_THREAD_WALK 1\nbody"
        );
        // The source reads each define by that name.
        let source = include_str!("sliced.cuh");
        for name in [
            "NQ_SLICED_MIN_BLOCKS",
            "NQ_SLICED_UNROLL",
            "NQ_SLICED_THREAD_WALK",
        ] {
            assert!(
                source.contains(&format!("defined({name})"))
                    || source.contains(&format!("ifndef {name}")),
                "{name}"
            );
        }
    }
}
