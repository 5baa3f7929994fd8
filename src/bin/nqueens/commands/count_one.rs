//! One N counted, the binary's one count path (`--mpi` aside): with or
//! without a checkpoint journal, a shard of the plan and a per-task
//! profile.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context;
use indicatif::ProgressBar;
use nqueens::run::plan_for;
use nqueens::run::shard::ShardSpec;
use nqueens::run::signing::RunKey;
use nqueens::run::tracked::{Tracked, TrackedOutcome};
use nqueens::{resolve_threads, CountOptions, TaskOutcome};

use super::gpu::Devices;
use super::mismatch;
use crate::args::CountArgs;
use crate::exit_codes::ExitCode;
use crate::output::profile::{write_profile, Profiler};
use crate::output::{PendingFile, ReportWriter};
use crate::progress;
use crate::signals::{self, Stopping};

/// Whether a count keeps files beside its report (a checkpoint, a shard's
/// result, a profile): such a count takes one N.
pub fn keeps_files(args: &CountArgs, shard: Option<ShardSpec>) -> bool {
    args.checkpoint.is_some() || shard.is_some() || args.profile.is_some()
}

/// What every N of one `count` shares, worked out once from its
/// arguments: the library's options, the threads they resolve to, the run
/// key and the devices beside the CPU threads.
pub struct CountSetup {
    /// The library's options.
    pub options: CountOptions,
    /// Worker threads.
    pub threads: usize,
    /// The key that signs a checkpoint or a shard's result.
    pub key: Option<RunKey>,
    /// The GPUs asked for, opened.
    pub devices: Devices,
    /// The shard to count, if any.
    pub shard: Option<ShardSpec>,
}

impl CountSetup {
    /// The setup `args` ask for (the shard from `--shard` or the
    /// scheduler's environment).
    pub fn of(args: &CountArgs, shard: Option<ShardSpec>) -> anyhow::Result<CountSetup> {
        let options = args.count_options();
        let threads = resolve_threads(options.threads)?;
        Ok(CountSetup {
            options,
            threads,
            key: super::run_key(args.key.as_deref())?,
            devices: Devices::open(args, None)?,
            shard,
        })
    }
}

/// Where a count's reports go: one table (its header once) for every N of
/// the command, and the N that disagreed with the tables.
pub struct Reports<W: Write> {
    /// The table.
    pub writer: ReportWriter<W>,
    /// One line per N whose count disagreed with the published one.
    pub mismatches: Vec<String>,
}

/// Says above `bar` what reading the journal at `checkpoint` repaired and
/// how far a resumed count got, then sets the bar to count `tracked`'s
/// tasks (weighted by their costs where those are cheap).
pub fn begin_bar(bar: &ProgressBar, tracked: &Tracked, checkpoint: Option<&Path>) {
    if let Some(path) = checkpoint {
        for repair in tracked.repairs() {
            bar.suspend(|| eprintln!("warning: checkpoint {}: {repair}", path.display()));
        }
    }
    let earlier = tracked.earlier().totals.tasks_run;
    if tracked.resuming() {
        bar.suspend(|| {
            eprintln!(
                "resuming: {earlier} of {} tasks already counted",
                tracked.tasks()
            )
        });
    }
    progress::weigh_tasks(bar, tracked.plan(), &|task| tracked.is_left(task.id));
    progress::begin_tasks(bar, tracked.tasks(), earlier);
}

/// Counts one N: the only count path of the binary (`--mpi` aside), with
/// or without a checkpoint journal, a shard and a per-task profile. A
/// finished count's report goes to `reports`; a stopped count or a
/// shard's end returns the exit status the command ends with.
pub fn count_one<W: Write>(
    args: &CountArgs,
    setup: &CountSetup,
    n: u32,
    reports: &mut Reports<W>,
) -> anyhow::Result<Option<ExitCode>> {
    let CountSetup {
        ref options,
        threads,
        ref key,
        ref devices,
        shard,
    } = *setup;
    let options = &devices.options_for(n, options);
    // A count that keeps nothing beyond its report says which N stopped.
    let keeps_files = keeps_files(args, shard);
    // The bar's phase line runs while the plan is built (seconds at N = 27).
    let started = Instant::now();
    let bar = progress::task_bar(args.progress, format!("N={n}"));
    // Until the count begins a signal ends the process at once: nothing
    // has been counted (building the plan takes seconds at N = 27).
    let stopped_early = || {
        bar.finish_and_clear();
        eprintln!("interrupted before counting began; nothing was counted");
    };
    let (tracked, shard_out, profile_out) =
        signals::answered_during(&stopped_early, || -> anyhow::Result<_> {
            let plan = plan_for(n, options, threads)?;
            devices.check_plan(&plan)?;
            super::warn_ignored_split(args.split_depth, &plan);
            super::fallback::note_past_range(n, options, threads);
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
            let checkpoint = args.checkpoint.as_deref();
            let tracked = Tracked::with_plan(plan, threads, shard, checkpoint, key.as_ref())?
                // Its wall time counts the plan's building, as every count's does.
                .since(started);
            Ok((tracked, shard_out, profile_out))
        })?;
    begin_bar(&bar, &tracked, args.checkpoint.as_deref());
    let profiler = Profiler::default();
    let on_task = |outcome: &TaskOutcome| {
        progress::task_finished(outcome.id);
        bar.inc(1);
        if args.profile.is_some() {
            profiler.record(outcome);
        }
    };
    let clear = || bar.finish_and_clear();
    let say = |text: String| bar.suspend(|| eprintln!("{text}"));
    // Tasks in flight that would keep a stopped count past the grace are
    // abandoned with the process; what finished is in the journal, if any.
    let stopping = Stopping {
        clear: &clear,
        say: &say,
        board: (!keeps_files).then_some(n),
        mpi: false,
    };
    let saved = args.checkpoint.is_some();
    if saved {
        signals::saved_on_exit();
    }
    let outcome = stopping.run(tracked, &on_task, devices)?;
    bar.finish_and_clear();
    for note in devices.closing_notes() {
        eprintln!("{note}");
    }
    match outcome {
        TrackedOutcome::Stopped {
            counted,
            tasks,
            history,
        } => {
            let cost = if keeps_files {
                super::cost_so_far(history)
            } else {
                String::new()
            };
            eprintln!("{}", stopping.stopped(counted, tasks, &cost, saved));
            Ok(Some(ExitCode::Interrupted))
        }
        TrackedOutcome::Shard(result) => {
            let out = shard_out.expect("a shard's result file is reserved");
            let path = out.path().to_path_buf();
            let text = format!("{}\n", serde_json::to_string_pretty(&result)?);
            if let Err(err) = out.commit(text.as_bytes()) {
                // The count is done: it is not lost with the file.
                let mut stdout = std::io::stdout().lock();
                let printed = stdout
                    .write_all(text.as_bytes())
                    .and_then(|()| stdout.flush());
                return Err(match printed {
                    Ok(()) => anyhow::anyhow!(
                        "cannot write the shard result {} ({err}); it is printed above: save it to a file to merge it",
                        path.display()
                    ),
                    Err(print_err) => anyhow::anyhow!(
                        "cannot write the shard result {} ({err}) nor print it ({print_err}): its tasks are in the checkpoint, if one was given",
                        path.display()
                    ),
                });
            }
            write_profile(profile_out, profiler)?;
            let shard = shard.expect("a shard result comes of a shard");
            eprintln!(
                "shard {shard}: {} tasks, {} solutions (partial), written to {}",
                result.tasks_done,
                result.solutions,
                path.display()
            );
            Ok(Some(ExitCode::Success))
        }
        TrackedOutcome::Counted(report) => {
            reports
                .writer
                .write(&report)
                .context("cannot write the result")?;
            reports.mismatches.extend(mismatch(&report));
            write_profile(profile_out, profiler)?;
            Ok(None)
        }
        _ => Err(anyhow::anyhow!(
            "a count of N = {n} ended in a way this nqueens does not know"
        )),
    }
}
