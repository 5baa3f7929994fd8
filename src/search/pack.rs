//! AVX2's stand-in for AVX-512's compress: a shuffle, looked up by the
//! mask of the lanes kept, that moves those lanes to the front. One table
//! of four u64 lanes for the lane search, the join's glue and the split's
//! key filters, one of eight u32 lanes for the split's route entries.

use std::arch::x86_64::*;

/// For each set of kept lanes (`MASKS` = 2^lanes masks), the `vpermd`
/// indices that move those lanes, each `SLOTS` 32-bit slots wide, to the
/// front, in order.
const fn pack_orders<const MASKS: usize, const SLOTS: usize>() -> [[i32; 8]; MASKS] {
    let mut table = [[0i32; 8]; MASKS];
    let mut keep = 0;
    while keep < MASKS {
        let mut packed = 0;
        let mut lane = 0;
        while lane < 8 / SLOTS {
            if keep & (1 << lane) != 0 {
                let mut slot = 0;
                while slot < SLOTS {
                    table[keep][SLOTS * packed + slot] = (SLOTS * lane + slot) as i32;
                    slot += 1;
                }
                packed += 1;
            }
            lane += 1;
        }
        keep += 1;
    }
    table
}

/// For each set of taken lanes (`MASKS` = 2^`LANES` masks), the lanes in
/// the order that puts the other lanes first and the taken ones last,
/// each side in order: a split's partition by one bit (the AVX-512 one
/// applies it to eight u64 lanes by `vpermq`).
pub(crate) const fn partition_lanes<const LANES: usize, const MASKS: usize>() -> [[u8; LANES]; MASKS]
{
    let mut table = [[0u8; LANES]; MASKS];
    let mut taken = 0;
    while taken < MASKS {
        let mut placed = 0;
        let mut side = 0;
        while side < 2 {
            let mut lane = 0;
            while lane < LANES {
                if (taken >> lane) & 1 == side {
                    table[taken][placed] = lane as u8;
                    placed += 1;
                }
                lane += 1;
            }
            side += 1;
        }
        taken += 1;
    }
    table
}

/// [`partition_lanes`] of four u64 lanes as `vpermd` indices (two 32-bit
/// slots a lane).
const fn partition_orders() -> [[i32; 8]; 16] {
    let lanes = partition_lanes::<4, 16>();
    let mut table = [[0i32; 8]; 16];
    let mut taken = 0;
    while taken < 16 {
        let mut place = 0;
        while place < 4 {
            let lane = lanes[taken][place] as i32;
            table[taken][2 * place] = 2 * lane;
            table[taken][2 * place + 1] = 2 * lane + 1;
            place += 1;
        }
        taken += 1;
    }
    table
}

/// Four u64 lanes, free ones first: 16 masks.
const PARTITION4: [[i32; 8]; 16] = partition_orders();

/// Four u64 lanes (two 32-bit slots each): 16 masks.
const PACK4: [[i32; 8]; 16] = pack_orders::<16, 2>();

/// Eight u32 lanes: 256 masks (8 KB).
const PACK8: [[i32; 8]; 256] = pack_orders::<256, 1>();

/// The shuffle that packs the lanes of mask `keep` (bit i: u64 lane i) to
/// the front, for `_mm256_permutevar8x32_epi32`.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn pack_order(keep: usize) -> __m256i {
    load_order(&PACK4[keep & 0xf])
}

/// `values` with the lanes of mask `keep` packed to the front.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn pack4(values: __m256i, keep: usize) -> __m256i {
    _mm256_permutevar8x32_epi32(values, pack_order(keep))
}

/// `values` with the lanes not in mask `taken` at the front and those in
/// it at the back, each side in order.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn partition4(values: __m256i, taken: usize) -> __m256i {
    _mm256_permutevar8x32_epi32(values, load_order(&PARTITION4[taken & 0xf]))
}

/// `values` (eight u32 lanes) with the lanes of mask `keep` packed to the
/// front.
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) fn pack8(values: __m256i, keep: usize) -> __m256i {
    _mm256_permutevar8x32_epi32(values, load_order(&PACK8[keep & 0xff]))
}

/// A table row as `vpermd` indices.
#[target_feature(enable = "avx2")]
#[inline]
fn load_order(order: &[i32; 8]) -> __m256i {
    // SAFETY: the row holds the 8 i32 the unaligned load reads.
    unsafe { _mm256_loadu_si256(order.as_ptr().cast()) }
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

    #[test]
    fn every_mask_puts_its_lanes_at_the_back_and_the_others_in_front() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let values = [11u64, 22, 33, 44];
        for taken in 0..16usize {
            let (back, front): (Vec<usize>, Vec<usize>) =
                (0..4).partition(|lane| taken & (1 << lane) != 0);
            let mut out = [0u64; 4];
            // SAFETY: the CPU has AVX2 (checked above); `out` and `values`
            // hold the 4 u64 the load and store touch.
            unsafe {
                let lanes = _mm256_loadu_si256(values.as_ptr().cast());
                _mm256_storeu_si256(out.as_mut_ptr().cast(), partition4(lanes, taken));
            }
            let expected: Vec<u64> = front
                .into_iter()
                .chain(back)
                .map(|lane| values[lane])
                .collect();
            assert_eq!(&out[..], &expected[..], "mask {taken:#06b}");
        }
    }

    #[test]
    fn every_mask_packs_its_u32_lanes_to_the_front_in_order() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let values = [11u32, 22, 33, 44, 55, 66, 77, 88];
        for keep in 0..256usize {
            let expected: Vec<u32> = (0..8)
                .filter(|lane| keep & (1 << lane) != 0)
                .map(|lane| values[lane])
                .collect();
            let mut out = [0u32; 8];
            // SAFETY: the CPU has AVX2 (checked above); `out` and `values`
            // hold the 8 u32 the load and store touch.
            unsafe {
                let lanes = _mm256_loadu_si256(values.as_ptr().cast());
                _mm256_storeu_si256(out.as_mut_ptr().cast(), pack8(lanes, keep));
            }
            assert_eq!(&out[..expected.len()], &expected[..], "mask {keep:#010b}");
        }
    }
}
