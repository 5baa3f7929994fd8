//! Quadrant cells built by the GPU's kernel (`cells.cuh`): the host's
//! search (`cells.rs` of the join) expanded on the host over its first
//! rows into prefixes, a thread searching below each. Not yet used by the
//! count, which builds the cells of grid groups on the host: this is the
//! next step's kernel, checked here with its own code on the host against
//! the host's cells.

/// The search's state after some rows (`nq_prefix`).
#[cfg_attr(not(test), allow(dead_code))]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Prefix {
    diag: u64,
    rows_left: u32,
    row: u32,
    cols: u32,
    left: u32,
    right: u32,
    pad: u32,
}

#[cfg_attr(not(test), allow(dead_code))]
impl Prefix {
    /// The states below this one, a queen placed on its next row in each
    /// column `open` leaves it (none where no row is left).
    fn children(&self, side: u32, open: u32) -> impl Iterator<Item = Prefix> + '_ {
        let next = self.rows_left.trailing_zeros();
        let gap = next.wrapping_sub(self.row);
        let left = self.left.checked_shr(gap).unwrap_or(0);
        let right = self.right.checked_shl(gap).unwrap_or(0) & ((1 << side) - 1);
        let free = if self.rows_left == 0 {
            0
        } else {
            !(self.cols | left | right) & open
        };
        (0..side)
            .filter(move |col| free & (1 << col) != 0)
            .map(move |col| {
                let bit = 1 << col;
                Prefix {
                    diag: self.diag | 1u64 << (next + side - 1 - col) | 1u64 << (32 + next + col),
                    rows_left: self.rows_left & (self.rows_left - 1),
                    row: next,
                    cols: self.cols | bit,
                    left: left | bit,
                    right: right | bit,
                    pad: 0,
                }
            })
    }
}

/// The search of the placements on `rows` within `open` columns of a
/// `side` square expanded row by row until there are at least `want`
/// states or no row is left: the prefixes the kernel's threads start from
/// (a placement already whole is a prefix with no rows left).
#[cfg_attr(not(test), allow(dead_code))]
pub(super) fn prefixes(side: u32, rows: u32, open: u32, want: usize) -> Vec<Prefix> {
    let mut states = vec![Prefix {
        rows_left: rows,
        ..Prefix::default()
    }];
    while states.len() < want && states.iter().any(|state| state.rows_left != 0) {
        states = states
            .iter()
            .flat_map(|state| -> Box<dyn Iterator<Item = Prefix> + '_> {
                if state.rows_left == 0 {
                    Box::new(std::iter::once(*state))
                } else {
                    Box::new(state.children(side, open))
                }
            })
            .collect();
    }
    states
}

#[cfg(test)]
extern "C" {
    fn nq_cells_host(
        prefixes: *const Prefix,
        prefix_count: u32,
        side: u32,
        open: u32,
        counts: *mut u32,
        out: *mut u64,
    );
}

/// The cells of `rows` within `open` on a `side` square, built with the
/// kernel's code on the host from `want` prefixes or so: each column
/// set's start (2^side + 1 words) and the placements, cell after cell.
#[cfg(test)]
fn cells_on_host(side: u32, rows: u32, open: u32, want: usize) -> (Vec<u32>, Vec<u64>) {
    let prefixes = prefixes(side, rows, open, want);
    let cells = 1usize << side;
    // A pass of the kernel over every prefix: counting (no output), or
    // writing at the cursors.
    let pass = |counts: &mut [u32], out: *mut u64| {
        // SAFETY: `prefixes` holds its length, `counts` a word a column
        // set; `out`, where not null, holds every placement the counting
        // pass found, which the cursors index.
        unsafe {
            nq_cells_host(
                prefixes.as_ptr(),
                prefixes.len() as u32,
                side,
                open,
                counts.as_mut_ptr(),
                out,
            );
        }
    };
    let mut counts = vec![0u32; cells];
    pass(&mut counts, std::ptr::null_mut());
    let mut starts = Vec::with_capacity(cells + 1);
    let mut total = 0u32;
    for &count in &counts {
        starts.push(total);
        total += count;
    }
    starts.push(total);
    let mut cursors = starts[..cells].to_vec();
    let mut diagonals = vec![0u64; total as usize];
    pass(&mut cursors, diagonals.as_mut_ptr());
    (starts, diagonals)
}

#[cfg(test)]
mod tests {
    use super::super::super::cells::RowCells;
    use super::*;

    #[test]
    fn the_kernel_builds_the_hosts_cells() {
        let mut draws = crate::random::SplitMix64(17);
        for round in 0..60u32 {
            let side = 4 + round % 10;
            let all = (1u32 << side) - 1;
            // Rows of any count; open columns at least as many, or all.
            let rows = (draws.next() as u32) & all;
            let open = if round % 3 == 0 {
                all
            } else {
                (draws.next() as u32 | draws.next() as u32) & all
            };
            let mut host = RowCells::default();
            host.rebuild_open(side, rows, open, u64::MAX);
            for want in [1, 7, 1000] {
                let (starts, diagonals) = cells_on_host(side, rows, open, want);
                assert_eq!(
                    starts.last().copied().unwrap() as usize,
                    host.placements(),
                    "side {side}, rows {rows:b}, open {open:b}"
                );
                for cols in 0..=all {
                    let from = starts[cols as usize] as usize;
                    let to = starts[cols as usize + 1] as usize;
                    let mut kernel = diagonals[from..to].to_vec();
                    kernel.sort_unstable();
                    let mut expected = if cols & !open == 0 {
                        host.cell(cols).to_vec()
                    } else {
                        Vec::new()
                    };
                    expected.sort_unstable();
                    assert_eq!(
                        kernel, expected,
                        "side {side}, rows {rows:b}, cols {cols:b}"
                    );
                }
            }
        }
    }

    #[test]
    fn prefixes_stop_at_enough_states_or_at_the_last_row() {
        // 8 queens on all 8 rows of an 8 square: 8 first queens, then
        // 42 pairs...; never past the whole placements (92 on an 8 board
        // are whole boards, here quadrant placements with any diagonals).
        let first = prefixes(8, 0xff, 0xff, 8);
        assert_eq!(first.len(), 8);
        assert!(first.iter().all(|state| state.rows_left == 0xfe));
        let all = prefixes(8, 0xff, 0xff, usize::MAX);
        assert!(all.iter().all(|state| state.rows_left == 0));
        assert_eq!(all.len(), 92);
        assert_eq!(prefixes(8, 0, 0xff, 100).len(), 1);
    }
}
