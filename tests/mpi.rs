//! Counting across MPI ranks equals counting in one process. Built only with
//! `--features mpi`; needs `mpirun` (Open MPI) on the PATH.
#![cfg(feature = "mpi")]

use std::process::{Command, Output};

fn running_as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

fn mpirun(ranks: u32, args: &[&str]) -> Output {
    let mut command = Command::new("mpirun");
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
