//! A task's count: the halves' boards made from the cells, stored in
//! parts and matched against batches of queries, plain or by grid.

mod grid;

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};

use super::cells::{CellCache, MadeCells, SharedCells, SHARED_MAX_SIDE, WHOLE_PLACEMENTS};
use super::geometry::{even_weights, Geometry};
use super::glue::Glue;
use super::grid::task_grid;
use super::halves::{half_boards, placed_rows_held, Cursor, Placing};
use super::scratch::Scratch;
use super::specs::{even_specs, odd_join, quadrant_rows, HalfSpec};
use super::{JoinTally, JoinTask, Parts};
use crate::search::disjoint::{
    bits_taken, choose_cuts, matcher_path, DualSplit, SplitMatcher, UnexpectedBits, LEAF_MIN,
    MAX_CUTS,
};

/// Counts pairs of stored and query keys with no bit in common somewhere
/// other than the thread's own matcher: a device (a GPU). A task counted
/// on one gets the same count as on the CPU.
pub(crate) trait PairCounter {
    /// Takes `stored` as the keys the next sums match against, with the
    /// bits the split matcher would cut on (single bits, best first: a
    /// counter may bucket by them); false if the counter failed.
    fn load(&mut self, stored: &[u64], cuts: &[u64]) -> bool;

    /// The pairs of a loaded key and a key of `queries` (each with `extra`
    /// added) with no bit in common; `None` if the counter failed (the
    /// task is abandoned, as when stopped).
    fn sum_disjoint(&mut self, queries: &[u64], extra: u64) -> Option<u64>;
}

/// What a task's pairs are counted by: this thread's matcher, or another
/// counter.
pub(super) enum Matcher<'a> {
    Split(&'a mut SplitMatcher, &'a mut DualSplit),
    Other(&'a mut dyn PairCounter),
}

impl Matcher<'_> {
    #[inline(always)]
    fn reborrow(&mut self) -> Matcher<'_> {
        match self {
            Matcher::Split(split, dual) => Matcher::Split(split, dual),
            Matcher::Other(other) => Matcher::Other(*other),
        }
    }

    /// Loads `part` (see [`SplitMatcher::load`]); false if a counter failed.
    #[inline(always)]
    fn load(&mut self, part: &[u64], cuts: &[u64], query_bits: u64) -> bool {
        match self {
            Matcher::Split(split, _) => {
                split.load(part, cuts, LEAF_MIN, query_bits);
                true
            }
            Matcher::Other(other) => other.load(part, cuts),
        }
    }

    /// The pairs of the loaded part and `queries` with no bit in common:
    /// `Ok(Some(sum))`, `Ok(None)` if a counter failed, or the bits the
    /// split matcher was not loaded with.
    #[inline(always)]
    fn sum_disjoint(&mut self, queries: &[u64], extra: u64) -> Result<Option<u64>, UnexpectedBits> {
        match self {
            Matcher::Split(split, _) => split.sum_disjoint(queries, extra).map(Some),
            Matcher::Other(other) => Ok(other.sum_disjoint(queries, extra)),
        }
    }
}

#[inline(always)]
pub(super) fn count_in<G: Glue>(
    glue: G,
    n: u32,
    task: &JoinTask,
    parts: Parts,
    stop: Option<&AtomicBool>,
    scratch: &mut Scratch,
    other: Option<&mut dyn PairCounter>,
) -> Option<JoinTally> {
    let geo = Geometry::new(n);
    let Scratch {
        shared,
        cells,
        made,
        placing,
        stored,
        queries,
        matcher,
        dual,
        held,
    } = scratch;
    let shared = shared
        .as_deref()
        .filter(|_| geo.h <= SHARED_MAX_SIDE && parts.whole_placements >= WHOLE_PLACEMENTS);
    if shared.is_none() {
        cells.set_whole_placements(parts.whole_placements);
    }
    placing.hold_at_most(placed_rows_held(n));
    let join = Join {
        glue,
        geo: &geo,
        cells: CellSource {
            shared,
            cache: RefCell::new(cells),
        },
        parts,
        stop,
    };
    let matcher = match other {
        Some(other) => Matcher::Other(other),
        None => Matcher::Split(matcher, dual),
    };
    let mut buffers = Buffers {
        made,
        placing,
        stored,
        queries,
        matcher,
    };
    let mut tally = JoinTally::default();
    if n.is_multiple_of(2) {
        // The east keys are stored (the smaller side: one load per join),
        // the west ones query them, weighted by their class (a large west
        // batch is stored in their place: `Join::swaps_plain`).
        let weights = even_weights(task.east_rows, n);
        if let Some(grid) = task_grid(&geo, task, parts.levels, parts.east_levels) {
            return join.count_grid(buffers.reborrow(), &grid, held);
        }
        for (east, west, weights) in even_specs(&geo, task, weights) {
            tally += join.count(buffers.reborrow(), &[(east, 0)], &[(west, 0, weights)])?;
        }
    } else {
        if let Some(grid) = task_grid(&geo, task, parts.levels, parts.east_levels) {
            return join.count_grid(buffers.reborrow(), &grid, held);
        }
        let (east, west, weight) = odd_join(&geo, task);
        tally += join.count(buffers.reborrow(), &east, &[(west, 0, [weight, 0, 0])])?;
    }
    Some(tally)
}

/// Where a task's quadrant cells are: shared by all threads, or this
/// thread's cache, which loads a spec's row sets as its boards are made
/// (a task cut beside the middle has a west row set per place of its west
/// queen, and the cache holds them only in turn).
struct CellSource<'a> {
    shared: Option<&'a SharedCells>,
    cache: RefCell<&'a mut CellCache>,
}

/// The quadrant cells of one task's halves, and the glue that pairs them.
struct Join<'a, G> {
    glue: G,
    geo: &'a Geometry,
    /// The cells of every row set the task's specs use.
    cells: CellSource<'a>,
    parts: Parts,
    /// When set, the count is abandoned.
    stop: Option<&'a AtomicBool>,
}

/// A worker's buffers, as a join uses them.
struct Buffers<'a> {
    made: &'a mut MadeCells,
    placing: &'a mut Placing,
    stored: &'a mut [Vec<u64>; 3],
    queries: &'a mut [Vec<u64>; 3],
    matcher: Matcher<'a>,
}

impl Buffers<'_> {
    /// The same buffers, for one join.
    fn reborrow(&mut self) -> Buffers<'_> {
        Buffers {
            made: &mut *self.made,
            placing: &mut *self.placing,
            stored: &mut *self.stored,
            queries: &mut *self.queries,
            matcher: self.matcher.reborrow(),
        }
    }
}

impl<G: Glue> Join<'_, G> {
    /// Whether a grid's meeting stores its query `batch` and queries it
    /// with the stored `part` instead: where the batch is the larger, as
    /// the split cuts its stored side only while a part keeps a block of
    /// keys. The CPU's matcher only (a device counter buckets its stored
    /// side its own way), and never past the stored keys the memory bound
    /// counts.
    #[inline(always)]
    fn swaps(&self, matcher: &Matcher<'_>, part: &[u64], batch: &[u64]) -> bool {
        matches!(matcher, Matcher::Split(..))
            && batch.len() > part.len()
            && batch.len() <= self.parts.stored_keys
    }

    /// Whether a plain join stores its query `batch` and queries it with
    /// the stored `part` instead: where the batch is the larger and holds
    /// at least `parts.swap_min_keys` (8,192 in a count). Unlike a grid's
    /// meeting, whose part is loaded for it alone, a plain join's part
    /// serves every batch and class of its queries, so a swap costs a
    /// load more, which a batch of fewer keys, cut a level or two, does
    /// not repay.
    #[inline(always)]
    fn swaps_plain(&self, matcher: &Matcher<'_>, part: &[u64], batch: &[u64]) -> bool {
        batch.len() >= self.parts.swap_min_keys && self.swaps(matcher, part, batch)
    }

    /// Makes every board of `spec` into `keys`, unless that is more than
    /// `limit` keys: whether it did.
    fn hold(
        &self,
        buffers: &mut Buffers<'_>,
        spec: &HalfSpec,
        keys: &mut [Vec<u64>; 3],
        limit: usize,
    ) -> bool {
        let mut cursor = Cursor::start(spec);
        let before: usize = keys.iter().map(Vec::len).sum();
        self.half_boards(
            spec,
            buffers.made,
            buffers.placing,
            keys,
            &mut cursor,
            limit,
        );
        let made: usize = keys.iter().map(Vec::len).sum::<usize>() - before;
        cursor.finished && made <= limit
    }

    /// Sums, over the half boards of each stored spec and of each query
    /// spec, the pairs with disjoint keys (each spec's extra key added to
    /// its boards'), weighted by the query board's class. The stored boards
    /// (all of class 0) are taken in parts and the queries in batches (see
    /// [`Parts`]), so memory stays bounded at any N; the sum does not
    /// depend on their sizes.
    #[inline(always)]
    fn count(
        &self,
        buffers: Buffers<'_>,
        stored: &[(HalfSpec, u64)],
        queries: &[(HalfSpec, u64, [u64; 3])],
    ) -> Option<JoinTally> {
        let Buffers {
            made,
            placing,
            stored: stored_keys,
            queries: query_keys,
            mut matcher,
        } = buffers;
        let mut tally = JoinTally::default();
        // The bits the queries take, as far as seen: the first batch, and
        // any later batch that took more (kept for the later parts).
        let mut query_bits = 0;
        let start = |(spec, extra): &(HalfSpec, u64)| (Cursor::start(spec), *extra);
        let mut stored_specs = stored.iter().zip(stored.iter().map(start));
        let mut current = stored_specs.next();
        while current.is_some() {
            // A part: the keys of the stored specs in turn, each with its
            // shared diagonals added, until the part is full.
            for class in stored_keys.iter_mut() {
                class.clear();
            }
            while let Some(((spec, _), (cursor, extra))) = &mut current {
                let from = stored_keys[0].len();
                let limit = self.parts.stored_keys.saturating_sub(from);
                self.half_boards(spec, made, placing, stored_keys, cursor, limit);
                if *extra != 0 {
                    for key in &mut stored_keys[0][from..] {
                        *key |= *extra;
                    }
                }
                if cursor.finished {
                    current = stored_specs.next();
                }
                if stored_keys[0].len() >= self.parts.stored_keys {
                    break;
                }
            }
            let part = &stored_keys[0];
            if part.is_empty() {
                continue;
            }
            // The cuts, once chosen, and whether the part is loaded (a
            // batch stored in its place unloads it).
            let mut chosen = false;
            let mut loaded = false;
            let mut cuts = Vec::new();
            // The bits the part takes, once it queries (below).
            let mut part_bits = None;
            for (query, extra, weights) in queries {
                let weights = *weights;
                let mut cursor = Cursor::start(query);
                while !cursor.finished {
                    for class in query_keys.iter_mut() {
                        class.clear();
                    }
                    self.half_boards(
                        query,
                        made,
                        placing,
                        query_keys,
                        &mut cursor,
                        self.parts.query_keys,
                    );
                    if !chosen {
                        // Split on the diagonals both sides take most
                        // often, and keep the bits the queries take, as
                        // the first queries show them.
                        cuts = choose_cuts(part, &query_keys[0], MAX_CUTS);
                        query_bits |= taken_bits(query_keys, weights, *extra);
                        chosen = true;
                    }
                    for (keys, weight) in query_keys.iter_mut().zip(weights) {
                        if weight != 0 {
                            tally.pairs += (part.len() * keys.len()) as u64;
                            if self.swaps_plain(&matcher, part, keys) {
                                // The batch is stored and the part queries
                                // it (see `swaps_plain`), its shared
                                // diagonals added to its keys.
                                if *extra != 0 {
                                    for key in keys.iter_mut() {
                                        *key |= *extra;
                                    }
                                }
                                loaded = false;
                                let sum = swapped_sum(&mut matcher, keys, part, &mut part_bits)?;
                                let sum =
                                    sum.expect("the matcher keeps every bit the part takes")?;
                                tally.solutions += weight * sum;
                                continue;
                            }
                            if !loaded {
                                if !matcher.load(part, &cuts, query_bits) {
                                    return None;
                                }
                                loaded = true;
                            }
                            let sum = loop {
                                match matcher.sum_disjoint(keys, *extra) {
                                    Ok(sum) => break sum?,
                                    // Later queries took more bits (from
                                    // N ~ 22, where queries come in several
                                    // batches): load again keeping them.
                                    Err(UnexpectedBits(bits)) => {
                                        query_bits |= bits;
                                        matcher.load(part, &cuts, query_bits);
                                    }
                                }
                            };
                            tally.solutions += weight * sum;
                        }
                    }
                    if self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                        return None;
                    }
                }
            }
        }
        Some(tally)
    }

    /// [`half_boards`] with this task's cells for the spec's half, appended
    /// to `keys`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn half_boards(
        &self,
        spec: &HalfSpec,
        made: &mut MadeCells,
        placing: &mut Placing,
        keys: &mut [Vec<u64>; 3],
        cursor: &mut Cursor,
        limit: usize,
    ) {
        let rows = quadrant_rows(self.geo, spec);
        if let Some(shared) = self.cells.shared {
            let cells = rows.map(|rows| shared.get(rows));
            half_boards(
                self.glue, cells, made, self.geo, spec, placing, keys, cursor, limit,
            );
            return;
        }
        let mut cache = self.cells.cache.borrow_mut();
        // Only the spec's open columns: a fixed queen's column is never
        // a cell's.
        cache.load(self.geo.h, &rows, spec.cols);
        let cells = rows.map(|rows| cache.get(rows, spec.cols));
        half_boards(
            self.glue, cells, made, self.geo, spec, placing, keys, cursor, limit,
        );
    }
}

/// Stores `batch` in the matcher and queries it with `part`, as a
/// swapped join does (the split cuts the larger side): the sum, or `None`
/// if the load failed. `part_bits`: the bits the part's keys take, folded
/// once a part and kept there, which the load must keep.
fn swapped_sum(
    matcher: &mut Matcher<'_>,
    batch: &[u64],
    part: &[u64],
    part_bits: &mut Option<u64>,
) -> Option<Result<Option<u64>, UnexpectedBits>> {
    let bits = *part_bits.get_or_insert_with(|| bits_taken(matcher_path(), part));
    let cuts = choose_cuts(batch, part, MAX_CUTS);
    if !matcher.load(batch, &cuts, bits) {
        return None;
    }
    Some(matcher.sum_disjoint(part, 0))
}

/// The bits the queried classes of `keys` take, with `extra`.
#[inline(always)]
fn taken_bits(keys: &[Vec<u64>; 3], weights: [u64; 3], extra: u64) -> u64 {
    let mut bits = extra;
    for (keys, weight) in keys.iter().zip(weights) {
        if weight != 0 {
            bits |= bits_taken(matcher_path(), keys);
        }
    }
    bits
}
