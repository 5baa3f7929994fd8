//! The layout the GPU kernel reads (see `pairs.cuh`): stored keys sorted
//! into buckets by their pattern on a few cut bits, queries sorted by
//! theirs, so that a query meets only the buckets its pattern leaves free
//! and the threads of a warp walk the same ones.

/// Most cut bits a layout can take (`NQ_MAX_CUTS` in the kernel).
pub(super) const MAX_CUTS: usize = 16;

/// Cut bits a layout takes at most unless told (`NQUEENS_GPU_CUTS`). More
/// cuts decide fewer pairs but walk more buckets, and spread a warp's
/// queries over more patterns (`docs/gpu.md`), which only a GPU can weigh.
pub(super) const DEFAULT_CUTS: usize = 12;

/// Keys a bucket the bucket walk's cuts leave at least, on average.
pub(super) const WALK_KEYS: usize = 4;

/// Cut bits past which the buckets cost more than they save: with `k`
/// cuts a query walks up to 2^k buckets, so at least `per_bucket` keys a
/// bucket on average ([`WALK_KEYS`] for a walk, a block's worth for the
/// sliced matcher); and never more than `most` (at most [`MAX_CUTS`]).
pub(super) fn cuts_for(stored: usize, offered: usize, most: usize, per_bucket: usize) -> usize {
    let mut cuts = offered.min(most).min(MAX_CUTS);
    while cuts > 0 && (stored >> cuts) < per_bucket {
        cuts -= 1;
    }
    cuts
}

/// The pattern of `key` on `cuts` (bit i set when cut i is): the naive
/// twin of [`patterns_into`], whose cuts are in ascending order.
#[cfg(test)]
fn pattern(key: u64, cuts: &[u64]) -> u32 {
    cuts.iter().enumerate().fold(0, |pattern, (i, cut)| {
        pattern | (u32::from(key & cut != 0) << i)
    })
}

/// Sets `patterns` to the pattern of each key of `keys` (with `extra`
/// added) on the cut bits of `cut_mask`, the lowest cut as bit 0: one
/// `pext` a key where the CPU gathers bits fast, else a step per cut.
fn patterns_into(keys: &[u64], extra: u64, cut_mask: u64, patterns: &mut Vec<u32>) {
    patterns.clear();
    patterns.reserve(keys.len());
    #[cfg(target_arch = "x86_64")]
    if crate::system::fast_bit_gather() {
        // SAFETY: the CPU has BMI2 (fast_bit_gather checked it).
        unsafe { patterns_bmi2(keys, extra, cut_mask, patterns) };
        return;
    }
    patterns.extend(keys.iter().map(|&key| gather(key | extra, cut_mask)));
}

/// [`patterns_into`] with one `pext` a key.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2")]
fn patterns_bmi2(keys: &[u64], extra: u64, cut_mask: u64, patterns: &mut Vec<u32>) {
    use std::arch::x86_64::_pext_u64;
    patterns.extend(
        keys.iter()
            .map(|&key| _pext_u64(key | extra, cut_mask) as u32),
    );
}

/// The bits of `key` under `mask`, packed from bit 0 in their order (what
/// `pext` does, and `nq_gather` on the GPU), a step per bit of the mask.
#[inline]
pub(super) fn gather(key: u64, mut mask: u64) -> u32 {
    let mut pattern = 0;
    let mut bit = 0;
    while mask != 0 {
        let low = mask & mask.wrapping_neg();
        pattern |= u32::from(key & low != 0) << bit;
        bit += 1;
        mask ^= low;
    }
    pattern
}

/// A counting sort of keys by pattern: `starts[p]..starts[p + 1]` are
/// pattern `p`'s keys once sorted; `next` is scratch.
#[derive(Clone, Debug, Default)]
struct CountingSort {
    starts: Vec<u32>,
    next: Vec<u32>,
}

impl CountingSort {
    /// Sets `sorted` to `keys` (each with `extra` added) in `buckets`
    /// buckets by their `patterns`, each bucket in the keys' order, and
    /// `sorted_patterns`, where given, to their patterns.
    fn sort(
        &mut self,
        keys: &[u64],
        extra: u64,
        patterns: &[u32],
        buckets: usize,
        sorted: &mut Vec<u64>,
        sorted_patterns: Option<&mut Vec<u32>>,
    ) {
        let CountingSort { starts, next } = self;
        starts.clear();
        starts.resize(buckets + 1, 0);
        for &pattern in patterns {
            starts[pattern as usize + 1] += 1;
        }
        for p in 0..buckets {
            starts[p + 1] += starts[p];
        }
        next.clear();
        next.extend_from_slice(&starts[..buckets]);
        sorted.clear();
        sorted.resize(keys.len(), 0);
        match sorted_patterns {
            None => {
                for (&key, &pattern) in keys.iter().zip(patterns) {
                    let slot = &mut next[pattern as usize];
                    sorted[*slot as usize] = key | extra;
                    *slot += 1;
                }
            }
            Some(sorted_patterns) => {
                sorted_patterns.clear();
                sorted_patterns.resize(keys.len(), 0);
                for (&key, &pattern) in keys.iter().zip(patterns) {
                    let slot = &mut next[pattern as usize];
                    sorted[*slot as usize] = key | extra;
                    sorted_patterns[*slot as usize] = pattern;
                    *slot += 1;
                }
            }
        }
    }
}

/// Stored keys in buckets by pattern.
#[derive(Clone, Debug, Default)]
pub(super) struct StoredLayout {
    /// The cut bits (single bits), in ascending order: bit i of a pattern
    /// is cut i.
    pub(super) cuts: Vec<u64>,
    /// The keys, bucket after bucket.
    pub(super) keys: Vec<u64>,
    /// The cut bits as one mask.
    cut_mask: u64,
    /// Each key's pattern (scratch).
    patterns: Vec<u32>,
    /// The sort, whose starts are the buckets'.
    sort: CountingSort,
}

impl StoredLayout {
    /// Lays out `stored` on at most `offered` of its cut bits (single bits,
    /// best first).
    #[cfg(test)]
    fn new(stored: &[u64], offered: &[u64]) -> StoredLayout {
        let mut layout = StoredLayout::default();
        layout.fill(stored, offered);
        layout
    }

    /// [`StoredLayout::new`] into this layout's buffers.
    pub(super) fn fill(&mut self, stored: &[u64], offered: &[u64]) {
        assert!(stored.len() < u32::MAX as usize, "a part fits u32 offsets");
        // `offered` holds at most what its caller chose to cut.
        let cuts = cuts_for(stored.len(), offered.len(), MAX_CUTS, WALK_KEYS);
        self.cut_mask = offered[..cuts].iter().fold(0, |mask, cut| mask | cut);
        self.cuts.clear();
        self.cuts.extend(
            (0..64)
                .map(|bit| 1u64 << bit)
                .filter(|bit| self.cut_mask & bit != 0),
        );
        patterns_into(stored, 0, self.cut_mask, &mut self.patterns);
        let buckets = 1 << self.cuts.len();
        self.sort
            .sort(stored, 0, &self.patterns, buckets, &mut self.keys, None);
    }

    /// `bucket_start()[p]..bucket_start()[p + 1]`: bucket `p`'s keys.
    pub(super) fn bucket_start(&self) -> &[u32] {
        &self.sort.starts
    }

    /// Cut bits in use.
    pub(super) fn cut_count(&self) -> u32 {
        self.cuts.len() as u32
    }

    /// For each pattern `m`, the keys of the buckets whose pattern lies
    /// within `m` (a sum over subsets): a query of pattern `q` decides
    /// `within[!q & mask]` pairs.
    pub(super) fn keys_within(&self, within: &mut Vec<u64>) {
        let in_bucket: Vec<u32> = self
            .bucket_start()
            .windows(2)
            .map(|bucket| bucket[1] - bucket[0])
            .collect();
        *within = keys_within(&in_bucket);
    }
}

/// For each pattern `m` of 2^k buckets holding `in_bucket` keys each, the
/// keys of the buckets whose pattern lies within `m` (a sum over
/// subsets): a query of pattern `q` decides `within[!q & mask]` pairs.
pub(super) fn keys_within(in_bucket: &[u32]) -> Vec<u64> {
    let mut within: Vec<u64> = in_bucket.iter().map(|&keys| u64::from(keys)).collect();
    let mut bit = 1;
    while bit < within.len() {
        for pattern in 0..within.len() {
            if pattern & bit != 0 {
                within[pattern] += within[pattern ^ bit];
            }
        }
        bit <<= 1;
    }
    within
}

/// Queries sorted by pattern, with their patterns.
#[derive(Clone, Debug, Default)]
pub(super) struct QueryLayout {
    /// The queries (each with the batch's extra bits), by pattern.
    pub(super) keys: Vec<u64>,
    /// Each query's pattern.
    pub(super) patterns: Vec<u32>,
    /// Scratch: the patterns in the batch's order, and the sort.
    unsorted: Vec<u32>,
    sort: CountingSort,
}

impl QueryLayout {
    /// Lays out `queries`, each with `extra` added, on `stored`'s cuts.
    pub(super) fn fill(&mut self, queries: &[u64], extra: u64, stored: &StoredLayout) {
        patterns_into(queries, extra, stored.cut_mask, &mut self.unsorted);
        self.sort.sort(
            queries,
            extra,
            &self.unsorted,
            1 << stored.cuts.len(),
            &mut self.keys,
            Some(&mut self.patterns),
        );
    }
}

/// `len` keys for tests, drawn from `seed`: each bit set with chance
/// 2^-density (the denser, the fewer disjoint pairs).
#[cfg(test)]
pub(super) fn keys(seed: u64, len: usize, density: u32) -> Vec<u64> {
    let mut draws = crate::random::SplitMix64(seed);
    (0..len)
        .map(|_| (0..density).fold(u64::MAX, |key, _| key & draws.next()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_lands_once_in_the_bucket_of_its_pattern() {
        let stored = keys(3, 5000, 2);
        // Offered best first; laid out in ascending order.
        let cuts: Vec<u64> = [40, 5, 63, 17, 41].iter().map(|bit| 1u64 << bit).collect();
        let layout = StoredLayout::new(&stored, &cuts);
        let cuts: Vec<u64> = [5, 17, 40, 41, 63].iter().map(|bit| 1u64 << bit).collect();
        assert_eq!(layout.cuts, cuts);
        let mut sorted = layout.keys.clone();
        sorted.sort_unstable();
        let mut expected = stored.clone();
        expected.sort_unstable();
        assert_eq!(sorted, expected);
        for p in 0..1u32 << cuts.len() {
            let (from, to) = (
                layout.bucket_start()[p as usize],
                layout.bucket_start()[p as usize + 1],
            );
            for &key in &layout.keys[from as usize..to as usize] {
                assert_eq!(pattern(key, &cuts), p);
            }
        }
        // The pairs a query decides: the keys of the buckets it walks.
        let mut within = Vec::new();
        layout.keys_within(&mut within);
        let mask = (1u32 << cuts.len()) - 1;
        for q in [0u32, 1, 0b10110, mask] {
            let walked = stored
                .iter()
                .filter(|&&key| pattern(key, &cuts) & q == 0)
                .count() as u64;
            assert_eq!(within[(!q & mask) as usize], walked, "{q:b}");
        }
        let mut queries = QueryLayout::default();
        let batch = keys(9, 700, 3);
        queries.fill(&batch, 1 << 17, &layout);
        assert!(queries.patterns.windows(2).all(|pair| pair[0] <= pair[1]));
        for (key, p) in queries.keys.iter().zip(&queries.patterns) {
            assert_eq!(key & (1 << 17), 1 << 17);
            assert_eq!(pattern(*key, &cuts), *p);
        }
    }

    #[test]
    fn gathered_patterns_are_the_naive_ones_on_ascending_cuts() {
        let mut draws = crate::random::SplitMix64(11);
        for round in 0..200 {
            // 0 to 12 cut bits anywhere in the key.
            let mut mask = 0u64;
            for _ in 0..round % 13 {
                mask |= 1 << (draws.next() % 64);
            }
            let cuts: Vec<u64> = (0..64)
                .map(|bit| 1u64 << bit)
                .filter(|bit| mask & bit != 0)
                .collect();
            let batch = keys(round, 50, 1 + (round % 3) as u32);
            let extra = if round % 2 == 0 {
                0
            } else {
                draws.next() & draws.next()
            };
            let mut patterns = Vec::new();
            patterns_into(&batch, extra, mask, &mut patterns);
            for (key, got) in batch.iter().zip(&patterns) {
                assert_eq!(gather(key | extra, mask), pattern(key | extra, &cuts));
                assert_eq!(*got, pattern(key | extra, &cuts), "{mask:x}");
            }
        }
    }

    #[test]
    fn a_small_part_takes_fewer_cuts() {
        let cuts: Vec<u64> = (0..12).map(|bit| 1u64 << bit).collect();
        assert_eq!(StoredLayout::new(&keys(1, 10, 1), &cuts).cut_count(), 1);
        assert_eq!(StoredLayout::new(&keys(1, 3, 1), &cuts).cut_count(), 0);
        assert_eq!(
            StoredLayout::new(&keys(1, 1 << 20, 1), &cuts).cut_count(),
            12
        );
        assert_eq!(StoredLayout::new(&[], &cuts).bucket_start(), [0, 0]);
        // Up to the kernel's most, where the keys fill the buckets.
        let cuts: Vec<u64> = (0..20).map(|bit| 1u64 << bit).collect();
        let layout = StoredLayout::new(&keys(1, 1 << 20, 1), &cuts);
        assert_eq!(layout.cut_count() as usize, MAX_CUTS);
        assert_eq!(layout.bucket_start().len(), (1 << MAX_CUTS) + 1);
        assert_eq!(cuts_for(1 << 20, 20, DEFAULT_CUTS, WALK_KEYS), DEFAULT_CUTS);
        assert_eq!(cuts_for(1 << 20, 20, 0, WALK_KEYS), 0);
        // A block's worth a bucket: 2^20 keys take 10 cuts at 1,024.
        assert_eq!(cuts_for(1 << 20, 20, 16, 1024), 10);
        assert_eq!(cuts_for(1023, 20, 16, 1024), 0);
    }
}
