//! A spec's half boards made by the GPU's kernels (`boards.cuh`): the
//! placements of both quadrants' row sets moved onto the board, then every
//! split of the open columns between the quadrants paired, as the CPU's
//! glue does (`halves.rs`). Here the job is laid out for the kernels, and
//! run on the host with the kernels' own code for the tests.

use super::super::cells::RowCells;
use super::super::geometry::Geometry;
use super::super::glue::Move;
use super::super::halves::{moves, north_splits};
use super::super::specs::HalfSpec;
use crate::cuda::driver::DevicePtr;

/// A [`Move`] as the kernels take it (`nq_move`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct KernelMove {
    forbid1: u64,
    forbid2: u64,
    class_keys: u64,
    shift1: u32,
    shift2: u32,
    overlap1: u32,
    overlap2: u32,
    lo: u32,
    width: u32,
}

impl KernelMove {
    /// Its bytes as the kernels read them (`nq_move`, little-endian as
    /// both the host and the GPU are).
    pub(super) fn bytes(&self) -> [u8; 48] {
        let mut bytes = [0u8; 48];
        for (k, word) in [self.forbid1, self.forbid2, self.class_keys]
            .into_iter()
            .enumerate()
        {
            bytes[8 * k..8 * k + 8].copy_from_slice(&word.to_le_bytes());
        }
        for (k, word) in [
            self.shift1,
            self.shift2,
            self.overlap1,
            self.overlap2,
            self.lo,
            self.width,
        ]
        .into_iter()
        .enumerate()
        {
            bytes[24 + 4 * k..28 + 4 * k].copy_from_slice(&word.to_le_bytes());
        }
        bytes
    }

    fn of(how: &Move) -> KernelMove {
        KernelMove {
            forbid1: how.forbid.0,
            forbid2: how.forbid.1,
            class_keys: how.class_keys,
            shift1: how.shifts.0,
            shift2: how.shifts.1,
            overlap1: how.overlap.0,
            overlap2: how.overlap.1,
            lo: how.geo.lo,
            width: how.geo.width,
        }
    }
}

/// A row set's placements, cell after cell: in the host's memory (to be
/// copied over), or already on the GPU (built there by `nq_cells`).
#[derive(Clone, Copy, Debug)]
pub(super) enum Placements<'a> {
    Host(&'a [u64]),
    Device { at: DevicePtr, count: u32 },
}

impl Placements<'_> {
    /// How many there are.
    pub(super) fn count(&self) -> u32 {
        match self {
            Placements::Host(diagonals) => diagonals.len() as u32,
            Placements::Device { count, .. } => *count,
        }
    }
}

/// One spec's half boards as the kernels make them.
pub(super) struct BoardsJob<'a> {
    /// Every placement of the north quadrant's row set, and of the
    /// south's, cell after cell.
    pub(super) north: Placements<'a>,
    pub(super) south: Placements<'a>,
    /// How each moves onto the board.
    pub(super) moves: [KernelMove; 2],
    /// Per split of the open columns: where its north cell starts among
    /// the north placements, where its south cell starts among the south
    /// ones, and the south cell's length.
    pub(super) splits: Vec<u32>,
    /// Where each split's north placements start among the items (a
    /// thread each), the last word their total.
    pub(super) item_start: Vec<u32>,
}

impl<'a> BoardsJob<'a> {
    /// The job of `spec`'s boards from its quadrants' cells, if both row
    /// sets are held whole (and their placements fit u32 offsets).
    pub(super) fn new(
        geo: &Geometry,
        spec: &HalfSpec,
        [north_cells, south_cells]: [&'a RowCells; 2],
    ) -> Option<BoardsJob<'a>> {
        if !north_cells.is_whole() || !south_cells.is_whole() {
            return None;
        }
        let (north, south) = (north_cells.diagonals(), south_cells.diagonals());
        u32::try_from(north.len().max(south.len())).ok()?;
        BoardsJob::of_spans(
            geo,
            spec,
            north_cells.rows().count_ones(),
            [Placements::Host(north), Placements::Host(south)],
            [&|cols| north_cells.cell_span(cols), &|cols| {
                south_cells.cell_span(cols)
            }],
        )
    }

    /// The job of `spec`'s boards from its quadrants' placements (the
    /// north row set's `north_queens` rows) and where each cell of either
    /// starts among them and its length (`spans`): `None` where the
    /// threads would pass 2^32.
    pub(super) fn of_spans(
        geo: &Geometry,
        spec: &HalfSpec,
        north_queens: u32,
        [north, south]: [Placements<'a>; 2],
        [north_span, south_span]: [&dyn Fn(u32) -> (u32, u32); 2],
    ) -> Option<BoardsJob<'a>> {
        let mut splits = Vec::new();
        let mut item_start = vec![0u32];
        let mut items = 0u64;
        for north_cols in north_splits(spec.cols, north_queens) {
            let (north_from, north_len) = north_span(north_cols);
            let (south_from, south_len) = south_span(spec.cols & !north_cols);
            if north_len == 0 || south_len == 0 {
                continue;
            }
            items += u64::from(north_len);
            splits.extend([north_from, south_from, south_len]);
            item_start.push(u32::try_from(items).ok()?);
        }
        Some(BoardsJob {
            north,
            south,
            moves: moves(geo, spec).map(|how| KernelMove::of(&how)),
            splits,
            item_start,
        })
    }

    /// Half boards the job makes at most: every north placement of a split
    /// with every south one (the pairs that no diagonal rules out).
    pub(super) fn boards_bound(&self) -> u64 {
        self.splits
            .chunks(3)
            .zip(self.item_start.windows(2))
            .map(|(split, items)| u64::from(items[1] - items[0]) * u64::from(split[2]))
            .sum()
    }

    /// Splits with boards to pair.
    pub(super) fn split_count(&self) -> u32 {
        (self.item_start.len() - 1) as u32
    }

    /// North placements over every split: the threads of a launch.
    pub(super) fn items(&self) -> u32 {
        *self.item_start.last().expect("item_start holds at least 0")
    }
}

#[cfg(test)]
extern "C" {
    fn nq_place_host(
        diags: *const u64,
        count: u32,
        how: *const KernelMove,
        checks: *mut u64,
        keys: *mut u64,
    );
    #[allow(clippy::too_many_arguments)]
    fn nq_boards_host(
        north_checks: *const u64,
        north_keys: *const u64,
        south_checks: *const u64,
        south_keys: *const u64,
        splits: *const u32,
        item_start: *const u32,
        split_count: u32,
        extra: u64,
        out: *mut u64,
        capacity: u32,
        counts: *mut u32,
        items: u32,
    );
}

#[cfg(test)]
/// Every placement of `diags` moved by `how` with the kernel's code:
/// checks, and keys with their flags.
pub(super) fn place_on_host(diags: &[u64], how: &KernelMove) -> (Vec<u64>, Vec<u64>) {
    let mut checks = vec![0u64; diags.len()];
    let mut keys = vec![0u64; diags.len()];
    // SAFETY: every buffer holds `diags.len()` words (which fits u32: the
    // job checked it).
    unsafe {
        nq_place_host(
            diags.as_ptr(),
            diags.len() as u32,
            how,
            checks.as_mut_ptr(),
            keys.as_mut_ptr(),
        );
    }
    (checks, keys)
}

#[cfg(test)]
/// The job's half boards made with the kernels' code on the host, by
/// class; `capacity` keys a class at most (the counts say how many each
/// wanted).
pub(super) fn boards_on_host(job: &BoardsJob<'_>, capacity: u32) -> ([Vec<u64>; 3], [u32; 3]) {
    let [north, south] = [job.north, job.south].map(|placements| match placements {
        Placements::Host(diagonals) => diagonals,
        Placements::Device { .. } => panic!("the host's kernels take the host's placements"),
    });
    let (north_checks, north_keys) = place_on_host(north, &job.moves[0]);
    let (south_checks, south_keys) = place_on_host(south, &job.moves[1]);
    let mut out = vec![0u64; 3 * capacity as usize];
    let mut counts = [0u32; 3];
    // SAFETY: the placed lists hold every placement the splits name (the
    // job made them from these row sets' spans), `item_start` holds
    // split_count + 1 words, `out` 3 * capacity keys and `counts` 3.
    unsafe {
        nq_boards_host(
            north_checks.as_ptr(),
            north_keys.as_ptr(),
            south_checks.as_ptr(),
            south_keys.as_ptr(),
            job.splits.as_ptr(),
            job.item_start.as_ptr(),
            job.split_count(),
            0,
            out.as_mut_ptr(),
            capacity,
            counts.as_mut_ptr(),
            job.items(),
        );
    }
    let keys = [0, 1, 2].map(|class| {
        let from = class * capacity as usize;
        out[from..from + counts[class].min(capacity) as usize].to_vec()
    });
    (keys, counts)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_moves_bytes_are_its_memory() {
        assert_eq!(std::mem::size_of::<KernelMove>(), 48);
        let how = KernelMove {
            forbid1: 0x0102_0304_0506_0708,
            forbid2: 0x1112_1314_1516_1718,
            class_keys: 0x2122_2324_2526_2728,
            shift1: 0x3132_3334,
            shift2: 0x4142_4344,
            overlap1: 0x5152_5354,
            overlap2: 0x6162_6364,
            lo: 0x7172_7374,
            width: 0x8182_8384,
        };
        // SAFETY: a repr(C) struct of integers, read as its 48 bytes.
        let memory: &[u8] =
            unsafe { std::slice::from_raw_parts((&how as *const KernelMove).cast(), 48) };
        assert_eq!(how.bytes(), memory);
    }

    use super::super::super::cells::{CellCache, MadeCells};
    use super::super::super::glue::PortableGlue;
    use super::super::super::halves::{half_boards, Cursor};
    use super::super::super::specs::{even_specs, quadrant_rows, task_specs};
    use super::super::super::JoinTasks;
    use super::*;

    /// `spec`'s boards by the CPU's glue and by the kernels' code, each
    /// class sorted; and whether the kernels' job could be made.
    /// Keys by class.
    type ByClass = [Vec<u64>; 3];

    fn both_ways(geo: &Geometry, spec: &HalfSpec) -> Option<(ByClass, ByClass)> {
        let mut cache = CellCache::default();
        let rows = quadrant_rows(geo, spec);
        cache.load(geo.h, &rows, spec.cols);
        let cells = rows.map(|rows| cache.get(rows, spec.cols));
        let mut cpu: [Vec<u64>; 3] = Default::default();
        let mut cursor = Cursor::start(spec);
        half_boards(
            PortableGlue,
            cells,
            &mut MadeCells::default(),
            geo,
            spec,
            &mut Default::default(),
            &mut cpu,
            &mut cursor,
            usize::MAX,
        );
        let job = BoardsJob::new(geo, spec, cells)?;
        // A first pass that keeps nothing says how many keys each class
        // takes; the second keeps them all.
        let (_, wanted) = boards_on_host(&job, 0);
        let capacity = *wanted.iter().max().unwrap();
        let (mut gpu, counts) = boards_on_host(&job, capacity);
        assert_eq!(counts, wanted);
        for keys in cpu.iter_mut().chain(gpu.iter_mut()) {
            keys.sort_unstable();
        }
        Some((cpu, gpu))
    }

    #[test]
    fn the_kernels_make_every_half_board_the_glue_makes() {
        // Whole row sets (N = 8..23, even and odd), and the cut tasks of
        // N = 24 and 26, whose specs forbid the fixed queens' diagonals
        // and close their columns.
        for n in 8..=26u32 {
            let geo = Geometry::new(n);
            let tasks = JoinTasks::new(n);
            let picks = if n <= 20 { 4 } else { 2 };
            let mut boards = 0;
            for k in 0..picks {
                let task = tasks.get((k * 7_919 + u64::from(n) * 13) % tasks.len());
                let specs = task_specs(&geo, &task);
                for spec in &specs {
                    let (cpu, gpu) = both_ways(&geo, spec).expect("cells held whole");
                    assert_eq!(cpu, gpu, "N = {n}, task {task:?}, spec {spec:?}");
                    boards += cpu.iter().map(Vec::len).sum::<usize>();
                }
            }
            assert!(boards > 0, "N = {n}: the picks make boards");
        }
    }

    #[test]
    fn a_class_past_its_capacity_keeps_what_fits_and_says_how_many_it_wanted() {
        let geo = Geometry::new(12);
        let task = JoinTasks::new(12).get(3);
        let (_, west, _) = even_specs(&geo, &task, [1, 1, 1]).swap_remove(0);
        let mut cache = CellCache::default();
        let rows = quadrant_rows(&geo, &west);
        cache.load(geo.h, &rows, west.cols);
        let cells = rows.map(|rows| cache.get(rows, west.cols));
        let job = BoardsJob::new(&geo, &west, cells).unwrap();
        let (_, wanted) = boards_on_host(&job, 0);
        assert!(wanted[0] > 2, "{wanted:?}");
        let (kept, counts) = boards_on_host(&job, 2);
        assert_eq!(counts, wanted);
        for (keys, want) in kept.iter().zip(wanted) {
            assert_eq!(keys.len(), want.min(2) as usize);
        }
    }
}
