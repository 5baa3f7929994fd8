//! A count that survives and spreads: one N with a checkpoint journal, a
//! shard of the plan, or a per-task profile.

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::Context;
use nqueens::run::journal::{Journal, Resumed};
use nqueens::run::report::{make_report, PlanSummary};
use nqueens::run::shard::{checksum_of, mac_of, ShardResult, ShardSpec, SHARD_FORMAT};
use nqueens::run::{plan_for, run_plan};
use nqueens::{resolve_threads, History, RunHooks, RunTotals, Task, TaskOutcome};

use super::{print_report, usage};
use crate::args::CountArgs;
use crate::exit_codes::ExitCode;
use crate::output::PendingFile;
use crate::progress;
use crate::signals::{self, INTERRUPTED};

/// Per-task measurements for `--profile`, collected from the workers.
#[derive(Default)]
pub struct Profiler {
    rows: Mutex<Vec<TaskOutcome>>,
}

impl Profiler {
    /// Records one finished task.
    pub fn record(&self, outcome: &TaskOutcome) {
        self.rows
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(*outcome);
    }

    /// `id,solutions,nodes,seconds` per task, by id.
    pub fn csv(self) -> String {
        let mut rows = self.rows.into_inner().unwrap_or_else(|p| p.into_inner());
        rows.sort_by_key(|row| row.id);
        let mut text = String::from("id,solutions,nodes,seconds\n");
        for row in rows {
            text.push_str(&format!(
                "{},{},{},{:.9}\n",
                row.id, row.count.solutions, row.count.nodes, row.seconds
            ));
        }
        text
    }
}

/// The shard to run: `--shard`, else from the job scheduler's environment.
pub fn shard_of(args: &CountArgs) -> anyhow::Result<Option<ShardSpec>> {
    if let Some(shard) = args.shard {
        return Ok(Some(shard));
    }
    let number = |name: &str| -> anyhow::Result<Option<u64>> {
        match std::env::var(name) {
            Ok(text) => text
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| usage(format!("{name}={text} is not a whole number"))),
            Err(_) => Ok(None),
        }
    };
    if let (Some(id), Some(count)) = (
        number("SLURM_ARRAY_TASK_ID")?,
        number("SLURM_ARRAY_TASK_COUNT")?,
    ) {
        // Arrays may start anywhere (--array=1-8): count from the first.
        let first = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        let index = id.checked_sub(first).ok_or_else(|| {
            usage(format!(
                "SLURM_ARRAY_TASK_ID {id} is below SLURM_ARRAY_TASK_MIN {first}"
            ))
        })?;
        let shard =
            ShardSpec::new(index, count).map_err(|err| usage(format!("from SLURM: {err}")))?;
        eprintln!(
            "shard {shard} of the count, from SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (--shard I/K chooses another)"
        );
        return Ok(Some(shard));
    }
    if let Some(index) = number("JOB_COMPLETION_INDEX")? {
        let Some(count) = args.shards else {
            return Err(usage(
                "JOB_COMPLETION_INDEX is set: give the shard count with --shards K (or --shard I/K)".to_string(),
            ));
        };
        let shard = ShardSpec::new(index, count)
            .map_err(|err| usage(format!("from JOB_COMPLETION_INDEX: {err}")))?;
        eprintln!(
            "shard {shard} of the count, from JOB_COMPLETION_INDEX and --shards (--shard I/K chooses another)"
        );
        return Ok(Some(shard));
    }
    if args.shards.is_some() {
        return Err(usage(
            "--shards K needs JOB_COMPLETION_INDEX in the environment; otherwise use --shard I/K"
                .to_string(),
        ));
    }
    Ok(None)
}

/// The command line that resumes this run, quoted for a POSIX shell, for
/// the interruption message. Arguments are taken as the system gives them:
/// a path need not be UTF-8.
pub fn resume_command() -> String {
    std::env::args_os()
        .map(|arg| shell_word(&arg))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One argument as a shell reads it back: quoted where needed, and bytes
/// that are not UTF-8 written as `$'\xNN'` (bash, zsh and ksh read that).
fn shell_word(arg: &std::ffi::OsStr) -> String {
    if let Some(text) = arg.to_str() {
        // Quoting fails only on a NUL byte, which no argument can hold.
        return shlex::try_quote(text).map_or_else(|_| text.to_string(), |word| word.into_owned());
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let mut word = String::from("$'");
        for &byte in arg.as_bytes() {
            match byte {
                b'\\' | b'\'' => {
                    word.push('\\');
                    word.push(char::from(byte));
                }
                0x20..=0x7e => word.push(char::from(byte)),
                _ => word.push_str(&format!("\\x{byte:02x}")),
            }
        }
        word.push('\'');
        word
    }
    #[cfg(not(unix))]
    {
        arg.to_string_lossy().into_owned()
    }
}

/// One N with a checkpoint and/or a shard.
pub fn run(args: &CountArgs, n: u32, shard: Option<ShardSpec>) -> anyhow::Result<ExitCode> {
    let options = args.count_options();
    let threads = resolve_threads(options.threads)?;
    let key = super::run_key(args.key.as_deref())?;
    super::check_fallback(n, &options, threads, args.allow_slow)?;
    let started = Instant::now();
    // The bar's phase line runs while the plan is built (seconds at N = 27).
    let bar = progress::task_bar(args.progress, format!("N={n}"));
    let keep = |id: u64| shard.is_none_or(|shard| shard.contains(id));
    let in_shard = |task: &Task| keep(task.id);
    // Until the count begins a signal ends the process at once: nothing
    // has been counted (building the plan takes seconds at N = 27).
    let stopped_early = || {
        bar.finish_and_clear();
        eprintln!("interrupted before counting began; nothing was counted");
    };
    let (plan, shard_out, profile_out, journal, resumed) =
        signals::answered_during(&stopped_early, || -> anyhow::Result<_> {
            let plan = plan_for(n, &options, threads)?;
            super::warn_ignored_split(args.split_depth, &plan);
            // Where the results go is checked before anything is counted.
            let shard_out = shard
                .map(|shard| {
                    let path = args.out.clone().unwrap_or_else(|| {
                        PathBuf::from(format!(
                            "nqueens-{n}-{}-shard-{}-of-{}.json",
                            plan.method, shard.index, shard.count
                        ))
                    });
                    PendingFile::reserve(&path, "the shard result")
                })
                .transpose()?;
            let profile_out = args
                .profile
                .as_deref()
                .map(|path| PendingFile::reserve(path, "the profile"))
                .transpose()?;
            let (journal, resumed) = match &args.checkpoint {
                Some(path) => {
                    let (journal, resumed) = Journal::open_keyed(path, &plan, &keep, key.as_ref())?;
                    for repair in resumed.repairs() {
                        bar.suspend(|| {
                            eprintln!("warning: checkpoint {}: {repair}", path.display())
                        });
                    }
                    (Some(journal), Some(resumed))
                }
                None => (None, None),
            };
            Ok((plan, shard_out, profile_out, journal, resumed))
        })?;
    let summary = PlanSummary::of(&plan);
    let done_before = |task: &Task| {
        resumed
            .as_ref()
            .is_some_and(|resumed| resumed.is_done(task.id))
    };
    let shard_tasks = plan.tasks.iter().filter(|task| in_shard(task)).count() as u64;
    let mut prior = RunTotals::default();
    if let Some(resumed) = &resumed {
        prior = resumed.prior;
        if resumed.finished() > 0 && !resumed.complete {
            bar.suspend(|| {
                eprintln!(
                    "resuming: {} of {} tasks already counted",
                    prior.tasks_run, shard_tasks
                )
            });
        }
    }
    progress::weigh_tasks(&bar, &plan, &|task| in_shard(task) && !done_before(task));
    progress::begin_tasks(&bar, shard_tasks, prior.tasks_run);
    let journal_error: Mutex<Option<io::Error>> = Mutex::new(None);
    let stop = AtomicBool::new(false);
    let profiler = Profiler::default();
    // Tasks started and finished in this run: the difference is in flight.
    let started_tasks = AtomicU64::new(0);
    let finished_tasks = AtomicU64::new(0);
    // This run's task time, in microseconds, summed over threads.
    let task_micros = AtomicU64::new(0);
    let on_task = |outcome: &TaskOutcome| {
        progress::task_finished(outcome.id);
        bar.inc(1);
        finished_tasks.fetch_add(1, Ordering::Relaxed);
        // Rounded as the journal's lines are, so a rerun sums the same.
        task_micros.fetch_add((outcome.seconds * 1e6).round() as u64, Ordering::Relaxed);
        if args.profile.is_some() {
            profiler.record(outcome);
        }
        if let Some(journal) = &journal {
            if let Err(err) = journal.record(outcome.id, &outcome.count, outcome.seconds) {
                // Losing the journal would lose work: stop, and say why.
                journal_error
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get_or_insert(err);
                stop.store(true, Ordering::SeqCst);
            }
        }
        if INTERRUPTED.load(Ordering::Relaxed) {
            stop.store(true, Ordering::Relaxed);
        }
    };
    let skip = |task: &Task| {
        let skipped = !in_shard(task) || done_before(task);
        if !skipped && !stop.load(Ordering::Relaxed) {
            started_tasks.fetch_add(1, Ordering::Relaxed);
        }
        skipped
    };
    let hooks = RunHooks {
        skip: Some(&skip),
        on_task: Some(&on_task),
        cancel: Some(&stop),
        ..RunHooks::default()
    };
    stop.store(INTERRUPTED.load(Ordering::SeqCst), Ordering::SeqCst);
    // A signal stops the tasks in flight too (join tasks look at the flag
    // between batches), not only the next ones; those that would take
    // longer than the grace are abandoned with the process, as after
    // kill -9, once the journal is synced and locked.
    let running = AtomicBool::new(true);
    let in_flight = || {
        let started = started_tasks.load(Ordering::Relaxed);
        started.saturating_sub(finished_tasks.load(Ordering::Relaxed))
    };
    let say = |text: String| bar.suspend(|| eprintln!("{text}"));
    let abandon = |in_flight: u64| {
        bar.finish_and_clear();
        let counted = prior.tasks_run + finished_tasks.load(Ordering::Relaxed);
        let abandoned = format!("{in_flight} in flight abandoned");
        let kept = match &journal {
            Some(journal) => {
                match journal.end_before_exit(started.elapsed().as_secs_f64(), threads) {
                    Ok(()) => format!(
                        " and saved, {abandoned} (counted again on resume); resume with:\n  {}",
                        resume_command()
                    ),
                    Err(err) => format!(
                    ", {abandoned}; the checkpoint could not be synced ({err}): it may hold fewer"
                ),
                }
            }
            None => format!(
                ", {abandoned}; nothing was saved (add --checkpoint FILE to make a run resumable)"
            ),
        };
        eprintln!("interrupted: {counted} of {shard_tasks} tasks counted{kept}");
    };
    let counted = std::thread::scope(|scope| {
        scope.spawn(|| signals::watch(&running, &stop, &in_flight, &say, &abandon));
        // A shard computes its part of P and R; the merge sums the parts.
        let symmetric_part = shard.map_or((0, 1), |shard| (shard.index, shard.count));
        let counted = run_plan(&plan, threads, &hooks, Some(symmetric_part));
        running.store(false, Ordering::Relaxed);
        counted
    })?;
    let run = counted.totals;
    let seconds = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    // A run that counted nothing (a finished journal read again, maybe
    // read-only) leaves the journal as it is, and adds no run to its cost.
    let worked = run.tasks_run + run.tasks_cancelled > 0;
    if let Some(journal) = &journal {
        if worked {
            journal.end_session(seconds, threads)
        } else {
            journal.sync()
        }
        .with_context(|| format!("cannot sync the checkpoint {}", journal.path().display()))?;
    }
    // A resumed count's cost over all its runs.
    let history = resumed
        .as_ref()
        .filter(|resumed| resumed.finished() > 0 || resumed.sessions > 0)
        .map(|resumed| History {
            sessions: resumed.sessions + if worked { 1 } else { 0 },
            wall_seconds: resumed.wall_seconds + if worked { seconds } else { 0.0 },
            task_seconds: (resumed.task_micros + task_micros.load(Ordering::Relaxed)) as f64 * 1e-6,
            session_nodes: run.nodes,
        });
    if let Some(err) = journal_error
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
    {
        return Err(anyhow::Error::new(err)
            .context("cannot write the checkpoint; finished tasks up to the failure are kept"));
    }
    let totals = prior.merge(RunTotals {
        tasks_skipped: 0,
        ..run
    });
    if run.tasks_cancelled > 0 {
        let cost = super::cost_so_far(history);
        eprintln!(
            "interrupted: {} of {shard_tasks} tasks counted{cost}{}",
            totals.tasks_run,
            if journal.is_some() {
                format!(" and saved; resume with:\n  {}", resume_command())
            } else {
                "; nothing was saved (add --checkpoint FILE to make a run resumable)".to_string()
            }
        );
        return Ok(ExitCode::Interrupted);
    }
    if let Some(shard) = shard {
        let result = ShardResult {
            format: SHARD_FORMAT.to_string(),
            fingerprint: plan.fingerprint_hex(),
            n,
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
            threads,
            seconds,
            total_seconds: history.map_or(seconds, |history| history.wall_seconds),
            task_seconds: history.map_or(
                task_micros.load(Ordering::Relaxed) as f64 * 1e-6,
                |history| history.task_seconds,
            ),
            turn_fixed_part: counted
                .symmetric
                .map(|part| [part.half_turn, part.quarter_turn]),
            task_digest: Some(format!("{:016x}", totals.digest)),
            checksum: None,
            mac: None,
        };
        let result = ShardResult {
            checksum: Some(checksum_of(&result)),
            mac: key.as_ref().map(|key| mac_of(&result, key)),
            ..result
        };
        mark_complete(journal.as_ref(), resumed.as_ref(), totals.solutions)?;
        let out = shard_out.expect("a shard's result file is reserved");
        let path = out.path().to_path_buf();
        let text = format!("{}\n", serde_json::to_string_pretty(&result)?);
        if let Err(err) = out.commit(text.as_bytes()) {
            // The count is done: it is not lost with the file.
            print!("{text}");
            return Err(anyhow::anyhow!(
                "cannot write the shard result {} ({err}); it is printed above: save it to a file to merge it",
                path.display()
            ));
        }
        write_profile(profile_out, profiler)?;
        eprintln!(
            "shard {shard}: {} tasks, {} solutions (partial), written to {}",
            totals.tasks_run,
            totals.solutions,
            path.display()
        );
        return Ok(ExitCode::Success);
    }
    mark_complete(journal.as_ref(), resumed.as_ref(), totals.solutions)?;
    let mut report = make_report(
        &summary,
        threads,
        &totals,
        seconds,
        true,
        counted
            .symmetric
            .expect("a whole count asked run_plan for P and R"),
    );
    report.history = history;
    let code = print_report(&report, args.format)?;
    write_profile(profile_out, profiler)?;
    Ok(code)
}

/// Writes the per-task profile, if one was asked for, after the result is
/// printed: a profile that cannot be written loses no count.
fn write_profile(out: Option<PendingFile>, profiler: Profiler) -> anyhow::Result<()> {
    let Some(out) = out else {
        return Ok(());
    };
    let path = out.path().to_path_buf();
    out.commit(profiler.csv().as_bytes())
        .with_context(|| format!("cannot write the profile {}", path.display()))
}

/// Ends the journal with its `complete` line, unless it already has one.
fn mark_complete(
    journal: Option<&Journal>,
    resumed: Option<&Resumed>,
    solutions: u128,
) -> io::Result<()> {
    match journal {
        Some(journal) if !resumed.is_some_and(|resumed| resumed.complete) => {
            journal.complete(solutions)
        }
        _ => Ok(()),
    }
}
