//! AVX2's stand-in for AVX-512's compress: a shuffle, looked up by the
//! mask of the lanes kept, that moves those lanes to the front. One table
//! for the lane search and the join's glue.

use std::arch::x86_64::*;

/// For each set of kept lanes (4 bits), the `vpermd` indices that move
/// those u64 lanes (two 32-bit halves each) to the front, in order.
const PACK4: [[i32; 8]; 16] = {
    let mut table = [[0i32; 8]; 16];
    let mut keep = 0;
    while keep < 16 {
        let mut packed = 0;
        let mut lane: i32 = 0;
        while lane < 4 {
            if keep & (1 << lane) != 0 {
                table[keep][2 * packed] = 2 * lane;
                table[keep][2 * packed + 1] = 2 * lane + 1;
                packed += 1;
            }
            lane += 1;
        }
        keep += 1;
    }
    table
};

/// The shuffle that packs the lanes of mask `keep` (bit i: u64 lane i) to
/// the front, for `_mm256_permutevar8x32_epi32`.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn pack_order(keep: usize) -> __m256i {
    let order = &PACK4[keep & 0xf];
    // SAFETY: the row holds the 8 i32 the unaligned load reads.
    unsafe { _mm256_loadu_si256(order.as_ptr().cast()) }
}

/// `values` with the lanes of mask `keep` packed to the front.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn pack4(values: __m256i, keep: usize) -> __m256i {
    _mm256_permutevar8x32_epi32(values, pack_order(keep))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mask_packs_its_lanes_to_the_front_in_order() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let values = [11u64, 22, 33, 44];
        for keep in 0..16usize {
            let expected: Vec<u64> = (0..4)
                .filter(|lane| keep & (1 << lane) != 0)
                .map(|lane| values[lane])
                .collect();
            let mut out = [0u64; 4];
            // SAFETY: the CPU has AVX2 (checked above); `out` and `values`
            // hold the 4 u64 the load and store touch.
            unsafe {
                let lanes = _mm256_loadu_si256(values.as_ptr().cast());
                _mm256_storeu_si256(out.as_mut_ptr().cast(), pack4(lanes, keep));
            }
            assert_eq!(&out[..expected.len()], &expected[..], "mask {keep:#06b}");
        }
    }
}
