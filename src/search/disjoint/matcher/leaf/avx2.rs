//! The AVX2 leaf loop: a line is two 256-bit registers, summed through
//! carry-save adders.

use std::arch::x86_64::*;

use super::super::{Layout, AVX2_BYTE_ROUNDS};
use super::{position, Leaf, Routed};

impl Leaf {
    /// The AVX2 loop. A line is two 256-bit halves, and only the total
    /// over all queries is wanted, so the ANDs are not counted one by one:
    /// carry-save adders (Harley and Seal) fold the halves of two queries
    /// into running ones, twos and fours, and only their weight-8 carry is
    /// counted per byte (a nibble table lookup); the byte counts of up to
    /// [`AVX2_BYTE_ROUNDS`] carries are
    /// summed before one `vpsadbw` widens them. Counting every half by
    /// lookup takes 28 of the 44 vector steps of a query and block pair.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt,avx2")]
    pub(super) fn sum_avx2<const S: usize, const CHUNKS: usize>(
        &self,
        layout: &Layout,
        routed: Routed,
    ) -> u64 {
        let chunks = if CHUNKS > 0 {
            CHUNKS
        } else {
            layout.chunks.len()
        };
        let rows = routed.offset_rows::<S>();
        let lookup = _mm256_setr_epi8(
            0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2,
            3, 3, 4,
        );
        let nibbles = _mm256_set1_epi8(0x0f);
        let zero = _mm256_setzero_si256();
        let count_bytes = |words: __m256i| {
            let low = _mm256_and_si256(words, nibbles);
            let high = _mm256_and_si256(_mm256_srli_epi16::<4>(words), nibbles);
            _mm256_add_epi8(
                _mm256_shuffle_epi8(lookup, low),
                _mm256_shuffle_epi8(lookup, high),
            )
        };
        // A carry-save adder: the bits of a + b + c as (carry, sum).
        let add3 = |a: __m256i, b: __m256i, c: __m256i| {
            let partial = _mm256_xor_si256(a, b);
            let carry = _mm256_or_si256(_mm256_and_si256(a, b), _mm256_and_si256(partial, c));
            (carry, _mm256_xor_si256(partial, c))
        };
        // The AND of a query's lines at `base`: two halves.
        let and_lines = |base: *const __m256i, offsets: &[u16]| {
            // SAFETY: every offset is the byte offset of a line below
            // lines_per_block (a chunk's first line plus a pattern of its
            // own bits), so each line and its two halves lie in the block
            // at `base`, and lines are 64-byte aligned as the aligned loads
            // need.
            unsafe {
                let line = base.byte_add(usize::from(offsets[0]));
                let (mut low, mut high) = (_mm256_load_si256(line), _mm256_load_si256(line.add(1)));
                for &offset in &offsets[1..] {
                    let line = base.byte_add(usize::from(offset));
                    low = _mm256_and_si256(low, _mm256_load_si256(line));
                    high = _mm256_and_si256(high, _mm256_load_si256(line.add(1)));
                }
                (low, high)
            }
        };
        let (mut ones, mut twos, mut fours) = (zero, zero, zero);
        // Four halves into the running ones and twos; returns their
        // weight-4 carry.
        let mut add4 = |a: __m256i, b: __m256i, c: __m256i, d: __m256i| {
            let (two_ab, one) = add3(ones, a, b);
            let (two_cd, one) = add3(one, c, d);
            ones = one;
            let (four, two) = add3(twos, two_ab, two_cd);
            twos = two;
            four
        };
        // Two weight-4 carries into the running fours; the weight-8 carry
        // is counted per byte, and the byte counts widened every
        // AVX2_BYTE_ROUNDS carries.
        let (mut eights_bytes, mut eights_sums, mut rounds) = (zero, zero, 0);
        let mut add_fours = |four_first: __m256i, four_second: __m256i| {
            let (eight, four) = add3(fours, four_first, four_second);
            fours = four;
            eights_bytes = _mm256_add_epi8(eights_bytes, count_bytes(eight));
            rounds += 1;
            if rounds == AVX2_BYTE_ROUNDS {
                eights_sums = _mm256_add_epi64(eights_sums, _mm256_sad_epu8(eights_bytes, zero));
                (eights_bytes, rounds) = (zero, 0);
            }
        };
        // The AND of a query's lines' low halves at `base`: all a block
        // needs whose keys fill at most its low half (the high halves of
        // its lines are zeros). A quarter of the visits at N = 18 to 24
        // are to such a block, the last of its leaf.
        let and_low_halves = |base: *const __m256i, offsets: &[u16]| {
            // SAFETY: as `and_lines`.
            unsafe {
                let mut low = _mm256_load_si256(base.byte_add(usize::from(offsets[0])));
                for &offset in &offsets[1..] {
                    low = _mm256_and_si256(
                        low,
                        _mm256_load_si256(base.byte_add(usize::from(offset))),
                    );
                }
                low
            }
        };
        // Blocks in pairs, as in the AVX-512 loop, and queries in twos,
        // for the adders (a lone query's partner is zeros). A last pair
        // whose second block is half empty reads three halves a line.
        let per_block = layout.lines_per_block;
        let runs = self.block_runs(per_block);
        let (twos_of_entries, lone_entry) = routed.entries.as_chunks::<2>();
        // Every query's weight-4 carry from `add_query`, two queries a
        // step into the running fours.
        macro_rules! each_query {
            ($add_query:expr) => {{
                let mut add_query = $add_query;
                for &[first_entry, second_entry] in twos_of_entries {
                    let four_first = add_query(first_entry);
                    add_fours(four_first, add_query(second_entry));
                }
                for &entry in lone_entry {
                    add_fours(add_query(entry), zero);
                }
            }};
        }
        for pair in runs.pairs.chunks_exact(2 * per_block) {
            let first = pair.as_ptr().cast::<__m256i>();
            let second = pair[per_block..].as_ptr().cast::<__m256i>();
            // A query's four halves, through the adders.
            each_query!(|entry: u32| {
                let offsets = &rows[position(entry)][..chunks];
                let (a, b) = and_lines(first, offsets);
                let (c, d) = and_lines(second, offsets);
                add4(a, b, c, d)
            });
        }
        let last_pair = runs.half_pair;
        if !last_pair.is_empty() {
            let first = last_pair.as_ptr().cast::<__m256i>();
            let second = last_pair[per_block..].as_ptr().cast::<__m256i>();
            // A query's three halves (the fourth is zeros).
            each_query!(|entry: u32| {
                let offsets = &rows[position(entry)][..chunks];
                let (a, b) = and_lines(first, offsets);
                add4(a, b, and_low_halves(second, offsets), zero)
            });
        }
        for block in runs.lone.chunks_exact(per_block) {
            let base = block.as_ptr().cast::<__m256i>();
            if runs.lone_half {
                // The low halves only, four queries a step.
                let (fours_of_entries, rest) = routed.entries.as_chunks::<4>();
                let low = |entry: u32| and_low_halves(base, &rows[position(entry)][..chunks]);
                for &[e0, e1, e2, e3] in fours_of_entries {
                    add_fours(add4(low(e0), low(e1), low(e2), low(e3)), zero);
                }
                for &entry in rest {
                    add_fours(add4(low(entry), zero, zero, zero), zero);
                }
                continue;
            }
            let halves = |entry: Option<u32>| {
                entry.map_or((zero, zero), |entry| {
                    and_lines(base, &rows[position(entry)][..chunks])
                })
            };
            // Two queries' halves a step.
            let lone = lone_entry.iter().map(|&entry| [Some(entry), None]);
            let entry_twos = twos_of_entries
                .iter()
                .map(|&[first, second]| [Some(first), Some(second)]);
            for [first_entry, second_entry] in entry_twos.chain(lone) {
                let (a, b) = halves(first_entry);
                let (c, d) = halves(second_entry);
                add_fours(add4(a, b, c, d), zero);
            }
        }
        let widen = |bytes: __m256i| _mm256_sad_epu8(bytes, zero);
        let sums = _mm256_add_epi64(
            _mm256_add_epi64(
                _mm256_slli_epi64::<3>(_mm256_add_epi64(eights_sums, widen(eights_bytes))),
                _mm256_slli_epi64::<2>(widen(count_bytes(fours))),
            ),
            _mm256_add_epi64(
                _mm256_slli_epi64::<1>(widen(count_bytes(twos))),
                widen(count_bytes(ones)),
            ),
        );
        let mut lanes = [0u64; 4];
        // SAFETY: `lanes` holds the 4 u64 the unaligned store writes.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), sums) };
        lanes.iter().sum()
    }
}
