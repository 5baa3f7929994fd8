//! The stand-in for the CUDA driver and NVRTC (tests/gpu/fake_cuda.c),
//! whose "device" runs the kernel's own code on the host: what `--gpu`
//! loads in the tests of machines with no GPU.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::scratch_for_process;

/// The stand-in library, built once per test run; point
/// `NQUEENS_CUDA_DRIVER` and `NQUEENS_NVRTC` at it. `FAKE_CUDA_DEVICES`
/// sets how many GPUs it shows, `FAKE_CUDA_FAIL_LAUNCH` which launch
/// fails.
pub fn fake_driver() -> &'static Path {
    static BUILT: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    let (_, path) = BUILT.get_or_init(|| {
        let dir = scratch_for_process("fake-cuda");
        let library = dir.path().join("libfakecuda.so");
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
        let status = std::process::Command::new(&compiler)
            .args(["-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-I"])
            .arg(root.join("src/search/join/gpu"))
            .arg(root.join("tests/gpu/fake_cuda.c"))
            .arg("-o")
            .arg(&library)
            .status()
            .expect(
                "a C compiler builds the stand-in driver (the gpu feature's build needs one too)",
            );
        assert!(status.success(), "the stand-in driver compiles");
        (dir, library)
    });
    path
}
