//! `nqueens count`: one or more N, each checked against the tables; with a
//! checkpoint, shard or profile, one N through [`super::tracked`]; with
//! `--mpi`, across the ranks of `mpirun`.

use std::io;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use anyhow::Context;
use nqueens::{count_with_hooks, RunHooks, Task, TaskOutcome};

use super::{check_fallback, complain, mismatch, tracked, usage, warn_ignored_split};
use crate::args::CountArgs;
use crate::exit_codes::ExitCode;
use crate::output::ReportWriter;
use crate::{progress, signals};

/// Runs `nqueens count`.
pub fn run(args: &CountArgs) -> anyhow::Result<ExitCode> {
    let sizes = args.board_sizes();
    if args.mpi {
        return run_mpi(args, &sizes);
    }
    signals::install_handler();
    let shard = tracked::shard_of(args)?;
    if args.checkpoint.is_some() || shard.is_some() || args.profile.is_some() {
        if sizes.len() != 1 {
            return Err(usage(
                "--checkpoint, --shard and --profile take one N: run one count per N".to_string(),
            ));
        }
        return tracked::run(args, sizes[0], shard);
    }
    if args.out.is_some() {
        return Err(usage(
            "--out names a shard's result file: add --shard I/K".to_string(),
        ));
    }
    if args.key.is_some() {
        return Err(usage(
            "--key signs a checkpoint or a shard's result: add --checkpoint FILE or --shard I/K"
                .to_string(),
        ));
    }
    let options = args.count_options();
    let threads = nqueens::resolve_threads(options.threads)?;
    for &n in &sizes {
        check_fallback(n, &options, threads, args.allow_slow)?;
    }
    let stdout = io::stdout();
    let mut writer = ReportWriter::new(stdout.lock(), args.format);
    let mut mismatches = Vec::new();
    for n in sizes {
        let bar = progress::task_bar(args.progress, format!("N={n}"));
        // Tasks started and finished: the difference is in flight.
        let started = AtomicU64::new(0);
        let finished = AtomicU64::new(0);
        let on_task = |outcome: &TaskOutcome| {
            finished.fetch_add(1, Ordering::Relaxed);
            progress::task_finished(outcome.id);
            bar.inc(1)
        };
        let skip = |_: &Task| {
            if !signals::INTERRUPTED.load(Ordering::Relaxed) {
                started.fetch_add(1, Ordering::Relaxed);
            }
            false
        };
        let hooks = RunHooks {
            skip: Some(&skip),
            on_task: Some(&on_task),
            cancel: Some(&signals::INTERRUPTED),
            ..RunHooks::default()
        };
        // Tasks in flight that would keep a stopped count past the grace
        // are abandoned with the process: nothing is saved anyway.
        let running = AtomicBool::new(true);
        let in_flight = || {
            let started = started.load(Ordering::Relaxed);
            started.saturating_sub(finished.load(Ordering::Relaxed))
        };
        let say = |text: String| bar.suspend(|| eprintln!("{text}"));
        let abandon = |in_flight: u64| {
            bar.finish_and_clear();
            eprintln!(
                "interrupted: N = {n} not finished, {in_flight} in flight abandoned; nothing was saved (add --checkpoint FILE to make a run resumable)"
            );
        };
        let report = std::thread::scope(|scope| {
            scope.spawn(|| {
                signals::watch(&running, &signals::INTERRUPTED, &in_flight, &say, &abandon)
            });
            let report = count_with_hooks(n, &options, &hooks, |plan| {
                warn_ignored_split(args.split_depth, plan);
                progress::weigh_tasks(&bar, plan, &|_| true);
                progress::begin_tasks(&bar, plan.tasks.len() as u64, 0)
            });
            running.store(false, Ordering::SeqCst);
            report
        })?;
        bar.finish_and_clear();
        if !report.complete {
            eprintln!(
                "interrupted: N = {n} not finished; nothing was saved (add --checkpoint FILE to make a run resumable)"
            );
            return Ok(ExitCode::Interrupted);
        }
        writer.write(&report).context("cannot write the result")?;
        mismatches.extend(mismatch(&report));
    }
    Ok(complain(&mismatches))
}

/// `count --mpi`: every rank counts, rank 0 prints; with `--checkpoint`,
/// rank 0 journals every finished task and a rerun resumes.
#[cfg(feature = "mpi")]
fn run_mpi(args: &CountArgs, sizes: &[u32]) -> anyhow::Result<ExitCode> {
    use mpi::topology::Communicator;
    use nqueens::run::mpi::{count_journaled, Abandoned, RankOutcome, StopGrace};
    if args.checkpoint.is_some() && sizes.len() != 1 {
        return Err(usage(
            "--checkpoint takes one N: run one count per N".to_string(),
        ));
    }
    let key = super::run_key(args.key.as_deref())?;
    if key.is_some() && args.checkpoint.is_none() {
        return Err(usage(
            "--key signs a checkpoint: add --checkpoint FILE".to_string(),
        ));
    }
    let universe = nqueens::run::mpi::start()?;
    // mpirun passes SIGINT and SIGTERM on to every rank (at times more
    // than once): each stops taking chunks, and rank 0 journals what
    // finished; mpirun's own SIGKILL ends a rank that takes too long.
    signals::install_handler_ignoring_repeats(std::time::Duration::from_secs(10));
    let world = universe.world();
    let options = args.count_options();
    let stdout = io::stdout();
    let mut writer = ReportWriter::new(stdout.lock(), args.format);
    let mut mismatches = Vec::new();
    let checkpoint = args.checkpoint.as_deref();
    // Rank 0 says at once what a stop does, and past the grace keeps what
    // finished and ends every rank (tasks in flight are counted again on
    // resume, as after kill -9).
    let stopping = |grace: std::time::Duration| {
        eprintln!(
            "stopping: tasks in flight on every rank get {:.1} s to finish, then are abandoned",
            grace.as_secs_f64()
        );
    };
    let abandon = |abandoned: &Abandoned| {
        let Some(counted) = abandoned.counted else {
            eprintln!("interrupted: tasks in flight abandoned; nothing was saved (add --checkpoint FILE to make a run resumable)");
            return;
        };
        let kept = match &abandoned.synced {
            Ok(()) => format!(
                " and saved, tasks in flight abandoned (counted again on resume); resume with the same mpirun command:\n  {}",
                tracked::resume_command()
            ),
            Err(err) => format!(
                ", tasks in flight abandoned; the checkpoint could not be synced ({err}): it may hold fewer"
            ),
        };
        eprintln!(
            "interrupted: {counted} of {} tasks counted{kept}",
            abandoned.tasks
        );
    };
    let grace = StopGrace {
        grace: signals::MPI_STOP_GRACE,
        stopping: &stopping,
        abandon: &abandon,
    };
    for &n in sizes {
        let stop = Some(&signals::INTERRUPTED);
        // Only rank 0 gets a report, and only it prints.
        match count_journaled(
            &world,
            n,
            &options,
            checkpoint,
            key.as_ref(),
            stop,
            Some(&grace),
        )? {
            RankOutcome::Report(report) => {
                writer.write(&report).context("cannot write the result")?;
                mismatches.extend(mismatch(&report));
            }
            RankOutcome::Interrupted {
                counted,
                tasks,
                history,
            } => {
                let cost = super::cost_so_far(history);
                let saved = match checkpoint {
                    Some(_) => format!(
                        " and saved; resume with the same mpirun command:\n  {}",
                        tracked::resume_command()
                    ),
                    None => "; nothing was saved (add --checkpoint FILE to make a run resumable)"
                        .to_string(),
                };
                eprintln!("interrupted: {counted} of {tasks} tasks counted{cost}{saved}");
                return Ok(ExitCode::Interrupted);
            }
            RankOutcome::Worker
                if signals::INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst) =>
            {
                return Ok(ExitCode::Interrupted);
            }
            RankOutcome::Worker => {}
        }
    }
    if world.rank() == 0 {
        return Ok(complain(&mismatches));
    }
    Ok(ExitCode::Success)
}

#[cfg(not(feature = "mpi"))]
fn run_mpi(_: &CountArgs, _: &[u32]) -> anyhow::Result<ExitCode> {
    Err(usage(
        "this nqueens was built without MPI: build it with `cargo build --release --features mpi` (needs an MPI library and libclang)"
            .to_string(),
    ))
}
