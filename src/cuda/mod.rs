//! The CUDA driver and NVRTC, the runtime compiler (the `gpu` feature),
//! loaded with `dlopen` when a count asks for a GPU, so the program builds
//! and runs where no CUDA is installed. It names no method: what a GPU
//! counts is its method's (the worker, device and kernel in that method's
//! folder under `search/`), and [`crate::gpu`] offers both to the program.

pub(crate) mod driver;
pub(crate) mod nvrtc;
