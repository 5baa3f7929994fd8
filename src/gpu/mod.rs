//! NVIDIA GPUs (the `gpu` feature): the CUDA driver and NVRTC, the runtime
//! compiler, loaded with `dlopen` when a count asks for a GPU, so the
//! program builds and runs where no CUDA is installed. What a GPU counts
//! is its method's: the worker, device and kernel are in that method's
//! folder under `search/`, named by the registry (`plan/method.rs`) and
//! re-exported here for the program.

pub(crate) mod driver;
pub(crate) mod nvrtc;

pub use crate::plan::method::gpu_worker::{
    sample_ids, time_tasks, BoardsTiming, GpuBoardMaker, GpuDevice, GpuPairCounter, GpuWorker,
    HostPairCounter, TaskTiming, Timing, GPU_BATCH,
};
pub use driver::DeviceInfo;
