//! `count --gpu` end to end on machines with no GPU: the program loads a
//! stand-in for the CUDA driver and NVRTC (tests/gpu/fake_cuda.c, built
//! here), whose "device" runs the kernel's own code on the host. So the
//! host side (loading, compiling, buffers, launches and their arguments,
//! errors, a device failing mid-count, journals, shards) is tested in CI;
//! a real GPU only confirms and times it (scripts/gpu-check.sh).
#![cfg(feature = "gpu")]

use crate::common;

use common::fake_gpu::fake_driver;
use common::{nqueens, outcome, scratch};

/// `nqueens ARGS` on the stand-in driver, with `env` set: (status, stdout,
/// stderr).
fn on_fake(args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String, String) {
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
fn counted_alike_on_fake(n: &str, tasks: &str, seed: &str, env: &[(&str, &str)]) {
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
fn checked(stdout: &str) -> Vec<(u32, bool)> {
    stdout
        .lines()
        .skip(1)
        .map(|line| {
            let fields: Vec<&str> = line.split(',').collect();
            (fields[0].parse().unwrap(), line.ends_with(",true,true"))
        })
        .collect()
}

#[test]
fn the_gpu_alone_counts_every_n_exactly() {
    let (code, stdout, stderr) = on_fake(
        &["count", "10..17", "--format", "csv", "--gpu", "--gpu-only"],
        &[],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.starts_with("gpu: cuda:0, Fake GPU 0 (host) (sm_90"),
        "{stderr}"
    );
    assert!(stderr.contains("counts join tasks alone"), "{stderr}");
    let rows = checked(&stdout);
    assert_eq!(rows.len(), 8, "{stdout}");
    assert!(rows.iter().all(|&(_, ok)| ok), "{stdout}");
    // Several host threads feeding the one GPU, taking turns on it.
    let (code, stdout, stderr) = on_fake(
        &[
            "count",
            "14..16",
            "--format",
            "csv",
            "--gpu",
            "--gpu-only",
            "--gpu-feeders",
            "3",
        ],
        &[("FAKE_CUDA_TALLY", "1"), ("NQUEENS_GPU_MATCHER", "buckets")],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains(", fed by 3 host threads, counts join tasks alone"),
        "{stderr}"
    );
    assert_eq!(checked(&stdout), [(14, true), (15, true), (16, true)]);
    // Every buffer taken on the GPU was given back: a feeder takes a
    // counter a batch, and millions of batches must not fill the GPU.
    assert!(stderr.contains(", 0 buffers held at exit;"), "{stderr}");
    // The bucket walk's work, as the stand-in tallies it (docs/gpu.md):
    // every count is there, and each warp takes a pattern or more.
    let tally = tally_of(&stderr, "fake cuda: matcher: ");
    let [queries, buckets, pairs, warps, patterns] = tally[..] else {
        panic!("{stderr}")
    };
    assert!(queries > 0 && buckets > 0 && pairs > 0, "{stderr}");
    assert!(
        warps > 0 && patterns >= warps && patterns <= 32 * warps,
        "{stderr}"
    );
}

/// The numbers on the stand-in's tally line that starts with `prefix`.
fn tally_of(stderr: &str, prefix: &str) -> Vec<u64> {
    stderr
        .lines()
        .find_map(|line| line.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no tally {prefix:?}: {stderr}"))
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|word| word.parse().ok())
        .collect()
}

#[test]
fn the_sliced_walk_counts_as_the_tables_and_a_cpu_thread_do() {
    let sliced = ("NQUEENS_GPU_MATCHER", "sliced");
    let (code, stdout, stderr) = on_fake(
        &["count", "10..16", "--format", "csv", "--gpu", "--gpu-only"],
        &[sliced, ("FAKE_CUDA_TALLY", "1")],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let rows = checked(&stdout);
    assert_eq!(rows.len(), 7, "{stdout}");
    assert!(rows.iter().all(|&(_, ok)| ok), "{stdout}");
    // It walked buckets of blocks, and the bucket walk's kernel did not
    // run: blocks of up to 32 keys, words read a chunk (1 to 13) a block.
    let [buckets, blocks, words, built, most] = tally_of(&stderr, "fake cuda: sliced: ")[..] else {
        panic!("{stderr}")
    };
    assert!(
        buckets > 0 && blocks > 0 && most > 0 && built >= most,
        "{stderr}"
    );
    assert!(words >= blocks && words <= 13 * blocks, "{stderr}");
    assert_eq!(tally_of(&stderr, "fake cuda: matcher: ")[1], 0, "{stderr}");
    // Tasks of whole row sets and of grids, at no cut bits, the default
    // and the kernel's most, with buckets of a key and more, each task
    // against a CPU thread.
    for (n, cuts, keys) in [
        ("18", "12", "32"),
        ("21", "0", "32"),
        ("22", "12", "1"),
        ("24", "16", "32"),
        ("25", "12", "500"),
    ] {
        counted_alike_on_fake(
            n,
            "1",
            "5",
            &[
                sliced,
                ("NQUEENS_GPU_CUTS", cuts),
                ("NQUEENS_GPU_SLICED_KEYS", keys),
            ],
        );
    }
}

#[test]
fn a_gpu_beside_the_threads_journals_tasks_a_cpu_run_agrees_with() {
    let dir = scratch("gpu-compare");
    let (gpu, cpu) = (dir.path().join("gpu.ckpt"), dir.path().join("cpu.ckpt"));
    let gpu_text = gpu.to_str().unwrap();
    let (code, stdout, stderr) = on_fake(
        &[
            "count",
            "16",
            "--format",
            "csv",
            "--gpu",
            "--checkpoint",
            gpu_text,
        ],
        &[],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(checked(&stdout), [(16, true)]);
    let (code, _, stderr) = outcome(
        nqueens()
            .args(["count", "16", "-j", "1", "--checkpoint"])
            .arg(&cpu)
            .output()
            .unwrap(),
    );
    assert_eq!(code, Some(0), "{stderr}");
    let (code, stdout, stderr) = outcome(
        nqueens()
            .arg("compare")
            .arg(&gpu)
            .arg(&cpu)
            .output()
            .unwrap(),
    );
    assert_eq!(code, Some(0), "{stdout} {stderr}");
    // Shards counted with the GPU merge to the published total.
    let mut files = Vec::new();
    for shard in ["0/2", "1/2"] {
        let out = dir.path().join(format!("s{}.json", &shard[..1]));
        let (code, _, stderr) = on_fake(
            &[
                "count",
                "15",
                "--gpu",
                "--shard",
                shard,
                "--out",
                out.to_str().unwrap(),
            ],
            &[],
        );
        assert_eq!(code, Some(0), "{stderr}");
        files.push(out);
    }
    let (code, stdout, stderr) = outcome(nqueens().arg("merge").args(&files).output().unwrap());
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("2279184"), "{stdout}");
}

#[test]
fn a_gpu_that_fails_mid_count_hands_its_tasks_back_and_the_count_is_exact() {
    for fail in ["1", "3", "40"] {
        let (code, stdout, stderr) = on_fake(
            &["count", "15", "--format", "csv", "--gpu", "--gpu-only"],
            &[("FAKE_CUDA_FAIL_LAUNCH", fail)],
        );
        assert_eq!(code, Some(0), "launch {fail}: {stderr}");
        assert_eq!(checked(&stdout), [(15, true)], "launch {fail}");
        let warnings: Vec<&str> = stderr
            .lines()
            .filter(|line| line.starts_with("warning:"))
            .collect();
        assert_eq!(warnings.len(), 1, "{stderr}");
        assert!(
            warnings[0].contains("an illegal memory access was encountered (CUDA error 700)")
                && warnings[0].contains("go back to the CPU threads"),
            "{stderr}"
        );
    }
}

/// A GPU whose matcher counts nothing (the stand-in skips it): the timing
/// command's CPU thread and a count's tables both catch it, exit 3, and
/// say which task or N.
#[test]
fn a_gpu_that_counts_wrong_is_caught() {
    let skip = [("FAKE_CUDA_SKIP_MATCH", "1")];
    let (code, _, stderr) = on_fake(
        &[
            "gpu",
            "20",
            "--tasks",
            "3",
            "--cpu-tasks",
            "3",
            "--seed",
            "2",
        ],
        &skip,
    );
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.contains("of N = 20: the GPU counted 0 solutions, the CPU "),
        "{stderr}"
    );
    let (code, stdout, stderr) = on_fake(
        &["count", "14", "--format", "csv", "--gpu", "--gpu-only"],
        &skip,
    );
    assert_eq!(code, Some(3), "{stderr}");
    assert_eq!(checked(&stdout), [(14, false)], "{stdout}");
    assert!(
        stderr.contains("WRONG COUNT: N = 14: counted 0 solutions but A000170 says 365596"),
        "{stderr}"
    );
}

#[test]
fn what_the_gpu_lacks_is_said_in_one_line() {
    /// Arguments, environment, exit status, what the error says.
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], i32, &'a str);
    let cases: [Case; 6] = [
        (
            &["count", "12", "--gpu"],
            &[("FAKE_CUDA_DEVICES", "0")],
            1,
            "the NVIDIA driver sees no GPU",
        ),
        (
            &["count", "12", "--gpu"],
            &[("FAKE_CUDA_CC", "35")],
            1,
            "needs 6.0 or later",
        ),
        (
            &["count", "12", "--gpu"],
            &[("FAKE_CUDA_FREE_MIB", "1")],
            1,
            "MiB free; a join counter needs",
        ),
        (
            &["count", "12", "--gpu", "3"],
            &[],
            1,
            "there is no GPU 3: the driver sees 1",
        ),
        (
            &["count", "12", "-m", "mirror", "--gpu"],
            &[],
            2,
            "--gpu counts join tasks",
        ),
        (
            &["count", "12", "--gpu"],
            &[("NQUEENS_NVRTC", "/nonexistent/libnvrtc.so")],
            1,
            "NVRTC",
        ),
    ];
    for (args, env, expected_code, needle) in cases {
        let (code, stdout, stderr) = on_fake(args, env);
        let errors: Vec<&str> = stderr
            .lines()
            .filter(|line| line.starts_with("error:"))
            .collect();
        assert_eq!(code, Some(expected_code), "{args:?} {env:?}: {stderr}");
        assert!(stdout.is_empty(), "{stdout}");
        assert_eq!(errors.len(), 1, "{stderr}");
        assert!(errors[0].contains(needle), "{args:?} {env:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    // auto: the CPU alone where the GPU cannot count, said in a note.
    let (code, stdout, stderr) = on_fake(
        &["count", "12", "--format", "csv", "--gpu", "auto"],
        &[("FAKE_CUDA_DEVICES", "0")],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(checked(&stdout), [(12, true)]);
    assert!(
        stderr.starts_with("note: --gpu auto: the NVIDIA driver sees no GPU"),
        "{stderr}"
    );
}

/// The device check (scripts/gpu-check.sh) run through on the stand-in
/// driver at small sizes, so that its first run on a real GPU, in minutes
/// a session rarely has, cannot fail on the script itself: every step's
/// count exact, and the tables written with the timing of N = 26.
#[test]
fn the_device_check_script_runs_through_and_writes_its_tables() {
    let dir = scratch("gpu-check");
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let output = std::process::Command::new("bash")
        .arg(root.join("scripts/gpu-check.sh"))
        .arg(dir.path())
        .arg(env!("CARGO_BIN_EXE_nqueens"))
        .env("NQUEENS_CUDA_DRIVER", fake_driver())
        .env("NQUEENS_NVRTC", fake_driver())
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
}

/// Tasks are counted wholly on the GPU (the board and layout kernels, then
/// the pairs, a grid's groups filtered there), the same as on a CPU
/// thread; asked for, the host's half boards take them instead, alike.
#[test]
fn tasks_are_counted_wholly_on_the_gpu_unless_told() {
    for (boards, whole) in [("gpu", 6), ("host", 0)] {
        let (code, stdout, stderr) = on_fake(
            &[
                "gpu",
                "17",
                "--tasks",
                "6",
                "--cpu-tasks",
                "6",
                "--seed",
                "5",
                "--format",
                "json",
            ],
            &[("NQUEENS_GPU_BOARDS", boards)],
        );
        assert_eq!(code, Some(0), "{boards}: {stderr}");
        let timing: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(timing["whole_tasks"], whole, "{boards}: {stdout}");
        assert_eq!(timing["timed"].as_array().unwrap().len(), 6, "{stdout}");
    }
    // Even and odd N, whole row sets to 23 and grids from 24, each
    // task's count checked against a CPU thread's (a difference exits 3).
    // Seed 6 at N = 25: three tasks the stand-in matches in seconds, where
    // seed 9's took it 46 s.
    for (n, seed) in [
        ("12", "9"),
        ("20", "9"),
        ("22", "9"),
        ("23", "9"),
        ("24", "9"),
        ("25", "6"),
    ] {
        let (code, stdout, stderr) = on_fake(
            &[
                "gpu",
                n,
                "--tasks",
                "3",
                "--cpu-tasks",
                "3",
                "--seed",
                seed,
                "--format",
                "json",
            ],
            &[],
        );
        assert_eq!(code, Some(0), "N = {n}: {stderr}");
        let timing: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(timing["whole_tasks"], 3, "N = {n}: {stdout}");
    }
    // The GPU's cells kept within small budgets: row sets dropped once no
    // spec wants them (all past the budget, or the least recently used
    // first), so built again and again (grids from N = 24).
    for (n, mib) in [("21", "0"), ("24", "0"), ("24", "1")] {
        counted_alike_on_fake(n, "2", "3", &[("NQUEENS_GPU_CELLS_MIB", mib)]);
    }
    // Query groups matched a few at a time (or one: a chunk takes at
    // least one), and row sets placed a few at a time, as the largest
    // tasks are.
    // Their cells built a window of groups at a time. Board jobs staged in
    // batches, or a few to a batch, or each made alone straight into the
    // class lists (a staging bound of 0), as the largest jobs are.
    // (One task at N = 25: seed 4's second, placed a placement a launch,
    // took the stand-in 80 s.)
    for (n, tasks, boards, placed, window, staged) in [
        ("17", "2", "1", "1", "64", "0"),
        ("24", "2", "1", "5000", "2", "2000"),
        ("25", "1", "3000", "1", "1", "33554432"),
        ("24", "2", "100000000", "100000000", "3", "0"),
        ("22", "2", "100000000", "100000000", "64", "5000"),
    ] {
        counted_alike_on_fake(
            n,
            tasks,
            "4",
            &[
                ("NQUEENS_GPU_CHUNK_BOARDS", boards),
                ("NQUEENS_GPU_PLACED_AT_ONCE", placed),
                ("NQUEENS_GPU_QUERY_WINDOW", window),
                ("NQUEENS_GPU_STAGED_BOARDS", staged),
            ],
        );
    }
    // The bucket walk on layouts of no cut bits, and of the kernel's most
    // (16; N = 26's stored groups fill 2^16 buckets), each task against a
    // CPU thread.
    for (n, cuts) in [("20", "0"), ("24", "16"), ("26", "16")] {
        counted_alike_on_fake(
            n,
            "1",
            "2",
            &[
                ("NQUEENS_GPU_CUTS", cuts),
                ("NQUEENS_GPU_MATCHER", "buckets"),
            ],
        );
    }
    for (setting, value, says) in [
        (
            "NQUEENS_GPU_CUTS",
            "17",
            "expected a whole number from 0 to 16",
        ),
        (
            "NQUEENS_GPU_CELLS_MIB",
            "lots",
            "expected a whole number of MiB",
        ),
        ("NQUEENS_GPU_MATCHER", "fast", "expected buckets or sliced"),
        (
            "NQUEENS_GPU_SLICED_KEYS",
            "0",
            "expected a whole number from 1",
        ),
        ("NQUEENS_GPU_CHUNK_BOARDS", "-1", "expected a whole number"),
        (
            "NQUEENS_GPU_PLACED_AT_ONCE",
            "1e6",
            "expected a whole number",
        ),
        (
            "NQUEENS_GPU_QUERY_WINDOW",
            "0",
            "expected a whole number from 1",
        ),
        (
            "NQUEENS_GPU_STAGED_BOARDS",
            "half",
            "expected a whole number",
        ),
    ] {
        let (code, _, stderr) = on_fake(&["gpu", "20"], &[(setting, value)]);
        assert_eq!(code, Some(1), "{stderr}");
        assert!(
            stderr.contains(&format!("{setting}={value}: {says}")),
            "{stderr}"
        );
    }
    // A whole count through the host's half boards, for the other path
    // end to end.
    let (code, stdout, stderr) = on_fake(
        &["count", "14..16", "--format", "csv", "--gpu", "--gpu-only"],
        &[("NQUEENS_GPU_BOARDS", "host")],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let rows = checked(&stdout);
    assert_eq!(rows.len(), 3, "{stdout}");
    assert!(rows.iter().all(|&(_, ok)| ok), "{stdout}");
}
