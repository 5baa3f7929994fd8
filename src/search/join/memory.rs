//! The memory a `join` count takes: the cells shared by all threads (up to
//! N = 23), and per worker thread its cell cache (from N = 24), its keys
//! and its matcher. The plan adds its task list.
//!
//! The figures come from what the code caps (the parts of [`Parts`], the
//! cache budget) and from constants of the quadrant found by enumerating
//! every row set of every side up to 14 (`count_placements_on`; side 14
//! took about ten minutes): tests recheck the sides they can afford.
//!
//! [`Parts`]: super::Parts

use super::cells::{CellCache, MadeCells, MEET_LOWER_MOST, SHARED_MAX_SIDE, WHOLE_PLACEMENTS};
use super::glue::{StepBase, PAD};
use super::halves::{placed_rows_held, PLACED_ROWS_MOST};
use super::{grid_levels, Parts, ScratchBytes};
use crate::search::disjoint::{
    BLOCK_KEYS, BLOCK_TABLE_BYTES, DUAL_LEAF_KEYS_MAX, DUAL_STACK_FACTOR, FILL_SCRATCH_BYTES,
    MAX_CUTS, ROUTE_BATCH,
};

/// Placements of 0..=side queens on a `side` square, by side: the size of
/// the whole quadrant table, which the shared cells fill up to.
pub const PLACEMENTS: [u64; SHARED_MAX_SIDE as usize + 1] = [
    1, 2, 5, 18, 87, 462, 2_635, 16_870, 118_969, 915_442, 7_535_369, 66_807_234,
];

/// Placements of the largest row set, by side.
pub const LARGEST_ROW_SET: [u64; 15] = [
    1, 1, 2, 4, 10, 26, 92, 296, 1_174, 5_366, 26_548, 143_140, 788_698, 4_684_690, 29_555_392,
];

/// Placements of the largest cell (one row set, one column set), by side:
/// side 14 from the row sets of 12 or more rows only, where every smaller
/// side has its largest (one row left empty).
pub const LARGEST_CELL: [u64; 15] = [
    1, 1, 1, 2, 2, 10, 10, 40, 92, 352, 946, 3_571, 15_003, 77_432, 392_804,
];

/// Bytes of one row set's cells holding `placements`.
fn row_set_bytes(side: u32, placements: u64) -> u64 {
    placements * 8 + ((1u64 << side) + 1) * 4
}

/// Bytes the cells shared by all threads reach for an `n` board (every
/// row set built): 0 from N = 24, where each thread builds its own.
pub(crate) fn shared_bytes(n: u32) -> u64 {
    let side = n / 2;
    if side > SHARED_MAX_SIDE {
        return 0;
    }
    PLACEMENTS[side as usize] * 8 + (1u64 << side) * ((1u64 << side) + 1) * 4
}

/// Bytes a row set's build holds besides its cells at most, on a `side`
/// square: the lower rows' placements of the meeting in the middle, each
/// level within its cap (and within the side's largest row set), with its
/// starts and list of groups. The levels nest, but a level's placements
/// are made only after the level below it is built, and that one is
/// dropped once they are: at most two levels are held at once.
pub(crate) fn meeting_bytes(side: u32) -> u64 {
    let lower = MEET_LOWER_MOST.min(LARGEST_ROW_SET[side as usize]);
    2 * (lower * 8 + 2 * ((1u64 << side) + 1) * 4)
}

/// Bytes per stored key: the key (8), its two copies in the split (16)
/// and its share of the leaves' bit-sliced lines, at most 56 (a block's
/// tables are kept within 28 KB for 512 keys) and held up to 1.5x that
/// (leaves give back room past it): 108, taken with room.
const BYTES_PER_STORED_KEY: u64 = 112;

/// Bytes per query key: three classes of keys.
const BYTES_PER_QUERY_KEY: u64 = 8 * 3;

/// Bytes of the split's routing: a batch of queries, their offsets (at
/// most 16 u16 each) and their 32-bit entries at each depth.
const ROUTE_BYTES: u64 = ROUTE_BATCH as u64 * (8 + 2 * 16 + 4 * (MAX_CUTS as u64 + 1));

/// Bytes of a grid meeting's cuts of both sides ([`DualSplit`]) with
/// `stored` and `queries` keys at most: its stack of cut lists, both lists
/// squeezed at a leaf, a leaf's tables (the larger list's, at most
/// [`DUAL_LEAF_KEYS_MAX`] keys at once, within 28 KB a block of 512 keys,
/// and its fill's 4 KB of scratch) and a batch's offsets and entries.
///
/// [`DualSplit`]: crate::search::disjoint::DualSplit
fn dual_bytes(stored: u64, queries: u64) -> u64 {
    let both = stored + queries;
    let blocks = stored
        .max(queries)
        .min(DUAL_LEAF_KEYS_MAX as u64)
        .div_ceil(BLOCK_KEYS as u64);
    (DUAL_STACK_FACTOR as u64 + 1) * both * 8
        + blocks * BLOCK_TABLE_BYTES as u64
        + FILL_SCRATCH_BYTES
        + ROUTE_BATCH as u64 * (2 * 16 + 4)
}

/// Bytes one worker thread takes at most for an `n` board (4 <= n <=
/// 28): its buffers ([`thread_bound`]) and what the allocator holds freed
/// past them ([`allocator_slack`]).
pub fn thread_bytes(n: u32) -> u64 {
    thread_bound(n).total() + allocator_slack(n)
}

/// Bytes the allocator holds freed past one worker's live buffers for an
/// `n` board: from N = 24, a quarter of the cell cache's budget. There the
/// cache frees and makes row sets of up to 16 MiB task after task, and a
/// worker has glibc give back what its arenas hold free only after a
/// task, at most every 10 s (more often cost 3 to 5% at N = 24). Measured
/// on Zen 5, resident peak less the live buffers' high-water, the task
/// list and the program: 28 to 45 MiB a thread on one thread at N = 24,
/// 25 and 26 (`examples/task_memory.rs`, 250 to 3,000 random tasks); at
/// N = 24 on 2 threads 379 MiB resident after 6,000 sampled tasks against
/// 298 live. (Without the trim, at N = 28 on 2 threads resident memory
/// crept to 773 MiB after 200 sampled tasks and 884 after 802.)
pub fn allocator_slack(n: u32) -> u64 {
    if n / 2 > SHARED_MAX_SIDE {
        CellCache::DEFAULT_BUDGET / 4
    } else {
        0
    }
}

/// The live bytes of one worker thread's buffers at most for an `n`
/// board, by part: its cell cache (from N = 24; the row sets past
/// `WHOLE_PLACEMENTS` are not held), the placements of two cells, and the
/// keys and matcher of one stored part and one query batch, no larger
/// than the largest row set allows.
pub fn thread_bound(n: u32) -> ScratchBytes {
    let parts = Parts::of(n);
    let side = n / 2;
    let largest = LARGEST_ROW_SET[side as usize];
    let cell = LARGEST_CELL[side as usize];
    // A thread building a shared row set holds its meeting's lower rows
    // meanwhile, as one building its own does.
    let (cells, made) = if side <= SHARED_MAX_SIDE {
        (meeting_bytes(side), 0)
    } else {
        // A row set past the cap holds its cell sizes only, and its cells
        // are made when asked for and kept within a budget (one larger
        // cell alone past it).
        let made = if largest > WHOLE_PLACEMENTS {
            MadeCells::DEFAULT_BUDGET + cell * 8
        } else {
            0
        };
        // The cache passes its budget by the row set it builds last, and
        // gives the room back before the next (or holds only the row sets
        // one load wants, at most four, each within the cap: less than
        // the budget).
        let largest_held = row_set_bytes(side, largest.min(WHOLE_PLACEMENTS));
        (
            CellCache::DEFAULT_BUDGET + largest_held + meeting_bytes(side),
            made,
        )
    };
    // Both classes of a north and a south cell, 16 bytes a placement, and
    // the padding the vector loops read past the end; and the row sets
    // placed whole, each list of each class sized for the whole row set,
    // with a step of 4 placements (or more) and one past the last.
    let whole = (PLACED_ROWS_MOST as u64).min(largest);
    let rows =
        4 * (whole + PAD as u64) * 8 + (whole / 4 + 2) * std::mem::size_of::<StepBase>() as u64;
    let placed = 4 * (cell + PAD as u64) * 16 + placed_rows_held(n) as u64 * rows;
    // A part never holds more keys than pairs of a row set's placements
    // with the largest cell, and stops one north placement (a south cell
    // of pairs) past its size.
    let capped = |part: usize| (part as u64).min(largest * cell);
    let keys = |part: usize| capped(part) + cell;
    // A grid holds its stored groups and one query group whole, each up
    // to its cap and both within their share (past it, it joins pair by
    // pair), each side stopping one north placement past its limit:
    // resident as made, the room a vector keeps past its keys never
    // touched.
    let (held, dual) = if grid_levels(n) > 0 {
        (
            ((parts.held_share() as u64).min(2 * capped(parts.held_keys))
                + 2 * cell
                + parts.groups_a_pass as u64 * capped(parts.stored_keys))
                * 8,
            // A grid's meetings fill their lists to the parts' sizes
            // exactly (no north placement past them), so the cuts' stack
            // is sized by the parts alone.
            dual_bytes(capped(parts.stored_keys), capped(parts.query_keys)),
        )
    } else {
        (0, 0)
    };
    ScratchBytes {
        cells,
        made,
        placed,
        keys: keys(parts.stored_keys) * 8 + keys(parts.query_keys) * BYTES_PER_QUERY_KEY,
        matcher: keys(parts.stored_keys) * (BYTES_PER_STORED_KEY - 8) + ROUTE_BYTES + dual,
        held,
    }
}

/// Bytes a `join` count of an `n` board takes on `threads` threads beyond
/// the program and the plan.
pub fn memory_needed(n: u32, threads: usize) -> u64 {
    shared_bytes(n).saturating_add(thread_bytes(n).saturating_mul(threads as u64))
}
