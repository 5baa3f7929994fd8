//! The keys a dual split's nodes cut, 64-bit or squeezed to 32 bits, and
//! the lists that carry their bits from node to node.

use super::DualSplit;
use crate::search::disjoint::matcher::MatcherPath;
use crate::search::disjoint::squeeze::Squeeze;
use crate::search::disjoint::vector::{
    keep_disjoint, keep_disjoint_entries, partition_into, partition_words, Fold, Kept, Parted,
};

/// The keys a node cuts: 64-bit as they come, or squeezed to 32 bits where
/// the node's lists take no more in common.
pub(super) trait NodeKey: Fold + PartialEq + std::ops::BitAnd<Output = Self> {
    /// The key with only bit `bit` set.
    fn bit(bit: u32) -> Self;
    /// [`partition_into`] for these keys.
    fn partition(path: MatcherPath, from: &[Self], bit: Self, to: &mut [Self]) -> Parted;
    /// [`keep_disjoint`] for these keys.
    fn keep(path: MatcherPath, values: &[Self], test: Self, out: &mut [Self]) -> Kept;
    /// The keys as 64-bit ones, where they are.
    fn as_wide(keys: &[Self]) -> Option<&[u64]>;
    /// `keys` squeezed by `squeeze` into `out`, on the loops of `path`.
    fn squeeze_into(squeeze: &Squeeze, path: MatcherPath, keys: &[Self], out: &mut Vec<u64>);
    /// The sum of a node below a cut: a 64-bit one looks again whether
    /// its lists fit 32 bits.
    fn descend(dual: &mut DualSplit, room: &mut [Self], a: Listed<Self>, b: Listed<Self>) -> u64;
}

/// A node's list and the bits any of its keys takes (folded by the pass
/// that wrote the list, so no node makes a pass of its own to learn them).
#[derive(Clone, Copy)]
pub(super) struct Listed<'a, K> {
    pub(super) keys: &'a [K],
    pub(super) bits: u64,
}

impl<'a, K> Listed<'a, K> {
    pub(super) fn new(keys: &'a [K], bits: u64) -> Self {
        Listed { keys, bits }
    }
}

impl NodeKey for u64 {
    fn bit(bit: u32) -> u64 {
        1 << bit
    }
    fn partition(path: MatcherPath, from: &[u64], bit: u64, to: &mut [u64]) -> Parted {
        partition_into(path, from, bit, to)
    }
    fn keep(path: MatcherPath, values: &[u64], test: u64, out: &mut [u64]) -> Kept {
        keep_disjoint(path, values, test, out)
    }
    fn as_wide(keys: &[u64]) -> Option<&[u64]> {
        Some(keys)
    }
    fn squeeze_into(squeeze: &Squeeze, _: MatcherPath, keys: &[u64], out: &mut Vec<u64>) {
        squeeze.apply_into(keys, out);
    }
    fn descend(dual: &mut DualSplit, room: &mut [u64], a: Listed<u64>, b: Listed<u64>) -> u64 {
        dual.wide_node(room, a, b)
    }
}

impl NodeKey for u32 {
    fn bit(bit: u32) -> u32 {
        1 << bit
    }
    fn partition(path: MatcherPath, from: &[u32], bit: u32, to: &mut [u32]) -> Parted {
        partition_words(path, from, bit, to)
    }
    fn keep(path: MatcherPath, values: &[u32], test: u32, out: &mut [u32]) -> Kept {
        keep_disjoint_entries(path, values, test, out)
    }
    fn as_wide(_: &[u32]) -> Option<&[u64]> {
        None
    }
    fn squeeze_into(squeeze: &Squeeze, path: MatcherPath, keys: &[u32], out: &mut Vec<u64>) {
        squeeze.apply_words_into(path, keys, out);
    }
    fn descend(dual: &mut DualSplit, room: &mut [u32], a: Listed<u32>, b: Listed<u32>) -> u64 {
        dual.node(room, a, b)
    }
}

/// `room` as twice as many 32-bit slots.
pub(super) fn as_words(room: &mut [u64]) -> &mut [u32] {
    // SAFETY: the same bytes, borrowed as long; a u32's alignment divides
    // a u64's, and every bit pattern is a u32.
    unsafe { std::slice::from_raw_parts_mut(room.as_mut_ptr().cast::<u32>(), 2 * room.len()) }
}
