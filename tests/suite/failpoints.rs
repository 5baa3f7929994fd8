//! Fault injection (cargo feature `failpoints`, run by `.ci/run`): a run
//! with one task counted wrong, as on a faulty machine, is caught by
//! `nqueens compare` naming that task (journals) or its shard (shard
//! files).
#![cfg(feature = "failpoints")]

use crate::common;

use common::nqueens;

#[test]
fn a_fault_in_one_task_is_caught_by_compare() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.ckpt");
    let bad = dir.path().join("bad.ckpt");
    for method in ["join", "d4"] {
        let _ = std::fs::remove_file(&good);
        let _ = std::fs::remove_file(&bad);
        nqueens()
            .args(["count", "13", "-m", method, "--checkpoint"])
            .arg(&good)
            .assert()
            .success();
        // The table catches a wrong total; compare names the task.
        nqueens()
            .args(["count", "13", "-m", method, "--checkpoint"])
            .arg(&bad)
            .env("FAILPOINTS", "task-count=return(41)")
            .assert()
            .code(3);
        let out = nqueens()
            .arg("compare")
            .arg(&good)
            .arg(&bad)
            .assert()
            .code(3);
        let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        assert!(stdout.contains("DISAGREE: 1 task(s)"), "{method}: {stdout}");
        assert!(stdout.contains("  task 41: first "), "{method}: {stdout}");
        // Without the fault the same runs agree.
        nqueens()
            .arg("compare")
            .arg(&good)
            .arg(&good)
            .assert()
            .success();
    }
}

#[test]
fn a_fault_in_one_task_is_caught_by_comparing_shard_files() {
    let dir = tempfile::tempdir().unwrap();
    let shards = |prefix: &str, fault: Option<&str>| -> Vec<std::path::PathBuf> {
        (0..4)
            .map(|index| {
                let out = dir.path().join(format!("{prefix}{index}.json"));
                let mut command = nqueens();
                command
                    .args(["count", "13", "-m", "join", "--shard"])
                    .arg(format!("{index}/4"))
                    .arg("--out")
                    .arg(&out);
                if let Some(fault) = fault {
                    command.env("FAILPOINTS", fault);
                }
                command.assert().success();
                out
            })
            .collect()
    };
    let good = shards("good", None);
    // Task 41 is in shard 41 mod 4 = 1; each shard alone cannot tell.
    let bad = shards("bad", Some("task-count=return(41)"));
    let out = nqueens()
        .arg("compare")
        .args(&good)
        .arg("--with")
        .args(&bad)
        .assert()
        .code(3);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains("DISAGREE: 1 shard(s)"), "{stdout}");
    assert!(stdout.contains("  shard 1: first "), "{stdout}");
}

#[test]
fn a_fault_in_one_task_is_named_by_verify() {
    // `verify 12 --tasks 500` samples every task of N = 12 (472), so
    // task 41 is among them.
    let out = nqueens()
        .args(["verify", "12", "--tasks", "500", "-j", "2"])
        .env("FAILPOINTS", "task-count=return(41)")
        .assert()
        .code(3);
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stderr.contains("differ on task 41"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert_eq!(stdout.matches("  NO").count(), 1, "{stdout}");
}

#[test]
fn a_full_disk_mid_line_leaves_whole_lines_and_the_count_resumes_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("full.ckpt");
    for method in ["d4", "mirror", "join"] {
        let _ = std::fs::remove_file(&journal);
        // The seventh line written (the header is the first) gets half
        // its bytes on disk, then ENOSPC.
        let out = nqueens()
            .args(["count", "14", "-m", method, "-j", "2", "--checkpoint"])
            .arg(&journal)
            .env("FAILPOINTS", "journal-write=6*off->1*return->off")
            .assert()
            .code(1);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(stderr.contains("cannot write the checkpoint"), "{stderr}");
        assert!(stderr.contains("No space left on device"), "{stderr}");
        // The half line was cut away: every line is whole and sealed.
        let text = std::fs::read_to_string(&journal).unwrap();
        assert!(text.ends_with('\n'), "{method}: {text}");
        assert!(text.lines().count() >= 6, "{method}: {text}");
        for line in text.lines() {
            let starts = line.matches("task ").count() + line.matches("session ").count();
            assert!(starts <= 1, "{method}: a torn line was kept: {line}");
        }
        let out = nqueens()
            .args([
                "count",
                "14",
                "-m",
                method,
                "--format",
                "csv",
                "--checkpoint",
            ])
            .arg(&journal)
            .assert()
            .success();
        let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        assert!(stdout.contains(",365596,"), "{method}: {stdout}");
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(stderr.contains("resuming: "), "{method}: {stderr}");
        assert!(!stderr.contains("cut short"), "{method}: {stderr}");
    }
}
