//! Subsets of a set of rows of one size: walked in colex order, and
//! found by their rank in it.

/// The `size`-element subsets of a set of rows in colex order (as
/// integers, increasing): Gosper's hack walks the `size`-subsets of the
/// set's positions, each then spread onto the set's own bits.
pub(super) struct Subsets {
    positions: [u32; 32],
    slots: u32,
    /// The next subset of the positions, or `None` when done.
    combination: Option<u64>,
}

impl Subsets {
    pub(super) fn new(set: u32, size: u32) -> Subsets {
        let (positions, slots) = positions_of(set);
        Subsets {
            positions,
            slots,
            combination: (size <= slots).then_some((1u64 << size) - 1),
        }
    }
}

impl Iterator for Subsets {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        let combination = self.combination?;
        if combination >= 1 << self.slots {
            self.combination = None;
            return None;
        }
        let mut rows = 0;
        let mut rest = combination;
        while rest != 0 {
            rows |= 1 << self.positions[rest.trailing_zeros() as usize];
            rest &= rest - 1;
        }
        // Gosper's hack: the next integer with as many bits set (the empty
        // set has no next).
        self.combination = (combination != 0).then(|| {
            let lowest = combination & combination.wrapping_neg();
            let ripple = combination + lowest;
            (((ripple ^ combination) >> 2) / lowest) | ripple
        });
        Some(rows)
    }
}

/// C(n, k) for n, k <= 32: Pascal's triangle, built at compile time.
const BINOMIALS: [[u64; 33]; 33] = {
    let mut table = [[0u64; 33]; 33];
    let mut n = 0;
    while n <= 32 {
        table[n][0] = 1;
        let mut k = 1;
        while k <= n {
            table[n][k] = table[n - 1][k - 1] + table[n - 1][k];
            k += 1;
        }
        n += 1;
    }
    table
};

/// C(n, k), for the small arguments of task positions (n <= 32).
pub(super) fn binomial(n: u32, k: u32) -> u64 {
    BINOMIALS[n as usize][k as usize]
}

/// The `size`-element subset of `set` at position `rank` in colex order
/// (the order of [`for_each_subset`]): the combinatorial number system,
/// largest element first.
pub(super) fn subset_of_rank(set: u32, size: u32, mut rank: u64) -> u32 {
    let (positions, mut top) = positions_of(set);
    let mut rows = 0;
    for k in (1..=size).rev() {
        // The largest position p below the last with C(p, k) <= rank
        // (C(k - 1, k) = 0 stops the walk): all levels walk n steps.
        let mut p = top - 1;
        while binomial(p, k) > rank {
            p -= 1;
        }
        rank -= binomial(p, k);
        rows |= 1 << positions[p as usize];
        top = p;
    }
    rows
}

/// Calls `visit` with every `size`-element subset of `set`, in colex order
/// (as integers, increasing).
pub(super) fn for_each_subset(set: u32, size: u32, visit: impl FnMut(u32)) {
    Subsets::new(set, size).for_each(visit);
}

/// The bit positions of `set`, lowest first, and how many there are.
fn positions_of(set: u32) -> ([u32; 32], u32) {
    let mut positions = [0u32; 32];
    let mut count = 0;
    for bit in (0..32).filter(|bit| set & (1 << bit) != 0) {
        positions[count as usize] = bit;
        count += 1;
    }
    (positions, count)
}
