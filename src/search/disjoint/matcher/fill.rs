//! A block's bit-sliced tables, built from its keys: per chunk of key
//! bits, one line per pattern of those bits, the keys free on all of them.

use super::{low_bits, transpose64, Chunk, Layout, Line, BLOCK_KEYS, WORDS};

/// Builds the tables of every block of `keys` into `lines`.
#[inline(always)]
pub(super) fn fill_blocks<const BY_EIGHTS: bool>(
    layout: &Layout,
    keys: &[u64],
    lines: &mut [Line],
) {
    for (block_keys, tables) in keys
        .chunks(BLOCK_KEYS)
        .zip(lines.chunks_exact_mut(layout.lines_per_block))
    {
        fill_block::<BY_EIGHTS>(&layout.chunks, block_keys, tables);
    }
}

/// [`fill_blocks`] built for AVX2 (a line is two registers), for the
/// AVX-512 path too: built for AVX-512 the fill stores the transposed
/// columns into the lines by scatters, slow on AMD (a load of a real
/// N = 20 task's 15,384 stored keys, Zen 5: 21.2 us built for AVX-512,
/// 17.3 us for AVX2; 1.9 against 1.6 at N = 18, 67.6 against 56.2 at 22).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(super) fn fill_blocks_avx2(layout: &Layout, keys: &[u64], lines: &mut [Line]) {
    fill_blocks::<true>(layout, keys, lines);
}

/// Builds one block's tables from its (up to 512) keys: every line, each
/// from an earlier one, or `BY_EIGHTS` (where the registers hold six
/// lines) eight lines at a time.
#[inline(always)]
fn fill_block<const BY_EIGHTS: bool>(chunks: &[Chunk], keys: &[u64], tables: &mut [Line]) {
    // free[j] = which keys leave bit j free; padding keys leave nothing.
    let mut free = [Line::ZERO; 64];
    let mut valid = Line::ZERO;
    for (word, group) in keys.chunks(64).enumerate() {
        let mut rows = [0u64; 64];
        for (row, &key) in rows.iter_mut().zip(group) {
            *row = !key;
        }
        let columns = transpose64(rows);
        for (bit, &column) in columns.iter().enumerate() {
            free[bit].0[word] = column & low_bits(group.len());
        }
        valid.0[word] = low_bits(group.len());
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
