//! Quadrant cells built by the GPU's kernel (`cells.cuh`) and held there
//! for the board kernels: the host's search (`cells.rs` of the join)
//! expanded on the host over its first rows into prefixes, a thread
//! searching below each; one pass counts each cell's placements, the host
//! turns the counts into starts, a second pass writes them in place. The
//! host keeps only each cell's start; the placements never cross the bus.

use std::time::Instant;

use super::device::{arg, launch_over, Buffer, GpuDevice};
use super::laid::starts_of;
use crate::cuda::driver::{Cuda, DevicePtr};
use crate::search::join::recent::{slot_key, Recent};

/// Prefixes a build starts from at least (where the row set has that
/// many; a level's expansion overshoots by up to the side): a row set's
/// search is some rows times its placements, at most 29.6 million at side
/// 14, so a few thousand threads take it in well under a millisecond,
/// while the host's expansion of each build (a grid builds one a group)
/// stays small.
const PREFIXES: usize = 1024;

/// One row set's cells within some open columns, on the GPU.
pub(super) struct DeviceRowCells {
    rows: u32,
    open: u32,
    /// Where each column set's cell starts among the placements (2^side +
    /// 1 words).
    starts: Vec<u32>,
    placements: Buffer,
}

impl DeviceRowCells {
    /// The row set.
    pub(super) fn rows(&self) -> u32 {
        self.rows
    }

    /// Where the cell of `cols` starts among the placements, and its
    /// length.
    pub(super) fn cell_span(&self, cols: u32) -> (u32, u32) {
        let from = self.starts[cols as usize];
        (from, self.starts[cols as usize + 1] - from)
    }

    /// How many placements there are.
    pub(super) fn count(&self) -> u32 {
        *self.starts.last().expect("2^side + 1 starts")
    }

    /// Where the placements are on the GPU.
    pub(super) fn at(&self) -> DevicePtr {
        self.placements.pointer
    }

    fn bytes(&self) -> u64 {
        u64::from(self.count()) * 8
    }
}

/// The row sets' cells a feeder built on its GPU, for one quadrant side,
/// the least recently used dropped past a byte budget.
pub(super) struct DeviceCells {
    side: u32,
    /// Per row set and open columns, its cells.
    entries: Recent<DeviceRowCells>,
    bytes: u64,
    budget: u64,
    prefixes: Buffer,
    counts: Buffer,
    /// Row sets built (misses).
    pub(super) builds: u64,
    /// Seconds of the host's own work for them: the prefixes and starts.
    pub(super) host_seconds: f64,
}

impl DeviceCells {
    /// An empty set keeping about `budget` bytes (always the row sets
    /// wanted at once).
    pub(super) fn with_budget(budget: u64) -> DeviceCells {
        DeviceCells {
            side: 0,
            entries: Recent::default(),
            bytes: 0,
            budget,
            prefixes: Buffer::default(),
            counts: Buffer::default(),
            builds: 0,
            host_seconds: 0.0,
        }
    }

    /// Makes sure the cells of each row set of `wanted` (row set and open
    /// columns) on a `side` square are on the GPU, building those that
    /// are not in one batch (three round trips however many), after
    /// dropping the least recently used others past the budget (the
    /// wanted are all kept). `None` where a row set has 2^32 placements
    /// or more.
    pub(super) fn load(
        &mut self,
        device: &GpuDevice,
        side: u32,
        wanted: &[(u32, u32)],
    ) -> Result<Option<()>, String> {
        if side != self.side {
            self.free(&device.cuda);
            self.side = side;
        }
        self.entries.next_tick();
        let mut missing: Vec<(u32, u32)> = Vec::new();
        for &(rows, open) in wanted {
            if !self.entries.touch(slot_key(rows, open)) && !missing.contains(&(rows, open)) {
                missing.push((rows, open));
            }
        }
        if missing.is_empty() {
            return Ok(Some(()));
        }
        while self.bytes > self.budget {
            let Some(oldest) = self.entries.oldest_unused() else {
                break;
            };
            let old = self.entries.take(oldest);
            device.cuda.free(old.placements.pointer);
            self.bytes -= old.bytes();
        }
        let Some(built) = self.build(device, &missing)? else {
            return Ok(None);
        };
        for entry in built {
            self.bytes += entry.bytes();
            self.entries.insert(slot_key(entry.rows, entry.open), entry);
        }
        Ok(Some(()))
    }

    /// The cells of `rows` within `open`, which [`DeviceCells::load`]
    /// must have put on the GPU.
    pub(super) fn get(&self, rows: u32, open: u32) -> &DeviceRowCells {
        self.entries
            .get(slot_key(rows, open))
            .expect("cells loaded before use")
    }

    /// Builds the cells of each of `row_sets` (row set and open columns)
    /// with `nq_cells`, all in one launch a pass: their placements counted
    /// per column set, the starts summed on the host, then written, each
    /// row set's into a buffer of its own.
    fn build(
        &mut self,
        device: &GpuDevice,
        row_sets: &[(u32, u32)],
    ) -> Result<Option<Vec<DeviceRowCells>>, String> {
        let cuda = &device.cuda;
        let side = self.side;
        let cells = 1usize << side;
        self.builds += row_sets.len() as u64;
        let started = Instant::now();
        let mut prefix_list = Vec::new();
        for (build, &(rows, open)) in row_sets.iter().enumerate() {
            prefix_list.extend(prefixes_of(side, rows, open, PREFIXES, build as u32));
        }
        self.host_seconds += started.elapsed().as_secs_f64();
        self.prefixes.put(cuda, &prefix_list)?;
        self.counts.zeroed(cuda, row_sets.len() * cells)?;
        let (prefixes_at, prefix_count) = (self.prefixes.pointer, prefix_list.len() as u32);
        let pass = |counts: DevicePtr, outs: DevicePtr| -> Result<(), String> {
            let (mut prefixes_at, mut prefix_count, mut side, mut counts, mut outs) =
                (prefixes_at, prefix_count, side, counts, outs);
            let mut params = [
                arg(&mut prefixes_at),
                arg(&mut prefix_count),
                arg(&mut side),
                arg(&mut counts),
                arg(&mut outs),
            ];
            launch_over(device, device.cells, prefix_count, &mut params)
        };
        pass(self.counts.pointer, 0)?;
        let mut counts = vec![0u32; row_sets.len() * cells];
        cuda.download(&mut counts, self.counts.pointer)?;
        // Each row set's starts; one table for the second pass: every
        // buffer's address (two words each), then every row set's cursors.
        let started = Instant::now();
        let mut all_starts = Vec::with_capacity(row_sets.len());
        for counts in counts.chunks(cells) {
            let Some(starts) = starts_of(counts.iter().copied()) else {
                return Ok(None);
            };
            all_starts.push(starts);
        }
        self.host_seconds += started.elapsed().as_secs_f64();
        let mut built = Vec::with_capacity(row_sets.len());
        for (&(rows, open), starts) in row_sets.iter().zip(all_starts) {
            let total = *starts.last().expect("2^side + 1 starts") as usize;
            built.push(DeviceRowCells {
                rows,
                open,
                placements: Buffer::exact(cuda, total * 8)?,
                starts,
            });
        }
        let mut table: Vec<u32> = Vec::with_capacity(row_sets.len() * (cells + 2));
        for entry in &built {
            let at = entry.placements.pointer;
            table.extend([at as u32, (at >> 32) as u32]);
        }
        for entry in &built {
            table.extend_from_slice(&entry.starts[..cells]);
        }
        self.counts.put(cuda, &table)?;
        let outs = self.counts.pointer;
        pass(outs + (built.len() * 8) as DevicePtr, outs)?;
        Ok(Some(built))
    }

    /// Frees every buffer (the context must be current).
    pub(super) fn free(&mut self, cuda: &Cuda) {
        for entry in self.entries.drain() {
            cuda.free(entry.placements.pointer);
        }
        self.bytes = 0;
        for buffer in [&mut self.prefixes, &mut self.counts] {
            cuda.free(buffer.pointer);
            *buffer = Buffer::default();
        }
    }
}

/// The search's state after some rows (`nq_prefix`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Prefix {
    diag: u64,
    rows_left: u32,
    row: u32,
    cols: u32,
    left: u32,
    right: u32,
    open: u32,
    build: u32,
    unused: u32,
}

impl Prefix {
    /// Pushes the states below this one onto `below`, a queen placed on
    /// its next row in each open column it leaves free (none where no row
    /// is left).
    fn push_children(&self, side: u32, below: &mut Vec<Prefix>) {
        if self.rows_left == 0 {
            return;
        }
        let next = self.rows_left.trailing_zeros();
        let gap = next.wrapping_sub(self.row);
        let left = self.left.checked_shr(gap).unwrap_or(0);
        let right = self.right.checked_shl(gap).unwrap_or(0) & ((1 << side) - 1);
        let mut free = !(self.cols | left | right) & self.open;
        while free != 0 {
            let col = free.trailing_zeros();
            free &= free - 1;
            let bit = 1 << col;
            below.push(Prefix {
                diag: self.diag | 1u64 << (next + side - 1 - col) | 1u64 << (32 + next + col),
                rows_left: self.rows_left & (self.rows_left - 1),
                row: next,
                cols: self.cols | bit,
                left: left | bit,
                right: right | bit,
                ..*self
            });
        }
    }
}

/// The search of the placements on `rows` within `open` columns of a
/// `side` square expanded, shallowest states first, until there are at
/// least `want` states (at most a side more) or no row is left: the
/// prefixes the kernel's threads start from (a placement already whole is
/// a prefix with no rows left).
#[cfg(test)]
fn prefixes(side: u32, rows: u32, open: u32, want: usize) -> Vec<Prefix> {
    prefixes_of(side, rows, open, want, 0)
}

/// [`prefixes`], each naming row set `build` of a launch.
fn prefixes_of(side: u32, rows: u32, open: u32, want: usize, build: u32) -> Vec<Prefix> {
    let mut states = std::collections::VecDeque::from([Prefix {
        rows_left: rows,
        open,
        build,
        ..Prefix::default()
    }]);
    let mut done = Vec::new();
    let mut below = Vec::with_capacity(side as usize);
    while done.len() + states.len() < want {
        let Some(state) = states.pop_front() else {
            break;
        };
        if state.rows_left == 0 {
            done.push(state);
            continue;
        }
        below.clear();
        state.push_children(side, &mut below);
        states.extend(&below);
    }
    done.extend(states);
    done
}

#[cfg(test)]
extern "C" {
    fn nq_cells_host(
        prefixes: *const Prefix,
        prefix_count: u32,
        side: u32,
        counts: *mut u32,
        outs: *const u64,
    );
}

/// The cells of each of `row_sets` (row set and open columns) on a `side`
/// square, built together with the kernel's code on the host from `want`
/// prefixes or so each: each column set's start (2^side + 1 words) and
/// the placements, cell after cell.
#[cfg(test)]
fn cells_on_host(side: u32, row_sets: &[(u32, u32)], want: usize) -> Vec<(Vec<u32>, Vec<u64>)> {
    let mut all = Vec::new();
    for (build, &(rows, open)) in row_sets.iter().enumerate() {
        all.extend(
            prefixes(side, rows, open, want)
                .into_iter()
                .map(|prefix| Prefix {
                    build: build as u32,
                    ..prefix
                }),
        );
    }
    let cells = 1usize << side;
    // A pass of the kernel over every prefix: counting (no outputs), or
    // writing at the cursors.
    let pass = |counts: &mut [u32], outs: *const u64| {
        // SAFETY: `all` holds its length, `counts` a word a column set of
        // each row set; `outs`, where not null, the address of a buffer a
        // row set holding every placement the counting pass found, which
        // the cursors index.
        unsafe {
            nq_cells_host(
                all.as_ptr(),
                all.len() as u32,
                side,
                counts.as_mut_ptr(),
                outs,
            );
        }
    };
    let mut counts = vec![0u32; row_sets.len() * cells];
    pass(&mut counts, std::ptr::null());
    let mut all_starts = Vec::new();
    let mut cursors = Vec::new();
    for counts in counts.chunks(cells) {
        let starts = starts_of(counts.iter().copied()).unwrap();
        cursors.extend_from_slice(&starts[..cells]);
        all_starts.push(starts);
    }
    let mut diagonals: Vec<Vec<u64>> = all_starts
        .iter()
        .map(|starts| vec![0u64; *starts.last().unwrap() as usize])
        .collect();
    let outs: Vec<u64> = diagonals
        .iter_mut()
        .map(|list| list.as_mut_ptr() as u64)
        .collect();
    pass(&mut cursors, outs.as_ptr());
    all_starts.into_iter().zip(diagonals).collect()
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
            // One to three row sets built in one launch, each of rows of
            // any count within open columns of its own (all, or at random).
            let row_sets: Vec<(u32, u32)> = (0..=round % 3)
                .map(|k| {
                    let rows = (draws.next() as u32) & all;
                    let open = if (round + k) % 3 == 0 {
                        all
                    } else {
                        (draws.next() as u32 | draws.next() as u32) & all
                    };
                    (rows, open)
                })
                .collect();
            for want in [1, 7, 1000] {
                let built = cells_on_host(side, &row_sets, want);
                for (&(rows, open), (starts, diagonals)) in row_sets.iter().zip(built) {
                    let mut host = RowCells::default();
                    host.rebuild_open(side, rows, open, u64::MAX);
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
