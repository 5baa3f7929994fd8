//! Counting across MPI ranks (cargo feature `mpi`).
//!
//! Every rank builds the same plan (plans are deterministic; the ranks check
//! their fingerprints agree) and runs it through [`run_plan`], as a single
//! machine does, with a [`Dispatch`] that takes chunks of consecutive tasks
//! from rank 0: every worker thread of every rank asks for its own chunks,
//! so a thread that finishes early asks for more and none idles while others
//! work (a chunk run on a whole rank's pool would make its threads wait for
//! the chunk's slowest task). Rank 0 answers from a dispatcher thread, and
//! its own workers take their chunks from the same counter directly. At the
//! end every rank's totals are gathered on rank 0 as pairs of u64 words and
//! added there in u128, so no sum can wrap.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use super::engine::{Dispatch, RunHooks, RunTotals};
use super::report::{make_report, PlanSummary, Report};
use super::{plan_for, resolve_threads, run_plan, CountOptions};
use crate::error::Error;

const REQUEST: i32 = 11;
const REPLY: i32 = 12;
/// How long the dispatcher sleeps when no request is waiting.
const DISPATCH_POLL: std::time::Duration = std::time::Duration::from_micros(200);
/// Sent instead of a chunk start when every task is handed out.
const NO_MORE: u64 = u64::MAX;

/// Initialises MPI for the whole process; keep the universe alive while
/// counting (MPI is finalised when it drops).
pub fn start() -> Result<mpi::environment::Universe, Error> {
    let (universe, threading) = mpi::initialize_with_threading(mpi::Threading::Multiple)
        .ok_or_else(|| Error::Mpi("MPI could not be initialised (was it already?)".to_string()))?;
    if threading < mpi::Threading::Multiple {
        return Err(Error::Mpi(format!(
            "the MPI library offers thread support {threading:?}; the dispatcher needs Multiple"
        )));
    }
    Ok(universe)
}

/// Tasks per chunk: about 64 chunks per worker thread, so the last chunks
/// are small against the run, and at most 1024 tasks.
fn chunk_size(tasks: usize, workers: usize) -> u64 {
    (tasks / (workers.max(1) * 64)).clamp(1, 1024) as u64
}

/// Counts `n` across every rank of `world`. Rank 0 gets the report; the
/// other ranks get `None`.
pub fn count(
    world: &SimpleCommunicator,
    n: u32,
    options: &CountOptions,
) -> Result<Option<Report>, Error> {
    let threads = resolve_threads(options.threads)?;
    let started = Instant::now();
    let plan = plan_for(n, options, threads)?;
    let rank = world.rank();
    let ranks = world.size() as usize;
    let mut fingerprints = vec![0u64; ranks];
    world.all_gather_into(&plan.fingerprint(), &mut fingerprints[..]);
    if fingerprints
        .iter()
        .any(|&other| other != plan.fingerprint())
    {
        return Err(Error::Mpi(format!(
            "the ranks built different plans (fingerprints {fingerprints:x?}): run the same nqueens with the same options everywhere"
        )));
    }
    // Every worker thread of every rank asks for its own chunks: no rank
    // or thread waits for another's chunk to finish.
    let mut thread_counts = vec![0u64; ranks];
    world.all_gather_into(&(threads as u64), &mut thread_counts[..]);
    let remote_workers: u64 = thread_counts[1..].iter().sum();
    let all_workers: u64 = thread_counts.iter().sum();
    let chunk = chunk_size(plan.tasks.len(), all_workers as usize);
    let task_count = plan.tasks.len() as u64;
    let chunks = Chunks {
        rank,
        chunk,
        task_count,
        next: AtomicU64::new(0),
    };
    let hooks = RunHooks {
        dispatch: Some(&chunks),
        ..RunHooks::default()
    };
    let run = std::thread::scope(|scope| {
        if rank == 0 && remote_workers > 0 {
            scope.spawn(|| chunks.answer(remote_workers));
        }
        // Only rank 0 reports, so only it searches for P and R.
        run_plan(&plan, threads, &hooks, rank == 0)
    })?;
    let totals = run.totals;
    let words = encode(&totals, threads);
    let root = world.process_at_rank(0);
    if rank != 0 {
        root.gather_into(&words[..]);
        return Ok(None);
    }
    let mut all = vec![0u64; WORDS * ranks];
    root.gather_into_root(&words[..], &mut all[..]);
    let (sum, all_threads) = all.chunks(WORDS).map(decode).fold(
        (RunTotals::default(), 0),
        |(sum, threads), (part, part_threads)| (sum.merge(part), threads + part_threads),
    );
    let complete = sum.tasks_run == task_count;
    let seconds = started.elapsed().as_secs_f64();
    Ok(Some(make_report(
        &PlanSummary::of(&plan),
        all_threads,
        &sum,
        seconds,
        complete,
        run.symmetric.expect("rank 0 asked run_plan for P and R"),
    )))
}

/// Chunks of a plan's tasks, handed out by rank 0.
struct Chunks {
    rank: i32,
    /// Tasks per chunk.
    chunk: u64,
    task_count: u64,
    /// Rank 0: the start of the next chunk to hand out.
    next: AtomicU64,
}

impl Chunks {
    /// Rank 0: the start of a chunk nobody was given, or [`NO_MORE`].
    fn take(&self) -> u64 {
        let start = self.next.fetch_add(self.chunk, Ordering::SeqCst);
        if start < self.task_count {
            start
        } else {
            NO_MORE
        }
    }

    /// Rank 0's dispatcher: answers the other ranks' requests until each of
    /// their `remote_workers` has been told there is no more.
    fn answer(&self, remote_workers: u64) {
        let world = SimpleCommunicator::world();
        let mut finished = 0;
        while finished < remote_workers {
            // MPI's blocking receive spins a core; the dispatcher shares
            // rank 0's cores with its workers, so it polls and sleeps
            // instead (requests come every chunk, not every microsecond).
            let Some(waiting) = world.any_process().immediate_probe_with_tag(REQUEST) else {
                std::thread::sleep(DISPATCH_POLL);
                continue;
            };
            let (_, status) = world
                .process_at_rank(waiting.source_rank())
                .receive_with_tag::<u64>(REQUEST);
            let start = self.take();
            if start == NO_MORE {
                finished += 1;
            }
            world
                .process_at_rank(status.source_rank())
                .send_with_tag(&start, REPLY);
        }
    }
}

impl Dispatch for Chunks {
    fn next_chunk(&self) -> Option<Range<usize>> {
        let start = if self.rank == 0 {
            self.take()
        } else {
            // Any reply answers any of this rank's requests: each is a
            // chunk nobody else was given.
            let world = SimpleCommunicator::world();
            let root = world.process_at_rank(0);
            root.send_with_tag(&u64::from(self.rank as u32), REQUEST);
            root.receive_with_tag::<u64>(REPLY).0
        };
        if start == NO_MORE {
            return None;
        }
        let end = (start + self.chunk).min(self.task_count);
        Some(start as usize..end as usize)
    }
}

/// u64 words per rank in the final gather.
const WORDS: usize = 2 * 6 + 2;

/// A rank's totals as u64 words: each u128 as (high, low).
fn encode(totals: &RunTotals, threads: usize) -> [u64; WORDS] {
    let wide = [
        totals.solutions,
        totals.orbits,
        totals.orbit_sizes[0],
        totals.orbit_sizes[1],
        totals.orbit_sizes[2],
        totals.nodes,
    ];
    let mut words = [0u64; WORDS];
    for (pair, value) in words.chunks_mut(2).zip(wide) {
        pair[0] = (value >> 64) as u64;
        pair[1] = value as u64;
    }
    words[12] = totals.tasks_run;
    words[13] = threads as u64;
    words
}

fn decode(words: &[u64]) -> (RunTotals, usize) {
    let wide = |i: usize| (u128::from(words[2 * i]) << 64) | u128::from(words[2 * i + 1]);
    let totals = RunTotals {
        solutions: wide(0),
        orbits: wide(1),
        orbit_sizes: [wide(2), wide(3), wide(4)],
        nodes: wide(5),
        tasks_run: words[12],
        ..RunTotals::default()
    };
    (totals, words[13] as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_survive_the_wire_beyond_u64() {
        let totals = RunTotals {
            solutions: u128::from(u64::MAX) * 3 + 7,
            orbits: 5,
            orbit_sizes: [1, 2, u128::from(u64::MAX) + 1],
            nodes: 1 << 100,
            tasks_run: 42,
            ..RunTotals::default()
        };
        assert_eq!(decode(&encode(&totals, 8)), (totals, 8));
    }

    #[test]
    fn chunks_are_small_enough_and_never_empty() {
        assert_eq!(chunk_size(10, 4), 1);
        assert_eq!(chunk_size(100_000, 2), 781);
        assert_eq!(chunk_size(100_000_000, 2), 1024);
    }
}
