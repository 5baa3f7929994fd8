//! The counting methods as a plan records them: their names and codes,
//! the kinds of task they make, and how `auto` picks one. What code
//! counts each, and everything asked of that code (a plan's tasks, the
//! range of N a method counts, prices, the GPU), is the registry's
//! (`search/registry.rs`), one floor up: a plan holds a method, and the methods build plans. Adding a
//! method adds its folder under `search/`, a variant here (with its name
//! and code) and a line in each of the registry's `counting`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::search::board::MAX_N;

use super::{Fnv1a, MIN_N};

/// `auto` counts with `d4` from this N up where `join` does not apply:
/// faster than `mirror` on one thread (`bench --runs 201` medians, one Zen 5
/// core, AVX-512: 0.38 vs 0.68 ms at 10, 24.7 vs 27.2 ms at 14, 0.27 vs
/// 0.51 s at 16). Below 10 it gains a tenth of a millisecond at most
/// (0.11 vs 0.19 ms at 9), less than a process takes to start, and `auto`
/// keeps the plans it always made there.
pub const AUTO_D4_FROM: u32 = 10;

/// `auto` counts with `join` from this N to the end of its range
/// ([`Method::own_range`]) when it fits in memory: faster than `d4` from
/// N = 14 on one thread, slower below since `d4`'s plans stopped cutting
/// tasks of microseconds (`bench --runs 501` medians, one Zen 4 core,
/// AVX-512: `join` 0.45, 2.24 and 7.34 ms at 10, 12 and 13 against `d4`'s
/// 0.30, 1.11 and 2.44; at 14 9.8 against 10.1, at 16 78 against 346; the
/// portable and AVX2 paths alike, though `d4` won at 15 by 7% on AVX-512).
pub const AUTO_JOIN_FROM: u32 = 14;

/// How the search tree is cut into tasks and which part of it is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Method {
    /// Every first-row square: the full tree, no symmetry used (`none`
    /// on the command line and in files).
    #[serde(rename = "none")]
    NoSymmetry,
    /// First-row queen in the left half only, counted twice (odd N: the
    /// middle column with the second-row queen in the left half, twice).
    Mirror,
    /// All 8 symmetries of the square: one image per solution, weighted by
    /// its orbit size at the leaf; also counts the unique solutions.
    D4,
    /// Half boards joined on their crossing diagonals, with symmetry
    /// weights: no row-by-row search (see `docs/methods.md`).
    Join,
    /// The fastest method for N: `join` where it fits in memory (from
    /// [`AUTO_JOIN_FROM`] to the end of its range), `d4` beyond and from
    /// [`AUTO_D4_FROM`], `mirror` below.
    Auto,
}

impl Method {
    /// Every method, in the order help texts list them.
    pub const ALL: [Method; 5] = [
        Method::NoSymmetry,
        Method::Mirror,
        Method::D4,
        Method::Join,
        Method::Auto,
    ];

    /// The methods that count (every one but `auto`, which picks one).
    pub const SEARCHING: [Method; 4] =
        [Method::NoSymmetry, Method::Mirror, Method::D4, Method::Join];

    /// The depth-first methods, whose tasks are prefixes cut at the split
    /// depth (`join` has its own tasks, one per row set).
    pub const DEPTH_FIRST: [Method; 3] = [Method::NoSymmetry, Method::Mirror, Method::D4];

    /// The name used on the command line and in output.
    pub fn name(self) -> &'static str {
        match self {
            Method::NoSymmetry => "none",
            Method::Mirror => "mirror",
            Method::D4 => "d4",
            Method::Join => "join",
            Method::Auto => "auto",
        }
    }

    /// Stable number hashed into fingerprints.
    pub(crate) fn code(self) -> u8 {
        match self {
            Method::NoSymmetry => 0,
            Method::Mirror => 1,
            Method::D4 => 2,
            Method::Auto => 3,
            Method::Join => 4,
        }
    }

    /// What `auto` takes for `n` where its first pick does not fit in
    /// memory: `d4`, which needs none beyond its tasks.
    pub fn auto_when_memory_is_short(_n: u32) -> Method {
        Method::D4
    }

    /// The method `auto` takes for smaller boards whose range ends below
    /// `n`, where `auto` counts `n` with a slower one
    /// ([`effective_method`]); `None` where `auto` takes its fastest.
    /// Derived from `auto`'s picks and the methods' ranges.
    pub fn auto_outgrown(n: u32) -> Option<Method> {
        (MIN_N..n)
            .rev()
            .map(|smaller| effective_method(smaller, Method::Auto))
            .find(|method| *method.own_range().end() < n)
    }

    /// The smallest N for which `auto` takes this method
    /// ([`effective_method`]), if any.
    pub fn auto_takes_from(self) -> Option<u32> {
        (MIN_N..=MAX_N).find(|&n| effective_method(n, Method::Auto) == self)
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Method {
    type Err = Error;

    fn from_str(name: &str) -> Result<Method, Error> {
        Method::ALL
            .into_iter()
            .find(|method| method.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| Error::UnknownMethod {
                name: name.to_string(),
                accepted: Method::ALL.map(Method::name).join(", "),
            })
    }
}

/// Which search a task's subtree belongs to, with the bounds that search
/// enforces on every row below the prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum TaskKind {
    /// The plain search; every completion counts `weight` times.
    Plain,
    /// `d4`, a queen in the corner (0, 0) and the second-row queen in column
    /// `second`: column 1 is closed down to row `second`, so that of a board
    /// and its reflection in the corner's diagonal only one is searched.
    D4Corner {
        /// Column of the row-1 queen.
        second: u32,
    },
    /// `d4`, top-row queen in column `k` (1 <= k <= (N-1)/2), nearest a
    /// corner of all edge queens: the side columns are closed in the first
    /// and last `k` rows and the bottom row is limited to columns k..N-1-k.
    D4Edge {
        /// Column of the row-0 queen: its distance from the corner.
        k: u32,
    },
    /// `join`: the half boards on the row set `east_rows` and its
    /// complement; for odd N, `middle` places the middle queens (see
    /// `search/join/tasks.rs`).
    Join {
        /// Board rows whose queen is in the east half.
        east_rows: u32,
        /// Odd N: 0 for the centre queen, else the middle column queen's
        /// distance above the centre.
        middle: u32,
    },
}

impl TaskKind {
    /// Hashes the kind's fields into a plan's fingerprint.
    pub(crate) fn hash_into(self, hash: &mut Fnv1a) {
        let (kind, bound) = match self {
            TaskKind::Plain => (0u8, 0u32),
            TaskKind::D4Corner { second } => (1, second),
            // Edge tasks count by the tie-pattern rule of
            // `d4::classify`; code 2 was the rule before it, whose
            // per-task counts differ, so old checkpoints must not match.
            TaskKind::D4Edge { k } => (5, k),
            TaskKind::Join { east_rows, middle } => {
                hash.write(&east_rows.to_le_bytes());
                (3, middle)
            }
        };
        hash.write(&[kind]);
        hash.write(&bound.to_le_bytes());
    }
}

/// How deep the first rows are expanded into tasks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SplitDepth {
    /// Deepen until the plan has [`AUTO_MIN_TASKS`](super::AUTO_MIN_TASKS) tasks, or
    /// [`AUTO_FEW_TASKS`](super::AUTO_FEW_TASKS) where a row more would leave
    /// tasks fewer than [`AUTO_TASK_ROWS`](super::AUTO_TASK_ROWS) rows, or
    /// fewer than [`AUTO_MIN_ROWS_LEFT`](super::AUTO_MIN_ROWS_LEFT) rows would be left.
    #[default]
    Auto,
    /// Expand every task to at least this row.
    Rows(u32),
}

/// The method a plan for `n` really uses: `auto` picks by N, and a method
/// asked for below its range ([`Method::own_range`]: `d4` needs room for
/// its edge bounds, `join` for its symmetry rules) falls back to `mirror`.
/// Past its range a method stays itself, and its plan refuses N.
///
/// `auto` asks for `join` from [`AUTO_JOIN_FROM`] to the end of its range,
/// and [`Plan::build_within`](super::Plan::build_within) turns that into
/// `d4` when the count does not fit in memory.
pub fn effective_method(n: u32, method: Method) -> Method {
    match method {
        Method::Auto if n >= AUTO_JOIN_FROM && Method::Join.own_range().contains(&n) => {
            Method::Join
        }
        Method::Auto if n >= AUTO_D4_FROM => Method::D4,
        Method::Auto => Method::Mirror,
        searching if n < *searching.own_range().start() => Method::Mirror,
        searching => searching,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_outgrows_a_method_exactly_past_its_range_and_takes_another() {
        for n in 1..=MAX_N {
            let outgrown = Method::auto_outgrown(n);
            match outgrown {
                Some(method) => {
                    assert!(n > *method.own_range().end(), "N = {n}");
                    assert_ne!(effective_method(n, Method::Auto), method, "N = {n}");
                }
                None => assert!(
                    effective_method(n, Method::Auto).own_range().contains(&n),
                    "N = {n}"
                ),
            }
        }
        let join_max = *Method::Join.own_range().end();
        assert_eq!(Method::auto_outgrown(join_max), None);
        assert_eq!(Method::Join.auto_takes_from(), Some(AUTO_JOIN_FROM));
        assert_eq!(Method::Mirror.auto_takes_from(), Some(MIN_N));
        assert_eq!(Method::NoSymmetry.auto_takes_from(), None);
        assert_eq!(Method::auto_outgrown(join_max + 1), Some(Method::Join));
    }
}
