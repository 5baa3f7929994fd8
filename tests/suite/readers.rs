//! The readers of untrusted files, fed damaged and random input (a bounded
//! fuzz run on every test run): journals, shard result files and `check`
//! input. Each must answer with a result or a one-line refusal: no panic,
//! no hang, nothing allocated from a size it read.

use crate::common;

use std::io::Write;

use nqueens::run::journal::Journal;
use nqueens::run::shard::{check_plan, merge, ShardResult};
use nqueens::{Method, Plan, SplitDepth};
use proptest::prelude::*;

/// A real journal of N = 8 (mirror), as text.
fn real_journal(dir: &std::path::Path) -> Vec<u8> {
    let path = dir.join("real.ckpt");
    assert_cmd::Command::cargo_bin("nqueens")
        .unwrap()
        .args([
            "count",
            "8",
            "-m",
            "mirror",
            "--split-depth",
            "2",
            "--checkpoint",
        ])
        .arg(&path)
        .assert()
        .success();
    std::fs::read(path).unwrap()
}

/// One edit to a byte string: flip, insert, delete or cut.
#[derive(Clone, Debug)]
enum Edit {
    Flip(usize, u8),
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Cut(usize),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    let edit = prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| Edit::Flip(at, byte)),
        (any::<usize>(), prop::collection::vec(any::<u8>(), 0..40))
            .prop_map(|(at, bytes)| Edit::Insert(at, bytes)),
        (any::<usize>(), 0usize..60).prop_map(|(at, len)| Edit::Delete(at, len)),
        any::<usize>().prop_map(Edit::Cut),
    ];
    prop::collection::vec(edit, 1..6)
}

fn apply(bytes: &mut Vec<u8>, edits: &[Edit]) {
    for edit in edits {
        let len = bytes.len().max(1);
        match edit {
            Edit::Flip(at, byte) if !bytes.is_empty() => bytes[at % len] ^= byte,
            Edit::Insert(at, new) => {
                let at = at % (bytes.len() + 1);
                bytes.splice(at..at, new.iter().copied());
            }
            Edit::Delete(at, count) if !bytes.is_empty() => {
                let at = at % len;
                let end = (at + count).min(bytes.len());
                bytes.drain(at..end);
            }
            Edit::Cut(at) => bytes.truncate(at % (bytes.len() + 1)),
            _ => {}
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn damaged_journals_are_read_or_refused(edits in edits()) {
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = real_journal_cached(dir.path());
        apply(&mut bytes, &edits);
        let path = dir.path().join("damaged.ckpt");
        std::fs::File::create(&path).unwrap().write_all(&bytes).unwrap();
        let plan = Plan::build(8, Method::Mirror, SplitDepth::Rows(2)).unwrap();
        match common::open_journal(&path, &plan, None) {
            Ok((_, resumed)) => {
                // What it read is within the plan, and counted once.
                prop_assert!(resumed.finished() <= plan.tasks.len());
                prop_assert_eq!(resumed.prior.tasks_run, resumed.finished() as u64);
            }
            Err(err) => {
                let text = err.to_string();
                prop_assert_eq!(text.lines().count(), 1, "{}", text);
                prop_assert!(text.len() < 400, "{}", text);
            }
        }
    }

    #[test]
    fn random_bytes_are_no_journal(bytes in prop::collection::vec(any::<u8>(), 1..2000)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("random.ckpt");
        std::fs::write(&path, &bytes).unwrap();
        let plan = Plan::build(8, Method::Mirror, SplitDepth::Rows(2)).unwrap();
        // A random file is not a journal of this plan (a sealed header
        // cannot come by chance).
        prop_assert!(Journal::open(&path, &plan).is_err());
    }

    #[test]
    fn crafted_shard_files_are_merged_or_refused(
        field in 0usize..17,
        value in prop_oneof![
            any::<u64>().prop_map(|v| serde_json::json!(v)),
            any::<i64>().prop_map(|v| serde_json::json!(v)),
            Just(serde_json::json!(u64::MAX)),
            Just(serde_json::json!(1e300)),
            "[ -~]{0,30}".prop_map(|s| serde_json::json!(s)),
            Just(serde_json::json!(null)),
            Just(serde_json::json!([1, 2, 3])),
        ],
    ) {
        let plan = Plan::build(8, Method::Mirror, SplitDepth::Rows(2)).unwrap();
        let tasks = plan.tasks.len() as u64;
        let shard = |index: u64| serde_json::json!({
            "format": "nqueens-shard-v1", "fingerprint": plan.fingerprint_hex(), "n": 8,
            "method": "mirror", "split_depth": 2, "shard": index, "shards": 2,
            "tasks_in_plan": tasks, "tasks_done": tasks.div_ceil(2) - index * (tasks % 2),
            "solutions": 46, "orbits": 0, "orbit_sizes": [0, 0, 0], "nodes": 1000,
            "prefix_nodes": 10, "threads": 1, "seconds": 0.1,
        });
        let mut first = shard(0);
        let names: Vec<String> = first.as_object().unwrap().keys().cloned().collect();
        let name = &names[field % names.len()];
        first[name] = value;
        let parsed: Result<ShardResult, _> = serde_json::from_value(first);
        if let Ok(first) = parsed {
            let second: ShardResult = serde_json::from_value(shard(1)).unwrap();
            let files = [("a.json".to_string(), first), ("b.json".to_string(), second)];
            if let Ok(merged) = merge(&files) {
                // Whatever merges must also pass its plan's check, or be
                // refused in one line there.
                if let Err(err) = check_plan("a.json", &merged.first) {
                    prop_assert_eq!(err.lines().count(), 1);
                }
            }
        }
    }
}

fn real_journal_cached(dir: &std::path::Path) -> Vec<u8> {
    use std::sync::OnceLock;
    static REAL: OnceLock<Vec<u8>> = OnceLock::new();
    REAL.get_or_init(|| real_journal(dir)).clone()
}

#[test]
fn the_unedited_shards_merge() {
    // The base the crafted files are made from is itself sound, so the
    // crafted cases test refusals of real damage.
    let plan = Plan::build(8, Method::Mirror, SplitDepth::Rows(2)).unwrap();
    let tasks = plan.tasks.len() as u64;
    let shard = |index: u64| -> ShardResult {
        serde_json::from_value(serde_json::json!({
            "format": "nqueens-shard-v1", "fingerprint": plan.fingerprint_hex(), "n": 8,
            "method": "mirror", "split_depth": 2, "shard": index, "shards": 2,
            "tasks_in_plan": tasks, "tasks_done": tasks.div_ceil(2) - index * (tasks % 2),
            "solutions": 46, "orbits": 0, "orbit_sizes": [0, 0, 0], "nodes": 1000,
            "prefix_nodes": 10, "threads": 1, "seconds": 0.1,
        }))
        .unwrap()
    };
    let files = [("a".to_string(), shard(0)), ("b".to_string(), shard(1))];
    let merged = merge(&files).unwrap();
    assert_eq!(merged.solutions, 92);
    check_plan("a", &merged.first).unwrap();
}

#[test]
fn check_takes_random_bytes_line_by_line() {
    // Through the binary: any bytes give a summary and exit 0 or 1.
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(40));
    runner
        .run(&prop::collection::vec(any::<u8>(), 0..3000), |bytes| {
            let not_text = bytes.contains(&0);
            let output = assert_cmd::Command::cargo_bin("nqueens")
                .unwrap()
                .args(["check", "-"])
                .write_stdin(bytes)
                .timeout(std::time::Duration::from_secs(20))
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&output.stderr);
            prop_assert!(matches!(output.status.code(), Some(0 | 1)), "{}", stderr);
            if not_text {
                // Not text: one line naming the line with the NUL byte
                // (what came before it is checked and printed).
                prop_assert!(
                    stderr.starts_with("error: cannot read standard input: line "),
                    "{}",
                    stderr
                );
                prop_assert!(stderr.contains("holds a NUL byte"), "{}", stderr);
                prop_assert_eq!(stderr.lines().count(), 1, "{}", stderr);
            } else {
                prop_assert!(stderr.starts_with("checked "), "{}", stderr);
            }
            // Quoted input reaches the terminal escaped: no control bytes.
            prop_assert!(!output
                .stdout
                .iter()
                .any(|&byte| byte < 0x20 && byte != b'\n'));
            Ok(())
        })
        .unwrap();
}

#[cfg(unix)]
#[test]
fn check_reads_a_line_of_any_length_in_bounded_memory() {
    use std::process::{Command as StdCommand, Stdio};
    // 110 million columns on one line (220 MB): past the most a line may
    // hold, so refused as it is read. Kept as 8-byte columns it needed
    // 1.5 GB while growing; under a 1 GB address-space limit it must pass.
    let mut child = StdCommand::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 1000000 && exec '{}' check",
            assert_cmd::cargo::cargo_bin("nqueens").display()
        ))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let chunk = b"0 ".repeat(1 << 20);
        for _ in 0..110 {
            stdin.write_all(&chunk)?;
        }
        stdin.write_all(b"\n1 3 0 2\n")
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stdout.contains("line 1: invalid: more than 100000000 columns"),
        "{stdout}"
    );
    assert!(
        stderr.contains("checked 2 boards: 1 valid, 1 invalid"),
        "{stderr}"
    );
}

#[test]
fn a_journal_line_cut_at_every_byte_with_whole_lines_after_it_is_recovered() {
    // A write cut short by a full disk, and other threads' whole lines after
    // it: at every cut of every task line, the journal is read, the cut task
    // alone is not counted, and the rest sum as before.
    let dir = tempfile::tempdir().unwrap();
    let plan = Plan::build(8, Method::Mirror, SplitDepth::Rows(2)).unwrap();
    let text = String::from_utf8(real_journal_cached(dir.path())).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .filter(|line| !line.starts_with("complete ") && !line.starts_with("session "))
        .collect();
    let path = dir.path().join("cut.ckpt");
    let read = |text: &str| {
        std::fs::write(&path, text).unwrap();
        common::open_journal(&path, &plan, None).map(|(_, resumed)| resumed)
    };
    let whole = read(&(lines.join("\n") + "\n")).unwrap();
    let mut cuts = 0;
    for torn in 1..lines.len() - 1 {
        for cut in 0..=lines[torn].len() {
            let mut text = lines[..torn].join("\n") + "\n";
            text.push_str(&lines[torn][..cut]);
            if cut == lines[torn].len() {
                // The whole line but its newline: then it is whole.
                text.push('\n');
            }
            text.push_str(&(lines[torn + 1..].join("\n") + "\n"));
            let resumed =
                read(&text).unwrap_or_else(|err| panic!("line {torn} cut at {cut}: {err}"));
            let lost = usize::from(cut < lines[torn].len());
            assert_eq!(
                resumed.finished(),
                whole.finished() - lost,
                "line {torn} cut at {cut}"
            );
            if lost == 0 {
                assert_eq!(resumed.prior, whole.prior);
            } else {
                assert!(resumed.prior.solutions <= whole.prior.solutions);
                assert_eq!(
                    resumed.torn_lines.len(),
                    usize::from(cut > 0),
                    "line {torn} cut at {cut}"
                );
            }
            cuts += 1;
        }
    }
    assert!(cuts > 100, "{cuts}");
}
