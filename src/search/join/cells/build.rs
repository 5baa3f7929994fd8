//! How a row set's cells are built: a search of every row in turn (the
//! naive twin), or a meeting in the middle of its upper and lower rows.

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
/// its lower rows' in theirs.
pub(super) fn build_cells(
    side: u32,
    rows: u32,
    open: u32,
    most: u64,
    lower_most: u64,
    starts: &mut Vec<u32>,
    diagonals: &mut Vec<u64>,
) -> bool {
    let Some(lower) = Lower::build(side, rows, open, lower_most) else {
        return search_cells(side, rows, open, most, starts, diagonals);
    };
    sort_cells(
        side,
        most,
        starts,
        diagonals,
        |counts| {
            lower.each_meeting(side, open, &mut |cols, upper, group| {
                counts[cols as usize] +=
                    group.iter().filter(|&&lower| lower & upper == 0).count() as u32;
            })
        },
        |cursors, diagonals| {
            // Branch-free into a small buffer (about half the pairs
            // meet), then copied to the cell; zeroed once, not per group
            // (a memset per group took 3% of a sampled N = 28 task's
            // profile).
            let mut met = [0u64; 64];
            lower.each_meeting(side, open, &mut |cols, upper, group| {
                let cursor = &mut cursors[cols as usize];
                for chunk in group.chunks(64) {
                    let mut count = 0;
                    for &lower in chunk {
                        met[count & 63] = lower | upper;
                        count += usize::from(lower & upper == 0);
                    }
                    let at = *cursor as usize;
                    diagonals[at..at + count].copy_from_slice(&met[..count]);
                    *cursor += count as u32;
                }
            })
        },
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
    fn build(side: u32, rows: u32, open: u32, most: u64) -> Option<Lower> {
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
        if !build_cells(side, left, open, most, most, &mut starts, &mut diagonals) {
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

    /// Calls `visit(cols, upper, group)` for each placement of the upper
    /// rows (its diagonals `upper`) and each group whose columns it leaves
    /// free (`cols` the union), in the search's order of the upper
    /// placements and the groups' order of columns.
    fn each_meeting(&self, side: u32, open: u32, visit: &mut impl FnMut(u32, u64, &[u64])) {
        each_placement_within(side, self.upper_rows, open, &mut |cols, upper| {
            for &group in &self.groups {
                if group & cols == 0 {
                    let (from, to) = (self.starts[group as usize], self.starts[group as usize + 1]);
                    visit(
                        cols | group,
                        upper,
                        &self.diagonals[from as usize..to as usize],
                    );
                }
            }
        });
    }
}
