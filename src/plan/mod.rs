//! Turns (N, method, split depth) into a deterministic, ordered list of
//! independent tasks.
//!
//! Everything that spreads work (threads, shards, checkpoints, merges) names
//! work by task id, so a plan must come out the same on every machine: tasks
//! are generated in lexicographic order of their prefix and numbered from 0,
//! and the plan's fingerprint hashes all of it.

mod cost;
mod hash;
mod memory;
pub mod method;

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

pub use cost::{estimate_costs, COST_ROWS};
pub(crate) use hash::{fnv1a, Fnv1a};
pub use method::{effective_method, Method, SplitDepth, TaskKind};

use crate::error::Error;
use crate::search::board::{Board, MAX_N};

/// Smallest board size accepted.
pub const MIN_N: u32 = 1;

/// The automatic split stops deepening once a plan has at least this many
/// tasks: hundreds per thread on machines of up to a few dozen cores, so the
/// last tasks to finish are small against the whole run.
pub const AUTO_MIN_TASKS: usize = 10_000;

/// The automatic split never leaves fewer rows than this to the kernel.
pub const AUTO_MIN_ROWS_LEFT: u32 = 5;

/// Rows a task keeps below its prefix once the plan has
/// [`AUTO_FEW_TASKS`]: every task pays 1 to 2 µs whatever its size (a
/// read of the thread's CPU clock, its digest, a split of the scheduler),
/// and with 12 rows left a depth-first task searches only tens of µs (Zen
/// 4, one thread: `count 16 -m mirror` 0.81 s at split depth 5, 0.64 s at
/// 3; `count 17 -m d4` 2.44 s at 5, 2.08 s at 4).
pub const AUTO_TASK_ROWS: u32 = 13;

/// Below this many tasks the automatic split deepens whatever the rows
/// left (down to [`AUTO_MIN_ROWS_LEFT`]), so that a small board still
/// spreads over the threads.
pub const AUTO_FEW_TASKS: usize = 256;

/// Largest plan built, whatever depth is asked for (about 64 bytes a task).
pub const MAX_TASKS: usize = 10_000_000;

/// Most queens placed while expanding prefixes. Near the bottom of the board
/// most prefixes die before reaching the split depth, so the task count alone
/// would not stop an absurd depth from searching the whole tree.
pub(crate) const MAX_PREFIX_NODES: u64 = 5 * MAX_TASKS as u64;

/// Longest prefix a task records (its queens' columns, row by row).
pub(crate) const MAX_PREFIX_ROWS: usize = 16;

/// One independent subtree: the kernel counts its completions, and the count
/// is multiplied by the weight.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// Position in the plan, from 0; stable for the same (N, method, depth).
    pub id: u64,
    /// How many solutions each completion stands for (symmetry). For `d4`
    /// tasks this is the largest weight; the leaf decides (2, 4 or 8).
    pub weight: u32,
    /// The prefix to search below.
    pub board: Board,
    /// The search the subtree belongs to.
    pub kind: TaskKind,
    /// Columns of the prefix's queens, rows `0..board.row`.
    pub prefix: [u8; MAX_PREFIX_ROWS],
}

impl Task {
    /// The prefix's queen columns, one per row.
    pub fn prefix_columns(&self) -> &[u8] {
        &self.prefix[..self.board.row as usize]
    }
}

/// A plan's tasks by id: stored whole for the depth-first methods, or
/// generated from a compact source (the join's row sets: 4 bytes a task,
/// so that the 20 million tasks of N = 28 take 80 MB, not 1.6 GB).
#[derive(Clone, Debug)]
pub struct TaskList(Tasks);

#[derive(Clone, Debug)]
enum Tasks {
    Stored(Vec<Task>),
    Generated(Arc<dyn TaskSource>),
}

/// Two lists are equal when they hand out the same tasks under the same
/// ids, however they hold them.
impl PartialEq for TaskList {
    fn eq(&self, other: &TaskList) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for TaskList {}

/// Tasks made on demand from a compact list, by id.
pub(crate) trait TaskSource: Send + Sync + fmt::Debug {
    /// Tasks in the list.
    fn len(&self) -> u64;
    /// The task with id `id` (below [`TaskSource::len`]).
    fn get(&self, id: u64) -> Task;
    /// Every task, in id order.
    fn iter(&self) -> Box<dyn Iterator<Item = Task> + '_>;
    /// Bytes the list holds.
    fn bytes(&self) -> u64;
    /// The list itself, for its method to read back.
    fn as_any(&self) -> &dyn Any;
}

impl TaskList {
    /// A list of tasks held whole.
    pub(crate) fn stored(tasks: Vec<Task>) -> TaskList {
        TaskList(Tasks::Stored(tasks))
    }

    /// A list of tasks made on demand by `source`.
    pub(crate) fn generated(source: Arc<dyn TaskSource>) -> TaskList {
        TaskList(Tasks::Generated(source))
    }

    /// Tasks in the plan.
    pub fn len(&self) -> usize {
        match &self.0 {
            Tasks::Stored(tasks) => tasks.len(),
            Tasks::Generated(source) => source.len() as usize,
        }
    }

    /// Whether the plan has no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The task with id `index` (below [`TaskList::len`]).
    #[inline]
    pub fn get(&self, index: usize) -> Task {
        match &self.0 {
            Tasks::Stored(tasks) => tasks[index],
            Tasks::Generated(source) => source.get(index as u64),
        }
    }

    /// Every task, in id order.
    pub fn iter(&self) -> Box<dyn Iterator<Item = Task> + '_> {
        match &self.0 {
            Tasks::Stored(tasks) => Box::new(tasks.iter().copied()),
            Tasks::Generated(source) => source.iter(),
        }
    }

    /// Bytes the list holds.
    pub fn bytes(&self) -> u64 {
        match &self.0 {
            Tasks::Stored(tasks) => (tasks.len() * std::mem::size_of::<Task>()) as u64,
            Tasks::Generated(source) => source.bytes(),
        }
    }

    /// The compact source the tasks are made from, if they are.
    pub(crate) fn source(&self) -> Option<&dyn Any> {
        match &self.0 {
            Tasks::Generated(source) => Some(source.as_any()),
            Tasks::Stored(_) => None,
        }
    }
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
    pub tasks: TaskList,
    /// Queens placed while building the prefixes; counted once, so that the
    /// nodes of a whole run do not depend on the split depth.
    pub prefix_nodes: u64,
    /// Peak memory the count needs beyond the plan itself: for `join`, the
    /// quadrant cells, keys and matchers of the threads planned for (a
    /// bound), 0 for the depth-first methods.
    pub memory_bytes: u64,
    /// The fingerprint, once worked out (see [`Plan::fingerprint`]).
    pub(crate) fingerprint: std::sync::OnceLock<u64>,
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

/// A prefix still being expanded: where a depth-first method's tasks
/// start, with the weight and kind they carry down.
#[derive(Clone, Copy)]
pub(crate) struct Root {
    board: Board,
    weight: u32,
    kind: TaskKind,
    prefix: [u8; MAX_PREFIX_ROWS],
}

impl Root {
    /// The prefix `board` whose queens stand in `columns`, row by row.
    pub(crate) fn new(board: Board, weight: u32, kind: TaskKind, columns: &[u32]) -> Root {
        let mut prefix = [0u8; MAX_PREFIX_ROWS];
        for (slot, &col) in prefix.iter_mut().zip(columns) {
            *slot = col as u8;
        }
        Root {
            board,
            weight,
            kind,
            prefix,
        }
    }

    /// The prefix with one more queen, on column bit `bit` of the next row.
    fn child(&self, bit: u64) -> Root {
        let mut prefix = self.prefix;
        prefix[self.board.row as usize] = bit.trailing_zeros() as u8;
        Root {
            board: self.board.place(bit),
            prefix,
            ..*self
        }
    }
}

impl Plan {
    /// A plan of `method` from its parts (the methods' `build_plan`).
    pub(crate) fn from_parts(
        n: u32,
        method: Method,
        split_depth: u32,
        tasks: TaskList,
        prefix_nodes: u64,
        memory_bytes: u64,
    ) -> Plan {
        Plan {
            n,
            method,
            split_depth,
            tasks,
            prefix_nodes,
            memory_bytes,
            fingerprint: Default::default(),
        }
    }

    /// The plan of a depth-first `method`: its `roots` (made by placing
    /// `root_nodes` queens) expanded to the split depth `split`.
    pub(crate) fn depth_first(
        n: u32,
        method: Method,
        roots: &[Root],
        root_nodes: u64,
        split: SplitDepth,
    ) -> Result<Plan, Error> {
        let deepest = n.min(MAX_PREFIX_ROWS as u32);
        let depth = match split {
            SplitDepth::Rows(depth) if depth > deepest => {
                return Err(Error::SplitDeeperThanBoard { n, depth, deepest });
            }
            SplitDepth::Rows(depth) => depth,
            SplitDepth::Auto => auto_depth(n, roots),
        };
        let mut tasks = Vec::new();
        let mut prefix_nodes = root_nodes;
        for root in roots {
            expand(n, *root, depth, &mut tasks, &mut prefix_nodes).map_err(|()| {
                Error::SplitTooDeep {
                    n,
                    depth,
                    limit: MAX_TASKS,
                }
            })?;
        }
        Ok(Plan::from_parts(
            n,
            method,
            depth,
            TaskList::stored(tasks),
            prefix_nodes,
            0,
        ))
    }

    /// The fingerprint as 16 hex digits, as files and output show it.
    pub fn fingerprint_hex(&self) -> String {
        format!("{:016x}", self.fingerprint())
    }
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
            kind: root.kind,
            prefix: root.prefix,
        });
        return Ok(());
    }
    let mut free = root_free(n, &root);
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free &= free - 1;
        *nodes += 1;
        if *nodes > MAX_PREFIX_NODES {
            return Err(());
        }
        expand(n, root.child(bit), depth, tasks, nodes)?;
    }
    Ok(())
}

/// Squares of the root's next row open to its search.
fn root_free(n: u32, root: &Root) -> u64 {
    root.kind.open_squares(n, &root.board)
}

/// The shallowest depth giving [`AUTO_MIN_TASKS`] tasks, unless a row
/// more would leave a task fewer than [`AUTO_TASK_ROWS`] rows while the
/// plan has [`AUTO_FEW_TASKS`] already; never leaving the kernel fewer
/// than [`AUTO_MIN_ROWS_LEFT`] rows. From N = 18 the tasks reach
/// [`AUTO_MIN_TASKS`] before that, so only smaller plans stop early.
fn auto_depth(n: u32, roots: &[Root]) -> u32 {
    let deepest = n
        .saturating_sub(AUTO_MIN_ROWS_LEFT)
        .min(MAX_PREFIX_ROWS as u32);
    let mut depth = roots.iter().map(|root| root.board.row).min().unwrap_or(0);
    while depth < deepest {
        let tasks = count_tasks(n, roots, depth);
        let deeper_tasks_stay_large = n - depth > AUTO_TASK_ROWS;
        if tasks >= AUTO_MIN_TASKS || (tasks >= AUTO_FEW_TASKS && !deeper_tasks_stay_large) {
            break;
        }
        depth += 1;
    }
    depth
}

/// How many tasks `roots` expanded to `depth` would give.
fn count_tasks(n: u32, roots: &[Root], depth: u32) -> usize {
    fn below(n: u32, root: Root, depth: u32) -> usize {
        if root.board.row >= depth || root.board.row >= n {
            return 1;
        }
        let mut free = root_free(n, &root);
        let mut total = 0;
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free &= free - 1;
            total += below(n, root.child(bit), depth);
        }
        total
    }
    roots.iter().map(|root| below(n, *root, depth)).sum()
}
