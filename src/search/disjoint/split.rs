//! Counts disjoint pairs without testing the pairs that must collide.
//!
//! Most pairs of half boards of a row set meet on a crossing diagonal. A
//! few *cut* bits (the diagonals both sides occupy most often) split the
//! stored keys recursively: the keys that leave a cut bit free can pair with
//! every query, those that take it only with the queries that leave it free.
//! So a query is routed only to the leaves it can match, and each leaf holds
//! its keys in bit-sliced blocks, as the [`Matcher`] does. With a cut bit taken by a fraction p
//! of the stored keys and q of the queries, the split saves a fraction p * q
//! of the pairs; at N = 20 the best bits have p and q near one half.
//!
//! The leaves share one chunk layout, so each query's line offsets are
//! computed once per batch rather than once per leaf it meets (three to
//! four at N = 20), and a query travels down the split as an *entry*: its
//! cut bits above its position in the batch.

use super::grow_to;
use super::matcher::{
    matcher_path, on_path, FillScratch, Layout, Leaf, MatcherPath, Routed, BLOCK_KEYS,
};
use super::squeeze::{gather_bits, Squeeze};
use super::vector::{bits_taken, keep_disjoint_entries, partition_into};

/// Most cut bits a split uses.
pub const MAX_CUTS: usize = 12;

/// A split stops when a part would hold fewer keys than this: below it a
/// leaf's bit-sliced blocks are mostly padding and routing costs more than
/// it saves.
pub const LEAF_MIN: usize = 512;

/// Queries routed through the split at a time: their offsets and routes
/// stay in the second-level cache, and each leaf still meets hundreds of
/// them per pass over its tables.
pub(crate) const ROUTE_BATCH: usize = 1 << 13;

/// Bytes of a load's tables past which each leaf's sum first asks for
/// its own in the second-level cache. A load fills every leaf's tables
/// before any sum, megabytes at N = 28, more than a second-level cache
/// holds (1 MB on Zen 4 and 5, 512 KB on Zen 3), so a leaf's queries would
/// otherwise fetch its lines from the third level one random miss at a
/// time as they first touch them. Smaller loads stay cached: a prefetch
/// there only costs its instructions.
const PREFETCH_TABLE_BYTES: u64 = 512 << 10;

/// Fewest queries a leaf's sum prefetches its tables for: a few queries
/// read a few lines of a pair's 640.
const PREFETCH_MIN_QUERIES: usize = 16;

/// Room the leaves may hold past what a load uses before it is given back.
const LEAF_SLACK_BYTES: u64 = 8 << 20;

/// Where a route entry (32 bits) keeps a query's cut bits: bit
/// `PATTERN_SHIFT + i` is the query's bit of cut i; the bits below are its
/// position in the batch. Half the bytes of a 64-bit entry, so the
/// filters move twice the entries a vector.
const PATTERN_SHIFT: u32 = 16;

// A batch's positions and the cut bits share an entry.
const _: () = assert!(ROUTE_BATCH <= 1 << PATTERN_SHIFT && MAX_CUTS <= 32 - PATTERN_SHIFT as usize);

/// A sum's queries took these key bits, which the load was told no query
/// takes and so dropped from the keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnexpectedBits(pub u64);

/// A node of the split: a leaf, or a cut (by the route entries' bit
/// `test`) and its two sides.
#[derive(Clone, Copy, Debug)]
enum Node {
    Leaf(usize),
    Cut {
        test: u32,
        free: usize,
        taken: usize,
    },
}

/// Stored keys split on cut bits, ready to be queried; reused across loads
/// so a worker keeps its allocations.
#[derive(Default)]
pub struct SplitMatcher {
    nodes: Vec<Node>,
    /// The chunks every leaf is laid out in.
    layout: Layout,
    /// Leaves; the first `leaves_used` belong to the current load.
    leaves: Vec<Leaf>,
    /// The leaves' fill scratch, one for all.
    scratch: FillScratch,
    leaves_used: usize,
    /// The bits of the cuts, each query's copied into its route entry.
    cut_mask: u64,
    /// The key bits the leaves keep (see [`Squeeze`]), and the key bits
    /// they dropped because no query was to take them.
    squeeze: Squeeze,
    dropped: u64,
    /// Whether each leaf's sum asks for its tables first (the load's
    /// tables take more than [`PREFETCH_TABLE_BYTES`]).
    prefetch: bool,
    /// Per leaf, where its keys lie (start, length) and the depth whose
    /// list holds them (a node made one leaf keeps its children's); and
    /// the smallest depth of a leaf.
    spans: Vec<(usize, usize, usize)>,
    min_depth: usize,
    /// The smallest depth of a cut whose bit a leaf's keys must keep
    /// (see [`SplitMatcher::merge_remainders`]).
    kept_depth: usize,
    /// The stored keys as the partitions leave them: a node at an odd
    /// depth in the first list, at an even depth (from 2) in the second,
    /// each partition reading one and writing the other in the same
    /// slots. A leaf's keys are where its depth put them.
    parts: [Vec<u64>; 2],
    /// A batch of queries (their shared diagonals added) and their
    /// offsets, computed once for every leaf.
    queries: Vec<u64>,
    offsets: Vec<u16>,
    /// Per depth, the entries of the queries routed there:
    /// `routes[depth][..lens[depth]]` (the buffers only grow, so refilling
    /// them writes no zeros).
    routes: Vec<Vec<u32>>,
    lens: Vec<usize>,
}

impl SplitMatcher {
    /// Replaces the stored keys with `keys`, split on the bits of `cuts`
    /// (one bit each, in order) while a part has at least twice
    /// `leaf_min` keys. `query_bits`: the bits the queries may take (with
    /// their shared diagonals); the leaves drop the key bits outside it
    /// where that saves a chunk, and a sum whose queries take one of
    /// those is refused ([`UnexpectedBits`]). `u64::MAX` drops none.
    pub fn load(&mut self, keys: &[u64], cuts: &[u64], leaf_min: usize, query_bits: u64) {
        self.nodes.clear();
        // At most MAX_CUTS, so the entries' cut bits fit above their
        // positions.
        let cuts = &cuts[..cuts.len().min(MAX_CUTS)];
        self.cut_mask = cuts.iter().fold(0, |all, bit| all | bit);
        self.spans.clear();
        self.min_depth = usize::MAX;
        self.kept_depth = usize::MAX;
        let [mut odd, mut even] = std::mem::take(&mut self.parts);
        // A split writes both lists; an unsplit load copies its keys to
        // the first.
        let leaf_min = leaf_min.max(1);
        grow_to(&mut odd, keys.len(), 0);
        if keys.len() >= 2 * leaf_min && !cuts.is_empty() {
            grow_to(&mut even, keys.len(), 0);
        } else {
            odd[..keys.len()].copy_from_slice(keys);
        }
        let mut parts = [odd, even];
        self.build(keys, &mut parts, (0, keys.len()), cuts, 0, leaf_min);
        // Every leaf lies below the first `min_depth` cuts, where a key's
        // bit and a routed query's never meet: the keys there leave it
        // free, or the queries do. Those bits, the bits no key takes and
        // the bits no query takes leave the leaves. The last are a chunk
        // fewer at N = 20 for most tasks (keys of 31 or 32 bits to 29 or
        // 30, six chunks to five): 6% fewer line loads in the sums.
        let used = bits_taken(matcher_path(), keys);
        let passed = cuts[..self.min_depth.min(self.kept_depth).min(cuts.len())]
            .iter()
            .fold(0, |all, bit| all | bit);
        self.squeeze.set(used, used & query_bits & !passed);
        self.dropped = used & !passed & !self.squeeze.kept();
        self.layout.set(self.squeeze.width_mask());
        if self.leaves.len() < self.spans.len() {
            self.leaves.resize_with(self.spans.len(), Leaf::default);
        }
        for (leaf, &(start, len, depth)) in self.leaves.iter_mut().zip(&self.spans) {
            let keys = &mut parts[list_at(depth)][start..start + len];
            self.squeeze.apply_in_place(keys);
            leaf.load(keys, &self.layout, &mut self.scratch);
        }
        self.leaves_used = self.spans.len();
        self.parts = parts;
        // Each leaf keeps the buffers of its largest load, so after loads
        // of varied sizes the leaves together hold far more than any one
        // load needs: give the room back once it passes half of this
        // load's (and a few MB, so small loads never churn).
        let used: u64 = self.leaves[..self.leaves_used]
            .iter()
            .map(Leaf::used_bytes)
            .sum();
        self.prefetch = used > PREFETCH_TABLE_BYTES;
        let held: u64 = self.leaves.iter().map(Leaf::bytes).sum();
        if held > used + used / 2 + LEAF_SLACK_BYTES {
            self.leaves.truncate(self.leaves_used);
            for leaf in &mut self.leaves {
                leaf.shrink_to_fit();
            }
        }
    }

    /// Adds the node of the `len` keys from `start` at `depth` (in
    /// `input` at depth 0, else in `parts` as [`SplitMatcher::parts`]
    /// says), and its children; returns its index. Leaves are loaded
    /// later, once every depth is known.
    fn build(
        &mut self,
        input: &[u64],
        parts: &mut [Vec<u64>; 2],
        (start, len): (usize, usize),
        cuts: &[u64],
        depth: usize,
        leaf_min: usize,
    ) -> usize {
        let index = self.nodes.len();
        match cuts.get(depth) {
            Some(&bit) if len >= 2 * leaf_min => {
                debug_assert!(bit.is_power_of_two());
                self.nodes.push(Node::Leaf(usize::MAX));
                // From the node's list to its children's (`list_at`).
                let [odd, even] = parts;
                let (from, to): (&[u64], _) = match depth {
                    0 => (input, odd),
                    _ if depth % 2 == 1 => (odd, even),
                    _ => (even, odd),
                };
                let range = start..start + len;
                let free_len =
                    partition_into(matcher_path(), &from[range.clone()], bit, &mut to[range]).free;
                let free = self.build(input, parts, (start, free_len), cuts, depth + 1, leaf_min);
                let taken_at = (start + free_len, len - free_len);
                let taken = self.build(input, parts, taken_at, cuts, depth + 1, leaf_min);
                if let Some(merged) = self.merge_remainders(index, free, taken, depth) {
                    return merged;
                }
                // The entries hold the cut bits in the order of their
                // positions (see `fill_entries`).
                let rank = (self.cut_mask & (bit - 1)).count_ones();
                let test = 1 << (PATTERN_SHIFT + rank);
                self.nodes[index] = Node::Cut { test, free, taken };
            }
            _ => {
                self.nodes.push(Node::Leaf(self.spans.len()));
                self.spans.push((start, len, depth));
                self.min_depth = self.min_depth.min(depth);
            }
        }
        index
    }

    /// Moves the keys of the taken leaf's last block into the free leaf's
    /// last block where they fit. The free leaf meets every query of the
    /// node and the taken leaf only those that leave the cut bit free, so
    /// no query visits more blocks and those that reach the taken leaf
    /// visit one fewer. The cut's bit must then stay in the leaves' keys.
    /// Returns the node's index if the taken leaf emptied and the node
    /// became one leaf.
    fn merge_remainders(
        &mut self,
        index: usize,
        free: usize,
        taken: usize,
        depth: usize,
    ) -> Option<usize> {
        let (Node::Leaf(free_leaf), Node::Leaf(taken_leaf)) = (self.nodes[free], self.nodes[taken])
        else {
            return None;
        };
        let (free_start, free_len, free_depth) = self.spans[free_leaf];
        let (taken_start, taken_len, leaf_depth) = self.spans[taken_leaf];
        // Both sides' keys must lie side by side in one list.
        if free_depth != leaf_depth || free_start + free_len != taken_start {
            return None;
        }
        let (free_rest, taken_rest) = (free_len % BLOCK_KEYS, taken_len % BLOCK_KEYS);
        if free_rest == 0 || taken_rest == 0 || free_rest + taken_rest > BLOCK_KEYS {
            return None;
        }
        self.kept_depth = self.kept_depth.min(depth);
        self.spans[free_leaf].1 += taken_rest;
        if taken_rest == taken_len {
            // The node is one leaf of both sides' keys.
            debug_assert_eq!(taken_leaf, free_leaf + 1);
            self.nodes.truncate(index);
            self.nodes.push(Node::Leaf(free_leaf));
            self.spans.truncate(taken_leaf);
            return Some(index);
        }
        self.spans[taken_leaf] = (taken_start + taken_rest, taken_len - taken_rest, leaf_depth);
        None
    }

    /// The sum over `queries` of the stored keys disjoint from
    /// `query | extra` (`extra`: diagonals every query shares); refused
    /// if a query takes a key bit the load dropped (load again with it).
    pub fn sum_disjoint(&mut self, queries: &[u64], extra: u64) -> Result<u64, UnexpectedBits> {
        if self.nodes.is_empty() {
            return Ok(0);
        }
        if self.routes.is_empty() {
            self.routes.push(Vec::new());
            self.lens.push(0);
        }
        let mut total = 0;
        for batch in queries.chunks(ROUTE_BATCH) {
            let first = &mut self.routes[0];
            first.clear();
            // Exactly: the memory bound counts one batch per depth.
            first.reserve_exact(batch.len());
            let taken = prepare_batch(
                batch,
                extra,
                self.cut_mask,
                &self.squeeze,
                first,
                &mut self.queries,
            ) & self.dropped;
            if taken != 0 {
                return Err(UnexpectedBits(taken));
            }
            self.layout.fill(&self.queries, &mut self.offsets);
            self.lens[0] = batch.len();
            let Self {
                nodes,
                layout,
                leaves,
                queries,
                offsets,
                routes,
                lens,
                prefetch,
                ..
            } = self;
            let mut split = Routes {
                layout,
                queries,
                offsets,
                routes,
                lens,
                prefetch: *prefetch,
            };
            total += sum_node(nodes, leaves, &mut split, 0, 0);
        }
        Ok(total)
    }

    /// [`SplitMatcher::sum_disjoint`] on the matcher loop `path` whatever
    /// the CPU would choose; `None` if this CPU cannot run it.
    pub fn sum_disjoint_on(
        &mut self,
        path: MatcherPath,
        queries: &[u64],
        extra: u64,
    ) -> Option<Result<u64, UnexpectedBits>> {
        on_path(
            self,
            |split| &mut split.layout,
            path,
            |split| split.sum_disjoint(queries, extra),
        )
    }

    /// Bytes the buffers hold (their capacity).
    pub fn bytes(&self) -> u64 {
        let words = self.parts[0].capacity()
            + self.parts[1].capacity()
            + self.queries.capacity()
            + self.routes.iter().map(Vec::capacity).sum::<usize>();
        (words * 8
            + self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.lens.capacity() * 8
            + self.spans.capacity() * 24
            + self.offsets.capacity() * 2) as u64
            + self.leaves.iter().map(Leaf::bytes).sum::<u64>()
            + self.scratch.bytes()
    }

    /// Leaves of the current load, for tests and tuning.
    pub fn leaf_count(&self) -> usize {
        self.leaves_used
    }
}

/// A split's buffers for a sum: the batch of queries and their offsets,
/// and per depth the entries routed there (`routes[depth][..lens[depth]]`).
struct Routes<'a> {
    layout: &'a Layout,
    queries: &'a [u64],
    offsets: &'a [u16],
    routes: &'a mut Vec<Vec<u32>>,
    lens: &'a mut Vec<usize>,
    prefetch: bool,
}

/// The sum for the queries at `routes[depth]` against node `node`.
fn sum_node(nodes: &[Node], leaves: &[Leaf], split: &mut Routes, node: usize, depth: usize) -> u64 {
    match nodes[node] {
        Node::Leaf(leaf) => {
            let entries = &split.routes[depth][..split.lens[depth]];
            if split.prefetch && entries.len() >= PREFETCH_MIN_QUERIES {
                leaves[leaf].prefetch();
            }
            leaves[leaf].sum(
                split.layout,
                Routed {
                    queries: split.queries,
                    offsets: split.offsets,
                    entries,
                },
            )
        }
        Node::Cut { test, free, taken } => {
            // Keys that leave the bit free pair with every query here.
            let mut total = sum_node(nodes, leaves, split, free, depth);
            let Routes {
                layout,
                routes,
                lens,
                ..
            } = split;
            if routes.len() == depth + 1 {
                routes.push(Vec::new());
                lens.push(0);
            }
            let (here, below) = routes.split_at_mut(depth + 1);
            let here = &here[depth][..lens[depth]];
            let next = &mut below[0];
            grow_to(next, here.len(), 0);
            // The entries whose query leaves the bit free.
            let len = keep_disjoint_entries(layout.path(), here, test, next).len;
            lens[depth + 1] = len;
            if len > 0 {
                total += sum_node(nodes, leaves, split, taken, depth + 1);
            }
            total
        }
    }
}

/// Writes each query's route entry (see [`fill_entries`]) to `entries`
/// and the query squeezed (`extra` added) to `squeezed`; returns the bits
/// the queries take, with `extra`. One pass with `pext` where the CPU
/// gathers fast (two `pext` a query), else the two passes of
/// [`fill_entries`] and [`Squeeze::apply`], its naive twin.
fn prepare_batch(
    queries: &[u64],
    extra: u64,
    cut_mask: u64,
    squeeze: &Squeeze,
    entries: &mut Vec<u32>,
    squeezed: &mut Vec<u64>,
) -> u64 {
    #[cfg(target_arch = "x86_64")]
    if crate::system::fast_bit_gather() {
        let kept = squeeze.kept();
        // Without cuts or without a squeeze, a gather less a query.
        // SAFETY: the CPU has BMI2 (and gathers fast).
        return unsafe {
            match (cut_mask != 0, kept != u64::MAX) {
                (true, true) => prepare_batch_bmi2::<true, true>(
                    queries, extra, cut_mask, kept, entries, squeezed,
                ),
                (true, false) => prepare_batch_bmi2::<true, false>(
                    queries, extra, cut_mask, kept, entries, squeezed,
                ),
                (false, true) => prepare_batch_bmi2::<false, true>(
                    queries, extra, cut_mask, kept, entries, squeezed,
                ),
                (false, false) => prepare_batch_bmi2::<false, false>(
                    queries, extra, cut_mask, kept, entries, squeezed,
                ),
            }
        };
    }
    fill_entries(queries, extra, cut_mask, entries);
    squeeze.apply(queries, extra, squeezed)
}

/// [`prepare_batch`] in one pass, up to two `pext` a query: one for the
/// cut bits if `CUT` (else `cut_mask` is 0), one for the squeeze if
/// `SQUEEZE` (`kept`: the bits the squeeze keeps; else every bit, and
/// keys pass unchanged).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn prepare_batch_bmi2<const CUT: bool, const SQUEEZE: bool>(
    queries: &[u64],
    extra: u64,
    cut_mask: u64,
    kept: u64,
    entries: &mut Vec<u32>,
    squeezed: &mut Vec<u64>,
) -> u64 {
    use std::arch::x86_64::_pext_u64;
    squeezed.clear();
    // Exactly, as `Squeeze::apply`'s extend: the memory bound counts one
    // batch.
    squeezed.reserve_exact(queries.len());
    entries.reserve_exact(queries.len());
    let len = queries.len();
    let first = entries.len();
    let entry_slots = &mut entries.spare_capacity_mut()[..len];
    let squeezed_slots = &mut squeezed.spare_capacity_mut()[..len];
    let mut taken = extra;
    for (position, ((&query, entry), value)) in queries
        .iter()
        .zip(entry_slots.iter_mut())
        .zip(squeezed_slots.iter_mut())
        .enumerate()
    {
        taken |= query;
        let query = query | extra;
        let pattern = if CUT {
            _pext_u64(query, cut_mask) as u32
        } else {
            0
        };
        entry.write((pattern << PATTERN_SHIFT) | position as u32);
        value.write(if SQUEEZE {
            _pext_u64(query, kept)
        } else {
            query
        });
    }
    // SAFETY: the first `len` spare slots of both were written.
    unsafe {
        entries.set_len(first + len);
        squeezed.set_len(len);
    }
    taken
}

/// Writes the route entry of each query (`extra` added): its bits of
/// `cut_mask`, packed in the order of their positions, above its position
/// in `queries`.
fn fill_entries(queries: &[u64], extra: u64, cut_mask: u64, entries: &mut Vec<u32>) {
    entries.extend(queries.iter().enumerate().map(|(position, &query)| {
        ((gather_bits(query | extra, cut_mask) as u32) << PATTERN_SHIFT) | position as u32
    }));
}

/// Which of [`SplitMatcher::parts`] holds the keys of a node at `depth`
/// (above the root, whose keys are the caller's).
fn list_at(depth: usize) -> usize {
    depth.saturating_sub(1) % 2
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass preparation of a batch writes the entries, squeezed
    /// queries and taken bits of its two-pass twin, after entries already
    /// held, with and without a squeeze.
    #[test]
    fn a_batch_prepared_in_one_pass_equals_the_two_passes() {
        let mut random = crate::random::SplitMix64(0x9e37_79b9_7f4a_7c15);
        let mut next = || random.next();
        for round in 0..200 {
            let queries: Vec<u64> = (0..round % 37).map(|_| next() & next()).collect();
            let extra = next() & next() & next();
            // A third of the rounds without cuts, half without a squeeze
            // (every bit kept): each of the one-pass loops.
            let cut_mask = next() & next() & next() & 0x0fff_0000_0fff;
            let cut_mask = if round % 3 == 0 { 0 } else { cut_mask };
            let mut squeeze = Squeeze::default();
            let used = next() | next();
            squeeze.set(used, if round % 2 == 0 { used } else { used & next() });
            let held: Vec<u32> = (0..round % 5).map(|_| next() as u32).collect();
            let (mut entries, mut squeezed) = (held.clone(), vec![7; 3]);
            let taken = prepare_batch(
                &queries,
                extra,
                cut_mask,
                &squeeze,
                &mut entries,
                &mut squeezed,
            );
            let (mut twin_entries, mut twin_squeezed) = (held, Vec::new());
            fill_entries(&queries, extra, cut_mask, &mut twin_entries);
            let twin_taken = squeeze.apply(&queries, extra, &mut twin_squeezed);
            assert_eq!(entries, twin_entries, "round {round}");
            assert_eq!(squeezed, twin_squeezed, "round {round}");
            assert_eq!(taken, twin_taken, "round {round}");
        }
    }
}
