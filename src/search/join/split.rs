//! Counts disjoint pairs without testing the pairs that must collide.
//!
//! Most pairs of half boards of a row set meet on a crossing diagonal. A
//! few *cut* bits (the diagonals both sides occupy most often) split the
//! stored keys recursively: the keys that leave a cut bit free can pair with
//! every query, those that take it only with the queries that leave it free.
//! So a query is routed only to the leaves it can match, and each leaf is a
//! bit-sliced [`Matcher`] of its own. With a cut bit taken by a fraction p
//! of the stored keys and q of the queries, the split saves a fraction p * q
//! of the pairs; at N = 20 the best bits have p and q near one half.
//!
//! The leaves share one chunk layout, so each query's line offsets are
//! computed once per batch rather than once per leaf it meets (three to
//! four at N = 20), and a query travels down the split as an *entry*: its
//! cut bits above its position in the batch.

use super::matcher::{Layout, Leaf, MatcherPath, Routed};

/// Most cut bits a split uses.
pub const MAX_CUTS: usize = 12;

/// A split stops when a part would hold fewer keys than this: below it a
/// leaf's bit-sliced blocks are mostly padding and routing costs more than
/// it saves.
pub const LEAF_MIN: usize = 512;

/// Queries routed through the split at a time: their offsets and routes
/// stay in the second-level cache, and each leaf still meets hundreds of
/// them per pass over its tables.
pub const ROUTE_BATCH: usize = 1 << 13;

/// Room the leaves may hold past what a load uses before it is given back.
const LEAF_SLACK_BYTES: u64 = 8 << 20;

/// Where a route entry keeps a query's cut bits: bit `PATTERN_SHIFT + i`
/// is the query's bit of cut i; the bits below are its position.
const PATTERN_SHIFT: u32 = 32;

/// A node of the split: a leaf, or a cut (by the route entries' bit
/// `test`) and its two sides.
#[derive(Clone, Copy, Debug)]
enum Node {
    Leaf(usize),
    Cut {
        test: u64,
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
    leaves_used: usize,
    /// The bits of the cuts, each query's copied into its route entry.
    cut_mask: u64,
    /// The stored keys, partitioned in place.
    keys: Vec<u64>,
    /// Where a partition puts the keys that take its bit.
    taken: Vec<u64>,
    /// A batch of queries (their shared diagonals added) and their
    /// offsets, computed once for every leaf.
    queries: Vec<u64>,
    offsets: Vec<u16>,
    /// Per depth, the entries of the queries routed there:
    /// `routes[depth][..lens[depth]]` (the buffers only grow, so refilling
    /// them writes no zeros).
    routes: Vec<Vec<u64>>,
    lens: Vec<usize>,
}

impl SplitMatcher {
    /// Replaces the stored keys with `keys`, split on the bits of `cuts`
    /// (one bit each, in order) while a part has at least twice
    /// `leaf_min` keys.
    pub fn load(&mut self, keys: &[u64], cuts: &[u64], leaf_min: usize) {
        self.nodes.clear();
        // At most MAX_CUTS, so the entries' cut bits fit above their
        // positions.
        let cuts = &cuts[..cuts.len().min(MAX_CUTS)];
        self.cut_mask = cuts.iter().fold(0, |all, bit| all | bit);
        self.leaves_used = 0;
        self.layout.set(keys.iter().fold(0, |all, key| all | key));
        let mut stored = std::mem::take(&mut self.keys);
        stored.clear();
        // Exactly (here and below): a doubling would hold up to twice the
        // part, past what the memory bound counts.
        stored.reserve_exact(keys.len());
        stored.extend_from_slice(keys);
        self.build(&mut stored, cuts, 0, leaf_min.max(1));
        self.keys = stored;
        // Each leaf keeps the buffers of its largest load, so after loads
        // of varied sizes the leaves together hold far more than any one
        // load needs: give the room back once it passes half of this
        // load's (and a few MB, so small loads never churn).
        let used: u64 = self.leaves[..self.leaves_used]
            .iter()
            .map(Leaf::used_bytes)
            .sum();
        let held: u64 = self.leaves.iter().map(Leaf::bytes).sum();
        if held > used + used / 2 + LEAF_SLACK_BYTES {
            self.leaves.truncate(self.leaves_used);
            for leaf in &mut self.leaves {
                leaf.shrink_to_fit();
            }
        }
    }

    /// Adds the node of `keys` at `depth` (and its children); returns its
    /// index.
    fn build(&mut self, keys: &mut [u64], cuts: &[u64], depth: usize, leaf_min: usize) -> usize {
        let index = self.nodes.len();
        match cuts.get(depth) {
            Some(&bit) if keys.len() >= 2 * leaf_min => {
                debug_assert!(bit.is_power_of_two());
                self.nodes.push(Node::Leaf(usize::MAX));
                let (free_keys, taken_keys) = partition(keys, bit, &mut self.taken);
                let free = self.build(free_keys, cuts, depth + 1, leaf_min);
                let taken = self.build(taken_keys, cuts, depth + 1, leaf_min);
                // The entries hold the cut bits in the order of their
                // positions (see `fill_entries`).
                let rank = (self.cut_mask & (bit - 1)).count_ones();
                let test = 1 << (PATTERN_SHIFT + rank);
                self.nodes[index] = Node::Cut { test, free, taken };
            }
            _ => {
                if self.leaves_used == self.leaves.len() {
                    self.leaves.push(Leaf::default());
                }
                self.leaves[self.leaves_used].load(keys, &self.layout);
                self.nodes.push(Node::Leaf(self.leaves_used));
                self.leaves_used += 1;
            }
        }
        index
    }

    /// The sum over `queries` of the stored keys disjoint from
    /// `query | extra` (`extra`: diagonals every query shares).
    pub fn sum_disjoint(&mut self, queries: &[u64], extra: u64) -> u64 {
        if self.nodes.is_empty() {
            return 0;
        }
        if self.routes.is_empty() {
            self.routes.push(Vec::new());
            self.lens.push(0);
        }
        let mut total = 0;
        for batch in queries.chunks(ROUTE_BATCH) {
            self.queries.clear();
            self.queries
                .extend(batch.iter().map(|&query| query | extra));
            self.layout.fill(&self.queries, &mut self.offsets);
            let first = &mut self.routes[0];
            first.clear();
            // Exactly: the memory bound counts one batch per depth.
            first.reserve_exact(batch.len());
            fill_entries(&self.queries, self.cut_mask, first);
            self.lens[0] = batch.len();
            let Self {
                nodes,
                layout,
                leaves,
                queries,
                offsets,
                routes,
                lens,
                ..
            } = self;
            let mut split = Routes {
                layout,
                queries,
                offsets,
                routes,
                lens,
            };
            total += sum_node(nodes, leaves, &mut split, 0, 0);
        }
        total
    }

    /// [`SplitMatcher::sum_disjoint`] on the matcher loop `path` whatever
    /// the CPU would choose; `None` if this CPU cannot run it.
    pub fn sum_disjoint_on(
        &mut self,
        path: MatcherPath,
        queries: &[u64],
        extra: u64,
    ) -> Option<u64> {
        if !path.runs_here() {
            return None;
        }
        let chosen = self.layout.replace_path(Some(path));
        let sum = self.sum_disjoint(queries, extra);
        self.layout.replace_path(chosen);
        Some(sum)
    }

    /// Bytes the buffers hold (their capacity).
    pub fn bytes(&self) -> u64 {
        let words = self.keys.capacity()
            + self.taken.capacity()
            + self.queries.capacity()
            + self.routes.iter().map(Vec::capacity).sum::<usize>();
        (words * 8
            + self.nodes.capacity() * std::mem::size_of::<Node>()
            + self.lens.capacity() * 8
            + self.offsets.capacity() * 2) as u64
            + self.leaves.iter().map(Leaf::bytes).sum::<u64>()
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
    routes: &'a mut Vec<Vec<u64>>,
    lens: &'a mut Vec<usize>,
}

/// The sum for the queries at `routes[depth]` against node `node`.
fn sum_node(nodes: &[Node], leaves: &[Leaf], split: &mut Routes, node: usize, depth: usize) -> u64 {
    match nodes[node] {
        Node::Leaf(leaf) => leaves[leaf].sum(
            split.layout,
            Routed {
                queries: split.queries,
                offsets: split.offsets,
                entries: &split.routes[depth][..split.lens[depth]],
            },
        ),
        Node::Cut { test, free, taken } => {
            // Keys that leave the bit free pair with every query here.
            let mut total = sum_node(nodes, leaves, split, free, depth);
            let Routes { routes, lens, .. } = split;
            if routes.len() == depth + 1 {
                routes.push(Vec::new());
                lens.push(0);
            }
            let (here, below) = routes.split_at_mut(depth + 1);
            let here = &here[depth][..lens[depth]];
            let next = &mut below[0];
            if next.len() < here.len() {
                next.reserve_exact(here.len() - next.len());
                next.resize(here.len(), 0);
            }
            // Branch-free: every entry is written, and the length moves
            // past those whose query leaves the bit free (about half, in
            // no order a predictor could learn).
            let mut len = 0;
            for &entry in here {
                next[len] = entry;
                len += usize::from(entry & test == 0);
            }
            lens[depth + 1] = len;
            if len > 0 {
                total += sum_node(nodes, leaves, split, taken, depth + 1);
            }
            total
        }
    }
}

/// Writes each query's route entry: its bits of `cut_mask`, packed in the
/// order of their positions, above its position in `queries`.
fn fill_entries(queries: &[u64], cut_mask: u64, entries: &mut Vec<u64>) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("bmi2") {
        // SAFETY: the CPU has BMI2.
        return unsafe { fill_entries_bmi2(queries, cut_mask, entries) };
    }
    entries.extend(queries.iter().enumerate().map(|(position, &query)| {
        let mut pattern = 0;
        let mut rest = cut_mask;
        let mut rank = 0;
        while rest != 0 {
            if query & rest & rest.wrapping_neg() != 0 {
                pattern |= 1 << rank;
            }
            rest &= rest - 1;
            rank += 1;
        }
        (pattern << PATTERN_SHIFT) | position as u64
    }));
}

/// [`fill_entries`] with one `pext` a query.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn fill_entries_bmi2(queries: &[u64], cut_mask: u64, entries: &mut Vec<u64>) {
    use std::arch::x86_64::_pext_u64;
    entries.extend(
        queries.iter().enumerate().map(|(position, &query)| {
            (_pext_u64(query, cut_mask) << PATTERN_SHIFT) | position as u64
        }),
    );
}

/// Reorders `keys` so that those leaving `bit` free come first, each part
/// in its old order; returns the two parts. Branch-free: each key is
/// written to both places and counted in one (`taken` is scratch).
fn partition<'k>(
    keys: &'k mut [u64],
    bit: u64,
    taken: &mut Vec<u64>,
) -> (&'k mut [u64], &'k mut [u64]) {
    if taken.len() < keys.len() {
        taken.reserve_exact(keys.len() - taken.len());
        taken.resize(keys.len(), 0);
    }
    let (mut free_len, mut taken_len) = (0, 0);
    for index in 0..keys.len() {
        let key = keys[index];
        // free_len <= index: the slot was already read.
        keys[free_len] = key;
        taken[taken_len] = key;
        let takes = usize::from(key & bit != 0);
        free_len += 1 - takes;
        taken_len += takes;
    }
    keys[free_len..].copy_from_slice(&taken[..taken_len]);
    keys.split_at_mut(free_len)
}

/// The cut bits for pairing `stored` with `queries`: the bits whose
/// p * q (the share of pairs they rule out) is largest, best first, at
/// most `max` of them, and none that rules out less than 1/16.
pub fn choose_cuts(stored: &[u64], queries: &[u64], max: usize) -> Vec<u64> {
    let (stored_counts, s) = bit_counts(stored);
    let (query_counts, q) = bit_counts(queries);
    let (s, q) = (s.max(1) as f64, q.max(1) as f64);
    let mut scored: Vec<(f64, u32)> = (0..64)
        .map(|bit| {
            let share = (stored_counts[bit] as f64 / s) * (query_counts[bit] as f64 / q);
            (share, bit as u32)
        })
        .filter(|&(share, _)| share >= 1.0 / 16.0)
        .collect();
    // Best first; equal shares by bit, so the choice is deterministic.
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .into_iter()
        .take(max)
        .map(|(_, bit)| 1u64 << bit)
        .collect()
}

/// Keys sampled per side to choose the cut bits: shares known to a few
/// percent, at a small fraction of the matching's cost.
const SAMPLE: usize = 256;

/// How many of a sample of `keys` (at most [`SAMPLE`], evenly spaced, so
/// the choice is deterministic) have each bit set, and the sample's size.
fn bit_counts(keys: &[u64]) -> ([u32; 64], usize) {
    // Sixteen counters of 16 bits per word: word j counts bits j, j + 16,
    // j + 32 and j + 48 of every key, a few shifts and adds per key
    // instead of a step per set bit (this ran once per load and had cost
    // 4% of a count of N = 18).
    const SPREAD: u64 = 0x0001_0001_0001_0001;
    let mut lanes = [0u64; 16];
    let step = keys.len().div_ceil(SAMPLE).max(1);
    let mut sampled = 0;
    for &key in keys.iter().step_by(step) {
        sampled += 1;
        for (shift, lane) in lanes.iter_mut().enumerate() {
            *lane += (key >> shift) & SPREAD;
        }
    }
    let mut counts = [0u32; 64];
    for (bit, count) in counts.iter_mut().enumerate() {
        *count = ((lanes[bit % 16] >> (16 * (bit / 16))) & 0xffff) as u32;
    }
    (counts, sampled)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naive twin of the bit counts: a step per key and bit.
    fn bit_counts_naive(keys: &[u64]) -> ([u32; 64], usize) {
        let mut counts = [0u32; 64];
        let step = keys.len().div_ceil(SAMPLE).max(1);
        let mut sampled = 0;
        for &key in keys.iter().step_by(step) {
            sampled += 1;
            for (bit, count) in counts.iter_mut().enumerate() {
                *count += ((key >> bit) & 1) as u32;
            }
        }
        (counts, sampled)
    }

    #[test]
    fn bit_counts_equal_the_naive_ones() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for len in [0, 1, 2, 255, 256, 257, 1000, 5000] {
            let keys: Vec<u64> = (0..len)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    state
                })
                .collect();
            assert_eq!(bit_counts(&keys), bit_counts_naive(&keys), "{len} keys");
        }
        // Every bit of every sampled key: the counters reach the sample.
        let full = vec![u64::MAX; 300];
        assert_eq!(bit_counts(&full), bit_counts_naive(&full));
        assert!(bit_counts(&full)
            .0
            .iter()
            .all(|&count| count as usize == bit_counts(&full).1));
    }
}
