//! Counting across MPI ranks (cargo feature `mpi`).
//!
//! Every rank builds the same plan (plans are deterministic; the ranks check
//! their fingerprints agree) and runs it through [`run_plan`], as a single
//! machine does, with a [`Dispatch`] that takes chunks of consecutive tasks
//! from rank 0: every worker thread of every rank asks for its own chunks,
//! so a thread that finishes early asks for more and none idles while others
//! work (a chunk run on a whole rank's pool would make its threads wait for
//! the chunk's slowest task). Rank 0 answers from a dispatcher thread, and
//! its own workers take their chunks from the same counter directly; the
//! chunks go out spread over the plan (golden-ratio steps, as a single
//! machine's runs of tasks do), so the share done reads the cost done. At the
//! end every rank's totals are gathered on rank 0 as pairs of u64 words and
//! added there in u128, so no sum can wrap.

use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use super::engine::{Dispatch, RunHooks, RunTotals, SpreadOrder, TaskCount, TaskOutcome};
use super::journal::Journal;
use super::report::Report;
use super::stop::{self, StopGrace};
use super::tracked::{RunEnd, Tracked, TrackedOutcome};
use super::{plan_for, resolve_threads, run_plan, CountOptions};
use crate::error::Error;

const REQUEST: i32 = 11;
const REPLY: i32 = 12;
/// A remote worker's finished task, sent as soon as it finishes.
const RESULT: i32 = 13;
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

/// What a rank's part of an MPI count ended with.
#[derive(Debug)]
#[non_exhaustive]
pub enum RankOutcome {
    /// Rank 0: what the count ended with (a report, or how far a stopped
    /// count got; what was finished is journaled).
    Root(TrackedOutcome),
    /// Any other rank.
    Worker,
}

/// Counts `n` across every rank of `world`. Rank 0 gets the report; the
/// other ranks get `None`.
pub fn count(
    world: &SimpleCommunicator,
    n: u32,
    options: &CountOptions,
) -> Result<Option<Report>, Error> {
    let no_stop = AtomicBool::new(false);
    match count_journaled(world, n, options, None, None, &no_stop, None)? {
        RankOutcome::Root(TrackedOutcome::Counted(report)) => Ok(Some(*report)),
        _ => Ok(None),
    }
}

/// [`count`] with a checkpoint journal kept by rank 0, and a flag that
/// stops the count: the flow of [`Tracked`] across ranks. Rank 0 opens (or
/// resumes) the journal and sends every rank the finished tasks to skip;
/// each remote worker sends each task's counts as the task finishes, and
/// rank 0 journals them as they come (its own workers' at once), so a
/// killed job loses only the tasks in flight. When `stop` is set (on any
/// rank) no rank starts a new chunk, `join` tasks in flight are
/// abandoned, and what finished is journaled before the ranks return;
/// with `grace`, rank 0 tells its `abandon` once the grace has passed
/// (the journal synced), where the front end ends the job.
pub fn count_journaled(
    world: &SimpleCommunicator,
    n: u32,
    options: &CountOptions,
    checkpoint: Option<&Path>,
    key: Option<&super::signing::RunKey>,
    stop: &AtomicBool,
    grace: Option<&StopGrace<'_>>,
) -> Result<RankOutcome, Error> {
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
        Ok(tracked) if opened_flag == 1 => tracked.since(started),
        Ok(_) => {
            return Err(Error::Mpi(
                "rank 0 could not open the checkpoint (it says why)".to_string(),
            ))
        }
        Err(err) => return Err(err),
    };
    if rank == 0 {
        for repair in tracked.repairs() {
            if let Some(path) = checkpoint {
                eprintln!("warning: checkpoint {}: {repair}", path.display());
            }
        }
    }
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
    let is_done = |id: u64| {
        done.get((id / 64) as usize)
            .is_some_and(|word| word >> (id % 64) & 1 == 1)
    };
    // Every worker thread of every rank asks for its own chunks: no rank
    // or thread waits for another's chunk to finish.
    let mut thread_counts = vec![0u64; ranks];
    world.all_gather_into(&(threads as u64), &mut thread_counts[..]);
    let remote_workers: u64 = thread_counts[1..].iter().sum();
    let all_workers: u64 = thread_counts.iter().sum();
    let chunk = chunk_size(tracked.plan().tasks.len(), all_workers as usize);
    let journal_error: Mutex<Option<std::io::Error>> = Mutex::new(None);
    let chunks = Chunks {
        rank,
        chunk,
        task_count,
        order: SpreadOrder::of_runs(task_count.div_ceil(chunk)),
        next: AtomicU64::new(0),
        stop,
        journal: tracked.journal(),
        journal_error: &journal_error,
        task_micros: AtomicU64::new(0),
        journaled: AtomicU64::new(0),
    };
    let on_task = |outcome: &TaskOutcome| chunks.finished(outcome);
    let skip = |id: u64| is_done(id);
    let mut hooks = RunHooks::new()
        .dispatch(&chunks)
        .cancel(stop)
        .paths(options.paths);
    if checkpoint.is_some() {
        hooks = hooks.skip(&skip).on_task(&on_task);
    }
    // Rank 0 watches a stopped count: tasks in flight that would keep it
    // past the grace (depth-first tasks of large N take minutes) are
    // abandoned with the whole job, as after a kill, once the journal
    // holds every task finished. Which tasks are in flight on other ranks
    // is not known here.
    let done = AtomicBool::new(false);
    let kept = || {
        tracked.keep_now(
            // Without a journal rank 0 hears of no other rank's tasks.
            tracked
                .journal()
                .map(|_| chunks.journaled.load(Ordering::Relaxed)),
            None,
            all_workers as usize,
        )
    };
    std::thread::scope(|watcher| {
        let watching = match (rank, grace) {
            (0, Some(grace)) => {
                Some(watcher.spawn(|| stop::watch(&done, stop, stop, Some(grace), None, &kept)))
            }
            _ => None,
        };
        let outcome = (|| {
            let run = std::thread::scope(|scope| {
                if rank == 0 && remote_workers > 0 {
                    scope.spawn(|| chunks.answer(remote_workers));
                }
                // Only rank 0 reports, so only it searches for P and R.
                run_plan(
                    tracked.plan(),
                    threads,
                    &hooks,
                    (rank == 0).then_some((0, 1)),
                )
            })?;
            let words = encode(&run.totals, threads);
            if rank != 0 {
                root.gather_into(&words[..]);
                return Ok(RankOutcome::Worker);
            }
            let mut all = vec![0u64; WORDS * ranks];
            root.gather_into_root(&words[..], &mut all[..]);
            let (sum, all_threads) = all.chunks(WORDS).map(decode).fold(
                (RunTotals::default(), 0),
                |(sum, threads), (part, part_threads)| (sum.merge(part), threads + part_threads),
            );
            let failed = journal_error
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take();
            if let (Some(err), Some(_)) = (failed, tracked.journal()) {
                // An I/O failure, as a count on one machine reports it
                // (exit 1), not an MPI one.
                return Err(tracked.journal_failure(format!(
                    "cannot write the checkpoint ({err}); finished tasks up to the failure are kept"
                )));
            }
            let end = RunEnd {
                totals: sum,
                symmetric: run.symmetric,
                seconds: started.elapsed().as_secs_f64(),
                threads: all_threads,
                task_micros: chunks.task_micros.load(Ordering::Relaxed),
            };
            Ok(RankOutcome::Root(tracked.finish(&end)?))
        })();
        done.store(true, Ordering::SeqCst);
        if let Some(watching) = &watching {
            watching.thread().unpark();
        }
        outcome
    })
}

/// Words per finished task sent to rank 0: id, solutions, orbits, the
/// three orbit sizes, nodes, microseconds.
const TASK_WORDS: usize = 8;

/// Chunks of a plan's tasks, handed out by rank 0.
struct Chunks<'a> {
    rank: i32,
    /// Tasks per chunk.
    chunk: u64,
    task_count: u64,
    /// The order chunks are handed out in: spread over the plan, so that
    /// rank 0's progress reads the share of the cost done (as a single
    /// machine's engine does with its runs of tasks).
    order: SpreadOrder,
    /// Rank 0: how many chunks were handed out.
    next: AtomicU64,
    /// Set to stop: no chunk is handed out after it.
    stop: &'a AtomicBool,
    /// Rank 0: the journal every finished task goes to.
    journal: Option<&'a Journal>,
    journal_error: &'a Mutex<Option<std::io::Error>>,
    /// Rank 0: microseconds of the tasks journaled in this run, all ranks.
    task_micros: AtomicU64,
    /// Rank 0: tasks journaled in this run, all ranks.
    journaled: AtomicU64,
}

impl Chunks<'_> {
    /// Rank 0: the start of a chunk nobody was given, or [`NO_MORE`].
    fn take(&self) -> u64 {
        if self.stop.load(Ordering::SeqCst) {
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

    /// A task finished on this rank: journaled now on rank 0, sent to it
    /// now from elsewhere (so a stop or a kill loses only the tasks in
    /// flight, not the finished part of a chunk).
    fn finished(&self, outcome: &TaskOutcome) {
        let micros = (outcome.seconds * 1e6).round() as u64;
        if self.rank == 0 {
            self.journal_task(outcome.id, &outcome.count, micros);
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
            micros,
        ];
        // A message from this thread, before its next request: rank 0
        // receives it first (MPI keeps one thread's messages in order).
        SimpleCommunicator::world()
            .process_at_rank(0)
            .send_with_tag(&words[..], RESULT);
    }

    /// Rank 0: appends a finished task to the journal; a failure stops the
    /// count (losing the journal would lose work).
    fn journal_task(&self, id: u64, count: &TaskCount, micros: u64) {
        let Some(journal) = self.journal else {
            return;
        };
        self.task_micros.fetch_add(micros, Ordering::Relaxed);
        self.journaled.fetch_add(1, Ordering::Relaxed);
        if let Err(err) = journal.record(id, count, micros as f64 * 1e-6) {
            self.journal_error
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get_or_insert(err);
            self.stop.store(true, Ordering::SeqCst);
        }
    }

    /// Rank 0's dispatcher: journals what the other ranks' workers
    /// finished and answers their requests until each of their
    /// `remote_workers` has been told there is no more.
    fn answer(&self, remote_workers: u64) {
        let world = SimpleCommunicator::world();
        let mut finished = 0;
        while finished < remote_workers {
            // MPI's blocking receive spins a core; the dispatcher shares
            // rank 0's cores with its workers, so it polls and sleeps
            // instead (requests come every chunk, not every microsecond).
            let Some(waiting) = world.any_process().immediate_probe() else {
                std::thread::sleep(DISPATCH_POLL);
                continue;
            };
            let source = world.process_at_rank(waiting.source_rank());
            if waiting.tag() == RESULT {
                // [TASK_WORDS of one finished task]
                let (task, _) = source.receive_vec_with_tag::<u64>(RESULT);
                if let [id, solutions, orbits, o2, o4, o8, nodes, micros] = task[..] {
                    let count = TaskCount {
                        solutions,
                        orbits,
                        orbit_sizes: [o2, o4, o8],
                        nodes,
                    };
                    self.journal_task(id, &count, micros);
                }
                continue;
            }
            let (request, status) = source.receive_vec_with_tag::<u64>(REQUEST);
            // [stopping]
            let stopping = request.first().copied().unwrap_or(0) != 0;
            if stopping {
                self.stop.store(true, Ordering::SeqCst);
            }
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

impl Dispatch for Chunks<'_> {
    fn next_chunk(&self) -> Option<Range<usize>> {
        let start = if self.rank == 0 {
            self.take()
        } else {
            // Any reply answers any of this rank's requests: each is a
            // chunk nobody else was given.
            let request = [u64::from(self.stop.load(Ordering::SeqCst))];
            let world = SimpleCommunicator::world();
            let root = world.process_at_rank(0);
            root.send_with_tag(&request[..], REQUEST);
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
        let journal_error = Mutex::new(None);
        for (task_count, chunk) in [(1u64, 1u64), (10, 3), (1000, 7), (92_504, 1024)] {
            let stop = AtomicBool::new(false);
            let chunks = Chunks {
                rank: 0,
                chunk,
                task_count,
                order: SpreadOrder::of_runs(task_count.div_ceil(chunk)),
                next: AtomicU64::new(0),
                stop: &stop,
                journal: None,
                journal_error: &journal_error,
                task_micros: AtomicU64::new(0),
                journaled: AtomicU64::new(0),
            };
            let mut starts: Vec<u64> = std::iter::from_fn(|| {
                let start = chunks.take();
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
            stop.store(true, Ordering::SeqCst);
            chunks.next.store(0, Ordering::SeqCst);
            assert_eq!(chunks.take(), NO_MORE);
        }
    }
}
