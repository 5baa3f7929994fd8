//! The Slurm recipe on a real scheduler: `scripts/slurm-array.sh` submitted
//! with `sbatch` as an array of 8 shards, one requeued while it runs, merged
//! exactly, and a second run compared equal. Needs the one-node Slurm of
//! `scripts/slurm-local.sh` (`.ci/run` starts it); says SKIPPED without one.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::common;

use common::slurm::{job_parts, skip_without_slurm, slurm, wait_for_job};
use common::{outcome, scratch};

/// The array script, from the repository.
fn array_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/slurm-array.sh")
}

/// Submits one run of N = 17 (8 shards, each counting its tasks with
/// `mirror` on one core: seconds, so that one can be requeued mid-run)
/// into `dir/run`; returns the job id.
fn submit(dir: &Path, run: &str) -> String {
    let binary = assert_cmd::cargo::cargo_bin("nqueens");
    let export = format!(
        "ALL,N=17,METHOD=mirror,THREADS=1,RUN={},NQUEENS={}",
        dir.join(run).display(),
        binary.display()
    );
    let output = dir.join(format!("{run}-%a.log"));
    slurm(
        "sbatch",
        &[
            "--parsable",
            "--array=0-7",
            "--cpus-per-task=1",
            "--time=10",
            "--job-name=nqueens-test",
            &format!("--output={}", output.display()),
            &format!("--export={export}"),
            array_script().to_str().unwrap(),
        ],
        dir,
    )
}

/// Lines in the journal of shard `index` of `run`.
fn journal_lines(dir: &Path, run: &str, index: &str) -> usize {
    let journal = dir.join(format!("{run}/checkpoints/nqueens-17-{index}.ckpt"));
    std::fs::read_to_string(journal).map_or(0, |text| text.lines().count())
}

/// `slurm-array.sh merge` with `env`: (status, stdout, stderr).
fn merge(dir: &Path, env: &[(&str, String)]) -> (Option<i32>, String, String) {
    let output = Command::new(array_script())
        .arg("merge")
        .current_dir(dir)
        .env("N", "17")
        .env("NQUEENS", assert_cmd::cargo::cargo_bin("nqueens"))
        .envs(env.iter().map(|(name, value)| (name, value)))
        .output()
        .unwrap();
    outcome(output)
}

#[test]
fn an_array_with_a_requeued_shard_merges_exactly_and_a_second_run_compares_equal() {
    if skip_without_slurm("the Slurm array test") {
        return;
    }
    let scratch_dir = scratch("slurm-array");
    let dir = scratch_dir.path();
    let job = submit(dir, "a");
    // Requeue an array task while it runs, once it has journaled a task.
    let requeued = common::wait::wait_until(
        "an array task running with a task journaled",
        Duration::from_secs(120),
        || {
            job_parts(&job, Some("R")).into_iter().find(|part| {
                let index = part.rsplit('_').next().unwrap_or_default();
                journal_lines(dir, "a", index) >= 2
            })
        },
    );
    slurm("scontrol", &["requeue", &requeued], dir);
    wait_for_job(&job, Duration::from_secs(300));
    // The requeued shard stopped, saved and resumed: two runs recorded.
    let index = requeued.rsplit('_').next().unwrap();
    let journal = dir.join(format!("a/checkpoints/nqueens-17-{index}.ckpt"));
    let text = std::fs::read_to_string(&journal).unwrap();
    let sessions = text
        .lines()
        .filter(|line| line.starts_with("session "))
        .count();
    assert!(sessions >= 2, "{requeued}: {sessions} runs in its journal");
    let (code, stdout, stderr) = merge(dir, &[("RUN", dir.join("a").display().to_string())]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains(" 95815104 "), "{stdout}");
    assert!(stdout.contains("ok"), "{stdout}");
    // A second, independent run: every shard and every task agree.
    let second = submit(dir, "b");
    wait_for_job(&second, Duration::from_secs(300));
    let (code, stdout, stderr) = merge(
        dir,
        &[
            ("RUN", dir.join("a").display().to_string()),
            ("COMPARE", dir.join("b").display().to_string()),
        ],
    );
    assert_eq!(code, Some(0), "{stdout}{stderr}");
    assert!(!stdout.contains("DISAGREE"), "{stdout}");
}
