//! `count --gpu` end to end on machines with no GPU: the program loads a
//! stand-in for the CUDA driver and NVRTC (tests/gpu/fake_cuda.c, built
//! here), whose "device" runs the kernel's own code on the host. So the
//! host side (loading, compiling, buffers, launches and their arguments,
//! errors, a device failing mid-count, journals, shards) is tested in CI;
//! a real GPU only confirms and times it (scripts/gpu-check.sh).
//!
//! `counts`: counts and tasks against the tables and a CPU thread;
//! `faults`: failures, wrong counts and refusals; `tooling`: the device
//! check script and a real NVRTC.
#![cfg(feature = "gpu")]

mod counts;
mod faults;
mod tooling;

use crate::common;

use common::fake_gpu::fake_driver;
use common::{nqueens, outcome};

/// `nqueens ARGS` on the stand-in driver, with `env` set: (status, stdout,
/// stderr).
pub(super) fn on_fake(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
    let mut command = nqueens();
    command
        .args(args)
        .env("NQUEENS_CUDA_DRIVER", fake_driver())
        .env("NQUEENS_NVRTC", fake_driver());
    for (name, value) in env {
        command.env(name, value);
    }
    outcome(command.output().unwrap())
}

/// `nqueens gpu N` on `tasks` seeded tasks, each also counted on one CPU
/// thread, with `env` set: fails the test unless it exits 0 with every
/// task counted alike.
pub(super) fn counted_alike_on_fake(n: &str, tasks: &str, seed: &str, env: &[(&str, &str)]) {
    let (code, stdout, stderr) = on_fake(
        &[
            "gpu",
            n,
            "--tasks",
            tasks,
            "--cpu-tasks",
            tasks,
            "--seed",
            seed,
        ],
        env,
    );
    assert_eq!(code, Some(0), "N = {n}, {env:?}: {stderr}");
    assert!(stdout.contains("counted alike"), "{stdout}");
}

/// Each CSV record's N and whether it matched the tables.
pub(super) fn checked(stdout: &str) -> Vec<(u32, bool)> {
    stdout
        .lines()
        .skip(1)
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            (fields[0].parse().unwrap(), line.ends_with(",true,true"))
        })
        .collect()
}

/// The numbers on the stand-in's tally line that starts with `prefix`.
pub(super) fn tally_of(stderr: &str, prefix: &str) -> Vec<u64> {
    stderr
        .lines()
        .find_map(|line| line.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no tally {prefix:?}: {stderr}"))
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|word| word.parse().ok())
        .collect()
}
