//! Join tasks counted on an NVIDIA GPU (the `gpu` feature): the GPU is one
//! more worker of a count ([`crate::run::workers`]), beside the CPU
//! threads, on the same plan, journal and shards.
//!
//! What runs where: each task wholly on the GPU (`whole/`): its
//! quadrant cells (`cells.cuh`), half boards (`boards.cuh`), buckets
//! (`layout.cuh`) and pairs of half boards whose diagonals do not meet
//! (the buckets' keys bit-sliced in blocks of 32, `sliced.cuh`, or one by
//! one, `pairs.cuh`), the host thread that feeds it sending tables of column
//! splits and reading back counts; or, as first designed
//! (`NQUEENS_GPU_BOARDS=host`), the feeding thread makes the half boards as
//! a CPU thread does and the GPU matches them. The kernels are compiled
//! by NVRTC for the GPU met at run time, and by the host's C compiler for
//! the tests, which check on the CPU, against the CPU join, the very code
//! the GPU runs ([`HostPairCounter`], and each kernel's own test). The CUDA driver and NVRTC are loaded
//! with `dlopen` (`crate::cuda`, which names no method): the program
//! builds and runs where no CUDA is installed.

mod board_maker;
mod board_timing;
mod boards;
mod buckets;
mod cells;
mod device;
mod host;
mod laid;
mod settings;
mod sliced;
mod timing;
mod whole;
mod worker;

pub use board_maker::GpuBoardMaker;
pub use board_timing::BoardsTiming;
pub use device::{GpuDevice, GpuPairCounter};
pub use host::HostPairCounter;
pub use timing::{sample_ids, time_tasks, TaskTiming, Timing};
pub use worker::{GpuJoinWorker, GPU_BATCH};
