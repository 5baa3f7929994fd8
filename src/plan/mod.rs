//! Turns (N, method, split depth) into a deterministic, ordered list of
//! independent tasks.
//!
//! Everything that spreads work (threads, shards, checkpoints, merges) names
//! work by task id, so a plan must come out the same on every machine: tasks
//! are generated in lexicographic order of their prefix and numbered from 0,
//! and the plan's fingerprint hashes all of it.

mod cost;
mod fingerprint;
mod memory;
mod method;

use serde::{Deserialize, Serialize};

pub use cost::{estimate_costs, COST_ROWS};
pub(crate) use fingerprint::{fnv1a, Fnv1a};
pub use memory::{join_fits, join_task_list_bytes};
pub use method::{
    effective_method, join_cut_queens, Method, SplitDepth, AUTO_D4_FROM, AUTO_JOIN_FROM, D4_MIN_N,
};

use crate::error::Error;
use crate::search::board::{Board, MAX_N};
use crate::search::d4::Shape;
use crate::search::join::{self, JOIN_MAX_N};

/// Smallest board size accepted.
pub const MIN_N: u32 = 1;

/// The automatic split stops deepening once a plan has at least this many
/// tasks: hundreds per thread on machines of up to a few dozen cores, so the
/// last tasks to finish are small against the whole run.
pub const AUTO_MIN_TASKS: usize = 10_000;

/// The automatic split leaves at least this many rows to the kernel: below
/// that, a task is too small to be worth scheduling.
pub const AUTO_MIN_ROWS_LEFT: u32 = 5;

/// Largest plan built, whatever depth is asked for (about 64 bytes a task).
pub const MAX_TASKS: usize = 10_000_000;

/// Most queens placed while expanding prefixes. Near the bottom of the board
/// most prefixes die before reaching the split depth, so the task count alone
/// would not stop an absurd depth from searching the whole tree.
pub const MAX_PREFIX_NODES: u64 = 5 * MAX_TASKS as u64;

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
    /// [`join::JoinTask`]).
    Join {
        /// Board rows whose queen is in the east half.
        east_rows: u32,
        /// Odd N: 0 for the centre queen, else the middle column queen's
        /// distance above the centre.
        middle: u32,
    },
}

impl TaskKind {
    /// The `d4` subtree shape of this kind, if it is one.
    pub fn d4_shape(self) -> Option<Shape> {
        match self {
            TaskKind::D4Corner { second } => Some(Shape::Corner { second }),
            TaskKind::D4Edge { k } => Some(Shape::Edge { k }),
            TaskKind::Plain | TaskKind::Join { .. } => None,
        }
    }

    /// Squares of `board`'s next row open to the search of a task of this
    /// kind: free of attacks and, for `d4`, within the shape's bounds (see
    /// `Shape::open_squares`).
    pub fn open_squares(self, n: u32, board: &Board) -> u64 {
        match self.d4_shape() {
            Some(shape) => shape.open_squares(n, board),
            None => board.free(n),
        }
    }
}

/// Longest prefix a task records (its queens' columns, row by row).
pub const MAX_PREFIX_ROWS: usize = 16;

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

/// A plan's tasks by id: stored whole for the depth-first methods, and for
/// `join` generated from a compact list (4 bytes a task, so that the 20
/// million tasks of N = 28 take 80 MB, not 1.6 GB).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskList(Tasks);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tasks {
    Stored(Vec<Task>),
    Join(join::JoinTasks),
}

impl TaskList {
    /// Tasks in the plan.
    pub fn len(&self) -> usize {
        match &self.0 {
            Tasks::Stored(tasks) => tasks.len(),
            Tasks::Join(tasks) => tasks.len() as usize,
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
            Tasks::Join(tasks) => join_task(index as u64, tasks.get(index as u64)),
        }
    }

    /// Every task, in id order.
    pub fn iter(&self) -> Box<dyn Iterator<Item = Task> + '_> {
        match &self.0 {
            Tasks::Stored(tasks) => Box::new(tasks.iter().copied()),
            Tasks::Join(tasks) => Box::new(
                tasks
                    .iter()
                    .enumerate()
                    .map(|(index, task)| join_task(index as u64, task)),
            ),
        }
    }

    /// Bytes the list holds.
    pub fn bytes(&self) -> u64 {
        match &self.0 {
            Tasks::Stored(tasks) => (tasks.len() * std::mem::size_of::<Task>()) as u64,
            Tasks::Join(tasks) => tasks.bytes(),
        }
    }

    /// The join tasks, if they are an even N's row sets cut beside the
    /// middle line.
    pub(crate) fn cut_join_tasks(&self) -> Option<&join::JoinTasks> {
        match &self.0 {
            Tasks::Join(tasks) if tasks.cut_code() != 0 => Some(tasks),
            _ => None,
        }
    }
}

/// The plan task `id` of a join task.
fn join_task(id: u64, task: join::JoinTask) -> Task {
    Task {
        id,
        weight: 8,
        board: Board::EMPTY,
        kind: TaskKind::Join {
            east_rows: task.east_rows,
            middle: task.middle,
        },
        prefix: [0; MAX_PREFIX_ROWS],
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
    fingerprint: std::sync::OnceLock<u64>,
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

/// A prefix still being expanded.
#[derive(Clone, Copy)]
struct Root {
    board: Board,
    weight: u32,
    kind: TaskKind,
    prefix: [u8; MAX_PREFIX_ROWS],
}

impl Root {
    fn new(board: Board, weight: u32, kind: TaskKind, columns: &[u32]) -> Root {
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
    /// Builds the plan of `method` for an `n` board, for a count on one
    /// thread within the memory this machine has available now.
    pub fn build(n: u32, method: Method, split: SplitDepth) -> Result<Plan, Error> {
        Plan::build_within(n, method, split, None, 1)
    }

    /// The plan a file names (a journal's header, a shard result): `method`
    /// at split depth `split_depth` (ignored by `join`, which has one
    /// plan), with no memory limit: reading a file needs the plan, not the
    /// count.
    pub fn rebuild(n: u32, method: Method, split_depth: u32) -> Result<Plan, Error> {
        let split = match method {
            Method::Join => SplitDepth::Auto,
            _ => SplitDepth::Rows(split_depth),
        };
        Plan::build_within(n, method, split, Some(u64::MAX), 1)
    }

    /// Builds the plan of `method` for an `n` board, for a count on
    /// `threads` threads. A `join` plan whose count would not fit in
    /// `memory_limit` bytes (`None`: the memory available now) is refused,
    /// or for `auto` replaced by `d4`.
    pub fn build_within(
        n: u32,
        method: Method,
        split: SplitDepth,
        memory_limit: Option<u64>,
        threads: usize,
    ) -> Result<Plan, Error> {
        let n = check_board_size(u64::from(n))?;
        let mut effective = effective_method(n, method);
        if effective == Method::Join {
            if n > JOIN_MAX_N {
                return Err(Error::JoinTooLarge { n, max: JOIN_MAX_N });
            }
            // One memory check decides: `auto` falls back to `d4` when the
            // count does not fit, `--method join` refuses.
            let tasks = join::JoinTasks::new(n);
            match join_fits(n, memory_limit, threads, tasks.bytes()) {
                Ok(memory_bytes) => return Ok(join_plan(n, tasks, memory_bytes)),
                Err(_) if method == Method::Auto => {
                    effective = effective_method(n, Method::D4);
                }
                Err(err) => return Err(err),
            }
        }
        let method = effective;
        let (roots, root_nodes) = roots(n, method);
        let deepest = n.min(MAX_PREFIX_ROWS as u32);
        let depth = match split {
            SplitDepth::Rows(depth) if depth > deepest => {
                return Err(Error::SplitDeeperThanBoard { n, depth, deepest });
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
            tasks: TaskList(Tasks::Stored(tasks)),
            prefix_nodes,
            memory_bytes: 0,
            fingerprint: Default::default(),
        })
    }

    /// The fingerprint as 16 hex digits, as files and output show it.
    pub fn fingerprint_hex(&self) -> String {
        format!("{:016x}", self.fingerprint())
    }
}

/// The method's starting prefixes with their weights, and the queens placed
/// to make them.
fn roots(n: u32, method: Method) -> (Vec<Root>, u64) {
    match effective_method(n, method) {
        Method::None => (vec![Root::new(Board::EMPTY, 1, TaskKind::Plain, &[])], 0),
        // `auto` and `join` are resolved above; they never reach here,
        // and would mean `mirror` if they did.
        Method::Mirror | Method::Auto | Method::Join => mirror_roots(n),
        Method::D4 => d4_roots(n),
    }
}

/// The `join` plan: one task per row set (see [`join::tasks`]), whose
/// count needs `memory_bytes` (as [`join_fits`] found).
fn join_plan(n: u32, tasks: join::JoinTasks, memory_bytes: u64) -> Plan {
    Plan {
        n,
        method: Method::Join,
        split_depth: 0,
        tasks: TaskList(Tasks::Join(tasks)),
        prefix_nodes: 0,
        memory_bytes,
        fingerprint: Default::default(),
    }
}

/// The `d4` method's prefixes. Every solution has exactly one image whose
/// top-row queen is the edge queen nearest a corner, in the left half
/// (ties between rotations are settled at the leaf). A corner queen is its
/// own case: one image of each pair mirrored in the corner's diagonal, by
/// the column-1 bound.
fn d4_roots(n: u32) -> (Vec<Root>, u64) {
    let mut roots = Vec::new();
    let corner = Board::EMPTY.place(1);
    let mut nodes = 1;
    // The row-1 queen: column 2 at least (the corner attacks 0 and 1), and
    // at most n-2, since the column-1 queen must lie on a lower row.
    for second in 2..n - 1 {
        let bit = 1u64 << second;
        if corner.free(n) & bit != 0 {
            nodes += 1;
            let kind = TaskKind::D4Corner { second };
            roots.push(Root::new(corner.place(bit), 8, kind, &[0, second]));
        }
    }
    for k in 1..=(n - 1) / 2 {
        nodes += 1;
        let kind = TaskKind::D4Edge { k };
        roots.push(Root::new(Board::EMPTY.place(1 << k), 8, kind, &[k]));
    }
    (roots, nodes)
}

/// The mirror method's prefixes: a solution and its left-right reflection are
/// distinct (no solution for N >= 2 is its own mirror image), so only the one
/// whose first-row queen is in the left half is searched, and counted twice.
/// For odd N a first-row queen in the middle column is its own mirror, so the
/// second row's queen decides: left half only, twice.
fn mirror_roots(n: u32) -> (Vec<Root>, u64) {
    if n == 1 {
        let board = Board::EMPTY.place(1);
        return (vec![Root::new(board, 1, TaskKind::Plain, &[0])], 1);
    }
    let mut roots = Vec::new();
    let mut nodes = 0;
    for col in 0..n / 2 {
        nodes += 1;
        let board = Board::EMPTY.place(1 << col);
        roots.push(Root::new(board, 2, TaskKind::Plain, &[col]));
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
            let second = bit.trailing_zeros();
            let columns = [n / 2, second];
            roots.push(Root::new(board.place(bit), 2, TaskKind::Plain, &columns));
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

/// The shallowest depth giving [`AUTO_MIN_TASKS`] tasks, without leaving the
/// kernel fewer than [`AUTO_MIN_ROWS_LEFT`] rows.
fn auto_depth(n: u32, roots: &[Root]) -> u32 {
    let deepest = n
        .saturating_sub(AUTO_MIN_ROWS_LEFT)
        .min(MAX_PREFIX_ROWS as u32);
    let mut depth = roots.iter().map(|root| root.board.row).min().unwrap_or(0);
    while depth < deepest && count_tasks(n, roots, depth) < AUTO_MIN_TASKS {
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
