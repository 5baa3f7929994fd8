//! The layout the GPU kernel reads (see `pairs.cuh`): stored keys sorted
//! into buckets by their pattern on a few cut bits, queries sorted by
//! theirs, so that a query meets only the buckets its pattern leaves free
//! and the threads of a warp walk the same ones.

/// Most cut bits a layout takes (`NQ_MAX_CUTS` in the kernel).
pub(super) const MAX_CUTS: usize = 12;

/// Cut bits past which the buckets cost more than they save: with `k`
/// cuts a query walks up to 2^k buckets, so at least a few keys a bucket.
fn cuts_for(stored: usize, offered: usize) -> usize {
    let mut cuts = offered.min(MAX_CUTS);
    while cuts > 0 && (stored >> cuts) < 4 {
        cuts -= 1;
    }
    cuts
}

/// The pattern of `key` on `cuts` (bit i set when cut i is).
#[inline]
pub(super) fn pattern(key: u64, cuts: &[u64]) -> u32 {
    cuts.iter().enumerate().fold(0, |pattern, (i, cut)| {
        pattern | (u32::from(key & cut != 0) << i)
    })
}

/// Stored keys in buckets by pattern.
#[derive(Clone, Debug, Default)]
pub(super) struct StoredLayout {
    /// The cut bits (single bits).
    pub(super) cuts: Vec<u64>,
    /// The keys, bucket after bucket.
    pub(super) keys: Vec<u64>,
    /// `bucket_start[p]..bucket_start[p + 1]`: bucket `p`'s keys.
    pub(super) bucket_start: Vec<u32>,
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
        let cuts = cuts_for(stored.len(), offered.len());
        self.cuts.clear();
        self.cuts.extend_from_slice(&offered[..cuts]);
        let buckets = 1usize << cuts;
        self.bucket_start.clear();
        self.bucket_start.resize(buckets + 1, 0);
        for &key in stored {
            self.bucket_start[pattern(key, &self.cuts) as usize + 1] += 1;
        }
        for p in 0..buckets {
            self.bucket_start[p + 1] += self.bucket_start[p];
        }
        let mut next = self.bucket_start.clone();
        self.keys.clear();
        self.keys.resize(stored.len(), 0);
        for &key in stored {
            let slot = &mut next[pattern(key, &self.cuts) as usize];
            self.keys[*slot as usize] = key;
            *slot += 1;
        }
    }

    /// Cut bits in use.
    pub(super) fn cut_count(&self) -> u32 {
        self.cuts.len() as u32
    }

    /// For each pattern `m`, the keys of the buckets whose pattern lies
    /// within `m` (a sum over subsets): a query of pattern `q` decides
    /// `within[!q & mask]` pairs.
    pub(super) fn keys_within(&self) -> Vec<u64> {
        let buckets = self.bucket_start.len() - 1;
        let mut within: Vec<u64> = (0..buckets)
            .map(|p| u64::from(self.bucket_start[p + 1] - self.bucket_start[p]))
            .collect();
        for bit in 0..self.cuts.len() {
            for pattern in 0..buckets {
                if pattern & (1 << bit) != 0 {
                    within[pattern] += within[pattern ^ (1 << bit)];
                }
            }
        }
        within
    }
}

/// Queries sorted by pattern, with their patterns.
#[derive(Clone, Debug, Default)]
pub(super) struct QueryLayout {
    /// The queries (each with the batch's extra bits), by pattern.
    pub(super) keys: Vec<u64>,
    /// Each query's pattern.
    pub(super) patterns: Vec<u32>,
    counts: Vec<u32>,
}

impl QueryLayout {
    /// Lays out `queries`, each with `extra` added, on `stored`'s cuts.
    pub(super) fn fill(&mut self, queries: &[u64], extra: u64, stored: &StoredLayout) {
        let buckets = 1usize << stored.cuts.len();
        self.counts.clear();
        self.counts.resize(buckets + 1, 0);
        for &query in queries {
            self.counts[pattern(query | extra, &stored.cuts) as usize + 1] += 1;
        }
        for p in 0..buckets {
            self.counts[p + 1] += self.counts[p];
        }
        self.keys.clear();
        self.keys.resize(queries.len(), 0);
        self.patterns.clear();
        self.patterns.resize(queries.len(), 0);
        for &query in queries {
            let query = query | extra;
            let p = pattern(query, &stored.cuts);
            let slot = &mut self.counts[p as usize];
            self.keys[*slot as usize] = query;
            self.patterns[*slot as usize] = p;
            *slot += 1;
        }
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
        let cuts: Vec<u64> = [5, 17, 40, 41, 63].iter().map(|bit| 1u64 << bit).collect();
        let layout = StoredLayout::new(&stored, &cuts);
        assert_eq!(layout.cuts, cuts);
        let mut sorted = layout.keys.clone();
        sorted.sort_unstable();
        let mut expected = stored.clone();
        expected.sort_unstable();
        assert_eq!(sorted, expected);
        for p in 0..1u32 << cuts.len() {
            let (from, to) = (
                layout.bucket_start[p as usize],
                layout.bucket_start[p as usize + 1],
            );
            for &key in &layout.keys[from as usize..to as usize] {
                assert_eq!(pattern(key, &cuts), p);
            }
        }
        // The pairs a query decides: the keys of the buckets it walks.
        let within = layout.keys_within();
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
    fn a_small_part_takes_fewer_cuts() {
        let cuts: Vec<u64> = (0..12).map(|bit| 1u64 << bit).collect();
        assert_eq!(StoredLayout::new(&keys(1, 10, 1), &cuts).cut_count(), 1);
        assert_eq!(StoredLayout::new(&keys(1, 3, 1), &cuts).cut_count(), 0);
        assert_eq!(
            StoredLayout::new(&keys(1, 1 << 20, 1), &cuts).cut_count(),
            12
        );
        assert_eq!(StoredLayout::new(&[], &cuts).bucket_start, vec![0, 0]);
    }
}
