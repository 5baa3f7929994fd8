//! Counts and tasks on the stand-in against the tables and a CPU thread.

use super::{checked, counted_alike_on_fake, on_fake, tally_of};
use crate::common::{nqueens, outcome, scratch};

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
    // Each N's count ends with the GPU's peak memory in use.
    assert_eq!(peak_notes(&stderr), 8, "{stderr}");
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
    // One peak a GPU and N, not one a feeder.
    assert_eq!(peak_notes(&stderr), 3, "{stderr}");
    // Every buffer taken on the GPU was given back: a feeder takes a
    // counter a batch, and millions of batches must not fill the GPU.
    assert!(stderr.contains(", 0 buffers held at exit;"), "{stderr}");
    // A feeder keeps its buffers from batch to batch (a free waits for
    // the whole GPU): far fewer allocations than tasks, of which the
    // reads of the GPU's free memory, one after each, count one each.
    let [allocations, frees, tasks] = tally_of(&stderr, "fake cuda: memory: ")[..] else {
        panic!("{stderr}")
    };
    assert_eq!(allocations, frees, "{stderr}");
    assert!(tasks > 1000 && allocations * 4 < tasks, "{stderr}");
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

/// `count 10..16 --gpu-only` on the stand-in under matcher `matcher`,
/// each N against the tables; then tasks of whole row sets and of grids,
/// at no cut bits, the default and the kernel's most, with buckets of a
/// key and more (`keys_at_24` at N = 24), each task against a CPU thread.
/// The count's stderr, with the stand-in's tally.
fn matcher_counts_alike(matcher: &str, keys_at_24: &str) -> String {
    let setting = ("NQUEENS_GPU_MATCHER", matcher);
    let (code, stdout, stderr) = on_fake(
        &["count", "10..16", "--format", "csv", "--gpu", "--gpu-only"],
        &[setting, ("FAKE_CUDA_TALLY", "1")],
    );
    assert_eq!(code, Some(0), "{stderr}");
    let rows = checked(&stdout);
    assert_eq!(rows.len(), 7, "{stdout}");
    assert!(rows.iter().all(|&(_, ok)| ok), "{stdout}");
    for (n, cuts, keys) in [
        ("18", "12", "32"),
        ("21", "0", "32"),
        ("22", "12", "1"),
        ("24", "16", keys_at_24),
        ("25", "12", "500"),
    ] {
        counted_alike_on_fake(
            n,
            "1",
            "5",
            &[
                setting,
                ("NQUEENS_GPU_CUTS", cuts),
                ("NQUEENS_GPU_SLICED_KEYS", keys),
            ],
        );
    }
    stderr
}

#[test]
fn the_tiled_matcher_counts_as_the_tables_and_a_cpu_thread_do() {
    let stderr = matcher_counts_alike("tiles", "128");
    // Neither walk's kernel ran (the last of kernels 2 to 14 is the
    // sliced walk's): the tiled matcher counted every grid.
    let sliced_launches = stderr
        .lines()
        .find_map(|line| line.split_once("launches of kernels 2 to 14:"))
        .and_then(|(_, counts)| counts.split_whitespace().last())
        .unwrap_or_else(|| panic!("{stderr}"));
    assert_eq!(sliced_launches, "0", "{stderr}");
}

#[test]
fn the_sliced_walk_counts_as_the_tables_and_a_cpu_thread_do() {
    let stderr = matcher_counts_alike("sliced", "32");
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
        (
            "NQUEENS_GPU_MATCHER",
            "fast",
            "expected buckets, sliced or tiles",
        ),
        (
            "NQUEENS_GPU_SLICED_KEYS",
            "0",
            "expected a whole number from 1",
        ),
        (
            "NQUEENS_GPU_SLICED_BLOCKS",
            "9",
            "expected a whole number from 0 to 8",
        ),
        (
            "NQUEENS_GPU_SLICED_UNROLL",
            "-1",
            "expected a whole number from 0 to 8",
        ),
        (
            "NQUEENS_GPU_SLICED_WALK",
            "lanes",
            "expected warp or thread",
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

/// The lines of `stderr` giving a GPU's peak memory in use, each checked
/// to read as a size of at most the stand-in's 8 GiB.
fn peak_notes(stderr: &str) -> usize {
    let notes: Vec<&str> = stderr
        .lines()
        .filter_map(|line| {
            line.split_once(": peak GPU memory in use ")
                .map(|(_, rest)| rest)
        })
        .collect();
    for note in &notes {
        assert!(
            note.ends_with(" of 8.0 GiB (read after each task)"),
            "{note}"
        );
        let (size, unit) = note.split_once(' ').unwrap();
        let size: f64 = size.parse().unwrap();
        assert!(
            size > 0.0 && (!unit.starts_with("GiB") || size <= 8.0),
            "{note}"
        );
    }
    notes.len()
}
