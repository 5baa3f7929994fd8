//! The order of even N's row sets in blocks of south halves, whose
//! placements neighbouring tasks share.

use super::subsets::Subsets;
use super::{even_cut, EvenCut, JoinTask};
use crate::search::join::geometry::Geometry;

/// Sorts tasks whose row sets are subsets of `open` by [`tile_key`],
/// each half's colex rank found by walking the integers up to it (colex
/// order is increasing order within a size).
pub(super) fn sort_by_tile(geo: &Geometry, open: u32, tasks: &mut [JoinTask]) {
    let ranks = |set: u32| {
        let mut of_size = [0u64; 33];
        (0..=set)
            .filter(|&rows| rows & !set == 0)
            .map(|rows| {
                let size = &mut of_size[rows.count_ones() as usize];
                *size += 1;
                (rows, *size - 1)
            })
            .collect::<std::collections::HashMap<u32, u64>>()
    };
    let north = geo.north_rows();
    let (north_ranks, south_ranks) = (ranks(open & north), ranks(open & !north));
    tasks.sort_by_cached_key(|task| {
        let rows = task.east_rows;
        tile_key(
            (rows & north).count_ones(),
            north_ranks[&(rows & north)],
            south_ranks[&(rows & !north)],
        )
    });
}

/// South halves a block of the tiled order takes ([`tile_key`]).
const SOUTH_BLOCK: usize = 8;

/// Smallest N whose tasks are taken in blocks ([`tile_key`]). Below it
/// the runs of consecutive tasks a thread takes are short (6 at N = 14,
/// 25 at N = 16), few row sets are held again, and blocks cost N = 14
/// 1.5% (`bench --n 14 -j1`, Zen 3 AVX2) and gained N = 16 nothing.
const BLOCKS_MIN_N: u32 = 18;

/// Whether the tasks of `n` are taken in blocks of south halves
/// ([`tile_key`]): even N counted whole from [`BLOCKS_MIN_N`].
pub(crate) fn takes_blocks(n: u32) -> bool {
    n.is_multiple_of(2) && n >= BLOCKS_MIN_N && even_cut(n) == EvenCut::RowSet
}

/// Where a row set stands in the order of an even N counted whole from
/// [`BLOCKS_MIN_N`] to 22 (odd N keep colex order, which the 32 shards of
/// N = 23 in `docs/data` are bound to): by how many of its rows are
/// north, then in blocks of [`SOUTH_BLOCK`] south halves (by colex rank),
/// and within a block north half by north half (colex), each across the
/// block's south halves.
/// Neighbouring tasks then share the halves of their row sets, whose
/// placements a thread keeps
/// ([`PLACED_ROWS_TILED`](super::halves::PLACED_ROWS_TILED)): at N = 18,
/// in runs of 64 tasks, 0.58 row sets a task are placed again against
/// 2.07 in colex order (where a task shares its south half with the
/// last, never its north), 0.63 in tiles of 4 north halves by 8, 0.74 in
/// tiles of 8 by 8.
fn tile_key(north_size: u32, north_rank: u64, south_rank: u64) -> (u32, u64, u64, u64) {
    (
        north_size,
        south_rank / SOUTH_BLOCK as u64,
        north_rank,
        south_rank,
    )
}

/// The `size`-subsets of `open` in the order of [`tile_key`], north
/// halves within `north`.
pub(super) struct TiledSubsets {
    north_open: u32,
    south_open: u32,
    size: u32,
    /// North rows of the subsets being made.
    north_size: u32,
    souths: Subsets,
    norths: Subsets,
    block: [u32; SOUTH_BLOCK],
    block_len: usize,
    north: u32,
    /// The next south half of the block to join to `north`.
    at: usize,
}

impl TiledSubsets {
    pub(super) fn new(open: u32, north: u32, size: u32) -> TiledSubsets {
        let (north_open, south_open) = (open & north, open & !north);
        TiledSubsets {
            north_open,
            south_open,
            size,
            north_size: 0,
            souths: Subsets::new(south_open, size),
            // None: the first call takes a block of south halves.
            norths: Subsets::new(0, 1),
            block: [0; SOUTH_BLOCK],
            block_len: 0,
            north: 0,
            at: 0,
        }
    }
}

impl Iterator for TiledSubsets {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        loop {
            if self.at < self.block_len {
                self.at += 1;
                return Some(self.north | self.block[self.at - 1]);
            }
            if let Some(north) = self.norths.next() {
                (self.north, self.at) = (north, 0);
                continue;
            }
            // The block is done with every north half: the next block,
            // else the next count of north rows.
            self.block_len = 0;
            for (slot, south) in self.block.iter_mut().zip(&mut self.souths) {
                *slot = south;
                self.block_len += 1;
            }
            self.at = self.block_len;
            if self.block_len > 0 {
                self.norths = Subsets::new(self.north_open, self.north_size);
                continue;
            }
            self.north_size += 1;
            if self.north_size > self.size {
                return None;
            }
            self.souths = Subsets::new(self.south_open, self.size - self.north_size);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::subsets::binomial;
    use super::*;
    use crate::random::SplitMix64;

    /// The tiled walk gives every subset of the size once, in the order
    /// of their tile keys: on
    /// random open sets (north and south halves of 0 to 9 rows, the
    /// middle row between them closed or open) and every size, blocks
    /// full and partial.
    #[test]
    fn tiled_subsets_walked_and_ranked_are_the_subsets_in_tile_order() {
        let mut random = SplitMix64(0x5eed_7117_ed00_0001);
        let north = (1u32 << 9) - 1;
        for round in 0..60 {
            let open = random.next() as u32 & 0x7_ffff;
            let open = if round == 0 { 0x7_fdff } else { open };
            for size in 0..=open.count_ones() + 1 {
                let walked: Vec<u32> = TiledSubsets::new(open, north, size).collect();
                let count = binomial(open.count_ones(), size.min(open.count_ones()));
                let count = if size > open.count_ones() { 0 } else { count };
                assert_eq!(walked.len() as u64, count, "open {open:#x} size {size}");
                let mut colex: Vec<u32> = Subsets::new(open, size).collect();
                let rank_in = |set: u32, rows: u32| {
                    Subsets::new(set, rows.count_ones())
                        .position(|other| other == rows)
                        .unwrap() as u64
                };
                colex.sort_by_key(|&rows| {
                    tile_key(
                        (rows & north).count_ones(),
                        rank_in(open & north, rows & north),
                        rank_in(open & !north, rows & !north),
                    )
                });
                assert_eq!(walked, colex, "open {open:#x} size {size}");
            }
        }
    }
}
