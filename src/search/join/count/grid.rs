//! A grid's count: its stored groups held, each query group made in turn
//! and met with every stored group its queens leave alone.

use std::sync::atomic::Ordering;

use super::{taken_bits, Buffers, Join, Matcher};
use crate::search::disjoint::{
    choose_cuts, keep_disjoint, matcher_path, Kept, MatcherPath, MAX_CUTS,
};
use crate::search::join::glue::Glue;
use crate::search::join::grid::{Grid, QueryGroup};
use crate::search::join::scratch::Held;
use crate::search::join::JoinTally;

impl<G: Glue> Join<'_, G> {
    /// The count of a grid (see [`Grid`]): its stored groups made once and
    /// held, each query group made once and held in turn, each pair of
    /// groups that meets matched on the keys that leave the other group's
    /// queen alone. A grid too large to hold is joined pair by pair.
    pub(super) fn count_grid(
        &self,
        mut buffers: Buffers<'_>,
        grid: &Grid,
        held: &mut Held,
    ) -> Option<JoinTally> {
        let key = |(d1, d2): (u64, u64)| self.geo.key(d1, d2);
        let path = matcher_path();
        // Both sides' lists share one budget of resident keys: a side's
        // limit is what the other side's lists have touched left of it
        // (their pages stay resident when cleared), so that the memory
        // bound counts one share, not a whole side's cap twice.
        held.begin_grid(&self.parts);
        let limit = held.room(&self.parts, true);
        let mut tally = JoinTally::default();
        for (_, specs) in &grid.stored {
            for (spec, extra) in specs {
                let from = held.east[0].len();
                let holds = self.hold(
                    &mut buffers,
                    spec,
                    &mut held.east,
                    limit.saturating_sub(from),
                );
                held.note_touched();
                if !holds {
                    for (stored, query, weights) in grid.pairs(self.geo, &grid.queries) {
                        tally += self.count(buffers.reborrow(), &stored, &[(query, 0, weights)])?;
                    }
                    return Some(tally);
                }
                if *extra != 0 {
                    for key in &mut held.east[0][from..] {
                        *key |= *extra;
                    }
                }
            }
            held.ends.push(held.east[0].len());
        }
        // The query groups still to meet, each with whether it was cut
        // deeper here already; taken from the back, in the grid's order.
        let mut pending: Vec<(QueryGroup, bool)> = grid
            .queries
            .iter()
            .rev()
            .map(|group| (*group, false))
            .collect();
        while let Some((group, cut)) = pending.pop() {
            let (west_queen, query, weights) = &group;
            for class in held.west.iter_mut() {
                class.clear();
            }
            let limit = held.room(&self.parts, false);
            let holds = self.hold(&mut buffers, query, &mut held.west, limit);
            held.note_touched();
            if !holds {
                for (stored, query, weights) in grid.pairs(self.geo, std::slice::from_ref(&group)) {
                    tally += self.count(buffers.reborrow(), &stored, &[(query, 0, weights)])?;
                }
                continue;
            }
            // A large group meets the stored groups as the groups of one
            // more west queen's places: fewer pairs for the making of its
            // boards again, which pays only where the group is large.
            if let (false, Some(west_col)) = (cut, grid.next_west) {
                let keys: usize = held.west.iter().map(Vec::len).sum();
                let pairs = keys as u64 * held.east[0].len() as u64;
                if pairs > self.parts.deepen_pairs {
                    let deeper = Grid::deepen_group(self.geo, group, west_col);
                    pending.extend(deeper.into_iter().rev().map(|group| (group, true)));
                    continue;
                }
            }
            let west_key = key(*west_queen);
            // A group with no queries meets nothing.
            if held
                .west
                .iter()
                .zip(weights)
                .all(|(class, weight)| *weight == 0 || class.is_empty())
            {
                continue;
            }
            // The bits the group's queries take, so that the matcher keeps
            // them: those that leave a stored group's queen alone take
            // none of its bits.
            let group_bits = taken_bits(&held.west, *weights, 0);
            for (group, (east_queen, _)) in grid.stored.iter().enumerate() {
                let east_key = key(*east_queen);
                if east_key & west_key != 0 {
                    continue;
                }
                let query_bits = group_bits & !east_key;
                let start = group.checked_sub(1).map_or(0, |before| held.ends[before]);
                let east = &held.east[0][start..held.ends[group]];
                let mut east_from = 0;
                loop {
                    let most = self.parts.stored_keys;
                    let part = &mut buffers.stored[0];
                    let kept = fill_leaving(path, east, &mut east_from, west_key, most, part);
                    if kept.len == 0 {
                        break;
                    }
                    let (part, part_bits) = (&part[..kept.len], kept.bits);
                    let mut loaded = false;
                    for (class, weight) in held.west.iter().zip(weights) {
                        if *weight == 0 {
                            continue;
                        }
                        let mut class_from = 0;
                        loop {
                            let most = self.parts.query_keys;
                            let batch = &mut buffers.queries[0];
                            let kept =
                                fill_leaving(path, class, &mut class_from, east_key, most, batch);
                            if kept.len == 0 {
                                break;
                            }
                            let batch = &batch[..kept.len];
                            tally.pairs += (part.len() * batch.len()) as u64;
                            let sum = match &mut buffers.matcher {
                                // Both sides cut, whichever is larger; the
                                // fills folded both lists' bits.
                                Matcher::Split(_, dual) => Ok(Some(
                                    dual.sum_disjoint_taking(part, part_bits, batch, kept.bits),
                                )),
                                other => {
                                    if !loaded {
                                        let cuts = choose_cuts(part, batch, MAX_CUTS);
                                        if !other.load(part, &cuts, query_bits) {
                                            return None;
                                        }
                                        loaded = true;
                                    }
                                    other.sum_disjoint(batch, 0)
                                }
                            };
                            let sum = sum.expect("the matcher keeps every bit the queries take")?;
                            tally.solutions += weight * sum;
                        }
                    }
                    if self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                        return None;
                    }
                }
            }
        }
        Some(tally)
    }
}

/// Writes to the front of `out` the next keys of `keys`, from `*from` on,
/// that leave the diagonals of `taken` alone, until it holds `most` of
/// them or the keys end: how many (`out[..kept.len]`; what lies past them
/// is stale) and the bits they take. `*from` moves past the keys looked at. A vector filter on
/// `path`: a grid filters every group's keys once per group it meets.
/// `out` only grows, so its slots are zeroed once, not on every fill (a
/// fill that zeroed them took 2.5% of an N = 26 task in `memset`).
fn fill_leaving(
    path: MatcherPath,
    keys: &[u64],
    from: &mut usize,
    taken: u64,
    most: usize,
    out: &mut Vec<u64>,
) -> Kept {
    let wanted = most.min(keys.len().saturating_sub(*from));
    if out.len() < wanted {
        out.resize(wanted, 0);
    }
    let mut kept = Kept::default();
    while kept.len < most && *from < keys.len() {
        let chunk = &keys[*from..keys.len().min(*from + (most - kept.len))];
        let len = kept.len;
        let more = keep_disjoint(path, chunk, taken, &mut out[len..len + chunk.len()]);
        kept = Kept {
            len: len + more.len,
            bits: kept.bits | more.bits,
        };
        *from += chunk.len();
    }
    kept
}
