//! The `join` method's parts against their naive twins: the matcher and
//! the split against the double loop, the quadrant cells against brute
//! force, and the memory constants against the quadrants.

use nqueens::testing::disjoint::{
    choose_cuts, count_disjoint_naive, take_leaf_work, transpose64, transpose64_naive, Matcher,
    MatcherPath, SplitMatcher, UnexpectedBits, BLOCK_KEYS,
};
use nqueens::testing::SplitMix64;
use proptest::prelude::*;

fn sum_naive(keys: &[u64], queries: &[u64], extra: u64) -> u64 {
    queries
        .iter()
        .map(|&query| count_disjoint_naive(keys, query | extra))
        .sum()
}

/// Sparse pseudo-random keys, like half boards' (a few diagonals set of
/// ~30), from a seed.
fn sparse_keys(seed: u64, width: u32, len: usize) -> Vec<u64> {
    let mask = if width == 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let mut random = SplitMix64(seed);
    let mut next = move || random.next();
    (0..len).map(|_| next() & next() & mask).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]


    /// The cells built by meeting in the middle against a search of every
    /// row in turn: the same cells in the same order, held or not, with
    /// the lower rows' placements held or (a cap of 0 to 4,000) searched at
    /// any depth of the meeting.
    #[test]
    fn row_cells_met_in_the_middle_equal_the_search(
        side in 4u32..=12,
        rows in any::<u32>(),
        pick in any::<u32>(),
        closed in 0u32..=3,
        lower_most in prop::sample::select(vec![0u64, 40, 4_000, u64::MAX]),
        halve in any::<bool>(),
    ) {
        use nqueens::testing::join::RowCells;
        let full = (1u32 << side) - 1;
        let rows = rows & full;
        // Mostly open: a grid's groups close one to three columns.
        let (mut open, mut pick) = (full, pick);
        for _ in 0..closed {
            open &= !(1 << (pick % side));
            pick /= side;
        }
        let mut searched = RowCells::default();
        searched.rebuild_by_search(side, rows, open, u64::MAX);
        let most = if halve { searched.placements() as u64 / 2 } else { u64::MAX };
        searched.rebuild_by_search(side, rows, open, most);
        let mut met = RowCells::default();
        met.rebuild_meeting(side, rows, open, most, lower_most);
        prop_assert_eq!(met.is_whole(), searched.is_whole());
        prop_assert_eq!(met.placements(), searched.placements());
        if met.is_whole() {
            for cols in (0..=full).filter(|cols| cols & !open == 0) {
                prop_assert_eq!(met.cell(cols), searched.cell(cols), "{:b} {:b} {:b}", rows, open, cols);
            }
        }
    }
    #[test]
    fn matcher_equals_the_double_loop(
        width in 1u32..=64,
        // 200, 256, 513, 768, 1100 and 1600 end on a block of at most 256
        // keys (alone or second of a pair), whose lines' high halves
        // every loop skips; 257 and 769 just past it.
        len in prop::sample::select(vec![0usize, 1, 2, 47, 48, 63, 64, 65, 200, 256, 257, 300, 511, 512, 513, 768, 769, 1100, 1600]),
        query_count in 0usize..100,
        seed in any::<u64>(),
        extra in any::<u64>(),
        use_extra in any::<bool>(),
    ) {
        let keys = sparse_keys(seed, width, len);
        let queries = sparse_keys(seed.rotate_left(17) ^ 0x9e37, width, query_count);
        let extra = if use_extra { extra & extra.rotate_left(7) } else { 0 };
        let mut matcher = Matcher::default();
        matcher.load(&keys);
        let expected = sum_naive(&keys, &queries, extra);
        prop_assert_eq!(matcher.sum_disjoint(&queries, extra), expected);
        for path in MatcherPath::ALL {
            if let Some(sum) = matcher.sum_disjoint_on(path, &queries, extra) {
                prop_assert_eq!(sum, expected, "{} loop", path.name());
            }
        }
        for &query in queries.iter().take(5) {
            prop_assert_eq!(matcher.count_disjoint(query), count_disjoint_naive(&keys, query));
        }
    }

    #[test]
    fn split_matcher_equals_the_double_loop(
        width in 1u32..=64,
        len in prop::sample::select(vec![0usize, 1, 5, 48, 200, 513, 768, 1100, 1600, 2500]),
        query_count in 0usize..120,
        seed in any::<u64>(),
        extra in any::<u64>(),
        use_extra in any::<bool>(),
        leaf_min in prop::sample::select(vec![1usize, 3, 16, 64, 512]),
        cut_count in 0usize..=12,
        chosen in any::<bool>(),
    ) {
        let keys = sparse_keys(seed, width, len);
        let queries = sparse_keys(seed.rotate_left(23) ^ 0x51ed, width, query_count);
        let extra = if use_extra { extra & extra.rotate_left(11) } else { 0 };
        // Cuts as the join picks them, or any bits at all (also bits no
        // key uses, and the same bit twice).
        let cuts: Vec<u64> = if chosen {
            choose_cuts(&keys, &queries, cut_count)
        } else {
            (0..cut_count as u64).map(|i| 1u64 << ((seed >> (i * 5)) % 64)).collect()
        };
        // The bits the queries take, as the join tells the load.
        let query_bits = queries.iter().fold(extra, |all, query| all | query);
        let mut split = SplitMatcher::default();
        split.load(&keys, &cuts, leaf_min, query_bits);
        let expected = sum_naive(&keys, &queries, extra);
        prop_assert_eq!(split.sum_disjoint(&queries, extra), Ok(expected));
        for path in MatcherPath::ALL {
            if let Some(sum) = split.sum_disjoint_on(path, &queries, extra) {
                prop_assert_eq!(sum, Ok(expected), "{} loop", path.name());
            }
        }
        // Queried again, and reloaded with other keys, it still agrees.
        prop_assert_eq!(split.sum_disjoint(&queries, 0), Ok(sum_naive(&keys, &queries, 0)));
        let others = sparse_keys(!seed, width, len / 2);
        split.load(&others, &cuts, leaf_min, query_bits);
        let expected_others = sum_naive(&others, &queries, extra);
        prop_assert_eq!(split.sum_disjoint(&queries, extra), Ok(expected_others));
        // Told the queries take only some of their bits, the split either
        // counts right (the bits it dropped were not worth a chunk) or
        // refuses with bits the queries take that some key takes too;
        // loaded again with those, it counts right.
        let told = query_bits & (seed | seed >> 32);
        split.load(&others, &cuts, leaf_min, told);
        match split.sum_disjoint(&queries, extra) {
            Ok(sum) => prop_assert_eq!(sum, expected_others),
            Err(UnexpectedBits(bits)) => {
                let used = others.iter().fold(0, |all, key| all | key);
                prop_assert!(bits != 0 && bits & !(query_bits & !told & used) == 0, "{bits:#x}");
                split.load(&others, &cuts, leaf_min, told | bits);
                prop_assert_eq!(split.sum_disjoint(&queries, extra), Ok(expected_others));
            }
        }
    }

    #[test]
    fn transpose_twice_is_the_identity_and_equals_the_naive_one(
        rows in prop::collection::vec(any::<u64>(), 64),
    ) {
        let rows: [u64; 64] = rows.try_into().unwrap();
        let once = transpose64(rows);
        prop_assert_eq!(once, transpose64_naive(&rows));
        prop_assert_eq!(transpose64(once), rows);
    }
}

#[test]
fn matcher_edge_cases() {
    let mut matcher = Matcher::default();
    // Empty set: nothing matches.
    matcher.load(&[]);
    assert_eq!(matcher.sum_disjoint(&[0, 1, u64::MAX], 0), 0);
    // One key.
    matcher.load(&[0b1010]);
    assert_eq!(matcher.count_disjoint(0b0101), 1);
    assert_eq!(matcher.count_disjoint(0b0010), 0);
    // All-ones keys meet every query but the empty one; zero keys none.
    for len in [1, 100, BLOCK_KEYS, BLOCK_KEYS + 1, 3 * BLOCK_KEYS - 5] {
        matcher.load(&vec![u64::MAX; len]);
        assert_eq!(matcher.count_disjoint(0), len as u64);
        assert_eq!(matcher.count_disjoint(1 << 63), 0);
        matcher.load(&vec![0; len]);
        assert_eq!(matcher.sum_disjoint(&[u64::MAX, 0, 5], 0), 3 * len as u64);
    }
    // Every pair disjoint, for many queries: the loops' per-byte counts
    // of a full block must be widened before they overflow, on every
    // path (blocks in pairs and alone, queries in twos and alone).
    for (len, queries) in [
        (2 * BLOCK_KEYS, 1001),
        (3 * BLOCK_KEYS - 5, 998),
        (BLOCK_KEYS, 77),
    ] {
        matcher.load(&vec![0; len]);
        let zeros = vec![0; queries];
        let expected = (len * queries) as u64;
        assert_eq!(matcher.sum_disjoint(&zeros, 0), expected);
        for path in MatcherPath::ALL {
            if let Some(sum) = matcher.sum_disjoint_on(path, &zeros, 0) {
                assert_eq!(sum, expected, "{} loop, {len} keys", path.name());
            }
        }
    }
    // Reloading replaces the old keys.
    matcher.load(&vec![1; 1000]);
    matcher.load(&vec![2; 600]);
    assert_eq!(matcher.count_disjoint(1), 600);
    assert_eq!(matcher.count_disjoint(2), 0);
}

#[test]
fn the_split_cuts_the_keys_it_can() {
    // Keys 0..4096: bit 0 splits them in halves, bit 1 again; with parts
    // of at least 1000 keys the split stops at four leaves.
    let keys: Vec<u64> = (0..4096).collect();
    let mut split = SplitMatcher::default();
    split.load(&keys, &[1, 2, 4], 1000, u64::MAX);
    assert_eq!(split.leaf_count(), 4);
    // Query 3 takes bits 0 and 1: only keys leaving both free pair with it.
    assert_eq!(split.sum_disjoint(&[3], 0), Ok(4096 / 4));
    // Told the queries take only bits 0, 1 and 3, the leaves keep bit 3
    // alone (every path passes the cuts of bits 0 and 1): one chunk, not
    // two. A query taking bit 5 is refused, not miscounted.
    split.load(&keys, &[1, 2, 4], 1000, 0b1011);
    assert_eq!(split.sum_disjoint(&[3], 0), Ok(4096 / 4));
    assert_eq!(split.sum_disjoint(&[0b1000], 0), Ok(4096 / 2));
    assert_eq!(
        split.sum_disjoint(&[1, 1 << 5], 0),
        Err(UnexpectedBits(1 << 5))
    );
    assert_eq!(
        split.sum_disjoint(&[1], 1 << 7),
        Err(UnexpectedBits(1 << 7))
    );
    // The bits both sides take most often are cut first; a bit no query
    // takes is never cut.
    let stored = [0b111u64, 0b011, 0b001, 0b101];
    let queries = [0b001u64, 0b011, 0b001];
    assert_eq!(choose_cuts(&stored, &queries, 5), vec![0b001, 0b010]);
}

#[test]
fn the_split_packs_the_taken_sides_last_block_into_the_free_sides() {
    // Cut on bit 0: `free` keys leave it free, `taken` keys take it.
    let keys_of = |free: u64, taken: u64| -> Vec<u64> {
        let free_keys = (0..free).map(|i| i << 1);
        free_keys.chain((0..taken).map(|i| i << 1 | 1)).collect()
    };
    let queries = [0u64, 1, 2, 3, 6, 1 << 11];
    // (free keys, taken keys, leaves, blocks query 0 visits, blocks
    // query 1 visits). 700 and 324: the taken side's 324 fit the 188
    // free slots of the free side's last block, so the node is one leaf
    // and query 0 visits two blocks, not three. 900 and 636: 124 of the
    // taken side fit 388's block, query 0 visits 2 + 1 blocks, not 2 + 2,
    // and query 1, which takes the cut bit, still 2. 700 and 400: 188 and
    // 400 do not fit one block, nothing moves.
    for (free, taken, leaves, visits_free, visits_taken) in [
        (700, 324, 1, 2, 2),
        (900, 636, 2, 3, 2),
        (700, 400, 2, 3, 2),
    ] {
        let keys = keys_of(free, taken);
        let mut split = SplitMatcher::default();
        split.load(&keys, &[1], 512, u64::MAX);
        assert_eq!(split.leaf_count(), leaves, "{free} and {taken} keys");
        for (query, visits) in [(0, visits_free), (1, visits_taken)] {
            take_leaf_work();
            assert_eq!(
                split.sum_disjoint(&[query], 0),
                Ok(count_disjoint_naive(&keys, query))
            );
            assert_eq!(
                take_leaf_work().visits,
                visits,
                "query {query}, {free} and {taken} keys"
            );
        }
        assert_eq!(
            split.sum_disjoint(&queries, 0),
            Ok(sum_naive(&keys, &queries, 0))
        );
        // Told that no query takes bit 0, the cut's bit stays in the keys
        // of a leaf that holds both sides, so a query taking it is
        // refused, not miscounted, wherever keys of both sides share a leaf.
        split.load(&keys, &[1], 512, !1);
        match split.sum_disjoint(&[1], 0) {
            Ok(sum) => assert_eq!(sum, count_disjoint_naive(&keys, 1)),
            Err(UnexpectedBits(bits)) => assert_eq!(bits, 1),
        }
    }
}

/// Every non-attacking placement on a `side` square, as (rows, cols,
/// diagonals) in the table's bit layout, by brute force over all subsets of
/// squares.
fn placements_by_brute_force(side: u32) -> Vec<(u32, u32, u64)> {
    let squares = side * side;
    let mut found = Vec::new();
    for subset in 0u64..1 << squares {
        let (mut rows, mut cols, mut diag, mut clash) = (0u32, 0u32, 0u64, false);
        for square in (0..squares).filter(|square| subset >> square & 1 == 1) {
            let (row, col) = (square / side, square % side);
            let d1 = 1u64 << (row + side - 1 - col);
            let d2 = 1u64 << (32 + row + col);
            clash |= rows & 1 << row != 0 || cols & 1 << col != 0 || diag & (d1 | d2) != 0;
            rows |= 1 << row;
            cols |= 1 << col;
            diag |= d1 | d2;
        }
        if !clash {
            found.push((rows, cols, diag));
        }
    }
    found
}

#[test]
fn row_cells_hold_every_placement_of_their_rows_once() {
    use nqueens::testing::join::{count_placements_on, fill_cell, placements, MadeCells, RowCells};
    for side in 1..=7 {
        let all = placements(side);
        if side <= 4 {
            let mut brute = placements_by_brute_force(side);
            let mut naive = all.clone();
            brute.sort_unstable();
            naive.sort_unstable();
            assert_eq!(naive, brute, "side {side}");
        }
        let mut reused = RowCells::default();
        let tiny_budget = 64 * 8;
        let mut tiny = MadeCells::with_budget(tiny_budget);
        let mut roomy = MadeCells::default();
        for rows in 0..1u32 << side {
            let cells = RowCells::build(side, rows);
            // Rebuilt in place after another row set: the same cells.
            reused.rebuild(side, rows ^ 1);
            reused.rebuild(side, rows);
            let mut held = 0;
            for cols in 0..1u32 << side {
                let mut cell = cells.cell(cols).to_vec();
                let mut want: Vec<u64> = all
                    .iter()
                    .filter(|&&(r, c, _)| (r, c) == (rows, cols))
                    .map(|&(_, _, diag)| diag)
                    .collect();
                assert_eq!(reused.cell(cols), &cell[..], "side {side}");
                cell.sort_unstable();
                want.sort_unstable();
                assert_eq!(cell, want, "side {side}, cell {rows:b}/{cols:b}");
                held += cell.len();
            }
            assert_eq!(held, cells.placements());
            assert_eq!(held as u64, count_placements_on(side, rows));
            // Not held: the same cells, made when asked for (and asked
            // twice, from what was made).
            // Kept within a tiny budget (cells past a quarter of it made
            // alone, the others dropped oldest first) and the default one,
            // carried from row set to row set.
            reused.rebuild_within(side, rows, held as u64 / 2);
            assert_eq!(reused.is_whole(), held == 0);
            assert_eq!(reused.placements(), held);
            for made in [&mut tiny, &mut roomy] {
                for _ in 0..2 {
                    for cols in 0..1u32 << side {
                        assert_eq!(reused.cell_in(cols, made), cells.cell(cols));
                        assert_eq!(reused.cell_in(cols, made), cells.cell(cols));
                    }
                }
                assert!(
                    made.bytes() <= (tiny_budget.max(MadeCells::DEFAULT_BUDGET)) + 8 * held as u64
                );
            }
            for cols in 0..1u32 << side {
                let mut filled = Vec::new();
                fill_cell(side, rows, cols, &mut filled);
                assert_eq!(filled, cells.cell(cols));
            }
            // Within open columns (every set of one or two closed, and a
            // sample of others): the same cells inside them, held or made,
            // in the same order; none outside.
            let full = (1u32 << side) - 1;
            for open in (0..1u32 << side).filter(|o| (full & !o).count_ones() <= 2 || o % 7 == 3) {
                for most in [u64::MAX, held as u64 / 2] {
                    reused.rebuild_open(side, rows, open, most);
                    assert_eq!(reused.open(), open);
                    let mut within = 0;
                    for cols in (0..1u32 << side).filter(|c| c & !open == 0) {
                        assert_eq!(reused.cell_in(cols, &mut roomy), cells.cell(cols));
                        within += cells.cell(cols).len();
                    }
                    assert_eq!(reused.placements(), within, "side {side} {rows:b} {open:b}");
                }
            }
        }
    }
}

#[test]
fn a_cell_cache_keeps_row_sets_apart_by_their_open_columns() {
    use nqueens::testing::join::{CellCache, RowCells};
    let side = 7;
    let mut cache = CellCache::with_budget(0);
    let rows = 0b010_1101;
    let whole = RowCells::build(side, rows);
    for open in [0b111_1111, 0b011_1111, 0b111_1110, 0b101_1011] {
        cache.load(side, &[rows, rows ^ 1], open);
        let cells = cache.get(rows, open);
        assert_eq!(cells.open(), open);
        for cols in (0..1u32 << side).filter(|c| c & !open == 0) {
            assert_eq!(cells.cell(cols), whole.cell(cols));
        }
    }
    // Within every column: the whole row set.
    cache.load(side, &[rows], 0b111_1111);
    assert_eq!(cache.get(rows, 0b111_1111).open(), 0b111_1111);
    assert_eq!(cache.get(rows, 0b111_1111).placements(), whole.placements());
}

#[test]
fn the_memory_constants_match_the_quadrants() {
    use nqueens::testing::join::{
        count_placements, count_placements_on, RowCells, LARGEST_CELL, LARGEST_ROW_SET, PLACEMENTS,
    };
    for side in 0..=9u32 {
        if let Some(&placements) = PLACEMENTS.get(side as usize) {
            assert_eq!(count_placements(side), placements, "side {side}");
        }
        let (mut largest, mut largest_cell) = (0, 0);
        for rows in 0..1u32 << side {
            largest = largest.max(count_placements_on(side, rows));
            let cells = RowCells::build(side, rows);
            for cols in 0..1u32 << side {
                largest_cell = largest_cell.max(cells.cell(cols).len() as u64);
            }
        }
        assert_eq!(LARGEST_ROW_SET[side as usize], largest, "side {side}");
        assert_eq!(LARGEST_CELL[side as usize], largest_cell, "side {side}");
    }
}
