//! A grid's count: its stored groups held, each query group made in turn
//! and met with every stored group its queens leave alone.

use std::ops::Range;
use std::sync::atomic::Ordering;

use super::{Buffers, Join, Matcher};
use crate::search::disjoint::{
    bits_taken, choose_cuts, keep_disjoint, matcher_path, Kept, MatcherPath, MAX_CUTS,
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
        // Query groups held together, one after another in the west
        // lists, so that each stored group is read from memory once for
        // all of them (`Parts::groups_a_pass`).
        let mut ready: Vec<Ready> = Vec::new();
        for class in held.west.iter_mut() {
            class.clear();
        }
        loop {
            let Some((group, cut)) = pending.pop() else {
                if !ready.is_empty() {
                    tally += self.meet_held(buffers.reborrow(), grid, held, &ready)?;
                }
                break;
            };
            let (west_queen, query, weights) = &group;
            let starts = held.west.each_ref().map(Vec::len);
            let used: usize = starts.iter().sum();
            let limit = held.room(&self.parts, false);
            let holds = self.hold(
                &mut buffers,
                query,
                &mut held.west,
                limit.saturating_sub(used),
            );
            held.note_touched();
            if !holds {
                truncate_lists(&mut held.west, starts);
                if !ready.is_empty() {
                    // Met alone, with the whole room, once those held
                    // before it are met.
                    tally += self.meet_held(buffers.reborrow(), grid, held, &ready)?;
                    ready.clear();
                    truncate_lists(&mut held.west, [0; 3]);
                    pending.push((group, cut));
                    continue;
                }
                for (stored, query, weights) in grid.pairs(self.geo, std::slice::from_ref(&group)) {
                    tally += self.count(buffers.reborrow(), &stored, &[(query, 0, weights)])?;
                }
                continue;
            }
            let ends = held.west.each_ref().map(Vec::len);
            let keys = ends.iter().sum::<usize>() - used;
            // A large group meets the stored groups as the groups of one
            // more west queen's places: fewer pairs for the making of its
            // boards again, which pays only where the group is large.
            if let (false, Some(west_col)) = (cut, grid.next_west) {
                let pairs = keys as u64 * held.east[0].len() as u64;
                if pairs > self.parts.deepen_pairs {
                    truncate_lists(&mut held.west, starts);
                    let deeper = Grid::deepen_group(self.geo, group, west_col);
                    pending.extend(deeper.into_iter().rev().map(|group| (group, true)));
                    continue;
                }
            }
            let classes: [Range<usize>; 3] =
                std::array::from_fn(|class| starts[class]..ends[class]);
            // A group with no queries meets nothing.
            if classes
                .iter()
                .zip(weights)
                .all(|(class, weight)| *weight == 0 || class.is_empty())
            {
                truncate_lists(&mut held.west, starts);
                continue;
            }
            // The bits the group's queries take, so that the matcher keeps
            // them: those that leave a stored group's queen alone take
            // none of its bits.
            let bits = classes
                .iter()
                .zip(&held.west)
                .zip(weights)
                .filter(|(_, weight)| **weight != 0)
                .fold(0, |bits, ((class, keys), _)| {
                    bits | bits_taken(path, &keys[class.clone()])
                });
            ready.push(Ready {
                west_key: key(*west_queen),
                weights: *weights,
                classes,
                bits,
            });
            // Those held are met once there are enough of them, past a
            // quarter of the room (the next group might not fit beside
            // them), or once they are no longer small beside the stored
            // groups (`Parts::groups_share`).
            if ready.len() >= self.parts.groups_a_pass
                || used + keys > limit / 4
                || (used + keys) * self.parts.groups_share > held.east[0].len()
            {
                tally += self.meet_held(buffers.reborrow(), grid, held, &ready)?;
                ready.clear();
                truncate_lists(&mut held.west, [0; 3]);
            }
        }
        Some(tally)
    }

    /// Meets the query groups held (`ready`, each a range of every west
    /// list) with every stored group whose queen their queens leave
    /// alone. A stored group is read a slice at a time, each slice kept
    /// for every group it meets while in cache, into that group's part;
    /// a part that might overflow is met with its group's queries first.
    fn meet_held(
        &self,
        mut buffers: Buffers<'_>,
        grid: &Grid,
        held: &mut Held,
        ready: &[Ready],
    ) -> Option<JoinTally> {
        let path = matcher_path();
        let most = self.parts.stored_keys;
        let Held {
            east,
            ends,
            west,
            parts,
            ..
        } = held;
        if parts.len() < ready.len() {
            parts.resize_with(ready.len(), Vec::new);
        }
        for part in &mut parts[..ready.len()] {
            // Zeroed once: a part's slots only grow.
            if part.len() < most {
                part.resize(most, 0);
            }
        }
        let mut tally = JoinTally::default();
        let mut meeting: Vec<(usize, Kept)> = Vec::with_capacity(ready.len());
        for (group, (east_queen, _)) in grid.stored.iter().enumerate() {
            let (d1, d2) = *east_queen;
            let east_key = self.geo.key(d1, d2);
            meeting.clear();
            meeting.extend(
                ready
                    .iter()
                    .enumerate()
                    .filter(|(_, query)| query.west_key & east_key == 0)
                    .map(|(at, _)| (at, Kept::default())),
            );
            if meeting.is_empty() {
                continue;
            }
            let start = group.checked_sub(1).map_or(0, |before| ends[before]);
            let keys = &east[0][start..ends[group]];
            for slice in keys.chunks(STORED_SLICE.min(most)) {
                for (at, kept) in &mut meeting {
                    let query = &ready[*at];
                    if kept.len + slice.len() > most {
                        let part = (&parts[*at][..kept.len], kept.bits);
                        tally += self.meet_part(buffers.reborrow(), west, query, east_key, part)?;
                        *kept = Kept::default();
                    }
                    let out = &mut parts[*at][kept.len..kept.len + slice.len()];
                    let more = keep_disjoint(path, slice, query.west_key, out);
                    *kept = Kept {
                        len: kept.len + more.len,
                        bits: kept.bits | more.bits,
                    };
                }
            }
            for (at, kept) in &meeting {
                if kept.len > 0 {
                    let part = (&parts[*at][..kept.len], kept.bits);
                    tally +=
                        self.meet_part(buffers.reborrow(), west, &ready[*at], east_key, part)?;
                }
            }
            if self.stop.is_some_and(|stop| stop.load(Ordering::Relaxed)) {
                return None;
            }
        }
        Some(tally)
    }

    /// Meets one part of a stored group (its keys and the bits they take)
    /// with the queries of `query` (ranges of the west lists `west`) that
    /// leave the stored group's queen (`east_key`) alone.
    fn meet_part(
        &self,
        mut buffers: Buffers<'_>,
        west: &[Vec<u64>; 3],
        query: &Ready,
        east_key: u64,
        (part, part_bits): (&[u64], u64),
    ) -> Option<JoinTally> {
        let path = matcher_path();
        let query_bits = query.bits & !east_key;
        let mut tally = JoinTally::default();
        let mut loaded = false;
        for ((list, class), weight) in west.iter().zip(&query.classes).zip(query.weights) {
            if weight == 0 {
                continue;
            }
            let class = &list[class.clone()];
            let mut class_from = 0;
            loop {
                let most = self.parts.query_keys;
                let batch = &mut buffers.queries[0];
                let kept = fill_leaving(path, class, &mut class_from, east_key, most, batch);
                if kept.len == 0 {
                    break;
                }
                let batch = &batch[..kept.len];
                tally.pairs += (part.len() * batch.len()) as u64;
                let sum = match &mut buffers.matcher {
                    // Both sides cut, whichever is larger; the fills
                    // folded both lists' bits.
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
        Some(tally)
    }
}

/// A query group held in the west lists, ready to meet the stored groups.
struct Ready {
    /// The key of the group's west queens.
    west_key: u64,
    /// The weight of each class of queries.
    weights: [u64; 3],
    /// The group's keys in each west list.
    classes: [Range<usize>; 3],
    /// The bits its weighted queries take.
    bits: u64,
}

/// Stored keys kept a slice at a time for every query group held: 64 KiB,
/// which stays in the second-level cache while each group's filter reads
/// it (see `GROUPS_A_PASS`).
const STORED_SLICE: usize = 1 << 13;

/// Every list cut back to its length in `lens`.
fn truncate_lists(lists: &mut [Vec<u64>; 3], lens: [usize; 3]) {
    for (list, len) in lists.iter_mut().zip(lens) {
        list.truncate(len);
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
