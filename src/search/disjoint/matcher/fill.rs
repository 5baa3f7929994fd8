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
/// CPU runs.
#[inline(always)]
pub(super) fn fill_blocks<const BY_EIGHTS: bool, const GFNI: bool>(
    layout: &Layout,
    keys: &[u64],
    lines: &mut [Line],
    free: &mut FreeLines,
) {
    for (block_keys, tables) in keys
        .chunks(BLOCK_KEYS)
        .zip(lines.chunks_exact_mut(layout.lines_per_block))
    {
        fill_block::<BY_EIGHTS, GFNI>(&layout.chunks, block_keys, tables, free);
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
    fill_blocks::<true, GFNI>(layout, keys, lines, free);
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
        // SAFETY: the loop above wrote groups 0..groups of every column
        // below `column_groups`.
        let mut words: [__m512i; 8] = std::array::from_fn(|group| {
            if group < groups {
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

/// Builds one block's tables from its (up to 512) keys: every line, each
/// from an earlier one, or `BY_EIGHTS` (where the registers hold six
/// lines) eight lines at a time. `free` is scratch: every line of it the
/// chunks read is written here first.
#[inline(always)]
fn fill_block<const BY_EIGHTS: bool, const GFNI: bool>(
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
    #[cfg(target_arch = "x86_64")]
    if GFNI {
        let width = chunks
            .last()
            .map_or(0, |chunk| chunk.shift + chunk.mask.count_ones());
        // SAFETY: the caller found GFNI, VBMI, BW and AVX-512F. It
        // writes every line below the width, whole.
        unsafe { free_lines_gfni(keys, free, width) };
    }
    if !GFNI || cfg!(not(target_arch = "x86_64")) {
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
        for line in free.iter_mut() {
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
        let mut random = crate::random::SplitMix64(0x243f_6a88_85a3_08d3);
        for len in [0, 1, 7, 8, 9, 63, 64, 65, 200, 447, 448, 511, 512] {
            for width in [1u32, 8, 9, 30, 47, 48, 63, 64] {
                let used = u64::MAX >> (64 - width);
                let keys: Vec<u64> = (0..len).map(|_| random.next() & used).collect();
                let expected = free_lines_naive(&keys);
                // Stale lines past `width` may stay; those below must not.
                let mut free = [Line([0x5a5a_5a5a_5a5a_5a5a; WORDS]); 64];
                // SAFETY: just found that the CPU has the features.
                unsafe { free_lines_gfni(&keys, &mut free, width) };
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
                fill_blocks::<false, false>(&layout, &keys, &mut expected, &mut free);
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
                fill_blocks::<true, false>(&layout, &keys, &mut built, &mut free);
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
