//! `nqueens count`: one or more N, each counted by
//! [`super::count_one`] (with a checkpoint, shard or profile, one N) and
//! checked against the tables; with `--mpi`, across the ranks of `mpirun`.

use std::io;

use super::count_one::{count_one, keeps_files, CountSetup, Reports};
use super::scheduler::shard_of;
use super::{check_fallback, complain, usage};
use crate::args::CountArgs;
use crate::exit_codes::ExitCode;
use crate::output::ReportWriter;
use crate::signals;
#[cfg(feature = "mpi")]
use {
    super::mismatch, crate::progress, crate::signals::Stopping, anyhow::Context,
    nqueens::run::tracked::TrackedOutcome, nqueens::TaskOutcome,
};

/// Runs `nqueens count`.
pub fn run(args: &CountArgs) -> anyhow::Result<ExitCode> {
    let sizes = args.board_sizes();
    if args.mpi {
        return run_mpi(args, &sizes);
    }
    signals::install_handler();
    let shard = shard_of(args)?;
    if keeps_files(args, shard) {
        if sizes.len() != 1 {
            return Err(usage(
                "--checkpoint, --shard and --profile take one N: run one count per N".to_string(),
            ));
        }
    } else if args.out.is_some() {
        return Err(usage(
            "--out names a shard's result file: add --shard I/K".to_string(),
        ));
    } else if args.key.is_some() {
        return Err(usage(
            "--key signs a checkpoint or a shard's result: add --checkpoint FILE or --shard I/K"
                .to_string(),
        ));
    }
    let setup = CountSetup::of(args, shard)?;
    for &n in &sizes {
        let options = setup.devices.options_for(n, &setup.options);
        check_fallback(n, &options, setup.threads, args.allow_slow)?;
    }
    super::say_paths(args.progress);
    let stdout = io::stdout();
    let mut reports = Reports {
        writer: ReportWriter::new(stdout.lock(), args.format),
        mismatches: Vec::new(),
    };
    for n in sizes {
        if let Some(code) = count_one(args, &setup, n, &mut reports)? {
            return Ok(code);
        }
    }
    Ok(complain(&reports.mismatches))
}

/// `count --mpi`: every rank counts (with `--gpu`, on its GPU too), rank
/// 0 prints; with `--checkpoint`, rank 0 journals every finished task and a
/// rerun resumes. Each N is a tracked count as on one machine, spread over
/// the ranks.
#[cfg(feature = "mpi")]
fn run_mpi(args: &CountArgs, sizes: &[u32]) -> anyhow::Result<ExitCode> {
    use mpi::topology::Communicator;
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
    let reports = world.rank() == 0;
    // The ranks on one node share its GPUs: each takes the one numbered
    // as it is among them.
    let local_rank = world.split_shared(world.rank()).rank() as u32;
    let devices = super::gpu::Devices::open(args, Some(local_rank))?;
    let options = args.count_options();
    let stdout = io::stdout();
    let mut writer = ReportWriter::new(stdout.lock(), args.format);
    let mut mismatches = Vec::new();
    let checkpoint = args.checkpoint.as_deref();
    // Rank 0 draws the bar where it hears of every rank's tasks: with a
    // checkpoint, whose journal takes them all.
    let bar_mode = if reports && checkpoint.is_some() {
        args.progress
    } else {
        crate::args::ProgressMode::Never
    };
    for &n in sizes {
        let bar = progress::task_bar(bar_mode, format!("N={n}"));
        let tracked = nqueens::run::mpi::prepare(
            &world,
            n,
            &devices.options_for(n, &options),
            devices.workers().len(),
            checkpoint,
            key.as_ref(),
        )?;
        devices.check_plan(tracked.plan())?;
        super::count_one::begin_bar(&bar, &tracked, checkpoint);
        let on_task = |outcome: &TaskOutcome| {
            progress::task_finished(outcome.id);
            bar.inc(1);
        };
        // Rank 0 says at once what a stop does, and past the grace keeps
        // what finished and ends every rank (tasks in flight are counted
        // again on resume, as after kill -9).
        let clear = || bar.finish_and_clear();
        let say = |text: String| bar.suspend(|| eprintln!("{text}"));
        let stopping = Stopping {
            clear: &clear,
            say: &say,
            board: None,
            mpi: true,
        };
        // Only rank 0 gets an outcome, and only it prints.
        let outcome = stopping.run(tracked, &on_task, &devices)?;
        bar.finish_and_clear();
        for note in devices.closing_notes() {
            eprintln!("{note}");
        }
        match outcome {
            TrackedOutcome::Counted(report) => {
                writer.write(&report).context("cannot write the result")?;
                mismatches.extend(mismatch(&report));
            }
            TrackedOutcome::Stopped {
                counted,
                tasks,
                history,
            } => {
                let cost = super::cost_so_far(history);
                let saved = checkpoint.is_some();
                eprintln!("{}", stopping.stopped(counted, tasks, &cost, saved));
                return Ok(ExitCode::Interrupted);
            }
            TrackedOutcome::Part
                if signals::INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst) =>
            {
                return Ok(ExitCode::Interrupted);
            }
            TrackedOutcome::Part => {}
            _ => {
                return Err(anyhow::anyhow!(
                    "an MPI count of N = {n} ended as no whole count does"
                ))
            }
        }
    }
    if reports {
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
