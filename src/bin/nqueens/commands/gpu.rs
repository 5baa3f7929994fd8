//! `count --gpu`: the GPU opened as one more worker of the count, or one
//! line saying why it cannot be (no driver, no GPU, an old one, too little
//! memory, a build without the `gpu` feature).

use nqueens::run::workers::{BatchWorker, WorkerFailure};
use nqueens::{CountOptions, Plan};

use super::usage;
use crate::args::CountArgs;
use crate::parse::GpuChoice;

/// The workers beside the CPU threads a count was asked for.
#[derive(Default)]
pub struct Devices {
    workers: Vec<Box<dyn BatchWorker + Send>>,
    /// Whether they count alone (`--gpu-only`).
    pub alone: bool,
}

impl Devices {
    /// Opens what `args` ask for; where `auto` finds no GPU that can
    /// count, a note says so and the CPU counts alone. `auto` takes GPU
    /// `local_rank` (an MPI rank's number among its node's ranks), else 0.
    pub fn open(args: &CountArgs, local_rank: Option<u32>) -> anyhow::Result<Devices> {
        let Some(choice) = args.gpu else {
            return Ok(Devices::default());
        };
        let index = match choice {
            GpuChoice::Index(index) => index,
            GpuChoice::Auto => local_rank.unwrap_or(0),
        };
        match open_workers(index, args.gpu_feeders) {
            Ok((name, workers)) => {
                let feeders = match workers.len() {
                    1 => String::new(),
                    count => format!(", fed by {count} host threads,"),
                };
                let with = if args.gpu_only {
                    " alone"
                } else {
                    " beside the CPU threads"
                };
                // One write, so that the lines of MPI ranks sharing a
                // terminal or a pipe do not interleave.
                let method = nqueens::Method::on_gpu();
                let line = format!("gpu: {name}{feeders} counts {method} tasks{with}\n");
                eprint!("{line}");
                Ok(Devices {
                    workers,
                    alone: args.gpu_only,
                })
            }
            Err(reason) if choice == GpuChoice::Auto && !args.gpu_only => {
                eprintln!("note: --gpu auto: {reason}; counting on the CPU alone");
                Ok(Devices::default())
            }
            Err(reason) if reason.starts_with("--gpu") => Err(usage(reason)),
            Err(reason) => Err(anyhow::anyhow!("cannot count on the GPU: {reason}")),
        }
    }

    /// The workers, for the engine.
    pub fn workers(&self) -> Vec<&dyn BatchWorker> {
        self.workers
            .iter()
            .map(|worker| worker.as_ref() as &dyn BatchWorker)
            .collect()
    }

    /// The workers' lines for the end of a count (each GPU's peak memory).
    pub fn closing_notes(&self) -> Vec<String> {
        self.workers
            .iter()
            .filter_map(|worker| worker.closing_note())
            .collect()
    }

    /// The options of a count of `n` with these workers: `auto` takes the
    /// GPU's method wherever that method's range holds N, though on the
    /// CPU alone it would take another (`d4` below
    /// [`AUTO_JOIN_FROM`](nqueens::plan::method::AUTO_JOIN_FROM), faster
    /// there on a core); where it falls back for memory,
    /// [`Devices::check_plan`] says so.
    pub fn options_for(&self, n: u32, options: &CountOptions) -> CountOptions {
        let gpu = nqueens::Method::on_gpu();
        let takes_gpu = !self.workers.is_empty()
            && options.method == nqueens::Method::Auto
            && gpu.own_range().contains(&n);
        let method = if takes_gpu { gpu } else { options.method };
        options.clone().with_method(method)
    }

    /// Refuses a plan the GPU cannot take: it counts the tasks of one
    /// method only ([`nqueens::Method::on_gpu`]).
    pub fn check_plan(&self, plan: &Plan) -> anyhow::Result<()> {
        if !self.workers.is_empty() && !plan.method.counts_on_gpu() {
            let gpu = nqueens::Method::on_gpu();
            let range = gpu.own_range();
            return Err(usage(format!(
                "--gpu counts {gpu} tasks, and the plan of N = {} is {}: use -m {gpu} (or auto, which takes {gpu} from N = {} to {} while it fits)",
                plan.n,
                plan.method,
                range.start(),
                range.end()
            )));
        }
        Ok(())
    }
}

/// The warning a failed worker gets.
pub fn failure_line(failure: &WorkerFailure) -> String {
    format!(
        "warning: {} failed ({}); its {} task(s) in hand go back to the CPU threads, and it takes no more",
        failure.worker, failure.reason, failure.returned
    )
}

/// The GPU's name and its `feeders` workers.
type Opened = (String, Vec<Box<dyn BatchWorker + Send>>);

#[cfg(feature = "gpu")]
fn open_workers(index: u32, feeders: usize) -> Result<Opened, String> {
    let device = nqueens::gpu::GpuDevice::open(index)?;
    let name = device.info().describe();
    let workers = nqueens::gpu::GpuWorker::feeders(device, feeders)
        .into_iter()
        .map(|worker| Box::new(worker) as Box<dyn BatchWorker + Send>)
        .collect();
    Ok((name, workers))
}

#[cfg(not(feature = "gpu"))]
fn open_workers(_index: u32, _feeders: usize) -> Result<Opened, String> {
    Err(
        "--gpu needs a build with the gpu feature (cargo build --release --features gpu)"
            .to_string(),
    )
}

/// `nqueens gpu N`: a sample of N's join tasks timed on the GPU and, the
/// first few, on one CPU thread; exit 3 if the two count a task differently.
#[cfg(feature = "gpu")]
pub fn time(args: &crate::args::GpuArgs) -> anyhow::Result<crate::exit_codes::ExitCode> {
    use nqueens::gpu::{sample_ids, time_tasks, GpuDevice};
    use nqueens::{Method, SplitDepth};

    use crate::exit_codes::ExitCode;
    use crate::output::{Kind, Output};

    args.format.check_offers(Kind::GpuTiming, "gpu")?;
    let gpu = Method::on_gpu();
    let (from, to) = (*gpu.own_range().start(), *gpu.own_range().end());
    if !(from..=to).contains(&args.n) {
        return Err(usage(format!(
            "the GPU times {gpu} plans, N from {from} to {to} (got {})",
            args.n
        )));
    }
    if args.tasks == 0 {
        return Err(usage("--tasks must be at least 1".to_string()));
    }
    let device = GpuDevice::open(args.device)
        .map_err(|reason| anyhow::anyhow!("cannot count on the GPU: {reason}"))?;
    let plan = Plan::build(args.n, gpu, SplitDepth::Auto)?;
    let ids = sample_ids(plan.tasks.len() as u64, args.tasks, args.seed);
    let timing = match time_tasks(&device, &plan, &ids, args.cpu_tasks) {
        Ok(timing) => timing,
        Err(reason) if reason.contains("the GPU counted") => {
            eprintln!("error: {reason}");
            return Ok(ExitCode::CountMismatch);
        }
        Err(reason) => return Err(anyhow::anyhow!("cannot count on the GPU: {reason}")),
    };
    args.format
        .write(&mut std::io::stdout().lock(), &Output::GpuTiming(&timing))?;
    Ok(ExitCode::Success)
}
