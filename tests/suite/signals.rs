//! SIGINT and SIGTERM: a count, an estimate, a search, a benchmark or a
//! cross-check ends at once, saves what finished and says how to resume,
//! during its setup, its run, or at a second signal.

use std::process::{Command as StdCommand, Stdio};
use std::time::Duration;

use crate::common;

use common::scratch;

#[test]
fn a_signal_during_setup_ends_the_count_at_once() {
    let scratch_dir = scratch("setup");
    let journal = scratch_dir.path().join("j.ckpt");
    // Building and fingerprinting the plan of N = 27 takes seconds (far
    // more in a debug build): the signal comes in the middle of it.
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(["count", "27", "-j", "1", "--checkpoint"])
        .arg(&journal)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once its handlers are set the signal stops it (before, it would
    // kill it), still seconds from the end of the setup.
    common::process::await_handlers(child.id());
    let (code, stderr) = interrupt(&mut child);
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("nothing was counted"), "{stderr}");
    // No journal is left half made: none, or one with its header.
    if let Ok(text) = std::fs::read_to_string(&journal) {
        assert!(text.starts_with("nqueens-journal-v"), "{text:?}");
    }
}

/// Sends SIGINT to `child` and waits (at most 3 s) for it to end:
/// (exit code, stderr).
fn interrupt(child: &mut std::process::Child) -> (Option<i32>, String) {
    let _ = StdCommand::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    // Generous for a machine at load 8: what is tested is that the run
    // does not go on for its minutes.
    let status = common::wait::poll(Duration::from_secs(10), || child.try_wait().unwrap())
        .unwrap_or_else(|| {
            let _ = child.kill();
            panic!("still running 10 s after SIGINT");
        });
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    (status.code(), stderr)
}

#[test]
fn a_signal_ends_an_estimate_a_search_a_benchmark_or_a_cross_check_at_once() {
    // Each runs for minutes. It is signalled once a line of its output
    // starting so is out and it has worked a while (by its CPU time), and
    // must end within
    // 3 s with one line that starts and ends so, and the rest of its
    // output holding what it kept (if anything).
    type Case<'a> = (&'a [&'a str], Option<&'a str>, &'a str, &'a str, &'a str);
    let cases: [Case; 4] = [
        // The estimate begins once the plan is printed; its tasks at
        // N = 24 take tens of ms, and 100,000 of them minutes.
        (
            &["plan", "24", "-j", "1", "--estimate", "--sample", "100000"],
            Some("tasks are"),
            "interrupted: the estimate stopped after ",
            " tasks timed; its figures are from those (tasks in flight dropped)",
            "stopped by a signal before 100000 tasks: the figures are from the tasks finished\n  core time: ",
        ),
        // A quarter into N = 20's list.
        (
            &["list", "20", "--nth", "9757297221", "-j", "1"],
            None,
            "interrupted: solution 9757297221 of N = 20 not found yet; nothing was printed",
            "",
            "",
        ),
        // 50 runs of a count of seconds.
        (
            &["bench", "-j", "1", "--runs", "50"],
            None,
            "interrupted: the benchmark stopped after ",
            " of 51 runs; nothing was reported",
            "",
        ),
        // 1,000 tasks, each searched for a fraction of a second.
        (
            &["verify", "20", "--tasks", "1000", "-j", "1"],
            Some("N = 20: 1000 of "),
            "interrupted: ",
            " of 1000 tasks checked, all agree",
            "",
        ),
    ];
    for (args, ready, starts, ends, kept) in cases {
        // The first task may take longer than the work waited for after
        // the ready line; a stop before it is its own message, and the run
        // is tried again with twice the work, until a task is in.
        let mut wait = Duration::from_millis(300);
        let (stderr, mut stdout) = loop {
            let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("nqueens"))
                .args(args)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            // Held open until the end: the command may still write to it.
            let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
            match ready {
                Some(prefix) => {
                    let mut line = String::new();
                    while !line.starts_with(prefix) {
                        line.clear();
                        let read = std::io::BufRead::read_line(&mut stdout, &mut line).unwrap();
                        assert!(read > 0, "{args:?}: no line starting {prefix:?}");
                    }
                    common::process::await_cpu_work(child.id(), wait);
                }
                None => {
                    common::process::await_handlers(child.id());
                    common::process::await_cpu_work(child.id(), Duration::from_millis(300));
                }
            }
            let (code, stderr) = interrupt(&mut child);
            assert_eq!(code, Some(130), "{args:?}: {stderr}");
            let too_early = stderr.contains("before any of") || stderr.contains(" after 0 of ");
            if ready.is_some() && too_early && wait < Duration::from_secs(60) {
                wait *= 2;
                continue;
            }
            break (stderr, stdout);
        };
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        let line = stderr.trim_end();
        assert!(
            line.starts_with(starts) && line.ends_with(ends),
            "{args:?}: {stderr}"
        );
        let mut rest = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut rest).unwrap();
        assert!(rest.contains(kept), "{args:?}: {rest}");
    }
}

#[test]
fn a_second_signal_right_after_the_first_still_says_how_to_resume() {
    let scratch_dir = scratch("two-signals");
    let journal = scratch_dir.path().join("j.ckpt");
    let child = StdCommand::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(["count", "24", "-j", "2", "--checkpoint"])
        .arg(&journal)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once counting has begun (a task journaled): before it a signal ends
    // the process with nothing to resume.
    common::await_journaled_task(&journal);
    for _ in 0..2 {
        let _ = StdCommand::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status();
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("resume with"), "{stderr}");
    assert!(stderr.contains("--checkpoint"), "{stderr}");
}
