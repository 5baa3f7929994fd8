//! The device check script, and the kernels compiled by a real NVRTC.

use super::{checked, on_fake};
use crate::common::fake_gpu::fake_driver;
use crate::common::{outcome, scratch};

/// `bash scripts/SCRIPT DIR BINARY` (the device scripts' arguments: where
/// to write, the binary under test) with the stand-in driver and NVRTC.
fn script_on_fake(script: &str, dir: &std::path::Path) -> std::process::Command {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut command = std::process::Command::new("bash");
    command
        .arg(root.join("scripts").join(script))
        .arg(dir)
        .arg(env!("CARGO_BIN_EXE_nqueens"))
        .env("NQUEENS_CUDA_DRIVER", fake_driver())
        .env("NQUEENS_NVRTC", fake_driver());
    command
}

/// The device check (scripts/gpu-check.sh) run through on the stand-in
/// driver at small sizes, so that its first run on a real GPU, in minutes
/// a session rarely has, cannot fail on the script itself: every step's
/// count exact, and the tables written with the timing of N = 26.
#[test]
fn the_device_check_script_runs_through_and_writes_its_tables() {
    let dir = scratch("gpu-check");
    let output = script_on_fake("gpu-check.sh", dir.path())
        .env("GPU_CHECK_ALONE", "10..12")
        .env("GPU_CHECK_BESIDE", "13")
        .env("GPU_CHECK_FEEDERS", "1")
        .env("GPU_CHECK_26", "1")
        .env("GPU_CHECK_CPU_26", "1")
        .env("GPU_CHECK_28", "0")
        .env("GPU_CHECK_HOST_26", "1")
        .env("GPU_CHECK_CUTS_TASKS", "1")
        .env("GPU_CHECK_CUTS_N", "24")
        // A light task of N = 26 (seed 1's first takes the stand-in, one
        // host core playing the GPU, a minute and a half).
        .env("GPU_CHECK_SEED", "9")
        .output()
        .unwrap();
    let (code, stdout, stderr) = outcome(output);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("gpu-check.json")).unwrap())
            .unwrap();
    assert_eq!(summary["seed"], 9, "{summary}");
    let alone = summary["alone"].as_array().unwrap();
    assert_eq!(alone.len(), 3, "{summary}");
    assert!(alone.iter().all(|row| row["exact"] == true), "{summary}");
    for step in ["beside", "cpu"] {
        assert_eq!(summary[step]["n"], 13, "{summary}");
        assert_eq!(summary[step]["exact"], true, "{summary}");
    }
    let timing = &summary["timing"]["26"];
    assert_eq!(timing["tasks_timed"], 1, "{summary}");
    assert!(timing["gpu_days"].as_f64().unwrap() > 0.0, "{summary}");
    assert!(
        timing["gpu_per_cpu_thread"].as_f64().unwrap() > 0.0,
        "{summary}"
    );
    // What bounds a feeder: its own seconds, and the CPU threads it can
    // take at most.
    assert!(
        timing["feeder_cpu_threads"].as_f64().unwrap() > 0.0,
        "{summary}"
    );
    for part in ["boards", "layout", "device"] {
        assert!(
            timing["host_seconds"][part].as_f64().unwrap() >= 0.0,
            "{summary}"
        );
    }
    // The board kernels timed on the task the CPU timed, their boards
    // checked against the CPU glue's.
    let boards = &timing["board_kernels"];
    assert!(boards["boards"].as_u64().unwrap() > 0, "{summary}");
    assert_eq!(boards["keys_compared"], true, "{summary}");
    assert_eq!(summary["host_boards_26"]["tasks_timed"], 1, "{summary}");
    let table = std::fs::read_to_string(dir.path().join("gpu-check.md")).unwrap();
    assert!(table.contains("with the host's half boards"), "{table}");
    assert!(
        table.contains("Half boards made by the board kernels"),
        "{table}"
    );
    assert!(table.contains("| 26 | 1 of "), "{table}");
    assert!(table.contains("Fake GPU 0"), "{table}");
    // The same task at both caps of the cut bits, by both matchers.
    for cuts in ["12", "16"] {
        for (key, matcher) in [("cuts", "buckets"), ("sliced", "sliced")] {
            assert_eq!(summary[key][cuts]["tasks_timed"], 1, "{summary}");
            assert!(
                table.contains(&format!("| 24 | {matcher} | {cuts} | 1 | ")),
                "{table}"
            );
        }
    }
}

/// The kernel's CUDA text compiled by a real NVRTC, with the options and
/// for the architectures the program asks for, and the image it makes
/// loaded by the stand-in driver (which finds the kernel in a real cubin
/// or PTX): so the half of `pairs.cuh` that only NVRTC compiles is
/// checked where no GPU is. `NQUEENS_TEST_NVRTC` names the library (CI
/// fetches NVIDIA's NVRTC wheel from PyPI, `scripts/fetch-nvrtc.sh`);
/// without it the test says so, and fails where
/// `NQUEENS_TEST_NVRTC_REQUIRED` is set.
#[test]
fn the_kernel_compiles_with_a_real_nvrtc() {
    let Some(nvrtc) = std::env::var_os("NQUEENS_TEST_NVRTC") else {
        assert!(
            std::env::var_os("NQUEENS_TEST_NVRTC_REQUIRED").is_none(),
            "NQUEENS_TEST_NVRTC_REQUIRED is set but NQUEENS_TEST_NVRTC names no NVRTC"
        );
        eprintln!(
            "SKIPPED: NQUEENS_TEST_NVRTC names no NVRTC (scripts/fetch-nvrtc.sh fetches one)"
        );
        return;
    };
    let nvrtc = nvrtc.to_str().unwrap();
    // An H100 (sm_90: a cubin), an old Pascal (6.0) and a GPU newer than
    // the toolkit (PTX of the newest architecture it knows).
    for capability in ["90", "60", "130"] {
        let (code, stdout, stderr) = on_fake(
            &["count", "12..13", "--format", "csv", "--gpu", "--gpu-only"],
            &[("NQUEENS_NVRTC", nvrtc), ("FAKE_CUDA_CC", capability)],
        );
        assert_eq!(code, Some(0), "compute capability {capability}: {stderr}");
        assert!(
            checked(&stdout).iter().all(|&(_, ok)| ok),
            "{capability}: {stdout}"
        );
    }
    // The matcher's variants compile too: the first design's walk, and
    // the compiler's own registers and unrolling.
    let (code, stdout, stderr) = on_fake(
        &["count", "12", "--format", "csv", "--gpu", "--gpu-only"],
        &[
            ("NQUEENS_NVRTC", nvrtc),
            ("FAKE_CUDA_CC", "90"),
            ("NQUEENS_GPU_SLICED_WALK", "thread"),
            ("NQUEENS_GPU_SLICED_BLOCKS", "0"),
            ("NQUEENS_GPU_SLICED_UNROLL", "0"),
        ],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(checked(&stdout).iter().all(|&(_, ok)| ok), "{stdout}");
}

/// The profile script (scripts/gpu-profile.sh) run through on the
/// stand-in driver at small sizes (Nsight Compute is not there, so its
/// steps are left out): each setting's line over the same tasks, with
/// the same solutions, and the GPU alone's counts exact.
#[test]
fn the_profile_script_runs_through() {
    let dir = scratch("gpu-profile");
    let output = script_on_fake("gpu-profile.sh", dir.path())
        .env("PROFILE_N", "18")
        .env("PROFILE_TASKS", "2")
        .env(
            "PROFILE_SETTINGS",
            format!(
                "default NQUEENS_GPU_SLICED_WALK=thread,NQUEENS_GPU_SLICED_KEYS=64 \
                 PROFILE_BINARY={}",
                env!("CARGO_BIN_EXE_nqueens")
            ),
        )
        .env("PROFILE_NCU", "0")
        .env("PROFILE_ALONE", "4..9 10..12")
        .env("PROFILE_FEEDERS", "1")
        .output()
        .unwrap();
    let (code, stdout, stderr) = outcome(output);
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    let binary_setting = format!(
        "setting-PROFILE_BINARY_{}.json",
        env!("CARGO_BIN_EXE_nqueens").replace(|c: char| !c.is_ascii_alphanumeric(), "_")
    );
    let solutions: Vec<u64> = [
        "setting-default.json",
        "setting-NQUEENS_GPU_SLICED_WALK_thread_NQUEENS_GPU_SLICED_KEYS_64.json",
        binary_setting.as_str(),
    ]
    .iter()
    .map(|name| {
        let timed: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join(name)).unwrap()).unwrap();
        timed["timed"]
            .as_array()
            .unwrap()
            .iter()
            .map(|task| task["solutions"].as_u64().unwrap())
            .sum()
    })
    .collect();
    assert!(solutions[0] > 0, "{solutions:?}");
    assert_eq!(solutions[0], solutions[1], "{stdout}");
    assert_eq!(solutions[0], solutions[2], "{stdout}");
    assert!(stdout.contains("default: "), "{stdout}");
    for range in ["4..9", "10..12"] {
        let csv = std::fs::read_to_string(dir.path().join(format!("alone-{range}.csv"))).unwrap();
        let rows = checked(&csv);
        assert_eq!(rows.len(), if range == "4..9" { 6 } else { 3 }, "{csv}");
        assert!(rows.iter().all(|&(_, ok)| ok), "{csv}");
    }
}

/// The matcher kernels' machine code for an H100 (sm_90), read with a
/// real NVRTC and nvdisasm (`scripts/gpu-sass.py`; CI fetches both from
/// PyPI): no spills to local memory, at most the 64 registers that four
/// blocks an SM leave a thread, and for every count of chunks (1 to 13) a
/// block loop of its own, unguarded, of at most three instructions a
/// chunk and four more a block (the loop of one guarded shape for every
/// count took 110 a block). `NQUEENS_TEST_NVDISASM` names nvdisasm; the
/// test says SKIPPED without it, and fails where
/// `NQUEENS_TEST_NVRTC_REQUIRED` is set.
#[test]
fn the_matcher_loops_take_few_instructions_a_block() {
    let (Some(nvrtc), Some(nvdisasm)) = (
        std::env::var_os("NQUEENS_TEST_NVRTC"),
        std::env::var_os("NQUEENS_TEST_NVDISASM"),
    ) else {
        assert!(
            std::env::var_os("NQUEENS_TEST_NVRTC_REQUIRED").is_none(),
            "NQUEENS_TEST_NVRTC_REQUIRED is set but NQUEENS_TEST_NVRTC or NQUEENS_TEST_NVDISASM \
             is not"
        );
        eprintln!(
            "SKIPPED: NQUEENS_TEST_NVRTC and NQUEENS_TEST_NVDISASM name no NVRTC and nvdisasm \
             (scripts/fetch-nvrtc.sh, with `nvdisasm` for the second)"
        );
        return;
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = std::process::Command::new("python3")
        .arg(root.join("scripts/gpu-sass.py"))
        .arg("--json")
        .arg("--nvrtc")
        .arg(nvrtc)
        .arg("--nvdisasm")
        .arg(nvdisasm)
        .output()
        .unwrap();
    let (code, stdout, stderr) = outcome(output);
    assert_eq!(code, Some(0), "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    for kernel in ["nq_sliced_grid", "nq_tiled_grid"] {
        let seen = &report["kernels"][kernel];
        assert_eq!(seen["local_accesses"], 0, "{kernel}: {stdout}");
        assert!(
            seen["registers"].as_u64().unwrap() <= 64,
            "{kernel}: {stdout}"
        );
        let loops = seen["loops"].as_array().unwrap();
        for chunks in 1..=13u32 {
            let best = loops
                .iter()
                .filter(|block_loop| {
                    block_loop["loads_a_block"].as_f64() == Some(f64::from(chunks))
                })
                .filter_map(|block_loop| block_loop["instructions_a_block"].as_f64())
                .fold(f64::INFINITY, f64::min);
            assert!(
                best <= f64::from(3 * chunks + 4),
                "{kernel}, {chunks} chunks: {best} instructions a block: {stdout}"
            );
        }
    }
}
