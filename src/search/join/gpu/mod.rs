//! Join tasks counted on an NVIDIA GPU (the `gpu` feature): the GPU is one
//! more worker of a count ([`crate::run::workers`]), beside the CPU
//! threads, on the same plan, journal and shards.
//!
//! What runs where: the host thread that feeds the GPU makes each task's
//! half boards from the quadrant cells, as a CPU thread does; the GPU
//! counts the pairs of half boards whose diagonals do not meet, the
//! matcher's work, with the kernel in `pairs.cuh`. That kernel is compiled
//! by NVRTC for the GPU met at run time, and by the host's C compiler for
//! the tests, which check on the CPU, against the CPU join, the very code
//! the GPU runs ([`HostPairCounter`]). The CUDA driver and NVRTC are loaded
//! with `dlopen` ([`crate::gpu`], which names no method): the program
//! builds and runs where no CUDA is installed.

mod boards;
mod buckets;
mod cells;
mod device;
mod host;
mod timing;
mod whole;
mod worker;

pub use boards::BoardsTiming;
pub use device::{GpuBoardMaker, GpuDevice, GpuPairCounter};
pub use host::HostPairCounter;
pub use timing::{sample_ids, time_tasks, TaskTiming, Timing};
pub use worker::{GpuJoinWorker, GPU_BATCH};
