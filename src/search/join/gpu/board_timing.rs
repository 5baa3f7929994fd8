//! The GPU's board kernels timed against the CPU's glue on one task
//! (`nqueens gpu`'s board timing): the same half boards made both ways
//! from the same cells, their counts (and keys, where they fit) checked.

use std::time::Instant;

use serde::Serialize;

use super::super::cells::{MadeCells, RowCells};
use super::super::geometry::Geometry;
#[cfg(target_arch = "x86_64")]
use super::super::glue::{Avx2Glue, Avx512Glue};
use super::super::glue::{Glue, PortableGlue};
use super::super::halves::{half_boards, Cursor};
use super::super::specs::{quadrant_rows, task_specs, HalfSpec};
use super::super::JoinTask;
use super::board_maker::GpuBoardMaker;
use super::boards::BoardsJob;
use crate::search::disjoint::{matcher_path, MatcherPath};

/// The half boards of one task made on the GPU and by the CPU's glue.
#[derive(Clone, Copy, Debug, Default, Serialize)]
pub struct BoardsTiming {
    /// Half boards made (the same both ways, checked).
    pub boards: u64,
    /// Seconds on the GPU (copies, the two kernels, the counts back).
    pub gpu_seconds: f64,
    /// Seconds of the CPU's glue on this thread (the same cells, keys
    /// made in chunks and dropped).
    pub cpu_seconds: f64,
    /// Whether the GPU's keys were compared with the CPU's one by one
    /// (where every class fitted the GPU's buffer), not only counted.
    pub keys_compared: bool,
}

/// Keys a class keeps on the GPU when timing; past it they are counted.
const TIMING_CAPACITY: u32 = 1 << 24;

/// Makes every half board of `task` on the GPU and with the CPU's glue,
/// from the same cells (built whole), checking that both make as many of
/// each class (and the same keys, where all fit `TIMING_CAPACITY`).
pub(super) fn time_boards(
    maker: &mut GpuBoardMaker<'_>,
    n: u32,
    task: &JoinTask,
) -> Result<BoardsTiming, String> {
    let geo = Geometry::new(n);
    let mut timing = BoardsTiming {
        keys_compared: true,
        ..BoardsTiming::default()
    };
    let mut cells = [RowCells::default(), RowCells::default()];
    for spec in task_specs(&geo, task) {
        for (cells, rows) in cells.iter_mut().zip(quadrant_rows(&geo, &spec)) {
            cells.rebuild_open(geo.h, rows, spec.cols, u64::MAX);
        }
        let [north, south] = &cells;
        let job =
            BoardsJob::new(&geo, &spec, [north, south]).ok_or("a row set past 2^32 placements")?;
        let started = Instant::now();
        let counts = maker.make(&job, TIMING_CAPACITY)?;
        timing.gpu_seconds += started.elapsed().as_secs_f64();
        let started = Instant::now();
        let (cpu_counts, cpu_sums) = cpu_boards(&geo, &spec, [north, south]);
        timing.cpu_seconds += started.elapsed().as_secs_f64();
        if counts.map(u64::from) != cpu_counts {
            return Err(format!(
                "N = {n}, task {task:?}: the GPU made {counts:?} half boards by class, the CPU {cpu_counts:?}"
            ));
        }
        if counts.iter().all(|&count| count <= TIMING_CAPACITY) {
            let keys = maker.keys(counts)?;
            let sums = keys.map(|keys| key_sum(&keys));
            if sums != cpu_sums {
                return Err(format!(
                    "N = {n}, task {task:?}: the GPU's half boards are not the CPU's"
                ));
            }
        } else {
            timing.keys_compared = false;
        }
        timing.boards += cpu_counts.iter().sum::<u64>();
    }
    Ok(timing)
}

/// A sum of keys that does not depend on their order, and that a wrong
/// key changes (each key mixed before the sum).
fn key_sum(keys: &[u64]) -> u64 {
    keys.iter().fold(0u64, |sum, &key| {
        sum.wrapping_add(crate::random::SplitMix64(key).next())
    })
}

/// `spec`'s half boards by the CPU's glue on this CPU's path, in chunks:
/// each class's count and [`key_sum`].
fn cpu_boards(geo: &Geometry, spec: &HalfSpec, cells: [&RowCells; 2]) -> ([u64; 3], [u64; 3]) {
    #[cfg(target_arch = "x86_64")]
    match matcher_path() {
        MatcherPath::Avx512 => {
            if let Some(glue) = Avx512Glue::here() {
                return cpu_boards_with(glue, geo, spec, cells);
            }
        }
        MatcherPath::Avx2 => {
            if let Some(glue) = Avx2Glue::here() {
                return cpu_boards_with(glue, geo, spec, cells);
            }
        }
        MatcherPath::Portable => {}
    }
    cpu_boards_with(PortableGlue, geo, spec, cells)
}

fn cpu_boards_with<G: Glue>(
    glue: G,
    geo: &Geometry,
    spec: &HalfSpec,
    cells: [&RowCells; 2],
) -> ([u64; 3], [u64; 3]) {
    let (mut counts, mut sums) = ([0u64; 3], [0u64; 3]);
    let mut keys: [Vec<u64>; 3] = Default::default();
    let mut placing = Default::default();
    let mut made = MadeCells::default();
    let mut cursor = Cursor::start(spec);
    while !cursor.finished {
        for list in keys.iter_mut() {
            list.clear();
        }
        half_boards(
            glue,
            cells,
            &mut made,
            geo,
            spec,
            &mut placing,
            &mut keys,
            &mut cursor,
            1 << 22,
        );
        for (class, list) in keys.iter().enumerate() {
            counts[class] += list.len() as u64;
            sums[class] = sums[class].wrapping_add(key_sum(list));
        }
    }
    (counts, sums)
}
