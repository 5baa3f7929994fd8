//! The cut bits a split matcher parts its keys on: the bits most pairs
//! of a stored and a query key collide on, from a sample's bit counts.

#[cfg(target_arch = "x86_64")]
use super::matcher::gfni_fill_runs_here;
use super::matcher::{matcher_path, MatcherPath};

/// The cut bits for pairing `stored` with `queries`: the bits whose
/// p * q (the share of pairs they rule out) is largest, best first, at
/// most `max` of them, and none that rules out less than 1/16.
pub fn choose_cuts(stored: &[u64], queries: &[u64], max: usize) -> Vec<u64> {
    let (stored_counts, s) = bit_counts(stored, SAMPLE);
    let (query_counts, q) = bit_counts(queries, SAMPLE);
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

/// How many of a sample of `keys` (at most `sample` of them, evenly
/// spaced, so the choice is deterministic) have each bit set, and the
/// sample's size: with AVX2 on the paths that have it, and on the
/// AVX-512 path by bytes where the CPU has GFNI and BITALG.
pub(crate) fn bit_counts(keys: &[u64], sample: usize) -> ([u32; 64], usize) {
    #[cfg(target_arch = "x86_64")]
    match matcher_path() {
        MatcherPath::Avx512 if gfni_counts_run_here() => {
            // SAFETY: just found that the CPU has the features.
            return unsafe { bit_counts_gfni(keys, sample) };
        }
        // SAFETY: both paths are chosen only on a CPU with AVX2.
        MatcherPath::Avx2 | MatcherPath::Avx512 => return unsafe { bit_counts_avx2(keys, sample) },
        _ => {}
    }
    bit_counts_portable(keys, sample)
}

/// Whether this CPU runs [`bit_counts_gfni`]: the leaves' GFNI fill's
/// features (tested once, there) and BITALG (Zen 4 and later, Intel from
/// Ice Lake).
#[cfg(target_arch = "x86_64")]
fn gfni_counts_run_here() -> bool {
    gfni_fill_runs_here() && std::arch::is_x86_feature_detected!("avx512bitalg")
}

/// [`bit_counts_portable`] eight keys at a time: a `vpermb` gathers byte
/// c of each of the eight keys into u64 c, `gf2p8affineqb` transposes
/// each u64 as an 8 x 8 bit matrix, so that byte j holds the eight keys'
/// bit j, and `vpopcntb` counts them; five instructions for eight keys
/// where the AVX2 loop takes thirteen a key (a dual split's node counts
/// two samples of 64, and that loop was 3% of an N = 28 task, Zen 5).
/// The byte counts are widened to 16 bits every 16 steps, before they
/// can pass 255.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,avx512bitalg,gfni")]
fn bit_counts_gfni(keys: &[u64], sample: usize) -> ([u32; 64], usize) {
    use std::arch::x86_64::*;
    // Byte 8c + q takes byte c of u64 q.
    const fn gather_bytes() -> [u8; 64] {
        let mut index = [0u8; 64];
        let mut at = 0;
        while at < 64 {
            index[at] = ((at % 8) * 8 + at / 8) as u8;
            at += 1;
        }
        index
    }
    const GATHER: [u8; 64] = gather_bytes();
    const STEPS_PER_WIDENING: usize = 16;
    // SAFETY: the array holds the 64 bytes the load reads.
    let gather = unsafe { _mm512_loadu_si512(GATHER.as_ptr().cast()) };
    // Byte b of each u64 selects column b of the matrix (the keys' bytes).
    let select = _mm512_set1_epi64(0x8040_2010_0804_0201_u64 as i64);
    // The counts of bits 0 to 31 and 32 to 63, 16 bits each.
    let (mut low, mut high) = (_mm512_setzero_si512(), _mm512_setzero_si512());
    let mut widen = |bytes: __m512i| {
        low = _mm512_add_epi16(low, _mm512_cvtepu8_epi16(_mm512_castsi512_si256(bytes)));
        high = _mm512_add_epi16(
            high,
            _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64::<1>(bytes)),
        );
    };
    let step = keys.len().div_ceil(sample).max(1);
    let mut picked = keys.iter().step_by(step);
    let (mut bytes, mut steps, mut sampled) = (_mm512_setzero_si512(), 0, 0);
    let mut eight = [0u64; 8];
    // Every key sampled (a dual split's node hands its sample gathered):
    // eight a load, straight from the keys.
    let mut whole = keys.chunks(8);
    loop {
        let (from, len) = if step == 1 {
            match whole.next() {
                Some(group) => (group.as_ptr(), group.len()),
                None => break,
            }
        } else {
            let mut len = 0;
            for (slot, &key) in eight.iter_mut().zip(picked.by_ref()) {
                *slot = key;
                len += 1;
            }
            (eight.as_ptr(), len)
        };
        if len == 0 {
            break;
        }
        sampled += len;
        let present = (1u16 << len).wrapping_sub(1) as u8;
        // SAFETY: the mask reads only the `len` keys at `from`.
        let loaded = unsafe { _mm512_maskz_loadu_epi64(present, from.cast()) };
        let by_byte = _mm512_permutexvar_epi8(gather, loaded);
        let bits = _mm512_gf2p8affine_epi64_epi8::<0>(select, by_byte);
        bytes = _mm512_add_epi8(bytes, _mm512_popcnt_epi8(bits));
        steps += 1;
        if steps == STEPS_PER_WIDENING {
            widen(bytes);
            (bytes, steps) = (_mm512_setzero_si512(), 0);
        }
        if len < 8 {
            break;
        }
    }
    widen(bytes);
    let mut counts = [0u16; 64];
    // SAFETY: 32 u16 slots from 0 and from 32.
    unsafe {
        _mm512_storeu_si512(counts.as_mut_ptr().cast(), low);
        _mm512_storeu_si512(counts[32..].as_mut_ptr().cast(), high);
    }
    (counts.map(u32::from), sampled)
}

/// [`bit_counts_portable`] with AVX2: the sixteen counters in four
/// registers, each lane shifting the key by its own count (a sixth of the
/// baseline build's steps a key).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn bit_counts_avx2(keys: &[u64], sample: usize) -> ([u32; 64], usize) {
    use std::arch::x86_64::*;
    let spread = _mm256_set1_epi64x(0x0001_0001_0001_0001);
    let shifts: [__m256i; 4] = std::array::from_fn(|at| {
        _mm256_setr_epi64x(
            4 * at as i64,
            4 * at as i64 + 1,
            4 * at as i64 + 2,
            4 * at as i64 + 3,
        )
    });
    let mut counters = [_mm256_setzero_si256(); 4];
    let step = keys.len().div_ceil(sample).max(1);
    let mut sampled = 0;
    for &key in keys.iter().step_by(step) {
        sampled += 1;
        let key = _mm256_set1_epi64x(key as i64);
        for (counter, shift) in counters.iter_mut().zip(&shifts) {
            let bits = _mm256_and_si256(_mm256_srlv_epi64(key, *shift), spread);
            *counter = _mm256_add_epi64(*counter, bits);
        }
    }
    let mut lanes = [0u64; 16];
    for (at, counter) in counters.iter().enumerate() {
        // SAFETY: four u64 slots of `lanes` from 4 * at.
        unsafe { _mm256_storeu_si256(lanes[4 * at..].as_mut_ptr().cast(), *counter) };
    }
    (spread_counts(&lanes), sampled)
}

/// The 64 bit counts held as sixteen words of four 16-bit counters: word
/// j counts bits j, j + 16, j + 32 and j + 48.
fn spread_counts(lanes: &[u64; 16]) -> [u32; 64] {
    std::array::from_fn(|bit| ((lanes[bit % 16] >> (16 * (bit / 16))) & 0xffff) as u32)
}

/// [`bit_counts`] in plain Rust.
fn bit_counts_portable(keys: &[u64], sample: usize) -> ([u32; 64], usize) {
    // Sixteen counters of 16 bits per word: word j counts bits j, j + 16,
    // j + 32 and j + 48 of every key, a few shifts and adds per key
    // instead of a step per set bit (which, once per load, costs 4% of a
    // count of N = 18).
    const SPREAD: u64 = 0x0001_0001_0001_0001;
    let mut lanes = [0u64; 16];
    let step = keys.len().div_ceil(sample).max(1);
    let mut sampled = 0;
    for &key in keys.iter().step_by(step) {
        sampled += 1;
        for (shift, lane) in lanes.iter_mut().enumerate() {
            *lane += (key >> shift) & SPREAD;
        }
    }
    (spread_counts(&lanes), sampled)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The naive twin of the bit counts: a step per key and bit.
    fn bit_counts_naive(keys: &[u64], sample: usize) -> ([u32; 64], usize) {
        let mut counts = [0u32; 64];
        let step = keys.len().div_ceil(sample).max(1);
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
    fn cuts_are_the_best_shares_in_order() {
        // Against the definition: every bit's share, sorted by a stable
        // sort (best first, then by bit), those of at least 1/16.
        let mut random = crate::random::SplitMix64(0x7f4a_7c15_9e37_79b9);
        let mut next = || random.next();
        for round in 0..50 {
            let density = |next: &mut dyn FnMut() -> u64| next() | (next() & next());
            let stored: Vec<u64> = (0..round * 7).map(|_| density(&mut next)).collect();
            let queries: Vec<u64> = (0..round * 5 + 3).map(|_| next() & next()).collect();
            let ((stored_counts, s), (query_counts, q)) = (
                bit_counts_naive(&stored, SAMPLE),
                bit_counts_naive(&queries, SAMPLE),
            );
            let mut shares: Vec<(f64, u64)> = (0..64)
                .map(|bit| {
                    let p = stored_counts[bit] as f64 / s.max(1) as f64;
                    (p * query_counts[bit] as f64 / q.max(1) as f64, 1u64 << bit)
                })
                .filter(|&(share, _)| share >= 1.0 / 16.0)
                .collect();
            shares.sort_by(|a, b| b.0.total_cmp(&a.0));
            let expected: Vec<u64> = shares
                .iter()
                .map(|&(_, bit)| bit)
                .take(round % 13)
                .collect();
            assert_eq!(
                choose_cuts(&stored, &queries, round % 13),
                expected,
                "round {round}"
            );
        }
    }

    #[test]
    fn bit_counts_equal_the_naive_ones() {
        let mut random = crate::random::SplitMix64(0x9e37_79b9_7f4a_7c15);
        for sample in [64, SAMPLE] {
            for len in [0, 1, 2, 63, 64, 65, 255, 256, 257, 1000, 5000] {
                let keys: Vec<u64> = (0..len).map(|_| random.next()).collect();
                let naive = bit_counts_naive(&keys, sample);
                assert_eq!(bit_counts(&keys, sample), naive, "{len} keys, {sample}");
                assert_eq!(bit_counts_portable(&keys, sample), naive);
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the CPU has AVX2.
                    assert_eq!(unsafe { bit_counts_avx2(&keys, sample) }, naive);
                }
                #[cfg(target_arch = "x86_64")]
                if gfni_counts_run_here() {
                    // SAFETY: the CPU has the features.
                    let counted = unsafe { bit_counts_gfni(&keys, sample) };
                    assert_eq!(counted, naive, "GFNI, {len} keys, {sample}");
                }
            }
            // Every bit of every sampled key: the counters reach the sample
            // (256 of 256 keys: past a byte's 255).
            for len in [300, 256] {
                let full = vec![u64::MAX; len];
                let (counts, sampled) = bit_counts(&full, sample);
                assert_eq!((counts, sampled), bit_counts_naive(&full, sample));
                assert!(counts.iter().all(|&count| count as usize == sampled));
            }
        }
    }
}
