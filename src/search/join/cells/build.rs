//! How a row set's cells are built: a search of every row in turn (the
//! naive twin), or a meeting in the middle of its upper and lower rows.

#[cfg(target_arch = "x86_64")]
use crate::search::disjoint::vector::{keep_disjoint_entries, Avx2, Avx512, LaneVector};
use crate::search::disjoint::MatcherPath;

/// Calls `visit(cols, diagonals)` for every non-attacking placement on a
/// `side` square with one queen on each row of `rows` and none elsewhere,
/// in a fixed order.
pub(super) fn each_placement_on(side: u32, rows: u32, visit: &mut impl FnMut(u32, u64)) {
    each_placement_within(side, rows, (1 << side) - 1, visit);
}

/// [`each_placement_on`] with the queens on the columns of `open` only,
/// in the same order: a cell's placements when `open` has as many columns
/// as `rows` has rows.
pub(super) fn each_placement_within(
    side: u32,
    rows: u32,
    open: u32,
    visit: &mut impl FnMut(u32, u64),
) {
    /// `left` and `right`: columns of the current row attacked along each
    /// diagonal direction; `row`: the row they are for.
    #[allow(clippy::too_many_arguments)]
    fn below(
        side: u32,
        open: u32,
        rows_left: u32,
        row: u32,
        cols: u32,
        left: u32,
        right: u32,
        diag: u64,
        visit: &mut impl FnMut(u32, u64),
    ) {
        if rows_left == 0 {
            visit(cols, diag);
            return;
        }
        let next = rows_left.trailing_zeros();
        let gap = next - row;
        // An anti-diagonal (i + j) attack moves one column left per row,
        // a diagonal (i - j) one right.
        let left = left >> gap;
        let right = (right << gap) & ((1 << side) - 1);
        let mut free = !(cols | left | right) & open;
        while free != 0 {
            let col = free.trailing_zeros();
            free &= free - 1;
            let bit = 1 << col;
            let d1 = 1u64 << (next + side - 1 - col);
            let d2 = 1u64 << (32 + next + col);
            below(
                side,
                open,
                rows_left & (rows_left - 1),
                next,
                cols | bit,
                left | bit,
                right | bit,
                diag | d1 | d2,
                visit,
            );
        }
    }
    below(side, open, rows, 0, 0, 0, 0, 0, visit);
}

/// Fewest rows whose cells are built by meeting in the middle: below it a
/// search is as fast.
const MEET_MIN_ROWS: u32 = 4;

/// Most placements of the lower rows held while a row set is built (2
/// MiB): the 9- and 10-row sets of N = 28 hold 30 to 200 thousand. Past
/// it the row set is searched instead.
pub(in crate::search::join) const MEET_LOWER_MOST: u64 = 1 << 18;

/// Fills `starts` (one slot per column set of a `side` square and one for
/// the total) with where each cell of `rows` within `open` starts and,
/// if there are at most `most` placements, `diagonals` with the cells
/// themselves: whether it did. Each placement is found once to count and
/// once to write, in the order of [`each_placement_within`].
///
/// A search of every row in turn finds the last rows' placements again
/// for every placement of the first ones (at N = 28, 20 to 50 ns a
/// placement on Zen 3). From [`MEET_MIN_ROWS`] rows, the placements of the
/// lower two thirds of the rows are built first (the same way, grouped
/// by their columns) and each placement of the upper third meets the
/// groups whose columns it leaves free, one AND per pair on the
/// diagonals: 3.3 to 3.6x faster on the 8- to 10-row sets of N = 28 (1.1
/// to 1.6x on 6 rows). Within a cell the placements come out in
/// the search's order: the upper rows' in their order, each followed by
/// its lower rows' in theirs. The meetings run on the loops of `path`
/// (which this CPU must run).
#[allow(clippy::too_many_arguments)]
pub(super) fn build_cells(
    path: MatcherPath,
    side: u32,
    rows: u32,
    open: u32,
    most: u64,
    lower_most: u64,
    starts: &mut Vec<u32>,
    diagonals: &mut Vec<u64>,
) -> bool {
    let Some(lower) = Lower::build(path, side, rows, open, lower_most) else {
        return search_cells(side, rows, open, most, starts, diagonals);
    };
    // The upper rows' placements, listed once: the meetings then run as
    // flat loops, compiled for the path's vectors.
    let mut uppers = Vec::new();
    each_placement_within(side, lower.upper_rows, open, &mut |cols, upper| {
        uppers.push((cols, upper));
    });
    sort_cells(
        side,
        most,
        starts,
        diagonals,
        |counts| lower.meet(path, &uppers, Meeting::Count(counts)),
        |cursors, diagonals| lower.meet(path, &uppers, Meeting::Write(cursors, diagonals)),
    )
}

/// [`build_cells`] by a search of every row in turn.
pub(super) fn search_cells(
    side: u32,
    rows: u32,
    open: u32,
    most: u64,
    starts: &mut Vec<u32>,
    diagonals: &mut Vec<u64>,
) -> bool {
    sort_cells(
        side,
        most,
        starts,
        diagonals,
        |counts| each_placement_within(side, rows, open, &mut |cols, _| counts[cols as usize] += 1),
        |cursors, diagonals| {
            each_placement_within(side, rows, open, &mut |cols, diag| {
                let cursor = &mut cursors[cols as usize];
                diagonals[*cursor as usize] = diag;
                *cursor += 1;
            })
        },
    )
}

/// The counting sort both builds share: `count` adds each cell's
/// placements to its slot; the slots become the cells' starts (the extra
/// one the total); if the total is at most `most`, `diagonals` is sized to
/// it exactly (a doubling would hold up to twice the row set, past what
/// the memory bound counts) and `write` puts each placement at its cell's
/// cursor, the starts serving as cursors. Whether the placements are held
/// (else `diagonals` is empty and only the starts are kept).
fn sort_cells(
    side: u32,
    most: u64,
    starts: &mut Vec<u32>,
    diagonals: &mut Vec<u64>,
    count: impl FnOnce(&mut [u32]),
    write: impl FnOnce(&mut [u32], &mut [u64]),
) -> bool {
    let cells = 1usize << side;
    starts.clear();
    starts.resize(cells + 1, 0);
    count(starts);
    let mut total = 0u32;
    for slot in starts.iter_mut() {
        let here = *slot;
        *slot = total;
        total += here;
    }
    diagonals.clear();
    if u64::from(total) > most {
        return false;
    }
    diagonals.reserve_exact(total as usize);
    diagonals.resize(total as usize, 0);
    write(starts, diagonals);
    // The cursors ended at each cell's end: back to starts, cell c
    // starting where cell c - 1 ended.
    starts.copy_within(0..cells, 1);
    starts[0] = 0;
    true
}

/// The placements of a row set's lower rows grouped by their columns,
/// which each placement of its upper rows meets.
struct Lower {
    upper_rows: u32,
    starts: Vec<u32>,
    diagonals: Vec<u64>,
    /// The column sets of the groups that are not empty, in order.
    groups: Vec<u32>,
}

impl Lower {
    /// The lower rows of `rows` built (the upper third are the first rows,
    /// at least one: fewer placements to meet the groups, each group
    /// larger), or `None` below [`MEET_MIN_ROWS`] rows or past `most`
    /// lower placements.
    fn build(path: MatcherPath, side: u32, rows: u32, open: u32, most: u64) -> Option<Lower> {
        let count = rows.count_ones();
        if count < MEET_MIN_ROWS {
            return None;
        }
        let mut upper_rows = 0;
        let mut left = rows;
        for _ in 0..(count / 3).max(1) {
            upper_rows |= left & left.wrapping_neg();
            left &= left - 1;
        }
        let (mut starts, mut diagonals) = (Vec::new(), Vec::new());
        if !build_cells(
            path,
            side,
            left,
            open,
            most,
            most,
            &mut starts,
            &mut diagonals,
        ) {
            return None;
        }
        let groups = (0..1u32 << side)
            .filter(|&cols| starts[cols as usize] != starts[cols as usize + 1])
            .collect();
        Some(Lower {
            upper_rows,
            starts,
            diagonals,
            groups,
        })
    }

    /// Meets each upper placement of `uppers` (its columns and diagonals,
    /// in the search's order) with each group whose columns it leaves
    /// free, in the groups' order of columns: counts each cell's pairs
    /// that meet (their diagonals disjoint) or writes them, at the cells'
    /// cursors, on the loops of `path`.
    fn meet(&self, path: MatcherPath, uppers: &[(u32, u64)], meeting: Meeting<'_>) {
        match path {
            // SAFETY: a path is chosen only if the CPU runs it.
            #[cfg(target_arch = "x86_64")]
            MatcherPath::Avx512 => unsafe { meet_avx512(self, uppers, meeting) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            MatcherPath::Avx2 => unsafe { meet_avx2(self, uppers, meeting) },
            _ => self.meet_portable(uppers, meeting),
        }
    }

    /// The group of lower placements on the columns `cols`.
    fn group(&self, cols: u32) -> &[u64] {
        let (from, to) = (self.starts[cols as usize], self.starts[cols as usize + 1]);
        &self.diagonals[from as usize..to as usize]
    }

    /// [`Lower::meet`] a pair at a time: the naive twin of the vector
    /// loops, and the portable path.
    fn meet_portable(&self, uppers: &[(u32, u64)], meeting: Meeting<'_>) {
        match meeting {
            Meeting::Count(counts) => {
                for &(cols, upper) in uppers {
                    for &group in self.groups.iter().filter(|&&group| group & cols == 0) {
                        let met = self
                            .group(group)
                            .iter()
                            .filter(|&&lower| lower & upper == 0);
                        counts[(cols | group) as usize] += met.count() as u32;
                    }
                }
            }
            Meeting::Write(cursors, diagonals) => {
                // Branch-free into a small buffer (about half the pairs
                // meet), then copied to the cell; zeroed once, not per
                // group (a memset per group took 3% of a sampled N = 28
                // task's profile).
                let mut met = [0u64; 64];
                for &(cols, upper) in uppers {
                    for &group in self.groups.iter().filter(|&&group| group & cols == 0) {
                        let cursor = &mut cursors[(cols | group) as usize];
                        for chunk in self.group(group).chunks(64) {
                            let mut count = 0;
                            for &lower in chunk {
                                met[count & 63] = lower | upper;
                                count += usize::from(lower & upper == 0);
                            }
                            let at = *cursor as usize;
                            diagonals[at..at + count].copy_from_slice(&met[..count]);
                            *cursor += count as u32;
                        }
                    }
                }
            }
        }
    }
}

/// What [`Lower::meet`] does with the pairs that meet: counts them per
/// cell, or writes each (its diagonals) at its cell's cursor.
enum Meeting<'a> {
    Count(&'a mut [u32]),
    Write(&'a mut [u32], &'a mut [u64]),
}

/// [`Lower::meet`] with `V`'s vectors: a group's placements `V::WIDTH` a
/// step (the last step's lanes masked), the pairs that meet counted from
/// the lanes' flags or packed to the front of a vector stored at the
/// cell's cursor. At N = 28 the meetings' scalar loops took 7 to 12% of a
/// task (Zen 5); groups hold tens of placements, so the loops run flat
/// over the listed upper placements, inlined into each path's entry.
///
/// # Safety
/// As [`LaneVector`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn meet_in<V: LaneVector>(
    path: MatcherPath,
    lower: &Lower,
    uppers: &[(u32, u64)],
    meeting: Meeting<'_>,
) {
    let (mut counts, mut written) = (None, None);
    match meeting {
        Meeting::Count(slots) => counts = Some(slots),
        Meeting::Write(cursors, diagonals) => {
            // Where each cell ends: a step's whole-vector store goes
            // straight to the cell while its lanes fit before that end
            // (past it lie the next cell's placements, maybe written).
            let ends = cursors[1..].to_vec();
            written = Some((cursors, diagonals, ends));
        }
    }
    // The groups an upper placement leaves free, found by a vector filter:
    // with a sixth of them free, a test and a branch a group cost about
    // what the pairs' vector steps did.
    let mut open_groups = vec![0u32; lower.groups.len()];
    for &(cols, upper) in uppers {
        // SAFETY: the caller's promise (the width's features).
        let test = unsafe { V::splat(upper) };
        let open = keep_disjoint_entries(path, &lower.groups, cols, &mut open_groups).len;
        for &group in &open_groups[..open] {
            let placements = lower.group(group);
            let cell = (cols | group) as usize;
            if let Some(counts) = counts.as_deref_mut() {
                let mut count = 0;
                for step in placements.chunks(V::WIDTH) {
                    // SAFETY: the load reads only the step's lanes.
                    count += unsafe {
                        let lanes = V::first_lanes(step.len());
                        let keys = V::load_within(step.as_ptr(), lanes);
                        V::count(keys.disjoint_within(test, lanes))
                    };
                }
                counts[cell] += count as u32;
                continue;
            }
            let Some((cursors, diagonals, ends)) = written.as_mut() else {
                continue;
            };
            let (mut at, end) = (cursors[cell] as usize, ends[cell] as usize);
            for step in placements.chunks(V::WIDTH) {
                // SAFETY: the load reads only the step's lanes; the store
                // writes V::WIDTH slots from `at`, which lie within the
                // cell (so within `diagonals`) where it goes straight
                // there, else within `met`.
                unsafe {
                    let lanes = V::first_lanes(step.len());
                    let keys = V::load_within(step.as_ptr(), lanes);
                    let kept = keys.disjoint_within(test, lanes);
                    let count = V::count(kept);
                    if at + V::WIDTH <= end {
                        keys.or(test)
                            .store_packed(diagonals.as_mut_ptr().add(at), kept);
                    } else {
                        let mut met = [0u64; 16];
                        keys.or(test).store_packed(met.as_mut_ptr(), kept);
                        diagonals[at..at + count].copy_from_slice(&met[..count]);
                    }
                    at += count;
                }
            }
            cursors[cell] = at as u32;
        }
    }
}

/// [`meet_in`] on AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,popcnt")]
fn meet_avx512(lower: &Lower, uppers: &[(u32, u64)], meeting: Meeting<'_>) {
    // SAFETY: built with AVX-512F and POPCNT, which `meet_in::<Avx512>`
    // needs of its caller.
    unsafe { meet_in::<Avx512>(MatcherPath::Avx512, lower, uppers, meeting) }
}

/// [`meet_in`] on AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
fn meet_avx2(lower: &Lower, uppers: &[(u32, u64)], meeting: Meeting<'_>) {
    // SAFETY: built with AVX2 and POPCNT, which `meet_in::<Avx2>` needs
    // of its caller.
    unsafe { meet_in::<Avx2>(MatcherPath::Avx2, lower, uppers, meeting) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_meets_the_cells_the_search_finds() {
        // Row sets of 4 to 10 rows on boards of 10 to 14, some columns
        // closed: each path's meeting against the search of every row.
        let cases = [
            (10, 0b11_1100_0011, 0b11_1111_1111),
            (12, 0b1111_0000_1111, 0b1111_1011_1111),
            (13, 0b1_0101_0101_0111, 0b1_1111_1111_1111),
            (14, 0b11_1111_0000_1111, 0b11_1101_1111_1110),
            (14, 0b10_1101_1011_0110, 0b11_1111_1111_1111),
        ];
        for (side, rows, open) in cases {
            let (mut starts, mut diagonals) = (Vec::new(), Vec::new());
            assert!(search_cells(
                side,
                rows,
                open,
                u64::MAX,
                &mut starts,
                &mut diagonals
            ));
            assert!(!diagonals.is_empty(), "{rows:b} on {side} has placements");
            for path in MatcherPath::ALL.into_iter().filter(|path| path.runs_here()) {
                let (mut met_starts, mut met) = (Vec::new(), Vec::new());
                let whole = build_cells(
                    path,
                    side,
                    rows,
                    open,
                    u64::MAX,
                    u64::MAX,
                    &mut met_starts,
                    &mut met,
                );
                assert!(whole);
                assert_eq!(met_starts, starts, "{path:?}, {rows:b} on {side}");
                assert_eq!(met, diagonals, "{path:?}, {rows:b} on {side}");
            }
        }
    }
}
