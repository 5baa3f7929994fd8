//! Squeezing key bits: the bits no leaf of a split needs are dropped from
//! keys and queries alike, so the leaves' chunks cover fewer bits.

use super::matcher::{chunk_count, MatcherPath};

/// The bits of `value` under `mask`, packed to the low bits in order (what
/// `pext` does), a bit at a time: the naive twin of the packings here.
pub(crate) fn gather_bits(value: u64, mask: u64) -> u64 {
    let mut packed = 0;
    let mut rest = mask;
    let mut rank = 0;
    while rest != 0 {
        if value & rest & rest.wrapping_neg() != 0 {
            packed |= 1 << rank;
        }
        rest &= rest - 1;
        rank += 1;
    }
    packed
}

/// The key bits the leaves keep, packed to the low bits in order: bits no
/// leaf needs are squeezed out of keys and queries alike, so the leaves'
/// chunks cover fewer bits. Used only where that saves a chunk; else keys
/// pass unchanged.
#[derive(Clone, Debug, Default)]
pub(crate) struct Squeeze {
    /// The bits kept; 0 when keys pass unchanged.
    mask: u64,
    /// The bits keys use when they pass unchanged.
    used: u64,
    /// The mask's runs of set bits, (first bit, the run's bits, where it
    /// lands): the packing on CPUs without `pext`.
    runs: Vec<(u32, u64, u32)>,
}

impl Squeeze {
    /// For keys that take the bits `used` and need only those of `keep`.
    pub(crate) fn set(&mut self, used: u64, keep: u64) {
        let width = (64 - used.leading_zeros()).max(1);
        self.used = used;
        self.mask = 0;
        self.runs.clear();
        if chunk_count(keep.count_ones().max(1)) >= chunk_count(width) {
            return;
        }
        self.squeeze_to(keep);
    }

    /// For keys that need only the bits of `keep`, squeezed whether or not
    /// that saves a chunk (to make them fit in 32 bits).
    pub(crate) fn set_always(&mut self, keep: u64) {
        self.used = keep;
        self.mask = 0;
        self.runs.clear();
        if keep != 0 {
            self.squeeze_to(keep);
        }
    }

    /// Squeezes to the bits of `keep` (not 0), its runs for the packing
    /// without `pext`.
    fn squeeze_to(&mut self, keep: u64) {
        self.mask = keep;
        let mut rest = keep;
        let mut landed = 0;
        while rest != 0 {
            let first = rest.trailing_zeros();
            let len = (rest >> first).trailing_ones();
            let bits = u64::MAX >> (64 - len);
            self.runs.push((first, bits, landed));
            landed += len;
            rest &= !(bits << first);
        }
    }

    /// The key bits kept: the mask, or every bit when keys pass unchanged.
    pub(crate) fn kept(&self) -> u64 {
        if self.mask == 0 {
            u64::MAX
        } else {
            self.mask
        }
    }

    /// The bits a squeezed key may take.
    pub(crate) fn width_mask(&self) -> u64 {
        if self.mask == 0 {
            self.used
        } else {
            u64::MAX >> (64 - self.mask.count_ones())
        }
    }

    /// `value` squeezed (unchanged where keys pass unchanged).
    pub(crate) fn packed(&self, value: u64) -> u64 {
        if self.mask == 0 {
            value
        } else {
            self.packed_by_runs(value)
        }
    }

    /// Squeezes `values` where they are.
    pub(crate) fn apply_in_place(&self, values: &mut [u64]) {
        if self.mask == 0 {
            return;
        }
        #[cfg(target_arch = "x86_64")]
        if crate::system::fast_bit_gather() {
            // SAFETY: the CPU has BMI2 (and gathers fast).
            return unsafe { squeeze_bmi2(values, self.mask) };
        }
        self.apply_by_runs(values);
    }

    /// [`Squeeze::apply_in_place`] a run of bits at a time.
    fn apply_by_runs(&self, values: &mut [u64]) {
        for value in values {
            *value = self.packed_by_runs(*value);
        }
    }

    /// `value` squeezed a run of bits at a time.
    fn packed_by_runs(&self, value: u64) -> u64 {
        self.runs.iter().fold(0, |packed, &(first, bits, landed)| {
            packed | ((value >> first) & bits) << landed
        })
    }

    /// `values` (of 64 or 32 bits) squeezed into `out` (replacing what it
    /// held) in one pass: where a copy and a squeeze in place took two.
    pub(crate) fn apply_into<K: Copy + Into<u64>>(&self, values: &[K], out: &mut Vec<u64>) {
        out.clear();
        #[cfg(target_arch = "x86_64")]
        if self.mask != 0 && crate::system::fast_bit_gather() {
            // SAFETY: the CPU has BMI2 (and gathers fast).
            return unsafe { squeeze_bmi2_into(values, self.mask, out) };
        }
        out.extend(values.iter().map(|&value| value.into()));
        self.apply_in_place(out);
    }

    /// [`Squeeze::apply_into`] for 32-bit keys, on the loops of `path`:
    /// with AVX-512 sixteen keys a step, a shift and a masked OR for each
    /// run of the mask's bits (where one `pext` a key had been 5% of an
    /// N = 28 task).
    pub(crate) fn apply_words_into(&self, path: MatcherPath, values: &[u32], out: &mut Vec<u64>) {
        #[cfg(target_arch = "x86_64")]
        if self.mask != 0 && path == MatcherPath::Avx512 {
            out.clear();
            out.reserve(values.len());
            // SAFETY: the path runs only on a CPU with AVX-512F.
            unsafe { squeeze_runs_avx512_into(self, values, out) };
            return;
        }
        let _ = path;
        self.apply_into(values, out);
    }

    /// `values` squeezed into the first slots of `out`, as 32-bit keys:
    /// the squeeze must keep at most 32 bits ([`Squeeze::set_always`]).
    pub(crate) fn apply_words(&self, values: &[u64], out: &mut [u32]) {
        assert!(
            self.mask != 0 && self.mask.count_ones() <= 32,
            "a squeeze to 1 to 32 bits"
        );
        let out = &mut out[..values.len()];
        #[cfg(target_arch = "x86_64")]
        if crate::system::fast_bit_gather() {
            // SAFETY: the CPU has BMI2 (and gathers fast).
            return unsafe { squeeze_bmi2_words(values, self.mask, out) };
        }
        for (word, &value) in out.iter_mut().zip(values) {
            *word = self.packed_by_runs(value) as u32;
        }
    }

    /// `queries`, `extra` added to each, squeezed into `out`; returns the
    /// bits they took before the squeeze.
    pub(crate) fn apply(&self, queries: &[u64], extra: u64, out: &mut Vec<u64>) -> u64 {
        out.clear();
        let mut taken = extra;
        out.extend(queries.iter().map(|&query| {
            taken |= query;
            query | extra
        }));
        self.apply_in_place(out);
        taken
    }
}

/// [`Squeeze::apply_into`] with one `pext` a value.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn squeeze_bmi2_into<K: Copy + Into<u64>>(values: &[K], mask: u64, out: &mut Vec<u64>) {
    use std::arch::x86_64::_pext_u64;
    out.extend(values.iter().map(|&value| _pext_u64(value.into(), mask)));
}

/// [`Squeeze::apply_words_into`] with AVX-512F: each run of the
/// squeeze's mask (first bit, its bits, where it lands) moved down to
/// where it lands by one shift of sixteen keys, then kept under its bits
/// and ORed in by one ternary-logic step; the keys widened to 64 bits as
/// they are stored, the last few packed by runs one at a time. `out` is
/// empty with room for `values`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn squeeze_runs_avx512_into(squeeze: &Squeeze, values: &[u32], out: &mut Vec<u64>) {
    use std::arch::x86_64::*;
    debug_assert!(out.is_empty() && out.capacity() >= values.len());
    // The low 32 bits hold at most 16 runs, and the runs come lowest
    // first: any past the 16th lie above bit 31, where a 32-bit key
    // takes nothing.
    let runs = &squeeze.runs;
    let mut shifts = [_mm_setzero_si128(); 16];
    let mut masks = [_mm512_setzero_si512(); 16];
    let mut count = 0;
    for (&(first, bits, landed), (shift, mask)) in
        runs.iter().zip(shifts.iter_mut().zip(&mut masks))
    {
        // A run past bit 31 takes no bit of a 32-bit key: its shift and
        // mask, cut to 32 bits, move zeros.
        debug_assert!(landed <= first);
        *shift = _mm_cvtsi32_si128((first - landed) as i32);
        *mask = _mm512_set1_epi32((bits << landed) as u32 as i32);
        count += 1;
    }
    let (steps, rest) = values.as_chunks::<16>();
    let to = out.as_mut_ptr();
    for (at, step) in steps.iter().enumerate() {
        // SAFETY: the load reads the step's 16 values; the stores write
        // slots 16 at .. 16 at + 16 of `out`, within its capacity.
        unsafe {
            let keys = _mm512_loadu_si512(step.as_ptr().cast());
            let mut packed = _mm512_setzero_si512();
            for (shift, mask) in shifts[..count].iter().zip(&masks[..count]) {
                // packed | (moved & mask)
                packed = _mm512_ternarylogic_epi32::<0xf8>(
                    packed,
                    _mm512_srl_epi32(keys, *shift),
                    *mask,
                );
            }
            let low = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(packed));
            let high = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64::<1>(packed));
            _mm512_storeu_si512(to.add(16 * at).cast(), low);
            _mm512_storeu_si512(to.add(16 * at + 8).cast(), high);
        }
    }
    // SAFETY: the steps wrote every slot before the rest.
    unsafe { out.set_len(16 * steps.len()) };
    out.extend(
        rest.iter()
            .map(|&value| squeeze.packed_by_runs(value.into())),
    );
}

/// [`Squeeze::apply_words`] with one `pext` a value.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn squeeze_bmi2_words(values: &[u64], mask: u64, out: &mut [u32]) {
    use std::arch::x86_64::_pext_u64;
    for (word, &value) in out.iter_mut().zip(values) {
        *word = _pext_u64(value, mask) as u32;
    }
}

/// [`Squeeze::apply_in_place`] with one `pext` a value.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn squeeze_bmi2(values: &mut [u64], mask: u64) {
    use std::arch::x86_64::_pext_u64;
    for value in values {
        *value = _pext_u64(*value, mask);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squeezes_equal_the_naive_gather() {
        let mut random = crate::random::SplitMix64(0x2545_f491_4f6c_dd1d);
        let mut next = || random.next();
        let mut squeeze = Squeeze::default();
        let mut squeezed = 0;
        for round in 0..2000 {
            // Wide and narrow masks, with runs of every length.
            let used = next() >> (round % 64);
            let keep = used & (next() | next() >> (round % 7));
            squeeze.set(used, keep);
            let values: Vec<u64> = (0..20).map(|_| next() & used).collect();
            let mut by_runs = values.clone();
            let mut chosen = values.clone();
            squeeze.apply_by_runs(&mut by_runs);
            squeeze.apply_in_place(&mut chosen);
            if squeeze.mask == 0 {
                // No chunk saved: keys pass unchanged.
                assert_eq!(chosen, values);
                continue;
            }
            squeezed += 1;
            let naive: Vec<u64> = values
                .iter()
                .map(|&value| gather_bits(value, keep))
                .collect();
            assert_eq!(by_runs, naive, "used {used:#x} keep {keep:#x}");
            assert_eq!(chosen, naive, "used {used:#x} keep {keep:#x}");
            assert!(naive
                .iter()
                .all(|&value| value & !squeeze.width_mask() == 0));
        }
        assert!(squeezed > 500, "{squeezed} of 2000 masks saved a chunk");
        // Squeezed always, to 32 bits, from 64-bit and 32-bit keys alike.
        for round in 0..500 {
            let used = next() >> (round % 64);
            let mut keep = used;
            while keep.count_ones() > 32 {
                keep &= keep - 1;
            }
            if keep == 0 {
                continue;
            }
            squeeze.set_always(keep);
            let values: Vec<u64> = (0..20).map(|_| next() & used).collect();
            let naive: Vec<u64> = values
                .iter()
                .map(|&value| gather_bits(value, keep))
                .collect();
            let mut words = vec![0u32; 20];
            squeeze.apply_words(&values, &mut words);
            let words: Vec<u64> = words.into_iter().map(u64::from).collect();
            assert_eq!(words, naive, "keep {keep:#x}");
            let mut by_runs = values.clone();
            squeeze.apply_by_runs(&mut by_runs);
            assert_eq!(by_runs, naive, "keep {keep:#x}");
            let narrow: Vec<u32> = values.iter().map(|&value| value as u32).collect();
            let mut out = Vec::new();
            squeeze.apply_into(&narrow, &mut out);
            let expected: Vec<u64> = narrow
                .iter()
                .map(|&value| gather_bits(value.into(), keep))
                .collect();
            assert_eq!(out, expected, "keep {keep:#x}");
            // Every path's loop for 32-bit keys, past a step of 16 and not.
            for path in MatcherPath::ALL.into_iter().filter(|path| path.runs_here()) {
                let narrow: Vec<u32> = (0..(round % 50)).map(|_| (next() & used) as u32).collect();
                let expected: Vec<u64> = narrow
                    .iter()
                    .map(|&value| gather_bits(value.into(), keep))
                    .collect();
                let mut out = vec![7; 3];
                squeeze.apply_words_into(path, &narrow, &mut out);
                assert_eq!(out, expected, "{path:?}, keep {keep:#x}");
            }
        }
        // A gather takes the bits in order.
        assert_eq!(gather_bits(0b1011_0100, 0b1111_0000), 0b1011);
        assert_eq!(gather_bits(u64::MAX, 1 << 63 | 1), 0b11);
    }
}
