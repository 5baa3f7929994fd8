//! A count that survives and spreads: one N with a checkpoint journal, a
//! shard of the plan, or a per-task profile.

use std::path::PathBuf;
use std::time::Instant;

use nqueens::run::plan_for;
use nqueens::run::shard::ShardSpec;
use nqueens::run::tracked::{Tracked, TrackedOutcome};
use nqueens::{resolve_threads, TaskOutcome};

use super::{print_report, usage};
use crate::args::CountArgs;
use crate::exit_codes::ExitCode;
use crate::output::profile::{write_profile, Profiler};
use crate::output::PendingFile;
use crate::progress;
use crate::signals::{self, Stopping};

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
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(text)) => Err(usage(format!(
                "{name}={} is not a whole number (nor text)",
                text.to_string_lossy()
            ))),
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

/// One N with a checkpoint and/or a shard.
pub fn run(args: &CountArgs, n: u32, shard: Option<ShardSpec>) -> anyhow::Result<ExitCode> {
    let options = args.count_options();
    let threads = resolve_threads(options.threads)?;
    let key = super::run_key(args.key.as_deref())?;
    super::check_fallback(n, &options, threads, args.allow_slow)?;
    let devices = super::gpu::Devices::open(args)?;
    super::say_paths(args.progress);
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
            let plan = plan_for(n, &options, threads)?;
            devices.check_plan(&plan)?;
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
            let checkpoint = args.checkpoint.as_deref();
            let tracked = Tracked::with_plan(plan, threads, shard, checkpoint, key.as_ref())?
                // Its wall time counts the plan's building, as every count's does.
                .since(started);
            Ok((tracked, shard_out, profile_out))
        })?;
    if let Some(path) = &args.checkpoint {
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
    progress::weigh_tasks(&bar, tracked.plan(), &|task| tracked.is_left(task.id));
    progress::begin_tasks(&bar, tracked.tasks(), earlier);
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
    let stopping = Stopping {
        clear: &clear,
        say: &say,
        board: None,
        mpi: false,
    };
    let saved = args.checkpoint.is_some();
    if saved {
        signals::saved_on_exit();
    }
    let outcome = stopping.run(tracked, &on_task, &devices)?;
    bar.finish_and_clear();
    match outcome {
        TrackedOutcome::Stopped {
            counted,
            tasks,
            history,
        } => {
            let cost = super::cost_so_far(history);
            eprintln!("{}", stopping.stopped(counted, tasks, &cost, saved));
            Ok(ExitCode::Interrupted)
        }
        TrackedOutcome::Shard(result) => {
            let out = shard_out.expect("a shard's result file is reserved");
            let path = out.path().to_path_buf();
            let text = format!("{}\n", serde_json::to_string_pretty(&result)?);
            if let Err(err) = out.commit(text.as_bytes()) {
                // The count is done: it is not lost with the file.
                use std::io::Write;
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
            Ok(ExitCode::Success)
        }
        TrackedOutcome::Counted(report) => {
            let code = print_report(&report, args.format)?;
            write_profile(profile_out, profiler)?;
            Ok(code)
        }
        _ => Err(anyhow::anyhow!(
            "the count ended in a way this nqueens does not know"
        )),
    }
}
