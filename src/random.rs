//! A small seeded generator, the same on every machine and release.

/// SplitMix64: a tiny, well-mixed generator, so that a seed gives the same
/// board on every machine and release.
// Public for the tests and benches, through `testing`.
#[cfg_attr(not(feature = "testing"), allow(unreachable_pub))]
pub struct SplitMix64(pub u64);

#[cfg_attr(not(feature = "testing"), allow(unreachable_pub))]
impl SplitMix64 {
    /// The next 64 random bits. Named as generators name it; it never
    /// ends, so it is not an iterator's `next`.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..bound` (bound > 0), by multiply-shift.
    pub fn below(&mut self, bound: usize) -> usize {
        ((u128::from(self.next()) * bound as u128) >> 64) as usize
    }
}
