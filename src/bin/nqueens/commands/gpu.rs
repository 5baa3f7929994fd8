//! `count --gpu`: the GPU opened as one more worker of the count, or one
//! line saying why it cannot be (no driver, no GPU, an old one, too little
//! memory, a build without the `gpu` feature).

use nqueens::run::workers::{BatchWorker, WorkerFailure};
use nqueens::{Method, Plan};

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
    /// count, a note says so and the CPU counts alone.
    pub fn open(args: &CountArgs) -> anyhow::Result<Devices> {
        let Some(choice) = args.gpu else {
            return Ok(Devices::default());
        };
        let index = match choice {
            GpuChoice::Index(index) => index,
            GpuChoice::Auto => 0,
        };
        match open_worker(index) {
            Ok(worker) => {
                eprintln!(
                    "gpu: {} counts join tasks{}",
                    worker.name(),
                    if args.gpu_only {
                        " alone"
                    } else {
                        " beside the CPU threads"
                    }
                );
                Ok(Devices {
                    workers: vec![worker],
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

    /// Refuses a plan the GPU cannot take: it counts join tasks only.
    pub fn check_plan(&self, plan: &Plan) -> anyhow::Result<()> {
        if !self.workers.is_empty() && plan.method != Method::Join {
            return Err(usage(format!(
                "--gpu counts join tasks, and the plan of N = {} is {}: use -m join (or auto, which takes join from N = 10 while it fits)",
                plan.n, plan.method
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

#[cfg(feature = "gpu")]
fn open_worker(index: u32) -> Result<Box<dyn BatchWorker + Send>, String> {
    let device = nqueens::gpu::GpuDevice::open(index)?;
    Ok(Box::new(nqueens::gpu::GpuJoinWorker::new(device)))
}

#[cfg(not(feature = "gpu"))]
fn open_worker(_index: u32) -> Result<Box<dyn BatchWorker + Send>, String> {
    Err(
        "--gpu needs a build with the gpu feature (cargo build --release --features gpu)"
            .to_string(),
    )
}
