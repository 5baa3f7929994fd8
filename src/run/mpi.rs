//! Counting across MPI ranks (cargo feature `mpi`).
//!
//! Every rank builds the same plan (plans are deterministic; the ranks check
//! their fingerprints agree) and counts it as a [`Tracked`] count, as a
//! single machine does, spread over the ranks by a [`Distribution`] that
//! takes chunks of consecutive tasks from rank 0: every worker thread (and
//! batch worker) of every rank asks for its own chunks, so one that
//! finishes early asks for more and none idles while others work (a chunk
//! run on a whole rank's pool would make its threads wait for the chunk's
//! slowest task). Rank 0 answers from a dispatcher thread, and its own
//! workers take their chunks from the same counter directly; the chunks go
//! out spread over the plan (golden-ratio steps, as a single machine's runs
//! of tasks do), so the share done reads the cost done. Rank 0 keeps the
//! journal: the other ranks send each task's counts as it finishes. At the
//! end every rank's totals are gathered on rank 0 as pairs of u64 words and
//! added there in u128, so no sum can wrap.

use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use super::distribution::Distribution;
use super::engine::{RunTotals, SpreadOrder, TaskCount, TaskOutcome};
use super::report::Report;
use super::tracked::{Tracked, TrackedOutcome, Watch};
use super::{plan_for, resolve_threads, CountOptions};
use crate::error::Error;

const REQUEST: i32 = 11;
const REPLY: i32 = 12;
/// A remote worker's finished task, sent as soon as it finishes.
const RESULT: i32 = 13;
/// A rank's threads and workers are all done: it asks for no more chunks
/// and sends no more tasks.
const DONE: i32 = 14;
/// How long the dispatcher sleeps when no request is waiting.
const DISPATCH_POLL: Duration = Duration::from_micros(200);
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
    let no_stop = AtomicBool::new(false);
    let tracked = prepare(world, n, options, 0, None, None)?;
    let outcome = tracked.run(&Watch {
        on_task: &|_| {},
        stop: &no_stop,
        grace: None,
        workers: &[],
        on_worker_failed: None,
        workers_only: false,
    })?;
    match outcome {
        TrackedOutcome::Counted(report) => Ok(Some(*report)),
        _ => Ok(None),
    }
}

/// This rank's part of a count of `n` across every rank of `world`, ready
/// to [`Tracked::run`]: rank 0 opens (or resumes) the journal at
/// `checkpoint` (signed with `key`) and every rank is told the finished
/// tasks to skip. `workers` is the batch workers this rank will run beside
/// its threads (they ask for chunks too). Rank 0's run journals each task
/// of every rank as it finishes, so a killed job loses only the tasks in
/// flight; when the stop flag is set on any rank no rank starts a new
/// chunk, and rank 0's grace (the other ranks have none) ends the job.
/// Rank 0's run ends with the outcome; the others' with
/// [`TrackedOutcome::Part`]. What rank 0's journal repaired on reading is
/// in [`Tracked::repairs`].
pub fn prepare(
    world: &SimpleCommunicator,
    n: u32,
    options: &CountOptions,
    workers: usize,
    checkpoint: Option<&Path>,
    key: Option<&super::signing::RunKey>,
) -> Result<Tracked, Error> {
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
    let root = world.process_at_rank(0);
    // Rank 0 opens the journal and tells every rank whether it could,
    // then which tasks it holds.
    let task_count = plan.tasks.len() as u64;
    let opened = Tracked::with_plan(plan, threads, None, checkpoint.filter(|_| rank == 0), key);
    let mut opened_flag = u64::from(opened.is_ok());
    if checkpoint.is_some() {
        root.broadcast_into(&mut opened_flag);
    }
    let tracked = match opened {
        Ok(tracked) if opened_flag == 1 => tracked.since(started).with_paths(options.paths),
        Ok(_) => {
            return Err(Error::Mpi(
                "rank 0 could not open the checkpoint (it says why)".to_string(),
            ))
        }
        Err(err) => return Err(err),
    };
    let mut done = vec![
        0u64;
        if checkpoint.is_some() {
            (task_count as usize).div_ceil(64)
        } else {
            0
        }
    ];
    if checkpoint.is_some() {
        if rank == 0 {
            done.copy_from_slice(tracked.done_words());
        }
        root.broadcast_into(&mut done[..]);
    }
    // Every worker thread and batch worker of every rank asks for its own
    // chunks: no rank or thread waits for another's chunk to finish.
    let mut drawers = vec![0u64; ranks];
    world.all_gather_into(&((threads + workers) as u64), &mut drawers[..]);
    let chunk = chunk_size(task_count as usize, drawers.iter().sum::<u64>() as usize);
    let ranks = Ranks {
        rank,
        ranks,
        chunk,
        task_count,
        order: SpreadOrder::of_runs(task_count.div_ceil(chunk)),
        next: AtomicU64::new(0),
        exhausted: AtomicBool::new(false),
        journaled: checkpoint.is_some(),
    };
    Ok(tracked.spread_over(Box::new(ranks), done))
}

/// Words per finished task sent to rank 0: id, solutions, orbits, the
/// three orbit sizes, nodes, microseconds.
const TASK_WORDS: usize = 8;

/// A count spread over the ranks of the world: chunks of a plan's tasks
/// handed out by rank 0.
struct Ranks {
    rank: i32,
    ranks: usize,
    /// Tasks per chunk.
    chunk: u64,
    task_count: u64,
    /// The order chunks are handed out in: spread over the plan, so that
    /// rank 0's progress reads the share of the cost done (as a single
    /// machine's engine does with its runs of tasks).
    order: SpreadOrder,
    /// Rank 0: how many chunks were handed out.
    next: AtomicU64,
    /// Other ranks: rank 0 answered that no chunk is left (so no thread
    /// of this rank asks again).
    exhausted: AtomicBool,
    /// Whether rank 0 journals the tasks (the other ranks send each one).
    journaled: bool,
}

impl Ranks {
    /// Rank 0: the start of a chunk nobody was given, or [`NO_MORE`].
    fn take(&self, cancel: &AtomicBool) -> u64 {
        if cancel.load(Ordering::SeqCst) {
            return NO_MORE;
        }
        let taken = self.next.fetch_add(1, Ordering::SeqCst);
        let start = self.order.run_at(taken).saturating_mul(self.chunk);
        if start < self.task_count {
            start
        } else {
            NO_MORE
        }
    }
}

impl Distribution for Ranks {
    fn next_chunk(&self, cancel: &AtomicBool) -> Option<Range<usize>> {
        let start = if self.rank == 0 {
            self.take(cancel)
        } else if self.exhausted.load(Ordering::SeqCst) {
            NO_MORE
        } else {
            // Any reply answers any of this rank's requests: each is a
            // chunk nobody else was given. A stopping rank's request
            // stops rank 0 handing out chunks to anyone.
            let request = [u64::from(cancel.load(Ordering::SeqCst))];
            let world = SimpleCommunicator::world();
            let root = world.process_at_rank(0);
            root.send_with_tag(&request[..], REQUEST);
            let start = root.receive_with_tag::<u64>(REPLY).0;
            if start == NO_MORE {
                self.exhausted.store(true, Ordering::SeqCst);
            }
            start
        };
        if start == NO_MORE {
            return None;
        }
        let end = (start + self.chunk).min(self.task_count);
        Some(start as usize..end as usize)
    }

    /// Sent to rank 0 now (so a stop or a kill loses only the tasks in
    /// flight, not the finished part of a chunk).
    fn finished(&self, outcome: &TaskOutcome) {
        if self.rank == 0 || !self.journaled {
            return;
        }
        let count = &outcome.count;
        let words: [u64; TASK_WORDS] = [
            outcome.id,
            count.solutions,
            count.orbits,
            count.orbit_sizes[0],
            count.orbit_sizes[1],
            count.orbit_sizes[2],
            count.nodes,
            (outcome.seconds * 1e6).round() as u64,
        ];
        // A message from this thread, before its next request: rank 0
        // receives it first (MPI keeps one thread's messages in order).
        SimpleCommunicator::world()
            .process_at_rank(0)
            .send_with_tag(&words[..], RESULT);
    }

    fn serve(&self, cancel: &AtomicBool, record: &(dyn Fn(&TaskOutcome) + Sync)) {
        if self.rank != 0 {
            return;
        }
        let world = SimpleCommunicator::world();
        let mut ranks_done = 0;
        while ranks_done + 1 < self.ranks {
            // MPI's blocking receive spins a core; the dispatcher shares
            // rank 0's cores with its workers, so it polls and sleeps
            // instead (requests come every chunk, not every microsecond).
            let Some(waiting) = world.any_process().immediate_probe() else {
                std::thread::sleep(DISPATCH_POLL);
                continue;
            };
            let source = world.process_at_rank(waiting.source_rank());
            match waiting.tag() {
                RESULT => {
                    // [TASK_WORDS of one finished task]
                    let (task, _) = source.receive_vec_with_tag::<u64>(RESULT);
                    if let [id, solutions, orbits, o2, o4, o8, nodes, micros] = task[..] {
                        let count = TaskCount {
                            solutions,
                            orbits,
                            orbit_sizes: [o2, o4, o8],
                            nodes,
                        };
                        record(&TaskOutcome {
                            id,
                            count,
                            seconds: micros as f64 * 1e-6,
                        });
                    }
                }
                DONE => {
                    // Sent after the rank's last task: nothing of it follows.
                    source.receive_with_tag::<u64>(DONE);
                    ranks_done += 1;
                }
                _ => {
                    // [stopping]
                    let (request, _) = source.receive_vec_with_tag::<u64>(REQUEST);
                    if request.first().copied().unwrap_or(0) != 0 {
                        cancel.store(true, Ordering::SeqCst);
                    }
                    source.send_with_tag(&self.take(cancel), REPLY);
                }
            }
        }
    }

    fn reports(&self) -> bool {
        self.rank == 0
    }

    fn combine(&self, totals: RunTotals, threads: usize) -> Option<(RunTotals, usize)> {
        let world = SimpleCommunicator::world();
        let root = world.process_at_rank(0);
        let words = encode(&totals, threads);
        if self.rank != 0 {
            root.send_with_tag(&0u64, DONE);
            root.gather_into(&words[..]);
            return None;
        }
        let mut all = vec![0u64; WORDS * self.ranks];
        root.gather_into_root(&words[..], &mut all[..]);
        Some(all.chunks(WORDS).map(decode).fold(
            (RunTotals::default(), 0),
            |(sum, threads), (part, part_threads)| (sum.merge(part), threads + part_threads),
        ))
    }
}

/// u64 words per rank in the final gather.
const WORDS: usize = 2 * 6 + 3;

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
    words[14] = totals.digest;
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
        digest: words[14],
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
            digest: 0xfedc_ba98_7654_3210,
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

    /// Rank 0's chunks: every start handed out once, the last (short)
    /// chunk too, none after a stop, and the first tenth of them spread
    /// over the plan rather than at its start.
    #[test]
    fn chunks_go_out_once_each_spread_over_the_plan() {
        for (task_count, chunk) in [(1u64, 1u64), (10, 3), (1000, 7), (92_504, 1024)] {
            let cancel = AtomicBool::new(false);
            let ranks = Ranks {
                rank: 0,
                ranks: 1,
                chunk,
                task_count,
                order: SpreadOrder::of_runs(task_count.div_ceil(chunk)),
                next: AtomicU64::new(0),
                exhausted: AtomicBool::new(false),
                journaled: false,
            };
            let mut starts: Vec<u64> = std::iter::from_fn(|| {
                let start = ranks.take(&cancel);
                (start != NO_MORE).then_some(start)
            })
            .collect();
            let early: Vec<u64> = starts[..starts.len() / 10].to_vec();
            starts.sort_unstable();
            let expected: Vec<u64> = (0..task_count).step_by(chunk as usize).collect();
            assert_eq!(starts, expected, "{task_count} tasks, chunks of {chunk}");
            if early.len() >= 10 {
                assert!(
                    early.iter().any(|&start| start > task_count / 2),
                    "{early:?}"
                );
            }
            assert_eq!(ranks.next_chunk(&cancel), None, "asked again after the end");
            cancel.store(true, Ordering::SeqCst);
            ranks.next.store(0, Ordering::SeqCst);
            assert_eq!(ranks.take(&cancel), NO_MORE);
        }
    }
}
