//! Counting across MPI ranks equals counting in one process. Built only with
//! `--features mpi`; needs `mpirun` (Open MPI) on the PATH.
#![cfg(feature = "mpi")]

use std::process::{Command, Output};

use crate::common;

fn running_as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

fn mpirun(ranks: u32, args: &[&str]) -> Output {
    mpirun_with(ranks, args, &[])
}

/// [`mpirun`] with environment variables passed to every rank.
fn mpirun_with(ranks: u32, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut command = Command::new("mpirun");
    for (name, value) in env {
        command.env(name, value).args(["-x", name]);
    }
    command.args([
        "-np",
        &ranks.to_string(),
        "--oversubscribe",
        "--bind-to",
        "none",
    ]);
    if running_as_root() {
        command.arg("--allow-run-as-root");
    }
    command
        .arg(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(args)
        .output()
        .expect("mpirun runs")
}

/// Counts `count ARGS` in one process with its journal at `single`, and
/// asserts that `compare` finds `journal` (an MPI run's) agreeing with it.
fn agrees_with_one_process(journal: &std::path::Path, args: &[&str], single: &std::path::Path) {
    assert_cmd::Command::cargo_bin("nqueens")
        .unwrap()
        .arg("count")
        .args(args)
        .arg("--checkpoint")
        .arg(single)
        .assert()
        .success();
    assert_cmd::Command::cargo_bin("nqueens")
        .unwrap()
        .arg("compare")
        .arg(journal)
        .arg(single)
        .assert()
        .success();
}

/// The CSV record of one N: (solutions, unique).
fn record(stdout: &[u8], n: u32) -> (String, String) {
    let text = String::from_utf8_lossy(stdout);
    let line = text
        .lines()
        .find(|line| line.starts_with(&format!("{n},")))
        .unwrap_or_else(|| panic!("no row for N = {n} in {text}"));
    let fields: Vec<&str> = line.split(',').collect();
    (fields[1].to_string(), fields[2].to_string())
}

#[test]
fn two_ranks_count_what_one_process_counts() {
    for method in ["mirror", "d4", "none"] {
        let local = assert_cmd::Command::cargo_bin("nqueens")
            .unwrap()
            .args(["count", "8", "11", "13", "-m", method, "--format", "csv"])
            .output()
            .unwrap();
        assert!(local.status.success());
        let distributed = mpirun(
            2,
            &[
                "count", "8", "11", "13", "-m", method, "--format", "csv", "--mpi", "-j", "1",
            ],
        );
        assert!(
            distributed.status.success(),
            "{}",
            String::from_utf8_lossy(&distributed.stderr)
        );
        for n in [8, 11, 13] {
            assert_eq!(
                record(&distributed.stdout, n),
                record(&local.stdout, n),
                "{method} N = {n}"
            );
        }
        // Only rank 0 prints: one header and one row per N.
        assert_eq!(
            String::from_utf8_lossy(&distributed.stdout).lines().count(),
            4
        );
    }
}

#[test]
fn ranks_with_several_threads_and_many_ranks_agree() {
    for (ranks, threads) in [(2, "2"), (3, "1")] {
        let out = mpirun(
            ranks,
            &["count", "14", "--format", "csv", "--mpi", "-j", threads],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            record(&out.stdout, 14),
            ("365596".to_string(), "45752".to_string())
        );
    }
}

/// `mpirun` of a checkpointed count long enough to stop (N = 17 `mirror`
/// on 2 ranks of 1 thread: seconds of CPU, over 10,000 tasks, stopped
/// after 0.4 s of it), with `journal`. (N = 16 took 0.53 s on 2 Zen 5
/// cores, and the ranks' start-up and polling count as CPU work too: the
/// stop came after the last task, and the test failed there.)
fn journaled(journal: &std::path::Path) -> Command {
    let mut command = Command::new("mpirun");
    command.args(["-np", "2", "--oversubscribe", "--bind-to", "none"]);
    if running_as_root() {
        command.arg("--allow-run-as-root");
    }
    command
        .arg(assert_cmd::cargo::cargo_bin("nqueens"))
        .args([
            "count", "17", "-m", "mirror", "-j", "1", "--mpi", "--format", "csv",
        ])
        .arg("--checkpoint")
        .arg(journal);
    command
}

/// Starts `command`, sends `signal` to mpirun once the first task is
/// journaled (the ranks are then up, their handlers set) and its ranks
/// have run `work` more of CPU time, and waits.
fn stop_after(
    mut command: Command,
    journal: &std::path::Path,
    signal: &str,
    work: std::time::Duration,
) -> Output {
    let child = command
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // MPI start-up takes seconds on a loaded machine.
    common::await_journaled_task(journal);
    common::process::await_cpu_work(child.id(), work);
    let _ = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status();
    child.wait_with_output().unwrap()
}

#[test]
fn a_killed_or_stopped_mpi_count_resumes_exactly() {
    let dir = tempfile::tempdir().unwrap();
    for signal in ["-KILL", "-TERM"] {
        let journal = dir.path().join(format!("mpi{signal}.ckpt"));
        let stopped = stop_after(
            journaled(&journal),
            &journal,
            signal,
            std::time::Duration::from_millis(400),
        );
        assert!(
            !stopped.status.success(),
            "{signal}: stopped before the end"
        );
        let saved = common::journaled_tasks(&journal);
        assert!(saved > 0, "{signal}: finished tasks were journaled");
        if signal == "-TERM" {
            let stderr = String::from_utf8_lossy(&stopped.stderr);
            assert!(stderr.contains("interrupted: "), "{stderr}");
            assert!(stderr.contains("and saved; resume with"), "{stderr}");
        }
        // Ranks outlive a killed mpirun for a moment, holding the journal:
        // the resume is refused until they are gone.
        let resumed = common::wait::wait_until(
            "the stopped ranks to release the journal",
            std::time::Duration::from_secs(120),
            || {
                let resumed = journaled(&journal).output().unwrap();
                let in_use =
                    String::from_utf8_lossy(&resumed.stderr).contains("in use by another process");
                (!in_use).then_some(resumed)
            },
        );
        assert!(
            resumed.status.success(),
            "{}",
            String::from_utf8_lossy(&resumed.stderr)
        );
        assert_eq!(
            record(&resumed.stdout, 17),
            ("95815104".to_string(), "11977939".to_string())
        );
        // Every task once, and the journal knows it is complete.
        let text = std::fs::read_to_string(&journal).unwrap();
        let mut ids: Vec<&str> = text
            .lines()
            .filter(|line| line.starts_with("task "))
            .map(|line| line.split(' ').nth(1).unwrap())
            .collect();
        let lines = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), lines, "{signal}: a task journaled twice");
        assert!(text
            .lines()
            .last()
            .unwrap()
            .starts_with("complete 95815104 "));
        // The journal compares with a single process's.
        let single = dir.path().join(format!("single{signal}.ckpt"));
        agrees_with_one_process(&journal, &["17", "-m", "mirror"], &single);
    }
}

#[test]
fn a_stopped_mpi_count_ends_within_seconds_with_tasks_in_flight() {
    // d4 tasks of N = 25 take minutes each: a stop abandons them past the
    // grace, every rank ends, and the journal stays sound.
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("d4-25.ckpt");
    let mut command = Command::new("mpirun");
    command.args(["-np", "2", "--oversubscribe", "--bind-to", "none"]);
    if running_as_root() {
        command.arg("--allow-run-as-root");
    }
    let child = command
        .arg(assert_cmd::cargo::cargo_bin("nqueens"))
        .args([
            "count",
            "25",
            "-m",
            "d4",
            "-j",
            "1",
            "--mpi",
            "--checkpoint",
        ])
        .arg(&journal)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The journal's header is written once every rank has its handler set
    // and the plan built.
    common::wait::wait_for(
        "the journal's header",
        std::time::Duration::from_secs(120),
        || std::fs::metadata(&journal).is_ok_and(|meta| meta.len() > 0),
    );
    // Its ranks are then inside their tasks.
    common::process::await_cpu_work(child.id(), std::time::Duration::from_secs(1));
    let signalled = std::time::Instant::now();
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let stopped = child.wait_with_output().unwrap();
    let took = signalled.elapsed();
    let stderr = String::from_utf8_lossy(&stopped.stderr);
    assert!(!stopped.status.success(), "{stderr}");
    // 1.5 s of grace, then the job is ended; a loaded machine adds some.
    assert!(
        took < std::time::Duration::from_secs(8),
        "took {took:?}: {stderr}"
    );
    assert!(stderr.contains("stopping: tasks in flight"), "{stderr}");
    assert!(stderr.contains("tasks in flight abandoned"), "{stderr}");
    assert!(
        stderr.contains("resume with the same mpirun command"),
        "{stderr}"
    );
    // Whatever it holds reads back sealed.
    assert_cmd::Command::cargo_bin("nqueens")
        .unwrap()
        .arg("compare")
        .arg(&journal)
        .arg(&journal)
        .assert()
        .success();
}

#[test]
fn an_mpi_job_under_slurm_cancelled_with_sigterm_and_resubmitted_counts_exactly() {
    use common::slurm::{job_parts, skip_without_slurm, slurm, wait_for_job};
    use std::time::Duration;
    if skip_without_slurm("the Slurm MPI test") {
        return;
    }
    let scratch_dir = common::scratch("slurm-mpi");
    let dir = scratch_dir.path();
    let journal = dir.join("mpi-17.ckpt");
    // mpirun inside the allocation, as docs/cluster.md shows it; `exec` so
    // that the batch step's signal reaches mpirun, which passes it on.
    let command = format!(
        "exec mpirun {} -np 2 --bind-to none '{}' count 17 -m d4 -j 1 --mpi --format csv --checkpoint '{}'",
        if running_as_root() { "--allow-run-as-root" } else { "" },
        assert_cmd::cargo::cargo_bin("nqueens").display(),
        journal.display()
    );
    let submit = |name: &str| {
        slurm(
            "sbatch",
            &[
                "--parsable",
                "--ntasks=2",
                "--cpus-per-task=1",
                "--time=10",
                "--job-name=nqueens-mpi-test",
                &format!("--output={}", dir.join(name).display()),
                "--wrap",
                &command,
            ],
            dir,
        )
    };
    let job = submit("first.log");
    // Cancelled with SIGTERM once it has journaled some hundreds of its
    // 72,000 tasks (seconds of the count).
    common::wait::wait_for(
        "the job to journal 200 lines",
        Duration::from_secs(120),
        || {
            let lines = std::fs::read_to_string(&journal).map_or(0, |text| text.lines().count());
            assert!(
                lines >= 200 || !job_parts(&job, None).is_empty(),
                "the job ended too soon"
            );
            lines >= 200
        },
    );
    slurm("scancel", &["--signal=TERM", "--batch", &job], dir);
    wait_for_job(&job, Duration::from_secs(60));
    let text = std::fs::read_to_string(&journal).unwrap();
    assert!(
        !text.contains("\ncomplete "),
        "the first job finished before its cancel"
    );
    assert!(
        text.lines().last().unwrap().starts_with("session "),
        "stopped cleanly"
    );
    let saved = text
        .lines()
        .filter(|line| line.starts_with("task "))
        .count();
    // Resubmitted: it resumes and the total is exact.
    let second = submit("second.log");
    wait_for_job(&second, Duration::from_secs(300));
    let log = std::fs::read_to_string(dir.join("second.log")).unwrap();
    assert!(log.contains("\n17,95815104,11977939,"), "{log}");
    let text = std::fs::read_to_string(&journal).unwrap();
    let sessions = text
        .lines()
        .filter(|line| line.starts_with("session "))
        .count();
    assert_eq!(sessions, 2, "two runs recorded");
    assert!(
        saved > 0 && text.contains("\ncomplete 95815104 "),
        "{saved}"
    );
}

/// A checkpoint that cannot be written under MPI ends the job as on one
/// machine: exit status 1 and the same message, the lines before the
/// failure kept whole.
#[cfg(feature = "failpoints")]
#[test]
fn a_checkpoint_that_cannot_be_written_fails_as_on_one_machine() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("full.ckpt");
    let journal_arg = journal.to_str().unwrap();
    let out = mpirun_with(
        2,
        &[
            "count",
            "14",
            "-m",
            "d4",
            "--mpi",
            "-j",
            "1",
            "--checkpoint",
            journal_arg,
        ],
        &[("FAILPOINTS", "journal-write=6*off->1*return->off")],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot write the checkpoint"), "{stderr}");
    assert!(!stderr.contains("MPI"), "{stderr}");
    let text = std::fs::read_to_string(&journal).unwrap();
    assert!(text.ends_with('\n'), "{text}");
}

/// `--mpi --gpu` on the stand-in driver (two "GPUs" on this one node):
/// each rank counts on its own GPU beside its thread, rank 0 journals
/// every task, and the journal agrees task by task with a CPU count's; a
/// GPU that fails mid-count on every rank hands its tasks back and the
/// count stays exact.
#[cfg(feature = "gpu")]
#[test]
fn ranks_each_with_a_gpu_count_exactly_and_journal_every_task() {
    let driver = common::fake_gpu::fake_driver()
        .to_str()
        .unwrap()
        .to_string();
    let dir = common::scratch("mpi-gpu");
    let journal = dir.path().join("gpu.ckpt");
    let journal_text = journal.to_str().unwrap();
    let env = [
        ("NQUEENS_CUDA_DRIVER", driver.as_str()),
        ("NQUEENS_NVRTC", driver.as_str()),
        ("FAKE_CUDA_DEVICES", "2"),
    ];
    let out = mpirun_with(
        2,
        &[
            "count",
            "15",
            "--format",
            "csv",
            "--mpi",
            "-j",
            "1",
            "--gpu",
            "auto",
            "--checkpoint",
            journal_text,
        ],
        &env,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        record(&out.stdout, 15),
        ("2279184".to_string(), "285053".to_string())
    );
    // Each rank took the GPU numbered as it is on the node (the ranks'
    // lines share one pipe, so only each line's own text is looked for).
    for gpu in ["cuda:0, Fake GPU 0", "cuda:1, Fake GPU 1"] {
        assert!(stderr.contains(gpu), "{gpu}: {stderr}");
    }
    let cpu = dir.path().join("cpu.ckpt");
    agrees_with_one_process(&journal, &["15", "-j", "1"], &cpu);
    let failing = [
        env[0],
        env[1],
        ("FAKE_CUDA_DEVICES", "1"),
        ("FAKE_CUDA_FAIL_LAUNCH", "3"),
    ];
    let out = mpirun_with(
        2,
        &[
            "count",
            "14",
            "--format",
            "csv",
            "--mpi",
            "-j",
            "1",
            "--gpu",
            "--gpu-only",
        ],
        &failing,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        record(&out.stdout, 14),
        ("365596".to_string(), "45752".to_string())
    );
    assert_eq!(
        stderr.matches("go back to the CPU threads").count(),
        2,
        "one failure per rank: {stderr}"
    );
}

/// With a checkpoint rank 0 hears of every rank's tasks as they finish,
/// and draws the count's progress bar over all of them; the other ranks
/// draw none. (N = 17: long enough for the bar to be drawn several times.)
#[test]
fn rank_0_draws_the_bar_of_a_journaled_count() {
    let dir = common::scratch("mpi-bar");
    let journal = dir.path().join("bar.ckpt");
    let out = mpirun(
        2,
        &[
            "count",
            "17",
            "--format",
            "csv",
            "--mpi",
            "-j",
            "1",
            "--progress",
            "always",
            "--checkpoint",
            journal.to_str().unwrap(),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        record(&out.stdout, 17),
        ("95815104".to_string(), "11977939".to_string())
    );
    assert!(
        stderr.contains("N=17 [") && stderr.contains(" tasks ("),
        "{stderr}"
    );
}
