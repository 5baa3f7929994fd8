//! Counting disjoint pairs of keys: for query keys q and stored keys k
//! (u64 bit sets), how many pairs have k & q == 0. It is the kernel of
//! every join of half boards, the `join` counting method's and the board
//! finder's next-row counts alike, and knows nothing of boards, tasks or
//! symmetry: the keys are any bit sets.
//!
//! - [`matcher`]: the bit-sliced blocks a query ANDs a few lines of per
//!   512 keys, the leaves' loops, and the path (AVX-512, AVX2, portable)
//!   they run on.
//! - [`cuts`]: the bits a split parts the keys on, chosen from a
//!   sample's bit counts.
//! - [`split`]: the stored keys split on the bits most pairs collide on,
//!   so that a query meets only the leaves it can pair with.
//! - [`squeeze`]: the keys' bits that vary, gathered to the low end.
//! - [`vector`]: the split's filters on every path, and the lane vector
//!   trait their loops are written over.

pub(crate) mod cuts;
pub(crate) mod dual;
pub(crate) mod matcher;
pub(crate) mod split;
pub(crate) mod squeeze;
pub(crate) mod vector;

pub use cuts::choose_cuts;
pub(crate) use dual::{
    DualSplit, LEAF_KEYS_MAX as DUAL_LEAF_KEYS_MAX, STACK_FACTOR as DUAL_STACK_FACTOR,
};
pub use matcher::matcher_path;
pub use matcher::{
    count_disjoint_naive, transpose64, transpose64_naive, Matcher, MatcherPath, BLOCK_KEYS,
};
pub(crate) use matcher::{
    enter_matcher, parse_matcher, requested_matcher, BLOCK_TABLE_BYTES, FILL_SCRATCH_BYTES,
};
#[cfg(feature = "testing")]
pub use matcher::{take_leaf_work, LeafWork};
pub(crate) use split::ROUTE_BATCH;
pub use split::{SplitMatcher, UnexpectedBits, LEAF_MIN, MAX_CUTS};
pub(crate) use vector::{bits_taken, keep_disjoint, Kept};

/// Makes `list` at least `len` long, filling only slots it never held
/// with `zero`: the buffers here are written before they are read, so a
/// refill need not zero them, and they grow exactly (a doubling would
/// hold up to twice a load, past what the memory bound counts).
pub(crate) fn grow_to<T: Clone>(list: &mut Vec<T>, len: usize, zero: T) {
    if list.len() < len {
        list.reserve_exact(len - list.len());
        list.resize(len, zero);
    }
}
