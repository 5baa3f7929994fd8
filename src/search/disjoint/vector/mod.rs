//! The filters of the split ([`keep_disjoint`], [`partition_into`]) on every
//! path, and the vector trait their loops (and the `join` method's glue)
//! are written over.
//!
//! The vector loops are written once, generic over [`LaneVector`], whose
//! methods are one or two intrinsics each; every width's entry points
//! (`avx512.rs`, `avx2.rs`) are functions built with that width's target
//! features that call these bodies, so everything is inlined and compiled
//! for those features. The kept values are packed to the front of a vector
//! (a compress on AVX-512, a shuffle from a table on AVX2) and stored
//! whole. The portable loops are the naive twins they are tested against.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::__m128i;

#[cfg(target_arch = "x86_64")]
pub(crate) use avx2::Avx2;
#[cfg(target_arch = "x86_64")]
pub(crate) use avx512::Avx512;

use super::matcher::MatcherPath;

#[cfg(target_arch = "x86_64")]
/// A vector of u64 lanes and the operations the loops over keys take on
/// it (here the filters; the `join` method's glue too).
///
/// # Safety
/// Every method runs instructions of its width: call them only from a
/// function built with that width's target features, on a CPU that has
/// them.
pub(crate) trait LaneVector: Copy {
    /// Values per vector.
    const WIDTH: usize;
    /// One flag per lane.
    type Lanes: Copy + PartialEq;

    /// Every lane.
    const ALL: Self::Lanes;
    /// The first `left` lanes (all of them when `left` >= WIDTH).
    fn first_lanes(left: usize) -> Self::Lanes;
    /// The lanes of `first` not in `second`.
    fn and_not(first: Self::Lanes, second: Self::Lanes) -> Self::Lanes;
    /// How many lanes are set.
    fn count(lanes: Self::Lanes) -> usize;
    /// The lanes as bits, lane i in bit i.
    fn bits(lanes: Self::Lanes) -> u32;

    /// `word` in every lane.
    unsafe fn splat(word: u64) -> Self;
    /// [`Self::WIDTH`] values from `from`.
    unsafe fn load(from: *const u64) -> Self;
    /// The values of `lanes` from `from`, reading only those lanes' slots
    /// (0 in the others).
    unsafe fn load_within(from: *const u64, lanes: Self::Lanes) -> Self;
    /// `first, second` over and over: `first` in the even lanes,
    /// `second` in the odd ones.
    unsafe fn splat_pair(first: u64, second: u64) -> Self;
    /// The first `count` values from `from` (at most half a vector's),
    /// each in two lanes side by side, reading only those slots (the
    /// lanes past them hold anything).
    unsafe fn load_doubled(from: *const u64, count: usize) -> Self;
    /// `self & other` in every lane.
    unsafe fn and(self, other: Self) -> Self;
    /// `self | other` in every lane.
    unsafe fn or(self, other: Self) -> Self;
    /// Every lane shifted left by `count` (a count in the low u64).
    unsafe fn shl(self, count: __m128i) -> Self;
    /// Every lane shifted right by `count`.
    unsafe fn shr(self, count: __m128i) -> Self;
    /// Every lane shifted left by 32.
    unsafe fn shl32(self) -> Self;
    /// Every lane shifted right by 32.
    unsafe fn shr32(self) -> Self;
    /// The lanes of `lanes` where `self & other` is 0.
    unsafe fn disjoint_within(self, other: Self, lanes: Self::Lanes) -> Self::Lanes;
    /// The lanes of `lanes` where `self & other` is not 0.
    unsafe fn meets_within(self, other: Self, lanes: Self::Lanes) -> Self::Lanes;
    /// Writes the values of `kept`, packed to the front, to the
    /// [`Self::WIDTH`] slots from `to`.
    unsafe fn store_packed(self, to: *mut u64, kept: Self::Lanes);
    /// The lanes where `self & test` is 0, and `fold` ORed with their
    /// values.
    unsafe fn disjoint_folded(self, test: Self, fold: Self) -> (Self::Lanes, Self);
    /// Every lane's value ORed together.
    unsafe fn fold_lanes(self) -> u64;
}

/// What a filter kept: how many values (at the front of its output) and
/// the bits they take, folded as they were written, so that a dual
/// split's node knows its lists' bits without a pass of its own over
/// them (those passes were 2.1% of an N = 28 task, Zen 5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Kept {
    /// Values kept.
    pub len: usize,
    /// The bits any kept value takes.
    pub bits: u64,
}

/// A list cut in two by a bit ([`partition_into`], [`partition_words`]):
/// how many keys leave the bit free (they come first), and the bits each
/// side's keys take.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Parted {
    /// Keys leaving the bit free.
    pub free: usize,
    /// The bits any free key takes.
    pub free_bits: u64,
    /// The bits any key taking the bit takes.
    pub taken_bits: u64,
}

/// Copies to the front of `out` the values that share no bit with `test`,
/// in order, on the loop `path` (which this CPU must run); returns how
/// many and the bits they take. `out` holds at least as many slots as
/// `values`.
pub(crate) fn keep_disjoint(path: MatcherPath, values: &[u64], test: u64, out: &mut [u64]) -> Kept {
    assert!(out.len() >= values.len(), "room for every value");
    match path {
        // SAFETY: a path is chosen only if the CPU runs it.
        #[cfg(target_arch = "x86_64")]
        MatcherPath::Avx512 => unsafe { avx512::keep_disjoint(values, test, out) },
        // SAFETY: a path is chosen only if the CPU runs it: AVX2 here.
        #[cfg(target_arch = "x86_64")]
        MatcherPath::Avx2 => unsafe { avx2::keep_disjoint(values, test, out) },
        _ => keep_disjoint_portable(values, test, out),
    }
}

/// [`keep_disjoint`] for 32-bit values (the split's route entries, the
/// dual split's squeezed keys): copies to the front of `out` the values
/// that share no bit with `test`, in order; returns how many and the bits
/// they take. Eight a step on AVX2, sixteen on AVX-512. `out` holds at
/// least as many slots as `entries`.
pub(crate) fn keep_disjoint_entries(
    path: MatcherPath,
    entries: &[u32],
    test: u32,
    out: &mut [u32],
) -> Kept {
    assert!(out.len() >= entries.len(), "room for every entry");
    match path {
        // SAFETY: a path is chosen only if the CPU runs it.
        #[cfg(target_arch = "x86_64")]
        MatcherPath::Avx512 => unsafe { avx512::keep_disjoint_entries(entries, test, out) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        MatcherPath::Avx2 => unsafe { avx2::keep_disjoint_entries(entries, test, out) },
        _ => keep_disjoint_portable(entries, test, out),
    }
}

/// Writes the keys of `from` to `to` (as long), those leaving `bit` free
/// at the front in order and those taking it at the back, on the loop
/// `path` (which this CPU must run); returns how many leave it free and
/// the bits of each side. The taken keys come in no promised order. Read
/// from one list and written to another, a split's partitions need no
/// copy back.
pub(crate) fn partition_into(path: MatcherPath, from: &[u64], bit: u64, to: &mut [u64]) -> Parted {
    partition_stored(path, from, bit, to, crate::system::masked_stores_fast())
}

/// [`partition_into`], the AVX-512 loop with masked stores if `masked`.
#[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
fn partition_stored(
    path: MatcherPath,
    from: &[u64],
    bit: u64,
    to: &mut [u64],
    masked: bool,
) -> Parted {
    assert_eq!(from.len(), to.len(), "a slot for every key");
    match path {
        // SAFETY: a path is chosen only if the CPU runs it.
        #[cfg(target_arch = "x86_64")]
        MatcherPath::Avx512 => unsafe { avx512::partition_into(from, bit, to, masked) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        MatcherPath::Avx2 => unsafe { avx2::partition_into(from, bit, to) },
        _ => partition_from(from, 0, Parted::default(), bit, to),
    }
}

/// [`partition_into`] for 32-bit keys (a split's keys squeezed to the 32
/// bits or fewer its lists take): twice the keys a vector and half the
/// bytes moved.
pub(crate) fn partition_words(path: MatcherPath, from: &[u32], bit: u32, to: &mut [u32]) -> Parted {
    assert_eq!(from.len(), to.len(), "a slot for every key");
    match path {
        // SAFETY: a path is chosen only if the CPU runs it.
        #[cfg(target_arch = "x86_64")]
        MatcherPath::Avx512 => unsafe { avx512::partition_words(from, bit, to) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        MatcherPath::Avx2 => unsafe { avx2::partition_words(from, bit, to) },
        _ => partition_from(from, 0, Parted::default(), bit, to),
    }
}

/// Goes on with [`partition_into`] from key `start`, the keys before it
/// placed as `placed` says (its free keys end at `placed.free`, the taken
/// ones start where the keys from `start` on would end); returns where
/// the free keys end, and both sides' bits. Branch-free: each key is
/// written to both sides' next slots (both in the gap between them) and
/// counted in one.
fn partition_from<T>(from: &[T], start: usize, placed: Parted, bit: T, to: &mut [T]) -> Parted
where
    T: Copy + Default + PartialEq + std::ops::BitAnd<Output = T> + Into<u64>,
{
    let Parted {
        free: mut free_end,
        mut free_bits,
        mut taken_bits,
    } = placed;
    let mut taken_start = free_end + (from.len() - start);
    for &key in &from[start..] {
        to[free_end] = key;
        to[taken_start - 1] = key;
        let takes = usize::from(key & bit != T::default());
        let taken_lanes = 0u64.wrapping_sub(takes as u64);
        free_bits |= key.into() & !taken_lanes;
        taken_bits |= key.into() & taken_lanes;
        free_end += 1 - takes;
        taken_start -= takes;
    }
    Parted {
        free: free_end,
        free_bits,
        taken_bits,
    }
}

/// The bits any of `keys` takes (0 for none), on the loop `path` (which
/// this CPU must run). A dual split's nodes and leaves fold both their
/// lists: built for the crate's baseline the fold took two keys a step
/// and 4.7% of an N = 28 task (Zen 5).
pub(crate) fn bits_taken<T: Fold>(path: MatcherPath, keys: &[T]) -> u64 {
    match path {
        // SAFETY: a path is chosen only if the CPU runs it.
        #[cfg(target_arch = "x86_64")]
        MatcherPath::Avx512 => unsafe { avx512::bits_taken(keys) },
        // SAFETY: a path is chosen only if the CPU runs it: AVX2 here.
        #[cfg(target_arch = "x86_64")]
        MatcherPath::Avx2 => unsafe { avx2::bits_taken(keys) },
        _ => bits_taken_portable(keys),
    }
}

/// Keys whose bits fold by OR: 64-bit keys and 32-bit squeezed ones.
pub(crate) trait Fold: Copy + Into<u64> + std::ops::BitOr<Output = Self> + Default {}

impl Fold for u64 {}
impl Fold for u32 {}

/// [`bits_taken`]'s naive twin, and the portable path's; inlined into
/// each path's entry point, where it is compiled for that path's vectors.
#[inline(always)]
fn bits_taken_portable<T: Fold>(keys: &[T]) -> u64 {
    keys.iter().fold(T::default(), |all, &key| all | key).into()
}

/// [`keep_disjoint`] (and [`keep_disjoint_entries`]) one value a step,
/// branch-free: every value is written, and the length moves past those
/// kept (about half, in no order a predictor could learn).
fn keep_disjoint_portable<T>(values: &[T], test: T, out: &mut [T]) -> Kept
where
    T: Copy + Default + PartialEq + std::ops::BitAnd<Output = T> + Into<u64>,
{
    let (mut len, mut bits) = (0, 0);
    for &value in values {
        out[len] = value;
        let kept = usize::from(value & test == T::default());
        bits |= value.into() & 0u64.wrapping_sub(kept as u64);
        len += kept;
    }
    Kept { len, bits }
}

/// [`keep_disjoint`], [`LaneVector::WIDTH`] values a step; the
/// last few values are left to the portable loop.
///
/// # Safety
/// As [`LaneVector`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) unsafe fn keep_disjoint_in<V: LaneVector>(
    values: &[u64],
    test: u64,
    out: &mut [u64],
) -> Kept {
    let steps = values.len() / V::WIDTH;
    let mut len = 0;
    // SAFETY: the caller's promise (the width's features). A step reads
    // its WIDTH values; the store writes WIDTH slots from `len`, which is
    // at most the values before this step, so within `out` (as long as
    // `values`).
    let bits = unsafe {
        let test = V::splat(test);
        let mut fold = V::splat(0);
        for step in 0..steps {
            let lanes = V::load(values.as_ptr().add(V::WIDTH * step));
            let kept;
            (kept, fold) = lanes.disjoint_folded(test, fold);
            lanes.store_packed(out.as_mut_ptr().add(len), kept);
            len += V::count(kept);
        }
        fold.fold_lanes()
    };
    let rest = &values[V::WIDTH * steps..];
    let tail = keep_disjoint_portable(rest, test, &mut out[len..]);
    Kept {
        len: len + tail.len,
        bits: bits | tail.bits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::SplitMix64;

    /// The bits any of `values` takes, naively.
    fn fold<T: Copy + Into<u64>>(values: &[T]) -> u64 {
        values.iter().fold(0, |all, &value| all | value.into())
    }

    #[test]
    fn every_path_keeps_the_disjoint_values() {
        let mut state = SplitMix64(0x0bad_cafe_f00d_d00d);
        for len in 0..70 {
            // Sparse values, so that the kept ones' bits are not all bits.
            let values: Vec<u64> = (0..len).map(|_| state.next() & state.next()).collect();
            let test = state.next() & state.next();
            let expected: Vec<u64> = values.iter().copied().filter(|v| v & test == 0).collect();
            for path in MatcherPath::ALL.into_iter().filter(|path| path.runs_here()) {
                let mut out = vec![0; len];
                let kept = keep_disjoint(path, &values, test, &mut out);
                assert_eq!(out[..kept.len], expected, "{path:?}, {len} values");
                assert_eq!(kept.bits, fold(&expected), "{path:?}, {len} values");
            }
        }
    }

    #[test]
    fn every_path_folds_the_bits_the_keys_take() {
        let mut state = SplitMix64(0xf01d_0b17_5eed_0003);
        // Sparse keys (an AND of four draws), so that a bit one key alone
        // takes decides the fold; lengths across every vector's tail.
        for len in (0..150).chain([1000, 4099]) {
            let keys: Vec<u64> = (0..len)
                .map(|_| state.next() & state.next() & state.next() & state.next())
                .collect();
            let words: Vec<u32> = keys.iter().map(|&key| (key >> 16) as u32).collect();
            let (wide, narrow) = (bits_taken_portable(&keys), bits_taken_portable(&words));
            let naive = keys.iter().fold(0, |all, key| all | key);
            assert_eq!(wide, naive);
            for path in MatcherPath::ALL.into_iter().filter(|path| path.runs_here()) {
                assert_eq!(bits_taken(path, &keys), wide, "{path:?}, {len} keys");
                assert_eq!(bits_taken(path, &words), narrow, "{path:?}, {len} words");
            }
        }
    }

    #[test]
    fn every_path_keeps_the_disjoint_entries() {
        let mut state = SplitMix64(0x0ddb_a11f_00d5_eed5);
        for len in 0..120 {
            let entries: Vec<u32> = (0..len)
                .map(|_| (state.next() & state.next() & state.next()) as u32)
                .collect();
            let test = 1 << (16 + state.next() % 16);
            let expected: Vec<u32> = entries.iter().copied().filter(|e| e & test == 0).collect();
            for path in MatcherPath::ALL.into_iter().filter(|path| path.runs_here()) {
                let mut out = vec![0; len];
                let kept = keep_disjoint_entries(path, &entries, test, &mut out);
                assert_eq!(out[..kept.len], expected, "{path:?}, {len} entries");
                assert_eq!(kept.bits, fold(&expected), "{path:?}, {len} entries");
            }
        }
    }

    #[test]
    fn every_path_partitions_the_words_by_a_bit() {
        let mut state = SplitMix64(0x5eed_4321_dcba_0002);
        for len in 0..120 {
            let keys: Vec<u32> = (0..len)
                .map(|_| (state.next() & state.next() & state.next()) as u32)
                .collect();
            let bit = 1 << (state.next() % 32);
            let free: Vec<u32> = keys.iter().copied().filter(|k| k & bit == 0).collect();
            let mut taken: Vec<u32> = keys.iter().copied().filter(|k| k & bit != 0).collect();
            taken.sort_unstable();
            for path in MatcherPath::ALL.into_iter().filter(|path| path.runs_here()) {
                let mut to = vec![0; len];
                let parted = partition_words(path, &keys, bit, &mut to);
                let free_len = parted.free;
                assert_eq!(to[..free_len], free, "{path:?}, {len} keys");
                let bits = (fold(&free), fold(&taken));
                assert_eq!((parted.free_bits, parted.taken_bits), bits, "{path:?}");
                let mut to_taken = to[free_len..].to_vec();
                to_taken.sort_unstable();
                assert_eq!(to_taken, taken, "{path:?}, {len} keys");
            }
        }
    }

    #[test]
    fn every_path_partitions_the_keys_by_a_bit() {
        let mut state = SplitMix64(0x5eed_1234_abcd_0001);
        for len in 0..70 {
            let keys: Vec<u64> = (0..len)
                .map(|_| state.next() & state.next() & state.next())
                .collect();
            let bit = 1 << (state.next() % 64);
            let free: Vec<u64> = keys.iter().copied().filter(|k| k & bit == 0).collect();
            let mut taken: Vec<u64> = keys.iter().copied().filter(|k| k & bit != 0).collect();
            taken.sort_unstable();
            let paths = MatcherPath::ALL.into_iter().filter(|path| path.runs_here());
            for (path, masked) in paths.flat_map(|path| [(path, false), (path, true)]) {
                let mut to = vec![0; len];
                let parted = partition_stored(path, &keys, bit, &mut to, masked);
                let bits = (fold(&free), fold(&taken));
                assert_eq!((parted.free_bits, parted.taken_bits), bits, "{path:?}");
                let free_len = parted.free;
                assert_eq!(
                    to[..free_len],
                    free,
                    "{path:?}, masked {masked}, {len} keys"
                );
                let mut to_taken = to[free_len..].to_vec();
                to_taken.sort_unstable();
                assert_eq!(to_taken, taken, "{path:?}, masked {masked}, {len} keys");
            }
        }
    }
}
