//! Helpers shared by the integration tests.

#[cfg(feature = "gpu")]
pub mod fake_gpu;
pub mod pages;
pub mod process;
pub mod slurm;
pub mod wait;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use nqueens::run::journal::{Journal, JournalError, Resumed};
use nqueens::run::signing::RunKey;
use nqueens::{count_with_hooks, CountOptions, Method, Plan, RunHooks, SplitDepth};

/// The binary under test.
pub fn nqueens() -> Command {
    Command::cargo_bin("nqueens").unwrap()
}

/// A finished command's exit status, stdout and stderr (as text).
pub fn outcome(output: std::process::Output) -> (Option<i32>, String, String) {
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Runs a command expected to be refused as a usage error and returns its
/// single line of stderr.
pub fn usage_error(args: &[&str]) -> String {
    let output = nqueens().args(args).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{args:?}");
    assert!(output.stdout.is_empty(), "{args:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

/// Runs the binary with `args`, reads `read_first` bytes of its output, then
/// closes the pipe: the program must end with status 0 and say nothing.
pub fn closed_pipe_is_quiet(args: &[&str], read_first: usize) {
    use std::io::Read;
    use std::process::{Command as StdCommand, Stdio};
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = vec![0u8; read_first];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(status.success(), "{args:?}: {status:?} {stderr}");
    assert!(stderr.is_empty(), "{args:?}: {stderr}");
}

/// A fresh scratch directory per test, removed when the test ends.
pub fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("nqueens-{name}-"))
        .tempdir()
        .unwrap()
}

/// A scratch directory shared by a whole test process (held in a
/// `static`, which is never dropped, so never removed when the process
/// ends): made under Cargo's scratch folder for tests, not the system's,
/// with the process id in its name; the directories of this name left by
/// processes that have ended are removed first.
pub fn scratch_for_process(name: &str) -> tempfile::TempDir {
    let root = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let prefix = format!("nqueens-{name}-");
    if let Ok(entries) = std::fs::read_dir(root) {
        for entry in entries.flatten() {
            let file_name = entry.file_name();
            let owner = file_name
                .to_str()
                .and_then(|file| file.strip_prefix(&prefix))
                .and_then(|rest| rest.split('-').next())
                .and_then(|pid| pid.parse::<u32>().ok());
            let ended = owner.is_some_and(|pid| {
                std::path::Path::new("/proc/self").exists()
                    && !std::path::Path::new(&format!("/proc/{pid}")).exists()
            });
            if ended {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    tempfile::Builder::new()
        .prefix(&format!("{prefix}{}-", std::process::id()))
        .tempdir_in(root)
        .unwrap()
}

/// Counts every shard of `shards` of `count n` into its own result file in
/// `dir` (with the `extra` arguments), returning the files in shard order.
pub fn shard_files(dir: &Path, n: &str, shards: u64, extra: &[&str]) -> Vec<PathBuf> {
    (0..shards)
        .map(|index| {
            let tag: String = extra.concat();
            let out = dir.join(format!("shard-{n}{tag}-{index}-of-{shards}.json"));
            nqueens()
                .args(["count", n, "--shard", &format!("{index}/{shards}"), "--out"])
                .arg(&out)
                .args(extra)
                .assert()
                .success();
            out
        })
        .collect()
}

/// Options for `method` on `threads` threads, cut at `split_depth`, with the
/// default memory limit.
pub fn options(method: Method, threads: usize, split_depth: SplitDepth) -> CountOptions {
    CountOptions::default()
        .with_method(method)
        .with_threads(Some(threads))
        .with_split_depth(split_depth)
}

/// Solutions of the shard `index` of `shards` (tasks whose id is `index`
/// modulo `shards`), checking that the report calls itself incomplete.
pub fn shard_solutions(n: u32, options: &CountOptions, shards: u64, index: u64) -> u128 {
    let skip = move |id: u64| id % shards != index;
    let hooks = RunHooks::new().skip(&skip);
    let part = count_with_hooks(n, options, &hooks, |_| {}).unwrap();
    assert!(
        !part.complete,
        "n={n} shard {index}/{shards} reported complete"
    );
    part.solutions
}

/// 64-bit FNV-1a, the hash of the journal's checksums (a twin of the
/// program's, to craft sealed lines).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// `text` sealed as a line of the unkeyed journal whose first line is
/// `header_line` (with its own checksum): the checksum covers the header's
/// text, a newline and the line's text, so the line holds in that journal
/// alone.
pub fn seal_line(header_line: &str, text: &str) -> String {
    let header = header_line.rsplit_once(" #").unwrap().0;
    let bound = format!("{header}\n{text}");
    format!("{text} #{:016x}", fnv1a(bound.as_bytes()))
}

/// Waits until the journal at `path` holds a task line, for at most two
/// minutes, and fails the test if none came.
pub fn await_journaled_task(path: &Path) {
    assert!(
        wait_for_journaled_task(path, 0, std::time::Duration::from_secs(120)),
        "no task journaled in 2 minutes in {}",
        path.display()
    );
}

/// Waits until the journal at `path` holds more than `more_than` task
/// lines (its count, or its resumed count, has begun), for at most
/// `limit`: whether they came. A signal sent before meets a count still
/// building its plan, for seconds on a loaded machine.
pub fn wait_for_journaled_task(path: &Path, more_than: usize, limit: std::time::Duration) -> bool {
    wait::poll(limit, || (journaled_tasks(path) > more_than).then_some(())).is_some()
}

/// Task lines in the journal at `path` (none where there is no journal).
pub fn journaled_tasks(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|line| line.starts_with("task "))
        .count()
}

/// [`Journal::open_keyed`], waiting out a lock held for a moment by a
/// child of another test: a test that starts a process forks, and until
/// the child execs it shares every open file of this process, a journal
/// being opened (and locked) at that moment too, so the next open of the
/// same file reads as in use. Seen in CI runs of tests that open journals
/// many times.
pub fn open_journal(
    path: &Path,
    plan: &Plan,
    key: Option<&RunKey>,
) -> Result<(Journal, Resumed), JournalError> {
    wait::wait_until(
        "another test's child to let go of the journal's lock",
        std::time::Duration::from_secs(120),
        || match Journal::open_keyed(path, plan, &|_| true, key) {
            Err(JournalError::InUse { .. }) => None,
            opened => Some(opened),
        },
    )
}
