//! Fault injection (cargo feature `failpoints`, run by `.ci/run`): a run
//! with one task counted wrong, as on a faulty machine, is caught by
//! `nqueens compare` naming that task.
#![cfg(feature = "failpoints")]

use assert_cmd::Command;

fn nqueens() -> Command {
    Command::cargo_bin("nqueens").unwrap()
}

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
