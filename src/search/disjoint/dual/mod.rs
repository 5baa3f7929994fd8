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
//! Most meetings' two lists take 36 bits or fewer in common, and every cut
//! drops one (the free side leaves it free, the taken side meets only
//! keys that do): once a node's lists take at most 32 bits in common they
//! are squeezed to those bits as 32-bit keys, so every cut below moves
//! half the bytes and a vector holds twice the keys (the cuts' partitions
//! and filters were a third of an N = 28 task, past the second-level
//! cache at the top of a meeting).
//!
//! The lists a cut makes live in one buffer, used as a stack along the
//! path from the root: each node takes room for its larger list's two
//! sides and its smaller list's kept keys above its parent's. A node whose
//! lists would not fit stops, so the memory is bounded by the buffer's
//! size, a fixed multiple of the two lists' lengths.

use super::grow_to;
use super::matcher::{matcher_path, sum_whole_batch, FillScratch, Layout, Leaf, MatcherPath};
use super::split::ROUTE_BATCH;
use super::squeeze::Squeeze;
use super::vector::{bits_taken, Kept};

mod cut;
mod keys;

use cut::worth_cutting;
pub(crate) use cut::Costs;
use keys::{as_words, Listed, NodeKey};

/// The stack of cut lists holds at most this many times the two lists'
/// keys together. Each level of a path holds both sides of its larger list
/// and the kept part of the smaller, and the smaller often stays near its
/// length for several levels: a stack of twice the lists stopped the cuts
/// early and took 1.8x the time of this one on N = 28 tasks (Zen 4).
pub(crate) const STACK_FACTOR: usize = 4;

/// The most keys a leaf stores at once: a larger list (where the cuts
/// stop on one with only a few keys on the other side, or out of room) is
/// stored a piece at a time, so a leaf's tables stay within 32 blocks
/// (896 KB) and the plan's memory bound need not count tables for the
/// whole of a meeting's larger list (50 MiB at N = 28 on 2 threads).
pub(crate) const LEAF_KEYS_MAX: usize = 1 << 14;

/// Counts disjoint pairs by cutting both lists (see the module); reused
/// across counts so a worker keeps its buffers.
#[derive(Default)]
pub(crate) struct DualSplit {
    /// The lists of the cuts on the current path.
    stack: Vec<u64>,
    /// The leaf's larger list, in blocks, and its fill's scratch.
    leaf: Leaf,
    scratch: FillScratch,
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
    /// Nodes cut on 64-bit keys, and lists squeezed to 32-bit ones, for
    /// tests that check both widths ran (a wide cut means the root was
    /// not squeezed, so a squeeze after one was below it).
    #[cfg(test)]
    wide_cuts: usize,
    #[cfg(test)]
    narrowings: usize,
}

impl DualSplit {
    /// The pairs of `stored` and `queries` (either may be the longer)
    /// whose keys share no bit (the tests' entry: a count's lists come
    /// with their bits, [`DualSplit::sum_disjoint_taking`]).
    #[cfg(test)]
    fn sum_disjoint(&mut self, stored: &[u64], queries: &[u64]) -> u64 {
        let path = self.path();
        let (stored_bits, query_bits) = (bits_taken(path, stored), bits_taken(path, queries));
        self.sum_disjoint_taking(stored, stored_bits, queries, query_bits)
    }

    /// The pairs of `stored` and `queries` (either may be the longer)
    /// whose keys share no bit, the lists' keys taking the bits
    /// `stored_bits` and `query_bits` (every bit some key takes, and only
    /// those; a filter that wrote the lists folded them).
    pub(crate) fn sum_disjoint_taking(
        &mut self,
        stored: &[u64],
        stored_bits: u64,
        queries: &[u64],
        query_bits: u64,
    ) -> u64 {
        debug_assert_eq!(stored_bits, bits_taken(MatcherPath::Portable, stored));
        debug_assert_eq!(query_bits, bits_taken(MatcherPath::Portable, queries));
        let mut stack = std::mem::take(&mut self.stack);
        let room = STACK_FACTOR * (stored.len() + queries.len());
        grow_to(&mut stack, room, 0);
        let (a, b) = (
            Listed::new(stored, stored_bits),
            Listed::new(queries, query_bits),
        );
        let total = self.wide_node(&mut stack[..room], a, b);
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
            + self.scratch.bytes()
    }

    /// The loop the cuts and the leaves take.
    fn path(&self) -> MatcherPath {
        self.path.unwrap_or_else(matcher_path)
    }

    /// The sum of a node of 64-bit lists `a` and `b`, its cuts' lists
    /// written to `room`: squeezed to 32-bit keys first where the bits
    /// both lists take fit and the room holds them.
    fn wide_node(&mut self, room: &mut [u64], a: Listed<u64>, b: Listed<u64>) -> u64 {
        let live = a.bits & b.bits;
        // No bit in common (an empty list among them): every pair counts.
        if live == 0 {
            return (a.keys.len() * b.keys.len()) as u64;
        }
        let words_len = (a.keys.len() + b.keys.len()).div_ceil(2);
        if live.count_ones() > 32 || room.len() < words_len {
            return self.node(room, a, b);
        }
        #[cfg(test)]
        {
            self.narrowings += 1;
        }
        self.squeeze.set_always(live);
        let (here, above) = room.split_at_mut(words_len);
        let words = as_words(here);
        self.squeeze.apply_words(a.keys, words);
        self.squeeze.apply_words(b.keys, &mut words[a.keys.len()..]);
        let (a_words, rest) = words.split_at(a.keys.len());
        // A squeezed list takes the squeeze of the bits it took.
        let a = Listed::new(a_words, self.squeeze.packed(a.bits & live));
        let b = Listed::new(&rest[..b.keys.len()], self.squeeze.packed(b.bits & live));
        self.node(as_words(above), a, b)
    }

    /// The sum of a node of lists `a` and `b`, its cuts' lists written to
    /// `room`.
    fn node<K: NodeKey>(&mut self, room: &mut [K], a: Listed<K>, b: Listed<K>) -> u64 {
        let (big, small) = if a.keys.len() >= b.keys.len() {
            (a, b)
        } else {
            (b, a)
        };
        if small.keys.is_empty() {
            return 0;
        }
        if big.bits & small.bits == 0 {
            return (big.keys.len() * small.keys.len()) as u64;
        }
        let costs = self.costs.unwrap_or(Costs::MEASURED);
        let (big_len, small_len) = (big.keys.len(), small.keys.len());
        if big_len >= costs.cut_min && room.len() >= big_len + small_len {
            if let Some(bit) = worth_cutting(&costs, big.keys, small.keys) {
                #[cfg(test)]
                if K::as_wide(big.keys).is_some() {
                    self.wide_cuts += 1;
                }
                let path = self.path();
                let bit = K::bit(bit);
                let (here, above) = room.split_at_mut(big_len + small_len);
                let (sides, kept) = here.split_at_mut(big_len);
                let parted = K::partition(path, big.keys, bit, sides);
                let Kept { len, bits } = K::keep(path, small.keys, bit, kept);
                let kept = Listed::new(&kept[..len], bits);
                let (free, taken) = sides.split_at(parted.free);
                // The keys leaving the bit free meet all of `small`.
                let mut total = K::descend(self, above, Listed::new(free, parted.free_bits), small);
                if !kept.keys.is_empty() && !taken.is_empty() {
                    total += K::descend(self, above, Listed::new(taken, parted.taken_bits), kept);
                }
                return total;
            }
        }
        self.leaf_sum(big, small)
    }

    /// The sum of a leaf: `big` in blocks, `small` summed over them.
    fn leaf_sum<K: NodeKey>(&mut self, big: Listed<K>, small: Listed<K>) -> u64 {
        if big.keys.len() > LEAF_KEYS_MAX {
            let path = self.path();
            return big
                .keys
                .chunks(LEAF_KEYS_MAX)
                .map(|piece| self.leaf_sum(Listed::new(piece, bits_taken(path, piece)), small))
                .sum();
        }
        #[cfg(test)]
        {
            self.leaves += 1;
        }
        let path = self.path();
        let (big_bits, live) = (big.bits, big.bits & small.bits);
        let (big, small) = (big.keys, small.keys);
        // A bit one list never takes decides nothing here.
        if live == 0 {
            return (big.len() * small.len()) as u64;
        }
        self.squeeze.set(big_bits, live);
        let wide = (K::as_wide(big), K::as_wide(small));
        let (big, small) = match wide {
            (Some(big), Some(small)) if self.squeeze.kept() == u64::MAX => (big, small),
            _ => {
                K::squeeze_into(&self.squeeze, path, big, &mut self.big);
                K::squeeze_into(&self.squeeze, path, small, &mut self.small);
                (&self.big[..], &self.small[..])
            }
        };
        self.layout.set(self.squeeze.width_mask());
        if self.path.is_some() {
            self.layout.replace_path(self.path);
        }
        self.leaf.load(big, &self.layout, &mut self.scratch);
        small
            .chunks(ROUTE_BATCH)
            .map(|batch| {
                sum_whole_batch(
                    &self.leaf,
                    &self.layout,
                    batch,
                    &mut self.offsets,
                    &mut self.entries,
                )
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::super::count_disjoint_naive;
    use super::*;
    use crate::random::SplitMix64;
    use crate::search::disjoint::matcher::BLOCK_KEYS;

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
                    dual.wide_cuts = 0;
                    dual.narrowings = 0;
                    if let Some(sum) = dual.sum_disjoint_with(path, costs, &stored, &queries) {
                        assert_eq!(sum, expected, "round {round}, {path:?}, {costs:?}");
                        // Forced, every shape of 128 keys or more cuts.
                        if costs.key < 0.0 && stored_len.min(queries_len) >= 128 {
                            assert!(dual.leaves > 4, "round {round}: {} leaves", dual.leaves);
                        }
                        // Lists of more than 32 bits in common cut as 64-bit
                        // keys, then (squeezed below the root, as the root
                        // cut wide) as 32-bit ones.
                        if costs.key < 0.0 && bits >= 34 && density >= 3 {
                            assert!(dual.wide_cuts > 0, "round {round}: no wide cut");
                            assert!(dual.narrowings > 0, "round {round}: never narrowed");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_leaf_stores_a_large_list_a_piece_at_a_time() {
        // Never cut (a cut's keys priced past any leaf), a list past the
        // most a leaf stores is summed in pieces, exactly.
        let never_cut = Costs {
            key: 1e12,
            ..Costs::MEASURED
        };
        let mut random = SplitMix64(0x1ea5_b10c_5000_0001);
        let stored = keys(&mut random, 2 * LEAF_KEYS_MAX + 777, 30, 3);
        let queries = keys(&mut random, 300, 30, 3);
        let mut dual = DualSplit::default();
        let sum = dual.sum_disjoint_with(matcher_path(), never_cut, &stored, &queries);
        assert_eq!(sum, Some(naive(&stored, &queries)));
        assert_eq!(dual.leaves, 3);
        assert!(dual.leaf.bytes() <= ((LEAF_KEYS_MAX / BLOCK_KEYS * 32) << 10) as u64);
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
