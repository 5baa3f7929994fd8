//! Where a dual split's node cuts: the bit of largest p x q in samples of
//! both lists, and whether cutting on it is estimated to cost less than a
//! leaf.

use super::keys::NodeKey;
use crate::search::disjoint::cuts::bit_counts;
use crate::search::disjoint::matcher::BLOCK_KEYS;
use crate::search::disjoint::split::LEAF_MIN;

/// Keys sampled per list to choose a node's cut: the best bit's shares are
/// usually far apart from the rest's, and a sample of 256 per node cost
/// 9% of an N = 28 task against 3.6% for 64 (Zen 4, `plan 28 -j1
/// --estimate`, perf).
const NODE_SAMPLE: usize = 64;

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
    /// Each 64-bit key of a cut's two lists: the partition or the filter
    /// (a 32-bit key costs half).
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
        // Four blocks: below them a cut the model prices as paying did
        // not (Zen 5, N = 28: 0.97 of two blocks' time, three and six
        // blocks 1.03 and 1.05 of four's, eight 1.13).
        cut_min: 4 * LEAF_MIN,
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

/// The bit counts of up to [`NODE_SAMPLE`] keys of `keys`, evenly
/// spaced, and how many keys were sampled.
fn sampled_counts<K: NodeKey>(keys: &[K]) -> ([u32; 64], usize) {
    let mut sample = [0u64; NODE_SAMPLE];
    let step = keys.len().div_ceil(NODE_SAMPLE).max(1);
    let mut taken: usize = 0;
    if std::mem::size_of::<K>() == 4 {
        // Two 32-bit keys a word, so half the words are counted; each
        // bit's count is then its two halves' sum.
        for (at, &key) in keys.iter().step_by(step).take(NODE_SAMPLE).enumerate() {
            sample[at / 2] |= key.into() << (32 * (at % 2));
            taken += 1;
        }
        let (halves, _) = bit_counts(&sample[..taken.div_ceil(2)], NODE_SAMPLE);
        let counts = std::array::from_fn(|bit| {
            if bit < 32 {
                halves[bit] + halves[bit + 32]
            } else {
                0
            }
        });
        return (counts, taken);
    }
    for (slot, &key) in sample.iter_mut().zip(keys.iter().step_by(step)) {
        *slot = key.into();
        taken += 1;
    }
    bit_counts(&sample[..taken], NODE_SAMPLE)
}

/// The bit to cut `big` on, where cutting is estimated to cost less than
/// a leaf: the bit of largest p x q in samples of both lists.
pub(super) fn worth_cutting<K: NodeKey>(costs: &Costs, big: &[K], small: &[K]) -> Option<u32> {
    let (big_counts, big_sampled) = sampled_counts(big);
    let (small_counts, small_sampled) = sampled_counts(small);
    // The samples' sizes are the same for every bit: the largest product
    // of counts is the largest p x q.
    let (mut best, mut best_product) = (0, 0);
    for (bit, (&in_big, &in_small)) in big_counts.iter().zip(&small_counts).enumerate() {
        let product = u64::from(in_big) * u64::from(in_small);
        if product > best_product {
            (best, best_product) = (bit, product);
        }
    }
    if best_product == 0 {
        return None;
    }
    let p = f64::from(big_counts[best]) / big_sampled as f64;
    let q = f64::from(small_counts[best]) / small_sampled as f64;
    let (big_len, small_len) = (big.len() as f64, small.len() as f64);
    let taken = (big_len * p).round();
    let free = big_len - taken;
    // The free side meets every key of `small`, the taken side a share
    // 1 - q of them.
    let cut = costs.leaf(free, small_len)
        + costs.leaf(taken, small_len * (1.0 - q))
        + costs.key * (big_len + small_len) * std::mem::size_of::<K>() as f64 / 8.0
        + costs.choose;
    (cut < costs.leaf(big_len, small_len)).then_some(best as u32)
}
