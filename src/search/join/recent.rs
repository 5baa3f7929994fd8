//! The row sets' cells a worker holds, keyed by row set and open columns,
//! the least recently used found for dropping: one table for the CPU's
//! cache (`cells.rs`) and a GPU feeder's (`gpu/cells.rs`), which differ
//! only in what an entry holds and how it is let go.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The key of a row set's cells within `open` columns (a side is at most
/// 16).
pub(crate) fn slot_key(rows: u32, open: u32) -> u32 {
    rows | (open << 16)
}

/// Entries by key, each with the tick of its last use; a tick is a load,
/// so "used this tick" means wanted by the load under way.
pub(crate) struct Recent<T> {
    entries: Vec<Entry<T>>,
    slot_of: HashMap<u32, u32, BuildHasherDefault<CellKeyHasher>>,
    tick: u64,
}

struct Entry<T> {
    key: u32,
    used: u64,
    value: T,
}

impl<T> Default for Recent<T> {
    fn default() -> Recent<T> {
        Recent {
            entries: Vec::new(),
            slot_of: HashMap::default(),
            tick: 0,
        }
    }
}

impl<T> Recent<T> {
    /// Starts a load: entries touched from now on are the wanted ones.
    pub(crate) fn next_tick(&mut self) {
        self.tick += 1;
    }

    /// How many entries there are.
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Marks the entry of `key` used by this load; false where there is
    /// none.
    pub(crate) fn touch(&mut self, key: u32) -> bool {
        match self.slot_of.get(&key) {
            Some(&slot) => {
                self.entries[slot as usize].used = self.tick;
                true
            }
            None => false,
        }
    }

    /// The entry of `key`, if there is one.
    #[inline]
    pub(crate) fn get(&self, key: u32) -> Option<&T> {
        let slot = *self.slot_of.get(&key)?;
        Some(&self.entries[slot as usize].value)
    }

    /// The slot of the least recently used entry that this load has not
    /// used, if any.
    pub(crate) fn oldest_unused(&self) -> Option<usize> {
        self.entries
            .iter()
            .enumerate()
            .filter(|(_, entry)| entry.used != self.tick)
            .min_by_key(|(_, entry)| entry.used)
            .map(|(slot, _)| slot)
    }

    /// Adds `value` under `key`, used by this load.
    pub(crate) fn insert(&mut self, key: u32, value: T) {
        self.slot_of.insert(key, self.entries.len() as u32);
        self.entries.push(Entry {
            key,
            used: self.tick,
            value,
        });
    }

    /// Takes the entry in `slot` out (the last entry moves into its slot).
    pub(crate) fn take(&mut self, slot: usize) -> T {
        let entry = self.entries.swap_remove(slot);
        self.slot_of.remove(&entry.key);
        if let Some(moved) = self.entries.get(slot) {
            self.slot_of.insert(moved.key, slot as u32);
        }
        entry.value
    }

    /// Gives the entry in `slot` to `key`, used by this load, and returns
    /// it to be filled anew (its buffers kept).
    pub(crate) fn reuse(&mut self, slot: usize, key: u32) -> &mut T {
        let entry = &mut self.entries[slot];
        self.slot_of.remove(&entry.key);
        self.slot_of.insert(key, slot as u32);
        entry.key = key;
        entry.used = self.tick;
        &mut entry.value
    }

    /// Takes every entry out.
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = T> + '_ {
        self.slot_of.clear();
        self.entries.drain(..).map(|entry| entry.value)
    }
}

/// A hasher for the cells' keys: one multiply, as the keys are distinct
/// small integers.
#[derive(Default)]
pub(crate) struct CellKeyHasher(u64);

impl Hasher for CellKeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(byte)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }

    fn write_u32(&mut self, key: u32) {
        self.write_u64(u64::from(key));
    }

    fn write_u64(&mut self, key: u64) {
        // The high bits of the product are the well mixed ones.
        self.0 = key.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_oldest_unused_entry_goes_and_the_moved_one_stays_found() {
        let mut recent = Recent::default();
        recent.next_tick();
        recent.insert(slot_key(1, 3), "a");
        recent.next_tick();
        recent.insert(slot_key(2, 3), "b");
        recent.insert(slot_key(1, 7), "c");
        recent.next_tick();
        assert!(recent.touch(slot_key(2, 3)));
        assert!(!recent.touch(slot_key(9, 9)));
        // "a" is older than "c"; "b" is used by this load.
        assert_eq!(recent.oldest_unused(), Some(0));
        assert_eq!(recent.take(0), "a");
        assert_eq!(recent.get(slot_key(1, 3)), None);
        assert_eq!(recent.get(slot_key(1, 7)), Some(&"c"));
        assert_eq!(recent.get(slot_key(2, 3)), Some(&"b"));
        assert_eq!(recent.oldest_unused(), Some(0));
        *recent.reuse(0, slot_key(5, 5)) = "d";
        assert_eq!(recent.get(slot_key(1, 7)), None);
        assert_eq!(recent.get(slot_key(5, 5)), Some(&"d"));
        assert_eq!(recent.oldest_unused(), None, "both used by this load");
        assert_eq!(recent.len(), 2);
        let mut left: Vec<_> = recent.drain().collect();
        left.sort_unstable();
        assert_eq!(left, ["b", "d"]);
        assert_eq!(recent.get(slot_key(2, 3)), None);
    }
}
