//! Checkpoints, signals, shards and merge, through the real binary.

use std::path::{Path, PathBuf};
use std::process::{Command as StdCommand, Stdio};
use std::time::Duration;

use assert_cmd::Command;

fn nqueens() -> Command {
    Command::cargo_bin("nqueens").unwrap()
}

/// A fresh scratch directory per test, removed when the test ends.
fn scratch(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("nqueens-{name}-"))
        .tempdir()
        .unwrap()
}

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

/// Starts a long checkpointed count, lets it work for `after`, sends
/// `signal`, and returns its exit status and stderr.
fn interrupt(journal: &Path, signal: &str, after: Duration) -> (Option<i32>, String) {
    let child = StdCommand::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(LONG_COUNT)
        .arg(journal)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(after);
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
        let (code, stderr) = interrupt(&journal, signal, Duration::from_millis(500));
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

#[test]
fn a_read_only_journal_prints_a_finished_count_and_refuses_an_unfinished_one() {
    let scratch_dir = scratch("read-only");
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
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
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
    assert!(stderr.len() < 300, "{stderr}");

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
    assert!(stderr.contains("dropped a torn last line"), "{stderr}");
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

fn shard_files(dir: &Path, n: &str, shards: u64, extra: &[&str]) -> Vec<PathBuf> {
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

#[test]
fn shards_merge_to_the_published_total() {
    let scratch_dir = scratch("shards");
    let dir = scratch_dir.path();
    for shards in [1u64, 3, 7] {
        let files = shard_files(dir, "13", shards, &[]);
        nqueens()
            .args(["merge", "--format", "csv"])
            .args(&files)
            .assert()
            .success()
            .stdout(predicates::str::contains("\n13,73712,9233,136,8,join,"));
    }
    let mirror = shard_files(dir, "12", 3, &["-m", "mirror"]);
    // The text report says what its threads and seconds are, and the core
    // time: the sum of the shards' task seconds.
    let out = nqueens().arg("merge").args(&mirror).assert().success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains("merged 3 shards: threads summed over them"),
        "{text}"
    );
    let task_seconds: f64 = mirror
        .iter()
        .map(|path| {
            let record: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
            let seconds = record["task_seconds"].as_f64().unwrap();
            assert!(seconds > 0.0, "{record}");
            assert!(record["total_seconds"].as_f64().unwrap() > 0.0, "{record}");
            seconds
        })
        .sum();
    assert!(
        text.contains(&format!("{task_seconds:.3} core-seconds of tasks in all")),
        "{task_seconds}: {text}"
    );
}

#[test]
fn merge_refuses_missing_duplicate_and_foreign_shards() {
    let scratch_dir = scratch("merge-bad");
    let dir = scratch_dir.path();
    let files = shard_files(dir, "12", 3, &[]);
    let refuse = |args: Vec<&PathBuf>, needle: &str| {
        let output = nqueens().arg("merge").args(args).output().unwrap();
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(needle), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    };
    refuse(vec![&files[0], &files[2]], "missing shards of 3: 1");
    refuse(
        vec![&files[0], &files[1], &files[1], &files[2]],
        "more than once: 1",
    );
    let other = shard_files(dir, "12", 3, &["-m", "mirror"]);
    refuse(vec![&files[0], &other[1], &files[2]], "from another run");
    let junk = dir.join("junk.json");
    std::fs::write(&junk, "{}").unwrap();
    refuse(vec![&junk], "not an nqueens shard file");
}

/// Copies the shard file `from` with `field` set to `value` (JSON text)
/// into a new file of `dir`.
fn crafted(dir: &Path, from: &Path, field: &str, value: &str) -> PathBuf {
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(from).unwrap()).unwrap();
    // Numbers past u64 do not fit a JSON value: put the text in afterwards.
    json[field] = serde_json::Value::String("VALUE".to_string());
    let text = json.to_string().replace("\"VALUE\"", value);
    let stem = from.file_stem().unwrap().to_string_lossy();
    let path = dir.join(format!("crafted-{stem}-{field}-{}.json", value.len()));
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn merge_refuses_crafted_files_without_panicking() {
    let scratch_dir = scratch("merge-crafted");
    let dir = scratch_dir.path();
    let files = shard_files(dir, "12", 3, &[]);
    let refuse = |args: &[&PathBuf], needle: &str| {
        let output = nqueens().arg("merge").args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{needle}: {stderr}");
        assert!(stderr.contains(needle), "{needle}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    };
    let (zero, two) = (&files[0], &files[2]);
    let no_shards = crafted(dir, zero, "shards", "0");
    refuse(&[&no_shards], "0 shards");
    let past = crafted(dir, zero, "shard", "7");
    refuse(&[&past], "shard 7 is out of range for 3 shards");
    // A huge shard count is answered at once, naming a few missing shards.
    let many: Vec<PathBuf> = files
        .iter()
        .map(|file| crafted(dir, file, "shards", "100000000"))
        .collect();
    refuse(&[&many[0]], "missing shards of 100000000: 1, 2, 3");
    // A count changed to overflow the sum, and files whose plan is made up.
    let huge = crafted(dir, &files[1], "solutions", &u128::MAX.to_string());
    refuse(&[zero, &huge, two], "overflows");
    let forged: Vec<PathBuf> = files
        .iter()
        .map(|file| crafted(dir, file, "fingerprint", "\"0123456789abcdef\""))
        .collect();
    refuse(
        &[&forged[0], &forged[1], &forged[2]],
        "does not match the plan it names",
    );
    let big_n: Vec<PathBuf> = files
        .iter()
        .map(|file| crafted(dir, file, "n", "200"))
        .collect();
    refuse(
        &[&big_n[0], &big_n[1], &big_n[2]],
        "N = 200 is out of range",
    );
    // A file far larger than any shard file is not read whole.
    let large = dir.join("large.json");
    std::fs::write(&large, vec![b' '; 1 << 20]).unwrap();
    refuse(&[&large], "larger than");
    // A count changed within range: only the checksum tells.
    let changed = crafted(dir, &files[1], "solutions", "1");
    refuse(
        &[zero, &changed, two],
        "its checksum does not match its contents",
    );
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&files[1]).unwrap()).unwrap();
    json.as_object_mut().unwrap().remove("checksum");
    let unsealed = dir.join("unsealed.json");
    std::fs::write(&unsealed, json.to_string()).unwrap();
    refuse(&[zero, &unsealed, two], "has no checksum");
    // The real files still merge.
    nqueens().arg("merge").args(&files).assert().success();
}

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
fn join_tasks_in_flight_are_abandoned_on_interrupt() {
    // A task of N = 26 takes half a minute to minutes; after SIGINT the
    // run must not wait for the tasks in flight, and must not journal them.
    let scratch_dir = scratch("abandon");
    let journal = scratch_dir.path().join("j.ckpt");
    let started = std::time::Instant::now();
    let child = StdCommand::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(["count", "26", "-j", "2", "--checkpoint"])
        .arg(&journal)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_secs(3));
    let _ = StdCommand::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let output = child.wait_with_output().unwrap();
    let elapsed = started.elapsed();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("resume with"), "{stderr}");
    assert!(
        elapsed < Duration::from_secs(15),
        "took {elapsed:?}: {stderr}"
    );
    // The journal holds the tasks that finished (the first row sets are
    // small), each once, and the run says how many.
    let text = std::fs::read_to_string(&journal).unwrap();
    let finished = text
        .lines()
        .filter(|line| line.starts_with("task "))
        .count();
    let tasks = nqueens::search::join::JoinTasks::new(26).len();
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
        std::thread::sleep(Duration::from_secs(2));
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

/// Journals of `n` counted whole and in two shards, in `dir`.
fn whole_and_shard_journals(dir: &Path, n: &str, method: &str) -> (PathBuf, Vec<PathBuf>) {
    let whole = dir.join(format!("whole-{n}-{method}.ckpt"));
    nqueens()
        .args(["count", n, "-m", method, "--checkpoint"])
        .arg(&whole)
        .assert()
        .success();
    let shards: Vec<PathBuf> = (0..2)
        .map(|index| {
            let journal = dir.join(format!("shard-{n}-{method}-{index}.ckpt"));
            nqueens()
                .args(["count", n, "-m", method, "-j", "1"])
                .arg("--shard")
                .arg(format!("{index}/2"))
                .arg("--checkpoint")
                .arg(&journal)
                .arg("--out")
                .arg(dir.join(format!("shard-{n}-{method}-{index}.json")))
                .assert()
                .success();
            journal
        })
        .collect();
    (whole, shards)
}

#[test]
fn compare_agrees_across_runs_and_names_what_is_missing() {
    let scratch_dir = scratch("compare");
    let dir = scratch_dir.path();
    for method in ["join", "d4"] {
        let (whole, shards) = whole_and_shard_journals(dir, "13", method);
        // Two threads against one, whole against shards.
        let out = nqueens()
            .arg("compare")
            .arg(&whole)
            .arg("--with")
            .args(&shards)
            .assert()
            .success();
        let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        assert!(text.contains("agree: every task"), "{text}");
        assert!(text.contains("by neither"), "{text}");
        // One shard alone: the other shard's tasks are only in the first.
        let out = nqueens()
            .args(["compare", "--format", "json"])
            .arg(&whole)
            .arg(&shards[0])
            .assert()
            .success();
        let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        let tasks = json["tasks"].as_u64().unwrap();
        assert_eq!(json["agree"], true);
        assert_eq!(json["held_first"].as_u64(), Some(tasks));
        assert_eq!(json["held_second"].as_u64(), Some(tasks.div_ceil(2)));
        assert_eq!(json["only_first"]["count"].as_u64(), Some(tasks / 2));
        // Shard 1 holds the odd tasks: task 1 is the first missing.
        assert_eq!(json["only_first"]["first"][0], 1);
    }
    // Different plans do not compare.
    let whole_join = dir.join("whole-13-join.ckpt");
    let whole_d4 = dir.join("whole-13-d4.ckpt");
    nqueens()
        .arg("compare")
        .arg(&whole_join)
        .arg(&whole_d4)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("only runs of one plan compare"));
}

#[test]
fn compare_catches_a_task_counted_wrong() {
    let scratch_dir = scratch("compare-wrong");
    let dir = scratch_dir.path();
    let (whole, _) = whole_and_shard_journals(dir, "12", "join");
    // A task line altered by hand breaks its seal: refused, not compared.
    let text = std::fs::read_to_string(&whole).unwrap();
    let altered = dir.join("altered.ckpt");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[3] = lines[3].replacen("task ", "task 1", 1);
    std::fs::write(&altered, lines.join("\n") + "\n").unwrap();
    nqueens()
        .arg("compare")
        .arg(&whole)
        .arg(&altered)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("damaged at line 4"));
    // A sealed line with another count for a task: a disagreement, named
    // with both counts, exit 3. (A run with a fault injected is in
    // tests/failpoints.rs.)
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let task_line = lines
        .iter()
        .position(|line| line.starts_with("task 7 "))
        .unwrap();
    let fields: Vec<&str> = lines[task_line].split(' ').collect();
    let solutions: u64 = fields[2].parse().unwrap();
    let body = format!(
        "task 7 {} {}",
        solutions + 2,
        fields[3..fields.len() - 1].join(" ")
    );
    lines[task_line] = format!("{body} #{:016x}", fnv1a(body.as_bytes()));
    let wrong = dir.join("wrong.ckpt");
    std::fs::write(&wrong, lines.join("\n") + "\n").unwrap();
    let out = nqueens()
        .arg("compare")
        .arg(&whole)
        .arg(&wrong)
        .assert()
        .code(3);
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        stdout.contains(&format!(
            "task 7: first {solutions} solutions; second {} solutions",
            solutions + 2
        )),
        "{stdout}"
    );
    assert!(stderr.contains("first task 7"), "{stderr}");
    // Within one run, two lines of one task that differ disagree too.
    let both = lines.join("\n") + "\n" + text.lines().nth(task_line).unwrap() + "\n";
    let twice = dir.join("twice.ckpt");
    std::fs::write(&twice, both).unwrap();
    nqueens()
        .arg("compare")
        .arg(&twice)
        .arg(&whole)
        .assert()
        .code(3);
    // A run cut short compares: what it lacks is named.
    let short = dir.join("short.ckpt");
    let head: Vec<&str> = text.lines().take(5).collect();
    std::fs::write(&short, head.join("\n") + "\n").unwrap();
    let out = nqueens()
        .arg("compare")
        .arg(&whole)
        .arg(&short)
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(stdout.contains("only in the first"), "{stdout}");
}

/// 64-bit FNV-1a, the seal of every journal line (a twin of the one the
/// program uses, to craft sealed lines).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3)
    })
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
    while std::fs::metadata(&journal).map_or(0, |m| m.len()) == 0 {
        std::thread::sleep(Duration::from_millis(10));
    }
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

#[test]
fn compare_takes_two_sets_of_shard_files() {
    let scratch_dir = scratch("compare-shards");
    let dir = scratch_dir.path();
    let a = shard_files(dir, "12", 3, &["-m", "join", "-j", "1"]);
    let b = shard_files(dir, "12", 3, &["-m", "join", "-j", "2"]);
    // Two runs, other thread counts: every shard agrees.
    let out = nqueens()
        .arg("compare")
        .args(&a)
        .arg("--with")
        .args(&b)
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains("in 3 shards"), "{text}");
    assert!(
        text.contains("held: 3 shards by the first run, 3 by the second, 3 by both"),
        "{text}"
    );
    assert!(text.contains("agree: every shard"), "{text}");
    // A side missing a shard: named, still agreeing.
    let out = nqueens()
        .args(["compare", "--format", "json"])
        .args(&a)
        .arg("--with")
        .args(&b[..2])
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(json["agree"], true);
    assert_eq!(json["in_both"], 2);
    assert_eq!(json["only_first"]["first"][0], 2);
    // A journal against shard files: refused, in one line.
    let journal = dir.join("whole.ckpt");
    nqueens()
        .args(["count", "12", "-m", "join", "--checkpoint"])
        .arg(&journal)
        .assert()
        .success();
    nqueens()
        .arg("compare")
        .arg(&journal)
        .arg(&a[0])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("not a mix"));
    // Another split of the same plan: shard by shard means nothing.
    let other = shard_files(dir, "12", 2, &["-m", "join"]);
    nqueens()
        .arg("compare")
        .args(&a)
        .arg("--with")
        .args(&other)
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "only shards of one split compare",
        ));
    // A shard file with its digest changed, resealed as if a machine had
    // counted one of its tasks differently: the shard is named, exit 3.
    let mut edited: nqueens::run::shard::ShardResult =
        serde_json::from_str(&std::fs::read_to_string(&b[1]).unwrap()).unwrap();
    edited.task_digest = Some("0123456789abcdef".to_string());
    edited.checksum = Some(nqueens::run::shard::checksum_of(&edited));
    let wrong = dir.join("wrong1.json");
    std::fs::write(&wrong, serde_json::to_string_pretty(&edited).unwrap()).unwrap();
    let out = nqueens()
        .arg("compare")
        .arg(&a[1])
        .arg(&wrong)
        .assert()
        .code(3)
        .stderr(predicates::str::contains("first shard 1"));
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains("DISAGREE: 1 shard(s)"), "{text}");
    assert!(text.contains("  shard 1: first "), "{text}");
    // A file of an earlier version (no digest) says what to do instead.
    edited.task_digest = None;
    edited.checksum = Some(nqueens::run::shard::checksum_of(&edited));
    std::fs::write(&wrong, serde_json::to_string_pretty(&edited).unwrap()).unwrap();
    nqueens()
        .arg("compare")
        .arg(&a[1])
        .arg(&wrong)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("carries no task digest"));
}
