//! Checkpoints: journals, signals, stops and resumes, damaged and read-only journals, through the real binary.

use std::path::Path;
use std::process::{Command as StdCommand, Stdio};
use std::time::Duration;

use crate::common;

use common::{nqueens, outcome, scratch};

/// The solutions column of a CSV count.
fn csv_solutions(stdout: &[u8]) -> String {
    let text = String::from_utf8_lossy(stdout);
    let last = text.lines().last().unwrap_or_default().to_string();
    last.split(',').nth(1).unwrap_or_default().to_string()
}

/// A count long enough to interrupt (a second or two), journaled to the
/// path that follows these arguments.
const LONG_COUNT: [&str; 9] = [
    "count",
    "17",
    "-m",
    "mirror",
    "-j",
    "2",
    "--format",
    "csv",
    "--checkpoint",
];

/// Starts a long checkpointed count, sends `signal` and returns its exit
/// status and stderr. A stop (anything but `-9`) is sent once a task is
/// saved, so that the saved work the callers check is there however
/// loaded the machine; a kill comes once the count has run `work` of CPU
/// time, whatever it meets.
fn interrupt(journal: &Path, signal: &str, work: Duration) -> (Option<i32>, String) {
    let child = StdCommand::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(LONG_COUNT)
        .arg(journal)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if signal == "-9" {
        common::process::await_cpu_work(child.id(), work);
    } else {
        common::await_journaled_task(journal);
    }
    let _ = StdCommand::new("kill")
        .args([signal, &child.id().to_string()])
        .status();
    let output = child.wait_with_output().unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn resume(journal: &Path) -> String {
    let output = nqueens().args(LONG_COUNT).arg(journal).output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    csv_solutions(&output.stdout)
}

#[test]
fn sigint_and_sigterm_stop_cleanly_and_resume_exactly() {
    let scratch_dir = scratch("signals");
    let dir = scratch_dir.path();
    for signal in ["-INT", "-TERM"] {
        let journal = dir.join(format!("run{signal}.ckpt"));
        let (code, stderr) = interrupt(&journal, signal, Duration::ZERO);
        assert_eq!(code, Some(130), "{signal}: {stderr}");
        assert!(stderr.contains("resume with:"), "{stderr}");
        assert!(stderr.contains("--checkpoint"), "{stderr}");
        let lines = std::fs::read_to_string(&journal).unwrap().lines().count();
        assert!(lines > 1, "finished tasks were saved");
        assert_eq!(resume(&journal), "95815104");
        let text = std::fs::read_to_string(&journal).unwrap();
        assert!(text
            .lines()
            .last()
            .unwrap()
            .starts_with("complete 95815104 "));
        // Each run recorded its end, and task lines their time.
        let sessions: Vec<&str> = text
            .lines()
            .filter(|line| line.starts_with("session "))
            .collect();
        assert_eq!(sessions.len(), 2, "{signal}");
        assert!(text
            .lines()
            .filter(|line| line.starts_with("task "))
            .all(|line| line.split(' ').count() == 10));
        // The finished count read again reports the cost of both runs.
        let output = nqueens()
            .args([
                "count",
                "17",
                "-m",
                "mirror",
                "--format",
                "json",
                "--checkpoint",
            ])
            .arg(&journal)
            .output()
            .unwrap();
        let record: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(record["runs"], 2, "{record}");
        let wall = record["total_wall_seconds"].as_f64().unwrap();
        let tasks = record["total_task_seconds"].as_f64().unwrap();
        assert!(wall > 0.4 && tasks > 0.4, "{record}");
        assert_eq!(record["nodes_per_second"], 0.0, "nothing counted again");
        assert_eq!(record["nodes"], 0, "{record}");
        assert!(record["total_nodes"].as_u64().unwrap() > 0, "{record}");
        // Every reading of the finished journal gives the same core time,
        // and the text row shows no rate for a run that counted nothing.
        let again = nqueens()
            .args(["count", "17", "-m", "mirror", "--checkpoint"])
            .arg(&journal)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&again.stdout);
        assert!(
            text.contains(&format!("{tasks:.3} core-seconds of tasks")),
            "{tasks}: {text}"
        );
        assert!(!text.contains(" 0 /s"), "{text}");
        assert!(
            text.contains("nodes, seconds and rate above are this run's"),
            "{text}"
        );
    }
}

#[test]
fn kill_9_at_random_moments_loses_nothing_finished() {
    let scratch_dir = scratch("kill9");
    let dir = scratch_dir.path();
    let journal = dir.join("run.ckpt");
    // Two kills at different moments, then a resume that finishes.
    for millis in [150u64, 420] {
        let jitter = u64::from(std::process::id() % 97);
        let (code, _) = interrupt(&journal, "-9", Duration::from_millis(millis + jitter));
        assert_ne!(code, Some(0));
    }
    assert_eq!(resume(&journal), "95815104");
}

#[test]
fn a_finished_journal_just_reprints_the_result() {
    let scratch_dir = scratch("finished");
    let dir = scratch_dir.path();
    let journal = dir.join("done.ckpt");
    for _ in 0..2 {
        nqueens()
            .args(["count", "13", "--format", "csv", "--checkpoint"])
            .arg(&journal)
            .assert()
            .success()
            .stdout(predicates::str::contains("\n13,73712,9233,"));
    }
    let text = std::fs::read_to_string(&journal).unwrap();
    assert_eq!(
        text.lines()
            .filter(|line| line.starts_with("complete"))
            .count(),
        1
    );
    let tasks = text
        .lines()
        .filter(|line| line.starts_with("task "))
        .count();
    let header_tasks: usize = text
        .lines()
        .next()
        .unwrap()
        .split("tasks=")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(tasks, header_tasks, "every task journaled once");
}

/// `nqueens ARGS` as a user who cannot write `journal`: the caller when
/// it is not root (the file is made read-only), else the user nobody
/// through `setpriv` (root writes whatever the mode bits say).
fn count_without_write_access(journal: &Path, args: &[&str]) -> std::process::Output {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    std::fs::set_permissions(journal, std::fs::Permissions::from_mode(0o444)).unwrap();
    let dir = journal.parent().unwrap();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let probe = dir.join("owner-probe");
    std::fs::write(&probe, b"").unwrap();
    let root = std::fs::metadata(&probe).unwrap().uid() == 0;
    std::fs::remove_file(&probe).unwrap();
    // A copy beside the journal: nobody may not reach the build directory
    // (a clone under /root, say).
    let binary = dir.join("nqueens");
    if !binary.exists() {
        std::fs::copy(assert_cmd::cargo::cargo_bin("nqueens"), &binary).unwrap();
    }
    let mut command = if root {
        let mut command = StdCommand::new("setpriv");
        command
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&binary);
        command
    } else {
        StdCommand::new(&binary)
    };
    let output = command
        .args(args)
        .arg("--checkpoint")
        .arg(journal)
        .output()
        .expect("setpriv (util-linux) runs the count as nobody");
    std::fs::set_permissions(journal, std::fs::Permissions::from_mode(0o644)).unwrap();
    output
}

/// Whether every directory from `dir` up lets other users through (mode
/// o+x): the user nobody must reach the journal.
fn reachable_by_others(dir: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    dir.ancestors().skip(1).all(|ancestor| {
        std::fs::metadata(ancestor).is_ok_and(|meta| meta.permissions().mode() & 0o001 != 0)
    })
}

#[test]
fn a_read_only_journal_prints_a_finished_count_and_refuses_an_unfinished_one() {
    // A private TMPDIR (mode 0700, as `mktemp -d` makes) keeps nobody out:
    // the scratch directory goes under /tmp then, or the test says SKIPPED.
    let mut scratch_dir = scratch("read-only");
    if !reachable_by_others(scratch_dir.path()) {
        match tempfile::Builder::new()
            .prefix("nqueens-read-only-")
            .tempdir_in("/tmp")
        {
            Ok(dir) if reachable_by_others(dir.path()) => scratch_dir = dir,
            _ => {
                eprintln!("SKIPPED: no directory here that another user can reach");
                return;
            }
        }
    }
    let journal = scratch_dir.path().join("done.ckpt");
    nqueens()
        .args(["count", "13", "--format", "csv", "--checkpoint"])
        .arg(&journal)
        .assert()
        .success();
    let finished = std::fs::read(&journal).unwrap();
    let output = count_without_write_access(&journal, &["count", "13", "--format", "csv"]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert!(stdout.contains("\n13,73712,9233,"), "{stdout}");
    assert_eq!(
        std::fs::read(&journal).unwrap(),
        finished,
        "nothing written"
    );
    // The same journal without its last task lines and its end: not
    // finished, so it needs writing, and a read-only one is refused.
    let text = String::from_utf8(finished).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    while lines.last().is_some_and(|line| !line.starts_with("task ")) {
        lines.pop();
    }
    lines.truncate(lines.len() - 3);
    let unfinished = lines.join("\n") + "\n";
    std::fs::write(&journal, &unfinished).unwrap();
    let output = count_without_write_access(&journal, &["count", "13"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("is read-only and its count is not finished"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(std::fs::read_to_string(&journal).unwrap(), unfinished);
}

/// Runs a checkpointed count of N = 12 on `journal` and returns (status, stdout, stderr).
fn count_12(journal: &Path) -> (Option<i32>, String, String) {
    let output = nqueens()
        .args(["count", "12", "--format", "csv", "--checkpoint"])
        .arg(journal)
        .output()
        .unwrap();
    outcome(output)
}

#[test]
fn damaged_journals_are_refused_or_repaired() {
    let scratch_dir = scratch("damaged");
    let dir = scratch_dir.path();
    let journal = dir.join("j.ckpt");
    let (code, _, _) = count_12(&journal);
    assert_eq!(code, Some(0));
    let good = std::fs::read_to_string(&journal).unwrap();
    let lines: Vec<&str> = good.lines().collect();

    // A checksum mismatch in the body.
    let mut altered = lines.clone();
    let tampered = altered[5].replacen("task ", "task 9", 1);
    altered[5] = &tampered;
    std::fs::write(&journal, altered.join("\n") + "\n").unwrap();
    let (code, _, stderr) = count_12(&journal);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("damaged at line 6"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1);

    // A byte that is not UTF-8, or a line far too long, inside the body:
    // damage like any other, not an I/O failure.
    let mut bytes = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        match index {
            3 => bytes.extend_from_slice(b"task \xff\xfe 1 2"),
            _ => bytes.extend_from_slice(line.as_bytes()),
        }
        bytes.push(b'\n');
    }
    std::fs::write(&journal, &bytes).unwrap();
    let (code, _, stderr) = count_12(&journal);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("damaged at line 4"), "{stderr}");
    let long =
        lines[..4].join("\n") + "\n" + &"9".repeat(100_000) + "\n" + &lines[4..].join("\n") + "\n";
    std::fs::write(&journal, long).unwrap();
    let (code, _, stderr) = count_12(&journal);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("damaged at line 5"), "{stderr}");
    // The message names the line, not its 100,000 bytes.
    assert!(stderr.len() < 400, "{stderr}");

    // A task recorded twice (two processes, or a rerun of a task lost in
    // flight) counts once.
    let doubled = lines[..lines.len() - 1].join("\n") + "\n" + lines[3] + "\n" + lines[4] + "\n";
    std::fs::write(&journal, doubled).unwrap();
    let (code, stdout, stderr) = count_12(&journal);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(csv_solutions(stdout.as_bytes()), "14200");

    // A torn last line: dropped with a warning, the count is exact.
    let torn = lines[..lines.len() - 1].join("\n") + "\n" + &lines[lines.len() - 2][..10];
    std::fs::write(&journal, torn).unwrap();
    let (code, stdout, stderr) = count_12(&journal);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stderr.contains("a torn tail after the last whole line"),
        "{stderr}"
    );
    assert_eq!(csv_solutions(stdout.as_bytes()), "14200");

    // A damaged header.
    std::fs::write(&journal, "nqueens-journal-v1 fingerprint=00 #0000\n").unwrap();
    let (code, _, stderr) = count_12(&journal);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("header is damaged"), "{stderr}");

    // Something else entirely.
    std::fs::write(&journal, "hello\nworld\n").unwrap();
    let (code, _, stderr) = count_12(&journal);
    assert_eq!(code, Some(2));
    assert!(stderr.contains("not an nqueens journal"), "{stderr}");

    // A journal of another plan names both.
    std::fs::write(&journal, &good).unwrap();
    let output = nqueens()
        .args(["count", "13", "--checkpoint"])
        .arg(&journal)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("n=12") && stderr.contains("n=13"),
        "{stderr}"
    );

    // An empty file is a fresh start.
    std::fs::write(&journal, "").unwrap();
    let (code, stdout, stderr) = count_12(&journal);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(csv_solutions(stdout.as_bytes()), "14200");
}

#[test]
fn join_tasks_in_flight_are_abandoned_on_interrupt() {
    // A task of N = 26 takes half a minute to minutes; after SIGINT the
    // run must not wait for the tasks in flight, and must not journal them.
    let scratch_dir = scratch("abandon");
    let journal = scratch_dir.path().join("j.ckpt");
    let child = StdCommand::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(["count", "26", "-j", "2", "--checkpoint"])
        .arg(&journal)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Signalled once counting has begun (a task journaled): building the
    // plan takes seconds, longer on a loaded machine, and a signal before
    // it is answered as "nothing was counted" (a CI run beside other work
    // once got there after a fixed 3 s).
    common::await_journaled_task(&journal);
    let signalled = std::time::Instant::now();
    let _ = StdCommand::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let output = child.wait_with_output().unwrap();
    let elapsed = signalled.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("resume with"), "{stderr}");
    assert!(
        elapsed < Duration::from_secs(12),
        "took {elapsed:?} after the signal: {stderr}"
    );
    // The journal holds the tasks that finished (the first row sets are
    // small), each once, and the run says how many.
    let text = std::fs::read_to_string(&journal).unwrap();
    let finished = text
        .lines()
        .filter(|line| line.starts_with("task "))
        .count();
    let tasks = nqueens::testing::join::JoinTasks::new(26).len();
    assert!(
        stderr.contains(&format!("interrupted: {finished} of {tasks} tasks")),
        "{finished}: {stderr}"
    );
}

#[test]
fn depth_first_tasks_of_large_n_are_abandoned_after_the_grace() {
    // A d4 task of N = 25 takes half an hour: SIGINT must end the count
    // within the 1.5 s grace (the bound below leaves room for a loaded
    // machine), keep what finished, and say what happened.
    let scratch_dir = scratch("grace");
    let journal = scratch_dir.path().join("d4.ckpt");
    for checkpoint in [false, true] {
        let mut command = StdCommand::new(assert_cmd::cargo::cargo_bin("nqueens"));
        command.args(["count", "25", "-m", "d4", "-j", "2"]);
        if checkpoint {
            command.arg("--checkpoint").arg(&journal);
        }
        let child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        common::process::await_handlers(child.id());
        common::process::await_cpu_work(child.id(), Duration::from_secs(2));
        if checkpoint {
            // Counting has begun once the journal has its header (written
            // after the plan is built).
            common::wait::wait_for("the journal's header", Duration::from_secs(120), || {
                std::fs::metadata(&journal).is_ok_and(|meta| meta.len() > 0)
            });
        }
        let signalled = std::time::Instant::now();
        let _ = StdCommand::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status();
        let output = child.wait_with_output().unwrap();
        let elapsed = signalled.elapsed();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(130), "{stderr}");
        assert!(
            elapsed < Duration::from_secs(4),
            "took {elapsed:?}: {stderr}"
        );
        assert!(stderr.contains("stopping: "), "{stderr}");
        assert!(stderr.contains("in flight abandoned"), "{stderr}");
        if checkpoint {
            assert!(stderr.contains("and saved"), "{stderr}");
            assert!(stderr.contains("resume with:"), "{stderr}");
            // The journal is whole: sealed lines, ending with the run's end.
            let text = std::fs::read_to_string(&journal).unwrap();
            assert!(
                text.lines().last().unwrap().starts_with("session "),
                "{text}"
            );
            nqueens()
                .args(["compare"])
                .arg(&journal)
                .arg(&journal)
                .assert()
                .success();
        } else {
            assert!(stderr.contains("nothing was saved"), "{stderr}");
        }
    }
}

#[test]
fn checkpoints_must_be_regular_files_used_by_one_count() {
    let scratch_dir = scratch("regular");
    let dir = scratch_dir.path();
    for device in ["/dev/zero", "/dev/full", "/dev/null"] {
        nqueens()
            .args(["count", "12", "--checkpoint", device])
            .timeout(Duration::from_secs(20))
            .assert()
            .code(2)
            .stderr(predicates::str::contains("is not a regular file"));
    }
    nqueens()
        .args(["count", "12", "--checkpoint"])
        .arg(dir)
        .timeout(Duration::from_secs(20))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("is not a regular file"));
    #[cfg(unix)]
    {
        let fifo = dir.join("fifo");
        let made = StdCommand::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        nqueens()
            .args(["count", "12", "--checkpoint"])
            .arg(&fifo)
            .timeout(Duration::from_secs(20))
            .assert()
            .code(2)
            .stderr(predicates::str::contains("is not a regular file"));
    }
    // A second count on a journal in use is refused, naming the first.
    let journal = dir.join("busy.ckpt");
    let mut first = StdCommand::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(LONG_COUNT)
        .arg(&journal)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Until the first has written its header, it may not hold the lock.
    common::wait::wait_for("the first count's header", Duration::from_secs(120), || {
        std::fs::metadata(&journal).is_ok_and(|meta| meta.len() > 0)
    });
    let second = nqueens().args(LONG_COUNT).arg(&journal).output().unwrap();
    let _ = first.kill();
    let _ = first.wait();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("in use by another process (pid {})", first.id())),
        "{stderr}"
    );
}
