//! The glues against each other and against the portable twin.

use super::*;
use crate::random::SplitMix64;

/// A random move onto a board of `geo`, with no class if `classless`.
fn random_move(state: &mut SplitMix64, geo: Geometry, classless: bool) -> Move {
    let lo = geo.lo;
    Move {
        shifts: (state.next() as u32 % lo + 1, state.next() as u32 % lo),
        overlap: (state.next() as u32 % lo, state.next() as u32 % lo),
        forbid: (
            state.next() & state.next() & state.next(),
            state.next() & state.next() & state.next(),
        ),
        geo,
        class_keys: if classless {
            0
        } else {
            state.next() & state.next() & state.next()
        },
    }
}

/// Every glue this CPU runs places and joins as the portable one does,
/// on random cells of every length up to 40 and random moves.
fn agrees_with_portable<G: Glue>(glue: G) {
    let mut state = SplitMix64(0x1234_5678_9abc_def1);
    let (mut placed, mut expected) = (<[Placed; 2]>::default(), <[Placed; 2]>::default());
    let (mut keys, mut expected_keys) = (Vec::new(), Vec::new());
    let mut kept = [0usize; 2];
    let mut few_south = [0usize; 2];
    for round in 0..3000 {
        let geo = Geometry::new(5 + (round % 28) as u32);
        let side = geo.h;
        // Every fourth move without a class (as every east half's),
        // whose vector loops skip the class list.
        let how = random_move(&mut state, geo, round % 4 == 0);
        let local = (1u64 << (2 * side - 1)) - 1;
        let cell: Vec<u64> = (0..round % 41)
            .map(|_| state.next() & (local | local << 32))
            .collect();
        glue.place(&how, &cell, &mut placed);
        PortableGlue.place(&how, &cell, &mut expected);
        for class in 0..2 {
            assert_eq!(
                placed[class].checks, expected[class].checks,
                "round {round}"
            );
            assert_eq!(placed[class].keys, expected[class].keys, "round {round}");
            kept[class] += placed[class].len();
        }
        // North from the first list, south from a second cell.
        let south_cell: Vec<u64> = (0..(round * 7) % 37)
            .map(|_| state.next() & (local | local << 32))
            .collect();
        let mut south = <[Placed; 2]>::default();
        PortableGlue.place(&how, &south_cell, &mut south);
        let north = &expected[0];
        let left = state.next() as usize % 64;
        let prefix = state.next() % 5;
        keys.clear();
        expected_keys.clear();
        keys.extend(0..prefix);
        expected_keys.extend(0..prefix);
        glue.join(
            &north.checks,
            &north.keys,
            SouthCell::of(&south[0]),
            left,
            &mut keys,
        );
        PortableGlue.join(
            &north.checks,
            &north.keys,
            SouthCell::of(&south[0]),
            left,
            &mut expected_keys,
        );
        assert_eq!(keys, expected_keys, "round {round}");
        // One and two south placements, which the vector loops take
        // several north ones a step for, against every count of north
        // placements up to a few steps' worth.
        for south_len in 1..=2.min(south[0].len()) {
            // SAFETY: the first placements of a list whose padding
            // the place wrote.
            let south = unsafe { SouthCell::within(&south[0], 0, south_len) };
            let norths = round % 12.min(north.len() + 1);
            keys.clear();
            expected_keys.clear();
            glue.join(
                &north.checks[..norths],
                &north.keys[..norths],
                south,
                0,
                &mut keys,
            );
            PortableGlue.join(
                &north.checks[..norths],
                &north.keys[..norths],
                south,
                0,
                &mut expected_keys,
            );
            assert_eq!(keys, expected_keys, "round {round}, {south_len} south");
            few_south[south_len - 1] += expected_keys.len();
        }
    }
    // Both lists were exercised, and joins of one and two south
    // placements kept pairs.
    assert!(few_south.iter().all(|&kept| kept > 100), "{few_south:?}");
    assert!(kept.iter().all(|&count| count > 1000), "{kept:?}");
}

/// Placing a row set whole ([`Glue::place_rows`]) finds every cell's
/// placements, in both lists, as placing the cell alone does: random
/// row sets cut into random cells (empty ones too), every glue this
/// CPU runs.
fn places_rows_as_cells<G: Glue>(glue: G) {
    let mut state = SplitMix64(0x0f1e_2d3c_4b5a_6978);
    let mut rows = PlacedRows::default();
    let mut alone = <[Placed; 2]>::default();
    let mut kept = [0usize; 2];
    for round in 0..500 {
        let geo = Geometry::new(5 + (round % 28) as u32);
        let how = random_move(&mut state, geo, round % 3 == 0);
        let local = (1u64 << (2 * geo.h - 1)) - 1;
        let placements: Vec<u64> = (0..state.next() % 300)
            .map(|_| state.next() & (local | local << 32))
            .collect();
        glue.place_rows(&how, &placements, &mut rows);
        // Cells of 0 to 12 placements, end to end.
        let mut start = 0;
        while start <= placements.len() {
            let len = (state.next() % 13) as usize;
            let len = len.min(placements.len() - start);
            PortableGlue.place(&how, &placements[start..start + len], &mut alone);
            let (from, to) = (rows.position(start), rows.position(start + len));
            for class in 0..2 {
                let list = &rows.lists[class];
                assert_eq!(
                    list.checks[from[class]..to[class]],
                    alone[class].checks[..],
                    "round {round}, cell at {start}"
                );
                assert_eq!(list.keys[from[class]..to[class]], alone[class].keys[..]);
                kept[class] += alone[class].len();
            }
            if start == placements.len() {
                break;
            }
            start += len;
        }
        // The padding a vector join may read is written.
        for list in &rows.lists {
            let south = SouthCell::of(list);
            assert!(south.checks[south.len..].iter().all(|&check| check == 0));
        }
    }
    assert!(kept.iter().all(|&count| count > 1000), "{kept:?}");
}

/// Runs `check` on every glue this CPU has: the one list of glues the
/// tests hold against each other.
macro_rules! on_every_glue {
    ($check:ident) => {{
        $check(PortableGlue);
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(glue) = Avx2Glue::here() {
                $check(glue);
            }
            if let Some(glue) = Avx512Glue::here() {
                $check(glue);
            }
        }
    }};
}

#[test]
fn row_sets_placed_whole_match_their_cells() {
    on_every_glue!(places_rows_as_cells);
}

#[test]
fn vector_glues_agree_with_portable() {
    on_every_glue!(agrees_with_portable);
}

#[test]
fn portable_join_keeps_the_disjoint_pairs() {
    let mut south = Placed::default();
    south.clear_for(3);
    south.checks.extend([0b001, 0b010, 0b100]);
    south.keys.extend([10 << 8, 20 << 8, 30 << 8]);
    // SAFETY: three slots written, room for the padding made.
    unsafe { south.finish(3) };
    let mut keys = Vec::new();
    PortableGlue.join(
        &[0b011, 0b000],
        &[1, 2],
        SouthCell::of(&south),
        0,
        &mut keys,
    );
    assert_eq!(keys, [1 | 30 << 8, 2 | 10 << 8, 2 | 20 << 8, 2 | 30 << 8]);
}
