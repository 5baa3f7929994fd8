//! A block's bit-sliced tables, built from its keys: per chunk of key
//! bits, one line per pattern of those bits, the keys free on all of them.

use super::{low_bits, transpose64, Chunk, Layout, Line, BLOCK_KEYS, WORDS};

/// A block's free bits as lines (`free[j]`: the keys that leave bit j
/// free), the fill's scratch: every line a fill reads it writes first.
pub(super) type FreeLines = [Line; 64];

/// [`FreeLines`] kept across loads by whatever loads leaves (one for all
/// of a split matcher's leaves, which load one after another): zeroing
/// its 4 KB for every block had cost 1.2% of an N = 28 task in `memset`
/// (Zen 5). Allocated by its first use.
#[derive(Default)]
pub(crate) struct FillScratch(Option<Box<FreeLines>>);

impl FillScratch {
    /// The lines, allocated (zeroed) at the first call.
    pub(super) fn lines(&mut self) -> &mut FreeLines {
        self.0.get_or_insert_with(|| Box::new([Line::ZERO; 64]))
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> u64 {
        self.0.as_ref().map_or(0, |_| FILL_SCRATCH_BYTES)
    }
}

/// Bytes of a [`FillScratch`] once used.
pub(crate) const FILL_SCRATCH_BYTES: u64 = std::mem::size_of::<FreeLines>() as u64;

/// Builds the tables of every block of `keys` into `lines`, with `free`
/// as scratch (whatever it holds). `GFNI`: the keys' free bits are cut
/// into lines by [`free_lines_gfni`], which the caller has found this
/// CPU runs; else `AVX2`: by [`free_lines_avx2`] (the caller found AVX2);
/// else by [`transpose64`].
#[inline(always)]
pub(super) fn fill_blocks<const BY_EIGHTS: bool, const GFNI: bool, const AVX2: bool>(
    layout: &Layout,
    keys: &[u64],
    lines: &mut [Line],
    free: &mut FreeLines,
) {
    for (block_keys, tables) in keys
        .chunks(BLOCK_KEYS)
        .zip(lines.chunks_exact_mut(layout.lines_per_block))
    {
        fill_block::<BY_EIGHTS, GFNI, AVX2>(&layout.chunks, block_keys, tables, free);
    }
}

/// [`fill_blocks`] built for AVX2 (a line is two registers), for the
/// AVX-512 path too: built for AVX-512 the fill stores the transposed
/// columns into the lines by scatters, slow on AMD (a load of a real
/// N = 20 task's 15,384 stored keys, Zen 5: 21.2 us built for AVX-512,
/// 17.3 us for AVX2; 1.9 against 1.6 at N = 18, 67.6 against 56.2 at 22).
///
/// With `GFNI` (the AVX-512 path on a CPU with GFNI, VBMI and BW: Zen 4
/// and later, Intel from Ice Lake) the free bits are cut into lines by
/// [`free_lines_gfni`] instead of 64 x 64 transposes, which had been 55%
/// of the fill on Zen 4.
///
/// # Safety
/// With `GFNI`, the CPU must have AVX-512F, BW, VBMI and GFNI.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn fill_blocks_avx2<const GFNI: bool>(
    layout: &Layout,
    keys: &[u64],
    lines: &mut [Line],
    free: &mut FreeLines,
) {
    fill_blocks::<true, GFNI, true>(layout, keys, lines, free);
}

/// Whether this CPU runs [`free_lines_gfni`]. Asked at every leaf's
/// load and (with BITALG) every dual split node's bit counts, so the
/// feature tests are made once.
#[cfg(target_arch = "x86_64")]
pub(crate) fn gfni_fill_runs_here() -> bool {
    static RUNS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *RUNS.get_or_init(|| {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vbmi")
            && std::arch::is_x86_feature_detected!("gfni")
    })
}

/// The lines of a block's free bits: `free[j].0[w]` gets bit r set where
/// key 64w + r of `keys` (at most [`BLOCK_KEYS`]) leaves bit j free, for
/// every j below `width` (rounded up to 8; missing keys leave nothing
/// free). What [`transpose64`] of each 64 keys gives, cut without it:
/// eight keys' bytes reordered by one `vpermb` so that each u64 holds
/// one byte of each key, then `gf2p8affineqb` transposes each u64 as an
/// 8 x 8 bit matrix, giving byte j of register m as the keys 8m..8m+7's
/// bit j; two transposes of u64s across registers and one more `vpermb`
/// move those bytes into the lines.
///
/// # Safety
/// The CPU must have AVX-512F, BW, VBMI and GFNI ([`gfni_fill_runs_here`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
pub(super) unsafe fn free_lines_gfni(keys: &[u64], free: &mut [Line; 64], width: u32) {
    use std::arch::x86_64::*;
    use std::mem::MaybeUninit;
    debug_assert!(keys.len() <= BLOCK_KEYS);
    // Byte 8c + q takes byte c of u64 7 - q (reversed, so that the affine
    // step's bit order comes out straight); the plain transpose takes
    // byte c of u64 q.
    const fn byte_transpose(reversed: bool) -> [u8; 64] {
        let mut index = [0u8; 64];
        let mut at = 0;
        while at < 64 {
            let (c, q) = (at / 8, at % 8);
            let row = if reversed { 7 - q } else { q };
            index[at] = (row * 8 + c) as u8;
            at += 1;
        }
        index
    }
    const REVERSED: [u8; 64] = byte_transpose(true);
    const PLAIN: [u8; 64] = byte_transpose(false);
    // SAFETY: each array holds the 64 bytes a load reads.
    let [reversed, plain] =
        [REVERSED, PLAIN].map(|index| unsafe { _mm512_loadu_si512(index.as_ptr().cast()) });
    // Byte b of each u64 selects column b of the matrix the affine step
    // is given.
    let select = _mm512_set1_epi64(0x8040_2010_0804_0201_u64 as i64);
    // Eight registers of eight u64s transposed (u64 k of output r is u64
    // r of input k): three rounds swap the off-diagonal blocks of 4, 2
    // and 1 u64s between pairs of registers, by two-source permutes.
    // Lane p of the lower register of a pair keeps its own where bit
    // `span` of p is clear and takes the upper's lane p - span where set;
    // the upper the reverse.
    const fn swap_lanes(span: usize, upper: bool) -> [i64; 8] {
        let mut lanes = [0i64; 8];
        let mut p = 0;
        while p < 8 {
            let (own, other) = (p as i64, (p ^ span) as i64);
            lanes[p] = match (p & span == 0, upper) {
                (true, false) => own,
                (true, true) => other,
                (false, false) => 8 + other,
                (false, true) => 8 + own,
            };
            p += 1;
        }
        lanes
    }
    const SWAPS: [[[i64; 8]; 2]; 3] = [
        [swap_lanes(4, false), swap_lanes(4, true)],
        [swap_lanes(2, false), swap_lanes(2, true)],
        [swap_lanes(1, false), swap_lanes(1, true)],
    ];
    // SAFETY: each array holds the 8 i64 read.
    let swaps =
        SWAPS.map(|pair| pair.map(|lanes| unsafe { _mm512_loadu_si512(lanes.as_ptr().cast()) }));
    let transpose_u64s = |rows: &mut [__m512i; 8]| {
        for (round, span) in [4, 2, 1].into_iter().enumerate() {
            let [lower, upper] = swaps[round];
            for first in [0, 1, 2, 3, 4, 5, 6, 7] {
                if first & span == 0 {
                    let (a, b) = (rows[first], rows[first + span]);
                    rows[first] = _mm512_permutex2var_epi64(a, lower, b);
                    rows[first + span] = _mm512_permutex2var_epi64(a, upper, b);
                }
            }
        }
    };
    let all = _mm512_set1_epi64(-1);
    let column_groups = (width as usize).div_ceil(8).min(8);
    let groups = keys.len().div_ceil(64);
    // by_column[c][w]: for group w, u64 b holds line 8c + b's word w.
    // Left uninitialised: zeroing all 4 KiB was a `memset` of 1.7% of an
    // N = 28 task (Zen 4), where each entry read is written below.
    let mut by_column = [[MaybeUninit::<__m512i>::uninit(); 8]; 8];
    for (group, group_keys) in keys.chunks(64).enumerate() {
        let mut eights = [_mm512_setzero_si512(); 8];
        for (eight, bytes) in eights.iter_mut().enumerate() {
            let start = 8 * eight;
            if start >= group_keys.len() {
                break;
            }
            let present: __mmask8 =
                (1u16 << (group_keys.len() - start).min(8)).wrapping_sub(1) as u8;
            // SAFETY: the mask reads only the keys present, from `start`,
            // which is within the group.
            let loaded =
                unsafe { _mm512_maskz_loadu_epi64(present, group_keys.as_ptr().add(start).cast()) };
            let free_bits = _mm512_maskz_xor_epi64(present, loaded, all);
            let by_byte = _mm512_permutexvar_epi8(reversed, free_bits);
            // Byte j of `bytes`: bit k is key 8 * eight + k's bit j.
            *bytes = _mm512_gf2p8affine_epi64_epi8::<0>(select, by_byte);
        }
        // eights[c] now, u64 r: byte b holds keys 8r..8r+7's bit 8c + b.
        transpose_u64s(&mut eights);
        for (c, column) in eights.into_iter().enumerate().take(column_groups) {
            // u64 b: byte r is keys 8r..8r+7 at bit 8c + b, so u64 b is
            // line 8c + b's word for this group.
            by_column[c][group].write(_mm512_permutexvar_epi8(plain, column));
        }
    }
    for (c, column) in by_column.iter().enumerate().take(column_groups) {
        // The words of groups past the keys: no key, nothing free (the
        // tables' `valid` line clears them anyway).
        let mut words: [__m512i; 8] = std::array::from_fn(|group| {
            if group < groups {
                // SAFETY: the loop above wrote groups 0..groups of every
                // column below `column_groups`.
                unsafe { column[group].assume_init() }
            } else {
                _mm512_setzero_si512()
            }
        });
        transpose_u64s(&mut words);
        for (b, &line) in words.iter().enumerate() {
            // SAFETY: a line is 64 bytes, aligned to 64.
            unsafe { _mm512_store_si512(free[8 * c + b].0.as_mut_ptr().cast(), line) };
        }
    }
}

/// [`free_lines_gfni`] for AVX2 CPUs (Zen 3, Intel client), with the
/// same contract, without a 64 x 64 transpose (on Zen 4, AVX2 forced, the
/// fill with transposes took 16% of an N = 28 task): 32 keys' bytes
/// regrouped by one `vpshufb` a register, lane swaps and three rounds of
/// unpacks so that register c holds byte c of each key; then each
/// `vpmovmskb` takes one bit of every key, the top of each byte, and an
/// add moves the next bit up.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn free_lines_avx2(keys: &[u64], free: &mut [Line; 64], width: u32) {
    use std::arch::x86_64::*;
    debug_assert!(keys.len() <= BLOCK_KEYS);
    let column_groups = (width as usize).div_ceil(8).min(8);
    // In each lane of two keys a and b: a0 b0 a1 b1 .. a7 b7.
    let pair_bytes = _mm256_setr_epi8(
        0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5,
        13, 6, 14, 7, 15,
    );
    let all = _mm256_set1_epi64x(-1);
    let groups = keys.len().div_ceil(64);
    for (group, group_keys) in keys.chunks(64).enumerate() {
        for half in 0..2 {
            let start = (32 * half).min(group_keys.len());
            let present = &group_keys[start..group_keys.len().min(start + 32)];
            // Missing keys as all ones: nothing free.
            let padded: [u64; 32];
            let source = if present.len() == 32 {
                present
            } else {
                let mut keys = [u64::MAX; 32];
                keys[..present.len()].copy_from_slice(present);
                padded = keys;
                &padded[..]
            };
            // rows[r]: keys 4r..4r+3, free bits, each lane's pair of keys
            // as the pairs of their bytes.
            let rows: [__m256i; 8] = std::array::from_fn(|r| {
                // SAFETY: `source` holds 32 keys; this reads 4 from 4r.
                let loaded = unsafe { _mm256_loadu_si256(source.as_ptr().add(4 * r).cast()) };
                _mm256_shuffle_epi8(_mm256_xor_si256(loaded, all), pair_bytes)
            });
            // x[2r + l]: lane l of rows r (low lane) and r + 4 (high).
            let mut x = [_mm256_setzero_si256(); 8];
            for r in 0..4 {
                x[2 * r] = _mm256_permute2x128_si256::<0x20>(rows[r], rows[r + 4]);
                x[2 * r + 1] = _mm256_permute2x128_si256::<0x31>(rows[r], rows[r + 4]);
            }
            // An 8 x 8 transpose of u16s in each lane: byte pair c of
            // every x[q] to place q of register c.
            let t = [
                _mm256_unpacklo_epi16(x[0], x[1]),
                _mm256_unpackhi_epi16(x[0], x[1]),
                _mm256_unpacklo_epi16(x[2], x[3]),
                _mm256_unpackhi_epi16(x[2], x[3]),
                _mm256_unpacklo_epi16(x[4], x[5]),
                _mm256_unpackhi_epi16(x[4], x[5]),
                _mm256_unpacklo_epi16(x[6], x[7]),
                _mm256_unpackhi_epi16(x[6], x[7]),
            ];
            let u = [
                _mm256_unpacklo_epi32(t[0], t[2]),
                _mm256_unpackhi_epi32(t[0], t[2]),
                _mm256_unpacklo_epi32(t[1], t[3]),
                _mm256_unpackhi_epi32(t[1], t[3]),
                _mm256_unpacklo_epi32(t[4], t[6]),
                _mm256_unpackhi_epi32(t[4], t[6]),
                _mm256_unpacklo_epi32(t[5], t[7]),
                _mm256_unpackhi_epi32(t[5], t[7]),
            ];
            // by_byte[c], byte i: byte c of key 32 * half + i.
            let by_byte = [
                _mm256_unpacklo_epi64(u[0], u[4]),
                _mm256_unpackhi_epi64(u[0], u[4]),
                _mm256_unpacklo_epi64(u[1], u[5]),
                _mm256_unpackhi_epi64(u[1], u[5]),
                _mm256_unpacklo_epi64(u[2], u[6]),
                _mm256_unpackhi_epi64(u[2], u[6]),
                _mm256_unpacklo_epi64(u[3], u[7]),
                _mm256_unpackhi_epi64(u[3], u[7]),
            ];
            for (c, &bytes) in by_byte.iter().enumerate().take(column_groups) {
                let mut bytes = bytes;
                for bit in (0..8).rev() {
                    let keys_free = _mm256_movemask_epi8(bytes) as u32;
                    // SAFETY: half `half` of word `group` of a line (x86
                    // is little-endian: the low half holds keys 0..32).
                    unsafe {
                        let word = free[8 * c + bit].0.as_mut_ptr().add(group);
                        word.cast::<u32>().add(half).write(keys_free);
                    }
                    bytes = _mm256_add_epi8(bytes, bytes);
                }
            }
        }
    }
    if groups < WORDS {
        for line in free.iter_mut().take(8 * column_groups) {
            line.0[groups..].fill(0);
        }
    }
}

/// Builds one block's tables from its (up to 512) keys: every line, each
/// from an earlier one, or `BY_EIGHTS` (where the registers hold six
/// lines) eight lines at a time. `free` is scratch: every line of it the
/// chunks read is written here first.
#[inline(always)]
fn fill_block<const BY_EIGHTS: bool, const GFNI: bool, const AVX2: bool>(
    chunks: &[Chunk],
    keys: &[u64],
    tables: &mut [Line],
    free: &mut FreeLines,
) {
    // free[j] = which keys leave bit j free; padding keys leave nothing.
    let mut valid = Line::ZERO;
    for (word, group) in keys.chunks(64).enumerate() {
        valid.0[word] = low_bits(group.len());
    }
    let width = chunks
        .last()
        .map_or(0, |chunk| chunk.shift + chunk.mask.count_ones());
    #[cfg(target_arch = "x86_64")]
    if GFNI {
        // SAFETY: the caller found GFNI, VBMI, BW and AVX-512F. It
        // writes every line below the width, whole.
        unsafe { free_lines_gfni(keys, free, width) };
    } else if AVX2 {
        // SAFETY: the caller found AVX2. It writes every line below the
        // width, whole.
        unsafe { free_lines_avx2(keys, free, width) };
    }
    if !(GFNI || AVX2) || cfg!(not(target_arch = "x86_64")) {
        let groups = keys.len().div_ceil(64);
        for (word, group) in keys.chunks(64).enumerate() {
            let mut rows = [0u64; 64];
            for (row, &key) in rows.iter_mut().zip(group) {
                *row = !key;
            }
            let columns = transpose64(rows);
            for (bit, &column) in columns.iter().enumerate() {
                free[bit].0[word] = column & low_bits(group.len());
            }
        }
        // The words past the keys are written too: no key, nothing free.
        for line in free.iter_mut().take(width as usize) {
            line.0[groups..].fill(0);
        }
    }
    for chunk in chunks {
        let table = &mut tables[chunk.first_line..chunk.first_line + chunk.mask as usize + 1];
        let free = &free[chunk.shift as usize..];
        if !BY_EIGHTS || table.len() < 8 {
            table[0] = valid;
            for pattern in 1..table.len() {
                let lowest = pattern.trailing_zeros() as usize;
                table[pattern] = and(&table[pattern & (pattern - 1)], &free[lowest]);
            }
            continue;
        }
        // Line p is the keys free on every bit of p. The lines of the two
        // lowest bits' four patterns stay in registers; the lines go by
        // eights, whose first base (the higher bits' line) is one read of
        // a line stored eights before and whose second is that ANDed with
        // bit 2's: no line waits on the line stored just before it (a
        // chain through memory that had taken half the fill). The load of
        // a real N = 20 task's 15,384 stored keys, Zen 5, the AVX2 build:
        // 21.8 to 17.6 us; the portable build (SSE2, a line four of its 16
        // registers) spills them, and keeps the chain.
        let all = Line([u64::MAX; WORDS]);
        let low = [all, free[0], free[1], and(&free[0], &free[1])];
        for eight in 0..table.len() / 8 {
            let (done, lines) = table.split_at_mut(eight * 8);
            let base = if eight == 0 {
                valid
            } else {
                let lowest = eight.trailing_zeros() as usize;
                and(&done[(eight & (eight - 1)) * 8], &free[3 + lowest])
            };
            let next = and(&base, &free[2]);
            let (first, second) = lines[..8].split_at_mut(4);
            for ((line, other), low) in first.iter_mut().zip(second).zip(&low) {
                *line = and(&base, low);
                *other = and(&next, low);
            }
        }
    }
}

/// The words of `a` ANDed with those of `b`.
#[inline(always)]
fn and(a: &Line, b: &Line) -> Line {
    let mut out = *a;
    for (word, other) in out.0.iter_mut().zip(b.0) {
        *word &= other;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lines of free bits by the naive transpose, as `fill_block`
    /// built them before GFNI.
    fn free_lines_naive(keys: &[u64]) -> [Line; 64] {
        let mut free = [Line::ZERO; 64];
        for (word, group) in keys.chunks(64).enumerate() {
            let mut rows = [0u64; 64];
            for (row, &key) in rows.iter_mut().zip(group) {
                *row = !key;
            }
            let columns = super::super::transpose64_naive(&rows);
            for (bit, &column) in columns.iter().enumerate() {
                free[bit].0[word] = column & low_bits(group.len());
            }
        }
        free
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn gfni_free_lines_match_the_naive_transpose() {
        if !gfni_fill_runs_here() {
            eprintln!("skipped: this CPU lacks GFNI or AVX-512 VBMI");
            return;
        }
        // SAFETY: just found that the CPU has the features.
        free_lines_match_the_naive_transpose(|keys, free, width| unsafe {
            free_lines_gfni(keys, free, width)
        });
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_free_lines_match_the_naive_transpose() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            eprintln!("skipped: this CPU lacks AVX2");
            return;
        }
        // SAFETY: just found that the CPU has AVX2.
        free_lines_match_the_naive_transpose(|keys, free, width| unsafe {
            free_lines_avx2(keys, free, width)
        });
    }

    /// Checks a cut of free lines against [`free_lines_naive`] on random
    /// keys of every length class and width.
    #[cfg(target_arch = "x86_64")]
    fn free_lines_match_the_naive_transpose(cut: impl Fn(&[u64], &mut [Line; 64], u32)) {
        let mut random = crate::random::SplitMix64(0x243f_6a88_85a3_08d3);
        for len in [
            0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 96, 200, 447, 448, 479, 511, 512,
        ] {
            for width in [1u32, 8, 9, 30, 47, 48, 63, 64] {
                let used = u64::MAX >> (64 - width);
                let keys: Vec<u64> = (0..len).map(|_| random.next() & used).collect();
                let expected = free_lines_naive(&keys);
                // Stale lines past `width` may stay; those below must not.
                let mut free = [Line([0x5a5a_5a5a_5a5a_5a5a; WORDS]); 64];
                cut(&keys, &mut free, width);
                for bit in 0..width as usize {
                    assert_eq!(
                        free[bit], expected[bit],
                        "{len} keys, width {width}, bit {bit}"
                    );
                }
            }
        }
    }

    #[test]
    fn every_fill_builds_the_naive_tables() {
        let mut random = crate::random::SplitMix64(0x1319_8a2e_0370_7344);
        let mut layout = Layout::default();
        for width in [5u32, 12, 30, 41, 48, 64] {
            let used = u64::MAX >> (64 - width);
            layout.set(used);
            for len in [48, 300, 512, 513, 1100] {
                let keys: Vec<u64> = (0..len).map(|_| random.next() & used).collect();
                let lines = keys.len().div_ceil(BLOCK_KEYS) * layout.lines_per_block;
                // The scratch's stale lines must not reach the tables.
                let mut free = [Line([0x5a5a_5a5a_5a5a_5a5a; WORDS]); 64];
                let mut expected = vec![Line::ZERO; lines];
                fill_blocks::<false, false, false>(&layout, &keys, &mut expected, &mut free);
                // Line p of a chunk against its definition, in the first
                // block: the keys free on every bit of p.
                for chunk in &layout.chunks {
                    for pattern in 0..=chunk.mask {
                        let line = &expected[chunk.first_line + pattern as usize];
                        for (index, &key) in keys.iter().take(BLOCK_KEYS).enumerate() {
                            let free = key & (pattern << chunk.shift) == 0;
                            let bit = line.0[index / 64] >> (index % 64) & 1 == 1;
                            assert_eq!(bit, free, "width {width}, pattern {pattern}");
                        }
                    }
                }
                let mut built = vec![Line::ZERO; lines];
                fill_blocks::<true, false, false>(&layout, &keys, &mut built, &mut free);
                assert!(built == expected, "by eights, width {width}, {len} keys");
                #[cfg(target_arch = "x86_64")]
                for gfni in [false, true] {
                    if gfni && !gfni_fill_runs_here() {
                        continue;
                    }
                    let mut built = vec![Line([u64::MAX; WORDS]); lines];
                    if std::arch::is_x86_feature_detected!("avx2") {
                        // SAFETY: AVX2 just found, and GFNI only where
                        // found above.
                        unsafe {
                            if gfni {
                                fill_blocks_avx2::<true>(&layout, &keys, &mut built, &mut free);
                            } else {
                                fill_blocks_avx2::<false>(&layout, &keys, &mut built, &mut free);
                            }
                        }
                        assert!(
                            built == expected,
                            "AVX2, GFNI {gfni}, width {width}, {len} keys"
                        );
                    }
                }
            }
        }
    }
}
