//! Counts the disjoint pairs of two key lists by cutting both of them.
//!
//! [`SplitMatcher`](super::SplitMatcher) cuts only its stored keys: a part
//! stops at a block or two of 512 keys (bit-sliced blocks want to be full),
//! so a load of 64 thousand keys takes six or seven cuts and no more,
//! however many queries come. Here a node cuts whichever of its two lists
//! is the larger, on the bit whose p x q (the share of the list's keys
//! that take it times the share of the other list's) is largest *at that
//! node*: the keys that leave the bit free meet the whole other list, those
//! that take it only the other list's keys that leave it free. Where the
//! larger list has become the other one, the cuts go on in it, so the
//! blocks stay full while the pairs fall by p x q at every level. A node
//! stops where the cut is not estimated to pay (see [`Costs`]); a leaf
//! stores its larger list in bit-sliced blocks, drops the bits that one of
//! its two lists never takes (they decide nothing there), and sums the
//! other list over them.
//!
//! The lists a cut makes live in one buffer, used as a stack along the
//! path from the root: each node takes room for its larger list's two
//! sides and its smaller list's kept keys above its parent's. A node whose
//! lists would not fit stops, so the memory is bounded by the buffer's
//! size, a fixed multiple of the two lists' lengths.

use super::cuts::bit_counts;
use super::grow_to;
use super::matcher::{matcher_path, Layout, Leaf, MatcherPath, Routed, BLOCK_KEYS};
use super::split::{LEAF_MIN, ROUTE_BATCH};
use super::squeeze::Squeeze;
use super::vector::{keep_disjoint, partition_into};

/// Keys sampled per list to choose a node's cut: the best bit's shares are
/// usually far apart from the rest's, and a sample of 256 per node cost
/// 9% of an N = 28 task against 3.6% for 64 (Zen 4, `plan 28 -j1
/// --estimate`, perf).
const NODE_SAMPLE: usize = 64;

/// The stack of cut lists holds at most this many times the two lists'
/// keys together. Each level of a path holds both sides of its larger list
/// and the kept part of the smaller, and the smaller often stays near its
/// length for several levels: a stack of twice the lists stopped the cuts
/// early and took 1.8x the time of this one on N = 28 tasks (Zen 4).
pub(crate) const STACK_FACTOR: usize = 4;

/// What a node's ways cost, in visits (a query's visit to one block of
/// 512 keys, the leaves' unit of work), to choose between stopping and
/// cutting; fitted by timing `plan 28 -j1 --estimate` (Zen 4, AVX-512).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Costs {
    /// Filling one block's tables (the transpose and the chunks' lines).
    pub fill: f64,
    /// A query's share of a leaf beside its visits: its squeeze and its
    /// line offsets.
    pub query: f64,
    /// A leaf's own cost: the bits both lists take, the layout, the call.
    pub leaf: f64,
    /// Each key of a cut's two lists: the partition or the filter.
    pub key: f64,
    /// Choosing a cut: the bit counts of both samples.
    pub choose: f64,
    /// The fewest keys of the larger list a node cuts.
    pub cut_min: usize,
}

impl Costs {
    /// The costs a count runs with.
    pub(crate) const MEASURED: Costs = Costs {
        fill: 90.0,
        query: 0.35,
        leaf: 100.0,
        key: 0.2,
        choose: 60.0,
        cut_min: 2 * LEAF_MIN,
    };

    /// Visits of a leaf whose larger list holds `big` keys and whose
    /// smaller `small`.
    fn leaf(&self, big: f64, small: f64) -> f64 {
        small * (blocks(big) + self.query) + self.fill * blocks(big) + self.leaf
    }
}

/// Blocks of 512 keys that `keys` keys fill.
fn blocks(keys: f64) -> f64 {
    (keys / BLOCK_KEYS as f64).ceil()
}

/// Counts disjoint pairs by cutting both lists (see the module); reused
/// across counts so a worker keeps its buffers.
#[derive(Default)]
pub(crate) struct DualSplit {
    /// The lists of the cuts on the current path.
    stack: Vec<u64>,
    /// The leaf's larger list, in blocks.
    leaf: Leaf,
    layout: Layout,
    squeeze: Squeeze,
    /// A leaf's lists squeezed.
    big: Vec<u64>,
    small: Vec<u64>,
    /// A batch of a leaf's smaller list: its line offsets and entries.
    offsets: Vec<u16>,
    entries: Vec<u32>,
    /// The loop every leaf takes where not the CPU's own (tests).
    path: Option<MatcherPath>,
    /// Set for tests that force cuts; `None` runs [`Costs::MEASURED`].
    costs: Option<Costs>,
    /// Leaves summed, for tests that check the cuts were taken.
    #[cfg(test)]
    leaves: usize,
}

impl DualSplit {
    /// The pairs of `stored` and `queries` (either may be the longer)
    /// whose keys share no bit.
    pub(crate) fn sum_disjoint(&mut self, stored: &[u64], queries: &[u64]) -> u64 {
        let mut stack = std::mem::take(&mut self.stack);
        grow_to(&mut stack, STACK_FACTOR * (stored.len() + queries.len()), 0);
        let room = STACK_FACTOR * (stored.len() + queries.len());
        let total = self.node(&mut stack[..room], stored, queries);
        self.stack = stack;
        total
    }

    /// [`DualSplit::sum_disjoint`] with every leaf on the loop `path` and
    /// the costs `costs`; `None` if this CPU cannot run `path`.
    #[cfg(test)]
    fn sum_disjoint_with(
        &mut self,
        path: MatcherPath,
        costs: Costs,
        stored: &[u64],
        queries: &[u64],
    ) -> Option<u64> {
        if !path.runs_here() {
            return None;
        }
        self.path = Some(path);
        self.costs = Some(costs);
        let total = self.sum_disjoint(stored, queries);
        self.path = None;
        self.costs = None;
        Some(total)
    }

    /// Bytes the buffers hold (their capacity).
    pub(crate) fn bytes(&self) -> u64 {
        ((self.stack.capacity() + self.big.capacity() + self.small.capacity()) * 8
            + self.offsets.capacity() * 2
            + self.entries.capacity() * 4) as u64
            + self.leaf.bytes()
    }

    /// The loop the cuts and the leaves take.
    fn path(&self) -> MatcherPath {
        self.path.unwrap_or_else(matcher_path)
    }

    /// The sum of a node of lists `a` and `b`, its cuts' lists written to
    /// `room`.
    fn node(&mut self, room: &mut [u64], a: &[u64], b: &[u64]) -> u64 {
        let (big, small) = if a.len() >= b.len() { (a, b) } else { (b, a) };
        if small.is_empty() {
            return 0;
        }
        let costs = self.costs.unwrap_or(Costs::MEASURED);
        if big.len() >= costs.cut_min && room.len() >= big.len() + small.len() {
            if let Some(bit) = worth_cutting(&costs, big, small) {
                let path = self.path();
                let (here, above) = room.split_at_mut(big.len() + small.len());
                let (sides, kept) = here.split_at_mut(big.len());
                let free = partition_into(path, big, bit, sides);
                let kept_len = keep_disjoint(path, small, bit, kept);
                // The keys leaving the bit free meet all of `small`.
                let mut total = self.node(above, &sides[..free], small);
                if kept_len > 0 && free < big.len() {
                    total += self.node(above, &sides[free..], &kept[..kept_len]);
                }
                return total;
            }
        }
        self.leaf_sum(big, small)
    }

    /// The sum of a leaf: `big` in blocks, `small` summed over them.
    fn leaf_sum(&mut self, big: &[u64], small: &[u64]) -> u64 {
        #[cfg(test)]
        {
            self.leaves += 1;
        }
        let big_bits = big.iter().fold(0, |all, key| all | key);
        let small_bits = small.iter().fold(0, |all, key| all | key);
        // A bit one list never takes decides nothing here.
        let live = big_bits & small_bits;
        if live == 0 {
            return (big.len() * small.len()) as u64;
        }
        self.squeeze.set(big_bits, live);
        let (big, small) = if self.squeeze.kept() == u64::MAX {
            (big, small)
        } else {
            self.squeeze.apply_into(big, &mut self.big);
            self.squeeze.apply_into(small, &mut self.small);
            (&self.big[..], &self.small[..])
        };
        self.layout.set(self.squeeze.width_mask());
        if self.path.is_some() {
            self.layout.replace_path(self.path);
        }
        self.leaf.load(big, &self.layout);
        let mut total = 0;
        for batch in small.chunks(ROUTE_BATCH) {
            self.layout.fill(batch, &mut self.offsets);
            self.entries.clear();
            self.entries.extend(0..batch.len() as u32);
            total += self.leaf.sum(
                &self.layout,
                Routed {
                    queries: batch,
                    offsets: &self.offsets,
                    entries: &self.entries,
                },
            );
        }
        total
    }
}

/// The bit to cut `big` on, where cutting is estimated to cost less than
/// a leaf: the bit of largest p x q in samples of both lists.
fn worth_cutting(costs: &Costs, big: &[u64], small: &[u64]) -> Option<u64> {
    let (big_counts, big_sampled) = bit_counts(big, NODE_SAMPLE);
    let (small_counts, small_sampled) = bit_counts(small, NODE_SAMPLE);
    let (mut best, mut best_share, mut p, mut q) = (0, 0.0, 0.0, 0.0);
    for (bit, (&in_big, &in_small)) in big_counts.iter().zip(&small_counts).enumerate() {
        let big_share = f64::from(in_big) / big_sampled.max(1) as f64;
        let small_share = f64::from(in_small) / small_sampled.max(1) as f64;
        if big_share * small_share > best_share {
            (best, best_share) = (bit, big_share * small_share);
            (p, q) = (big_share, small_share);
        }
    }
    if best_share == 0.0 {
        return None;
    }
    let (big_len, small_len) = (big.len() as f64, small.len() as f64);
    let taken = (big_len * p).round();
    let free = big_len - taken;
    // The free side meets every key of `small`, the taken side a share
    // 1 - q of them.
    let cut = costs.leaf(free, small_len)
        + costs.leaf(taken, small_len * (1.0 - q))
        + costs.key * (big_len + small_len)
        + costs.choose;
    (cut < costs.leaf(big_len, small_len)).then_some(1 << best)
}

#[cfg(test)]
mod tests {
    use super::super::count_disjoint_naive;
    use super::*;
    use crate::random::SplitMix64;

    /// Keys of `bits` low bits, each bit set with probability about
    /// `density` / 8.
    fn keys(random: &mut SplitMix64, len: usize, bits: u32, density: u32) -> Vec<u64> {
        let mask = u64::MAX >> (64 - bits);
        (0..len)
            .map(|_| {
                let mut key = 0;
                for _ in 0..density {
                    key |= random.next() & random.next() & random.next();
                }
                key & mask
            })
            .collect()
    }

    fn naive(stored: &[u64], queries: &[u64]) -> u64 {
        queries
            .iter()
            .map(|&query| count_disjoint_naive(stored, query))
            .sum()
    }

    /// Costs under which every node of at least 64 keys that can cut does
    /// (a cut's keys priced below nothing).
    const ALWAYS_CUT: Costs = Costs {
        fill: 0.0,
        query: 0.0,
        leaf: 0.0,
        key: -1e9,
        choose: 0.0,
        cut_min: 64,
    };

    #[test]
    fn every_path_and_every_cut_counts_the_naive_pairs() {
        let mut random = SplitMix64(0xd0a1_5b11_7c0f_fee5);
        let mut dual = DualSplit::default();
        let shapes = [
            (0, 10, 30, 3),
            (10, 0, 30, 3),
            (1, 1, 20, 2),
            (47, 900, 30, 3),
            (700, 1500, 34, 3),
            (3000, 2000, 30, 2),
            (2500, 600, 40, 4),
            (1200, 1300, 60, 1),
        ];
        for (round, &(stored_len, queries_len, bits, density)) in shapes.iter().enumerate() {
            let stored = keys(&mut random, stored_len, bits, density);
            let queries = keys(&mut random, queries_len, bits, density);
            let expected = naive(&stored, &queries);
            assert_eq!(
                dual.sum_disjoint(&stored, &queries),
                expected,
                "round {round}"
            );
            for path in MatcherPath::ALL {
                for costs in [Costs::MEASURED, ALWAYS_CUT] {
                    dual.leaves = 0;
                    if let Some(sum) = dual.sum_disjoint_with(path, costs, &stored, &queries) {
                        assert_eq!(sum, expected, "round {round}, {path:?}, {costs:?}");
                        // Forced, every shape of 128 keys or more cuts.
                        if costs.key < 0.0 && stored_len.min(queries_len) >= 128 {
                            assert!(dual.leaves > 4, "round {round}: {} leaves", dual.leaves);
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn lists_with_no_bit_in_common_pair_whole() {
        let mut dual = DualSplit::default();
        let stored: Vec<u64> = (0..2000).map(|at| at & 0xff).collect();
        let queries: Vec<u64> = (0..3000).map(|at| (at & 0xff) << 8).collect();
        assert_eq!(dual.sum_disjoint(&stored, &queries), 2000 * 3000);
    }

    #[test]
    fn the_stack_bounds_the_cuts() {
        // With the stack's room spent the nodes stop: the count stays
        // exact, and the buffer never grows past its multiple.
        let mut random = SplitMix64(0x5eed_0fc0_7500);
        let mut dual = DualSplit::default();
        let stored = keys(&mut random, 4000, 30, 3);
        let queries = keys(&mut random, 4000, 30, 3);
        let sum = dual.sum_disjoint_with(matcher_path(), ALWAYS_CUT, &stored, &queries);
        assert_eq!(sum, Some(naive(&stored, &queries)));
        assert!(dual.leaves > 16, "{} leaves", dual.leaves);
        assert!(dual.stack.capacity() <= STACK_FACTOR * 8000 + 64);
    }
}
