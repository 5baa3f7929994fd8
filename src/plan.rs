//! Turns (N, method, split depth) into a deterministic, ordered list of
//! independent tasks.
//!
//! Everything that spreads work (threads, shards, checkpoints, merges) names
//! work by task id, so a plan must come out the same on every machine: tasks
//! are generated in lexicographic order of their prefix and numbered from 0,
//! and the plan's fingerprint hashes all of it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::kernel::{Board, MAX_N};

/// Smallest board size accepted.
pub const MIN_N: u32 = 1;

/// The automatic split stops deepening once a plan has at least this many
/// tasks: hundreds per thread on machines of up to a few dozen cores, so the
/// last tasks to finish are small against the whole run.
pub const AUTO_MIN_TASKS: usize = 10_000;

/// The automatic split leaves at least this many rows to the kernel: below
/// that, a task is too small to be worth scheduling.
pub const AUTO_MIN_ROWS_LEFT: u32 = 5;

/// Largest plan built, whatever depth is asked for (about 40 bytes a task).
pub const MAX_TASKS: usize = 20_000_000;

/// Most queens placed while expanding prefixes. Near the bottom of the board
/// most prefixes die before reaching the split depth, so the task count alone
/// would not stop an absurd depth from searching the whole tree.
pub const MAX_PREFIX_NODES: u64 = 5 * MAX_TASKS as u64;

/// How the search tree is cut into tasks and which part of it is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Method {
    /// Every first-row square: the full tree.
    None,
    /// First-row queen in the left half only, counted twice (odd N: the
    /// middle column with the second-row queen in the left half, twice).
    Mirror,
}

impl Method {
    /// Every method, in the order help texts list them.
    pub const ALL: [Method; 2] = [Method::None, Method::Mirror];

    /// The name used on the command line and in output.
    pub fn name(self) -> &'static str {
        match self {
            Method::None => "none",
            Method::Mirror => "mirror",
        }
    }

    /// Stable number hashed into fingerprints.
    fn code(self) -> u8 {
        match self {
            Method::None => 0,
            Method::Mirror => 1,
        }
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

/// How deep the first rows are expanded into tasks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SplitDepth {
    /// Deepen until the plan has [`AUTO_MIN_TASKS`] tasks or fewer than
    /// [`AUTO_MIN_ROWS_LEFT`] rows would be left for the kernel.
    #[default]
    Auto,
    /// Expand every task to at least this row.
    Rows(u32),
}

/// One independent subtree: the kernel counts its completions, and the count
/// is multiplied by the weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// Position in the plan, from 0; stable for the same (N, method, depth).
    pub id: u64,
    /// How many solutions each completion stands for (symmetry).
    pub weight: u32,
    /// The prefix to search below.
    pub board: Board,
}

/// An ordered list of tasks that together cover the method's search tree.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Board size.
    pub n: u32,
    /// Method the tasks were made for.
    pub method: Method,
    /// Rows expanded into the tasks' prefixes.
    pub split_depth: u32,
    /// The tasks, ordered by id.
    pub tasks: Vec<Task>,
    /// Queens placed while building the prefixes; counted once, so that the
    /// nodes of a whole run do not depend on the split depth.
    pub prefix_nodes: u64,
}

/// Checks that `n` is a board size the kernel supports.
pub fn check_board_size(n: u64) -> Result<u32, Error> {
    if (u64::from(MIN_N)..=u64::from(MAX_N)).contains(&n) {
        Ok(n as u32)
    } else {
        Err(Error::BoardSizeOutOfRange {
            n,
            min: MIN_N,
            max: MAX_N,
        })
    }
}

/// A prefix still being expanded: its board and weight.
#[derive(Clone, Copy)]
struct Root {
    board: Board,
    weight: u32,
}

impl Plan {
    /// Builds the plan of `method` for an `n` board.
    pub fn build(n: u32, method: Method, split: SplitDepth) -> Result<Plan, Error> {
        let n = check_board_size(u64::from(n))?;
        let (roots, root_nodes) = roots(n, method);
        let depth = match split {
            SplitDepth::Rows(depth) if depth > n => {
                return Err(Error::SplitDeeperThanBoard { n, depth });
            }
            SplitDepth::Rows(depth) => depth,
            SplitDepth::Auto => auto_depth(n, &roots),
        };
        let mut tasks = Vec::new();
        let mut prefix_nodes = root_nodes;
        for root in &roots {
            expand(n, *root, depth, &mut tasks, &mut prefix_nodes).map_err(|()| {
                Error::SplitTooDeep {
                    n,
                    depth,
                    limit: MAX_TASKS,
                }
            })?;
        }
        Ok(Plan {
            n,
            method,
            split_depth: depth,
            tasks,
            prefix_nodes,
        })
    }

    /// A hash over N, method, depth and every task: two plans with the same
    /// fingerprint hand out the same work under the same ids.
    pub fn fingerprint(&self) -> u64 {
        let mut hash = Fnv1a::new();
        hash.write(b"nqueens-plan-v1");
        hash.write(&self.n.to_le_bytes());
        hash.write(&[self.method.code()]);
        hash.write(&self.split_depth.to_le_bytes());
        hash.write(&(self.tasks.len() as u64).to_le_bytes());
        for task in &self.tasks {
            hash.write(&task.id.to_le_bytes());
            hash.write(&task.weight.to_le_bytes());
            hash.write(&task.board.row.to_le_bytes());
            hash.write(&task.board.cols.to_le_bytes());
            hash.write(&task.board.ld.to_le_bytes());
            hash.write(&task.board.rd.to_le_bytes());
        }
        hash.finish()
    }

    /// The fingerprint as 16 hex digits, as files and output show it.
    pub fn fingerprint_hex(&self) -> String {
        format!("{:016x}", self.fingerprint())
    }
}

/// The method's starting prefixes with their weights, and the queens placed
/// to make them.
fn roots(n: u32, method: Method) -> (Vec<Root>, u64) {
    match method {
        Method::None => (
            vec![Root {
                board: Board::EMPTY,
                weight: 1,
            }],
            0,
        ),
        Method::Mirror => mirror_roots(n),
    }
}

/// The mirror method's prefixes: a solution and its left-right reflection are
/// distinct (no solution for N >= 2 is its own mirror image), so only the one
/// whose first-row queen is in the left half is searched, and counted twice.
/// For odd N a first-row queen in the middle column is its own mirror, so the
/// second row's queen decides: left half only, twice.
fn mirror_roots(n: u32) -> (Vec<Root>, u64) {
    if n == 1 {
        let board = Board::EMPTY.place(1);
        return (vec![Root { board, weight: 1 }], 1);
    }
    let mut roots = Vec::new();
    let mut nodes = 0;
    for col in 0..n / 2 {
        nodes += 1;
        roots.push(Root {
            board: Board::EMPTY.place(1 << col),
            weight: 2,
        });
    }
    if n % 2 == 1 {
        let middle = 1u64 << (n / 2);
        let board = Board::EMPTY.place(middle);
        nodes += 1;
        let mut free = board.free(n) & (middle - 1);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            nodes += 1;
            roots.push(Root {
                board: board.place(bit),
                weight: 2,
            });
        }
    }
    (roots, nodes)
}

/// Appends the tasks of `root` expanded to row `depth`, in lexicographic
/// order, counting the queens placed. Errs when the plan grows past
/// [`MAX_TASKS`] or the expansion past [`MAX_PREFIX_NODES`].
fn expand(
    n: u32,
    root: Root,
    depth: u32,
    tasks: &mut Vec<Task>,
    nodes: &mut u64,
) -> Result<(), ()> {
    if root.board.row >= depth || root.board.row >= n {
        if tasks.len() >= MAX_TASKS {
            return Err(());
        }
        tasks.push(Task {
            id: tasks.len() as u64,
            weight: root.weight,
            board: root.board,
        });
        return Ok(());
    }
    let mut free = root.board.free(n);
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free &= free - 1;
        *nodes += 1;
        if *nodes > MAX_PREFIX_NODES {
            return Err(());
        }
        let child = Root {
            board: root.board.place(bit),
            weight: root.weight,
        };
        expand(n, child, depth, tasks, nodes)?;
    }
    Ok(())
}

/// The shallowest depth giving [`AUTO_MIN_TASKS`] tasks, without leaving the
/// kernel fewer than [`AUTO_MIN_ROWS_LEFT`] rows.
fn auto_depth(n: u32, roots: &[Root]) -> u32 {
    let deepest = n.saturating_sub(AUTO_MIN_ROWS_LEFT);
    let mut depth = roots.iter().map(|root| root.board.row).min().unwrap_or(0);
    while depth < deepest && count_tasks(n, roots, depth) < AUTO_MIN_TASKS {
        depth += 1;
    }
    depth
}

/// How many tasks `roots` expanded to `depth` would give.
fn count_tasks(n: u32, roots: &[Root], depth: u32) -> usize {
    fn below(n: u32, board: Board, depth: u32) -> usize {
        if board.row >= depth || board.row >= n {
            return 1;
        }
        let mut free = board.free(n);
        let mut total = 0;
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            total += below(n, board.place(bit), depth);
        }
        total
    }
    roots.iter().map(|root| below(n, root.board, depth)).sum()
}

/// 64-bit FNV-1a: tiny, stable across platforms and releases, and enough to
/// tell plans apart (it guards against mistakes, not attackers).
struct Fnv1a(u64);

impl Fnv1a {
    fn new() -> Fnv1a {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
