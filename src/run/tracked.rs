//! A count that survives and spreads: one N, with a checkpoint journal
//! (resumed where one exists), a shard of the plan, spread over processes
//! (MPI ranks), or none of these. The one flow every front end takes:
//! [`Tracked::prepare`] builds the plan and opens the journal,
//! [`Tracked::run`] counts what is left, journals each task, stops with a
//! grace on a flag, and [`Tracked::finish`] ends the journal, adds up the
//! earlier runs and returns what a front end prints. A count spread over
//! processes differs only by its [`Distribution`] (see
//! [`Tracked::spread_over`]).

use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::distribution::{Chunked, Distribution};
use super::engine::{RunHooks, RunTotals, TaskOutcome};
use super::journal::{Journal, JournalError, Resumed};
use super::report::{make_report, History, PlanSummary, Report, SymmetricCounts};
use super::shard::{checksum_of, mac_of, ShardResult, ShardSpec, SHARD_FORMAT};
use super::signing::RunKey;
use super::stop::{self, Abandoned, InFlight, StopGrace};
use super::workers::{BatchWorker, WorkerFailure};
use super::{plan_for, run_plan, CountOptions};
use crate::error::Error;
use crate::plan::Plan;
use crate::search::paths::CodePaths;

/// What earlier runs of a journaled count left: the tasks they finished
/// (of this run's shard) and what those runs cost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Earlier {
    /// The finished tasks' totals.
    pub totals: RunTotals,
    /// Runs that recorded their end.
    pub sessions: u64,
    /// Wall seconds of those runs.
    pub wall_seconds: f64,
    /// Seconds the finished tasks took, summed over threads, in whole
    /// microseconds as the journal records them (so every reading of a
    /// journal sums the same).
    pub task_micros: u64,
}

impl Earlier {
    /// What `resumed` read from a journal.
    pub fn of(resumed: &Resumed) -> Earlier {
        Earlier {
            totals: resumed.prior,
            sessions: resumed.sessions,
            wall_seconds: resumed.wall_seconds,
            task_micros: resumed.task_micros,
        }
    }

    /// Whether an earlier run finished a task or recorded its end.
    pub fn any(&self) -> bool {
        self.totals.tasks_run > 0 || self.sessions > 0
    }

    /// The count's cost over all its runs, `this` run's added; `None`
    /// without an earlier run (the report's own figures say it all).
    pub fn history(&self, this: &RunEnd) -> Option<History> {
        let worked = this.worked();
        self.any().then(|| History {
            sessions: self.sessions + u64::from(worked),
            wall_seconds: self.wall_seconds + if worked { this.seconds } else { 0.0 },
            task_seconds: (self.task_micros + this.task_micros) as f64 * 1e-6,
            session_nodes: this.totals.nodes,
        })
    }
}

/// What one run of a tracked count did, for [`Tracked::finish`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunEnd {
    /// The totals of the tasks this run counted (of every rank).
    pub totals: RunTotals,
    /// P and R for the unique count, if the run searched for them and was
    /// not stopped.
    pub symmetric: Option<SymmetricCounts>,
    /// Wall seconds of the run.
    pub seconds: f64,
    /// Worker threads (of every rank).
    pub threads: usize,
    /// This run's task time, summed over threads, in whole microseconds.
    pub task_micros: u64,
}

impl RunEnd {
    /// Whether the run counted or cut short any task (a run that did not
    /// adds no run to the journal's cost).
    pub fn worked(&self) -> bool {
        self.totals.tasks_run + self.totals.tasks_cancelled > 0
    }
}

/// What a tracked count ended with: what a front end prints.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum TrackedOutcome {
    /// The whole count finished: its report, with the cost over all runs
    /// where a journal was resumed.
    Counted(Box<Report>),
    /// The shard finished: its result, checksummed (and signed with the
    /// run's key), to be written where `merge` finds it.
    Shard(Box<ShardResult>),
    /// This process's part of a count spread over processes ended (or was
    /// stopped); the reporting process has the outcome.
    Part,
    /// The count was stopped; what finished is in the journal, if any.
    Stopped {
        /// Tasks counted, this run's and earlier runs'.
        counted: u64,
        /// Tasks the count takes (its shard's, or the plan's).
        tasks: u64,
        /// The cost so far over all runs, where a journal was resumed.
        history: Option<History>,
    },
}

/// How a front end steers a tracked count as it runs.
pub struct Watch<'a> {
    /// Told of every task this run finishes (a progress bar, a profile).
    pub on_task: &'a (dyn Fn(&TaskOutcome) + Sync),
    /// Set to stop the count (a signal): no task starts after it.
    pub stop: &'a AtomicBool,
    /// How a stopped count ends when tasks are still in flight; `None`
    /// waits for them. Of a count spread over processes, only the
    /// reporting process takes it.
    pub grace: Option<&'a StopGrace<'a>>,
    /// Workers beside the CPU threads (a GPU): see [`crate::run::workers`].
    pub workers: &'a [&'a dyn BatchWorker],
    /// Told when one of `workers` fails (its batch goes back to the CPU
    /// threads).
    pub on_worker_failed: Option<&'a (dyn Fn(&WorkerFailure) + Sync)>,
    /// The CPU threads count only what a failed worker hands back.
    pub workers_only: bool,
}

/// One N's count with its plan built and its journal open, ready to run.
pub struct Tracked {
    plan: Plan,
    threads: usize,
    shard: Option<ShardSpec>,
    key: Option<RunKey>,
    journal: Option<Journal>,
    resumed: Option<Resumed>,
    earlier: Earlier,
    shard_tasks: u64,
    started: Instant,
    /// The builds of the hot loops its count takes.
    paths: CodePaths,
    /// Where its chunks come from and its tasks go, when the count is
    /// spread over processes.
    distribution: Option<Box<dyn Distribution>>,
    /// Tasks finished by earlier runs, by id, 64 to a word, as the
    /// reporting process's journal holds them (a spread count's other
    /// processes have no journal of their own).
    finished_elsewhere: Vec<u64>,
}

impl Tracked {
    /// Builds the plan of `n` (seconds at N = 27) and opens, or resumes,
    /// the journal at `checkpoint` for the tasks of `shard` (every task
    /// without one), signed with `key` if given. Nothing is counted.
    pub fn prepare(
        n: u32,
        options: &CountOptions,
        threads: usize,
        shard: Option<ShardSpec>,
        checkpoint: Option<&Path>,
        key: Option<&RunKey>,
    ) -> Result<Tracked, Error> {
        let started = Instant::now();
        let plan = plan_for(n, options, threads)?;
        let tracked = Tracked::with_plan(plan, threads, shard, checkpoint, key)?;
        Ok(tracked.with_paths(options.paths).since(started))
    }

    /// [`Tracked::prepare`] with the plan built already (MPI ranks compare
    /// their plans before rank 0 opens the journal).
    pub fn with_plan(
        plan: Plan,
        threads: usize,
        shard: Option<ShardSpec>,
        checkpoint: Option<&Path>,
        key: Option<&RunKey>,
    ) -> Result<Tracked, Error> {
        let keep = |id: u64| shard.is_none_or(|shard| shard.contains(id));
        let (journal, resumed) = match checkpoint {
            Some(path) => {
                let (journal, resumed) = Journal::open_keyed(path, &plan, &keep, key)?;
                (Some(journal), Some(resumed))
            }
            None => (None, None),
        };
        // The ids below the plan's length that are I mod K, counted
        // without making a task (a join plan makes each from its id).
        let len = plan.tasks.len() as u64;
        let shard_tasks = match shard {
            Some(shard) if shard.index < len => (len - 1 - shard.index) / shard.count + 1,
            Some(_) => 0,
            None => len,
        };
        Ok(Tracked {
            earlier: resumed.as_ref().map(Earlier::of).unwrap_or_default(),
            plan,
            threads,
            shard,
            key: key.cloned(),
            journal,
            resumed,
            shard_tasks,
            started: Instant::now(),
            paths: CodePaths::default(),
            distribution: None,
            finished_elsewhere: Vec::new(),
        })
    }

    /// The same count as one process's part of a count spread over
    /// processes: its chunks come from `distribution`, and the tasks in
    /// `finished` (by id, 64 to a word: what the reporting process's
    /// journal holds) are skipped.
    pub fn spread_over(self, distribution: Box<dyn Distribution>, finished: Vec<u64>) -> Tracked {
        Tracked {
            distribution: Some(distribution),
            finished_elsewhere: finished,
            ..self
        }
    }

    /// Whether this process reports the count: every count but the
    /// non-reporting parts of one spread over processes.
    pub fn reports(&self) -> bool {
        self.distribution
            .as_ref()
            .is_none_or(|distribution| distribution.reports())
    }

    /// The builds of the hot loops this count takes.
    pub fn with_paths(self, paths: CodePaths) -> Tracked {
        Tracked { paths, ..self }
    }

    /// The same count, its wall time taken from `started` (when its plan
    /// began to be built, as [`Tracked::prepare`] takes it).
    pub fn since(self, started: Instant) -> Tracked {
        Tracked { started, ..self }
    }

    /// The plan.
    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// Tasks the count takes: its shard's, or the plan's.
    pub fn tasks(&self) -> u64 {
        self.shard_tasks
    }

    /// What earlier runs left (nothing without a journal).
    pub fn earlier(&self) -> &Earlier {
        &self.earlier
    }

    /// The journal, if the count keeps one.
    pub fn journal(&self) -> Option<&Journal> {
        self.journal.as_ref()
    }

    /// What reading the journal repaired, one sentence each.
    pub fn repairs(&self) -> Vec<String> {
        self.resumed
            .as_ref()
            .map_or_else(Vec::new, Resumed::repairs)
    }

    /// Whether a journal was resumed with some of its tasks left to count.
    pub fn resuming(&self) -> bool {
        self.resumed
            .as_ref()
            .is_some_and(|resumed| resumed.finished() > 0 && !resumed.complete)
    }

    /// The finished tasks, by id, 64 to a word (empty without a journal):
    /// what MPI ranks are sent to skip.
    pub fn done_words(&self) -> &[u64] {
        self.resumed.as_ref().map_or(&[], Resumed::done_words)
    }

    /// Whether task `id` is this run's to count: in the shard and not
    /// finished by an earlier run.
    pub fn is_left(&self, id: u64) -> bool {
        let finished_elsewhere = self
            .finished_elsewhere
            .get((id / 64) as usize)
            .is_some_and(|word| word >> (id % 64) & 1 == 1);
        self.shard.is_none_or(|shard| shard.contains(id))
            && !finished_elsewhere
            && !self
                .resumed
                .as_ref()
                .is_some_and(|resumed| resumed.is_done(id))
    }

    /// What a stopped run keeps if it ends now, with `counted` tasks of
    /// this run finished (`None`: not known) and `in_flight` abandoned:
    /// the journal synced.
    pub fn keep_now(
        &self,
        counted: Option<u64>,
        in_flight: Option<u64>,
        threads: usize,
    ) -> Abandoned {
        Abandoned {
            counted: counted.map(|counted| self.earlier.totals.tasks_run + counted),
            tasks: self.shard_tasks,
            in_flight,
            journal: self.journal.as_ref().map(|journal| {
                journal
                    .end_before_exit(self.started.elapsed().as_secs_f64(), threads)
                    .map_err(|err| err.to_string())
            }),
        }
    }

    /// Counts the tasks left on this process's threads (and its batch
    /// workers), each journaled as it finishes; a journal that cannot be
    /// written stops the count (the tasks finished before it are kept). A
    /// shard searches its part of P and R; a whole count all of them. A
    /// count spread over processes takes its chunks from its
    /// distribution; the reporting process journals every process's
    /// tasks, and the others end with [`TrackedOutcome::Part`].
    pub fn run(self, watch: &Watch<'_>) -> Result<TrackedOutcome, Error> {
        let journal_error: Mutex<Option<io::Error>> = Mutex::new(None);
        let cancel = AtomicBool::new(watch.stop.load(Ordering::SeqCst));
        let in_flight = InFlight::default();
        // Tasks other processes finished, journaled here.
        let finished_elsewhere = AtomicU64::new(0);
        let task_micros = AtomicU64::new(0);
        let distribution = self.distribution.as_deref();
        let record = |outcome: &TaskOutcome| {
            // Rounded as the journal's lines are, so a rerun sums the same.
            task_micros.fetch_add((outcome.seconds * 1e6).round() as u64, Ordering::Relaxed);
            (watch.on_task)(outcome);
            if let Some(journal) = &self.journal {
                if let Err(err) = journal.record(outcome.id, &outcome.count, outcome.seconds) {
                    // Losing the journal would lose work: stop, and say why.
                    journal_error
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .get_or_insert(err);
                    cancel.store(true, Ordering::SeqCst);
                }
            }
        };
        let on_task = |outcome: &TaskOutcome| {
            in_flight.finish();
            if let Some(distribution) = distribution {
                distribution.finished(outcome);
            }
            record(outcome);
        };
        let record_elsewhere = |outcome: &TaskOutcome| {
            finished_elsewhere.fetch_add(1, Ordering::Relaxed);
            record(outcome);
        };
        let skip = |id: u64| {
            let skipped = !self.is_left(id);
            if !skipped && !cancel.load(Ordering::Relaxed) {
                in_flight.start();
            }
            skipped
        };
        let chunked = distribution.map(|distribution| Chunked {
            distribution,
            cancel: &cancel,
        });
        let mut hooks = RunHooks::new()
            .skip(&skip)
            .on_task(&on_task)
            .cancel(&cancel)
            .workers(watch.workers)
            .workers_only(watch.workers_only)
            .paths(self.paths);
        if let Some(on_failed) = watch.on_worker_failed {
            hooks = hooks.on_worker_failed(on_failed);
        }
        if let Some(shard) = self.shard {
            hooks = hooks.only_ids(shard.index, shard.count);
        }
        if let Some(chunked) = &chunked {
            hooks = hooks.dispatch(chunked);
        }
        // Only the reporting process of a spread count ends the job past
        // the grace: the others know neither the journal nor each other.
        let grace = watch.grace.filter(|_| self.reports());
        let done = AtomicBool::new(false);
        let kept = || {
            // A spread count knows the tasks other processes finished only
            // where it journals them, and never which are in flight there.
            let counted = match distribution {
                Some(_) if self.journal.is_none() => None,
                _ => Some(in_flight.finished() + finished_elsewhere.load(Ordering::Relaxed)),
            };
            let in_flight = distribution.is_none().then(|| in_flight.now());
            self.keep_now(counted, in_flight, self.threads)
        };
        // A shard computes its part of P and R; the merge sums the parts.
        // Of a spread count, the reporting process computes them all.
        let symmetric_part = match (self.shard, distribution) {
            (Some(shard), _) => Some((shard.index, shard.count)),
            (None, Some(distribution)) => distribution.reports().then_some((0, 1)),
            (None, None) => Some((0, 1)),
        };
        let counted = std::thread::scope(|scope| {
            // Other processes' tasks in flight are not known here.
            let known = distribution.is_none().then_some(&in_flight);
            let watching = (&done, &cancel, &kept);
            let watcher = scope.spawn(move || {
                let (done, cancel, kept) = watching;
                stop::watch(done, watch.stop, cancel, grace, known, kept)
            });
            let serving = distribution.map(|distribution| {
                let (cancel, record_elsewhere) = (&cancel, &record_elsewhere);
                scope.spawn(move || distribution.serve(cancel, record_elsewhere))
            });
            let counted = run_plan(&self.plan, self.threads, &hooks, symmetric_part);
            if let Some(serving) = serving {
                serving
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            }
            // The parts come together before the watcher is let go: a
            // stop's grace runs on until every process is done.
            let counted = counted.map(|counted| {
                let combined = match distribution {
                    Some(distribution) => distribution.combine(counted.totals, self.threads),
                    None => Some((counted.totals, self.threads)),
                };
                (combined, counted.symmetric)
            });
            done.store(true, Ordering::SeqCst);
            watcher.thread().unpark();
            counted
        })?;
        if let Some(err) = journal_error
            .into_inner()
            .unwrap_or_else(|p| p.into_inner())
        {
            return Err(self.journal_failure(format!(
                "cannot write the checkpoint ({err}); finished tasks up to the failure are kept"
            )));
        }
        let (Some((totals, threads)), symmetric) = counted else {
            return Ok(TrackedOutcome::Part);
        };
        let end = RunEnd {
            totals,
            symmetric,
            seconds: self.started.elapsed().as_secs_f64(),
            threads,
            task_micros: task_micros.load(Ordering::Relaxed),
        };
        self.finish(&end)
    }

    /// Ends a run: the journal records the run's end (or is only synced,
    /// for a run that counted nothing), the earlier runs are added, and a
    /// finished count's journal gets its `complete` line. Returns the
    /// report, the shard's result, or how far a stopped count got.
    pub fn finish(&self, end: &RunEnd) -> Result<TrackedOutcome, Error> {
        if let Some(journal) = &self.journal {
            if end.worked() {
                journal.end_session(end.seconds, end.threads)
            } else {
                journal.sync()
            }
            .map_err(|err| self.journal_failure(format!("cannot sync the checkpoint ({err})")))?;
        }
        let history = self.earlier.history(end);
        let totals = self.earlier.totals.merge(RunTotals {
            tasks_skipped: 0,
            ..end.totals
        });
        if end.totals.tasks_cancelled > 0 || totals.tasks_run < self.shard_tasks {
            return Ok(TrackedOutcome::Stopped {
                counted: totals.tasks_run,
                tasks: self.shard_tasks,
                history,
            });
        }
        if let Some(journal) = &self.journal {
            if !self
                .resumed
                .as_ref()
                .is_some_and(|resumed| resumed.complete)
            {
                journal.complete(totals.solutions).map_err(|err| {
                    self.journal_failure(format!("cannot write the checkpoint ({err})"))
                })?;
            }
        }
        let plan = &self.plan;
        if let Some(shard) = self.shard {
            let result = ShardResult {
                format: SHARD_FORMAT.to_string(),
                fingerprint: plan.fingerprint_hex(),
                n: plan.n,
                method: plan.method.to_string(),
                split_depth: plan.split_depth,
                shard: shard.index,
                shards: shard.count,
                tasks_in_plan: plan.tasks.len() as u64,
                tasks_done: totals.tasks_run,
                solutions: totals.solutions,
                orbits: totals.orbits,
                orbit_sizes: totals.orbit_sizes,
                nodes: totals.nodes,
                prefix_nodes: plan.prefix_nodes,
                threads: end.threads,
                seconds: end.seconds,
                total_seconds: history.map_or(end.seconds, |history| history.wall_seconds),
                task_seconds: history.map_or(end.task_micros as f64 * 1e-6, |history| {
                    history.task_seconds
                }),
                turn_fixed_part: end
                    .symmetric
                    .map(|part| [part.half_turn, part.quarter_turn]),
                task_digest: Some(format!("{:016x}", totals.digest)),
                checksum: None,
                mac: None,
            };
            let result = ShardResult {
                checksum: Some(checksum_of(&result)),
                mac: self.key.as_ref().map(|key| mac_of(&result, key)),
                ..result
            };
            return Ok(TrackedOutcome::Shard(Box::new(result)));
        }
        let mut report = make_report(
            &PlanSummary::of(plan),
            end.threads,
            &totals,
            end.seconds,
            true,
            end.symmetric
                .expect("a finished whole count searched for P and R"),
        );
        report.history = history;
        Ok(TrackedOutcome::Counted(Box::new(report)))
    }

    /// A journal that cannot be written or synced, as the error for it
    /// (the same from a count on one machine and from MPI rank 0).
    pub(crate) fn journal_failure(&self, reason: String) -> Error {
        let path = self
            .journal
            .as_ref()
            .map_or_else(String::new, |journal| journal.path().display().to_string());
        Error::Checkpoint(JournalError::Io { path, reason })
    }
}
