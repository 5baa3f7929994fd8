//! Shards: scheduler environments, shard specs, checkpoints, plans and profiles, the Slurm and Kubernetes recipes, through the real binary (merging them: tests/suite/merge.rs).

use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;

use crate::common;

use common::{nqueens, scratch, shard_files};

#[test]
fn scheduler_environments_pick_the_shard() {
    let scratch_dir = scratch("env");
    let dir = scratch_dir.path();
    let direct = shard_files(dir, "12", 3, &[]);
    let from_slurm = dir.join("slurm.json");
    nqueens()
        .env("SLURM_ARRAY_TASK_ID", "2")
        .env("SLURM_ARRAY_TASK_MIN", "1")
        .env("SLURM_ARRAY_TASK_COUNT", "3")
        .args(["count", "12", "--out"])
        .arg(&from_slurm)
        .assert()
        .success();
    let from_k8s = dir.join("k8s.json");
    nqueens()
        .env("JOB_COMPLETION_INDEX", "1")
        .args(["count", "12", "--shards", "3", "--out"])
        .arg(&from_k8s)
        .assert()
        .success();
    let solutions = |path: &Path| -> serde_json::Value {
        let value: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        value["solutions"].clone()
    };
    assert_eq!(solutions(&from_slurm), solutions(&direct[1]));
    assert_eq!(solutions(&from_k8s), solutions(&direct[1]));
    nqueens()
        .env("JOB_COMPLETION_INDEX", "1")
        .args(["count", "12"])
        .assert()
        .code(2);
}

#[test]
fn bad_shard_specs_are_refused() {
    for (spec, needle) in [
        ("3/2", "must be below"),
        ("1/0", "at least 1"),
        ("a/b", "not a shard"),
        ("2", "not a shard"),
    ] {
        let output = nqueens()
            .args(["count", "12", "--shard", spec])
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{spec}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(needle), "{spec}: {stderr}");
        assert_eq!(stderr.lines().count(), 1);
    }
    nqueens()
        .args(["count", "12", "13", "--shard", "0/2"])
        .assert()
        .code(2);
    nqueens()
        .args(["count", "12", "--out", "x.json"])
        .assert()
        .code(2);
}

#[test]
fn shards_and_checkpoints_combine() {
    let scratch_dir = scratch("shard-ckpt");
    let dir = scratch_dir.path();
    let journal = dir.join("s.ckpt");
    let out = dir.join("s.json");
    for _ in 0..2 {
        nqueens()
            .args(["count", "12", "--shard", "1/2", "--checkpoint"])
            .arg(&journal)
            .arg("--out")
            .arg(&out)
            .assert()
            .success();
    }
    let direct = shard_files(dir, "12", 2, &[]);
    let read = |path: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    assert_eq!(read(&out)["solutions"], read(&direct[1])["solutions"]);
    assert_eq!(read(&out)["tasks_done"], read(&direct[1])["tasks_done"]);
}

#[test]
fn plan_prints_tasks_fingerprint_and_spread() {
    let output = nqueens().args(["plan", "14", "-m", "d4"]).output().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("method d4"), "{text}");
    assert!(text.contains("tasks: "), "{text}");
    assert!(text.contains("max/mean"), "{text}");
    let fingerprint = text
        .lines()
        .find(|line| line.starts_with("fingerprint: "))
        .unwrap();
    let plan = nqueens::Plan::build(14, nqueens::Method::D4, nqueens::SplitDepth::Auto).unwrap();
    assert_eq!(
        fingerprint,
        format!("fingerprint: {}", plan.fingerprint_hex())
    );
    // The default at 14 is join, whose plan states the memory it takes.
    let output = nqueens().args(["plan", "14"]).output().unwrap();
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("method join"), "{text}");
    assert!(text.contains("tasks: 1716"), "{text}");
    assert!(
        text.contains("(quadrant cells, keys and matchers)"),
        "{text}"
    );
}

#[test]
fn profile_lists_every_task_once() {
    let scratch_dir = scratch("profile");
    let dir = scratch_dir.path();
    let profile = dir.join("p.csv");
    nqueens()
        .args(["count", "12", "--profile"])
        .arg(&profile)
        .assert()
        .success();
    let text = std::fs::read_to_string(&profile).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("id,solutions,nodes,seconds"));
    let ids: Vec<u64> = lines
        .map(|line| line.split(',').next().unwrap().parse().unwrap())
        .collect();
    let plan = nqueens::Plan::build(12, nqueens::Method::Auto, nqueens::SplitDepth::Auto).unwrap();
    assert_eq!(ids, (0..plan.tasks.len() as u64).collect::<Vec<_>>());
    nqueens()
        .args(["count", "12", "13", "--profile"])
        .arg(&profile)
        .assert()
        .code(2);
}

#[test]
fn the_slurm_script_counts_requeues_merges_and_compares() {
    // The script's steps run here as plain shell with the array variables
    // set: two runs of 3 shards each (one shard run twice, as a requeued
    // task is), then merge with the second run compared.
    let scratch_dir = scratch("slurm");
    let dir = scratch_dir.path();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/slurm-array.sh");
    let binary = assert_cmd::cargo::cargo_bin("nqueens");
    let step = |run: &str, index: Option<u32>, args: &[&str], compare: Option<&str>| {
        let mut command = StdCommand::new("bash");
        command
            .arg(&script)
            .args(args)
            .current_dir(dir)
            .env("N", "12")
            .env("RUN", run)
            .env("NQUEENS", &binary)
            .env("THREADS", "1");
        if let Some(index) = index {
            command
                .env("SLURM_ARRAY_TASK_ID", index.to_string())
                .env("SLURM_ARRAY_TASK_COUNT", "3");
        }
        if let Some(other) = compare {
            command.env("COMPARE", other);
        }
        command.output().unwrap()
    };
    for run in ["a", "b"] {
        for index in [0, 1, 2, 1] {
            let output = step(run, Some(index), &[], None);
            assert!(
                output.status.success(),
                "{run} {index}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
            if (run, index) == ("a", 0) {
                // While the array runs: how far it is.
                let progress = step("a", None, &["progress"], None);
                let stdout = String::from_utf8_lossy(&progress.stdout);
                assert!(progress.status.success(), "{stdout}");
                assert!(stdout.contains("1 of 3 shards merged"), "{stdout}");
                assert!(stdout.contains("missing: shards 1, 2"), "{stdout}");
            }
        }
    }
    let merged = step("a", None, &["merge"], Some("b"));
    let stdout = String::from_utf8_lossy(&merged.stdout);
    assert!(
        merged.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    assert!(stdout.contains(" 14200 "), "{stdout}");
    assert!(stdout.contains("agree: every shard"), "{stdout}");
    assert!(stdout.contains("agree: every task"), "{stdout}");
    // Without the array variables the script says what it needs.
    let bare = step("a", None, &[], None);
    assert!(!bare.status.success());
    assert!(String::from_utf8_lossy(&bare.stderr).contains("SLURM_ARRAY_TASK_ID"));
}

#[test]
fn the_kubernetes_job_command_counts_its_shard() {
    // The container's command from the manifest, run as shell with the
    // index Kubernetes sets, on a smaller board, into a scratch volume.
    let manifest = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/kubernetes/nqueens-job.yaml"),
    )
    .unwrap();
    let folded: Vec<&str> = manifest
        .lines()
        .skip_while(|line| !line.trim_start().starts_with("- >-"))
        .skip(1)
        .take_while(|line| !line.trim_start().starts_with("resources:"))
        .map(str::trim)
        .collect();
    let scratch_dir = scratch("k8s");
    let volume = scratch_dir.path().to_str().unwrap().to_string();
    let binary = assert_cmd::cargo::cargo_bin("nqueens");
    let command = folded
        .join(" ")
        .replace("/data", &volume)
        .replace("exec nqueens", &format!("exec {}", binary.display()))
        .replace("count 20", "count 12")
        .replace("nqueens-20", "nqueens-12");
    for index in 0..16 {
        let output = StdCommand::new("sh")
            .args(["-c", &command])
            .env("JOB_COMPLETION_INDEX", index.to_string())
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{command}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let results: Vec<PathBuf> = (0..16)
        .map(|index| {
            scratch_dir
                .path()
                .join(format!("results/nqueens-12-shard-{index}.json"))
        })
        .collect();
    nqueens()
        .arg("merge")
        .args(&results)
        .assert()
        .success()
        .stdout(predicates::str::contains(" 14200 "));
}
