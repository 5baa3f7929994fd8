//! Faults a hostile afternoon found: bytes that are not UTF-8 in a path,
//! one task recorded twice with different counts, pipes given as files, a
//! read-only filesystem, a scheduler's index that is not text. (Output
//! paths are in tests/suite/outputs.rs, signals in tests/suite/signals.rs.)

use std::path::Path;
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use crate::common;

use common::{nqueens, scratch, seal_line};

/// Runs `count 12 -m d4` on `journal`: (status, solutions printed, stderr).
fn count_12(journal: &Path) -> (Option<i32>, String, String) {
    let output = nqueens()
        .args(["count", "12", "-m", "d4", "--format", "csv", "--checkpoint"])
        .arg(journal)
        .output()
        .unwrap();
    let (code, stdout, stderr) = common::outcome(output);
    let solutions = stdout
        .lines()
        .last()
        .and_then(|line| line.split(',').nth(1))
        .unwrap_or_default()
        .to_string();
    (code, solutions, stderr)
}

/// A finished journal of `count 12 -m d4`, without its `complete` and
/// `session` lines: the header and the task lines.
fn task_lines(journal: &Path) -> Vec<String> {
    let (code, solutions, stderr) = count_12(journal);
    assert_eq!((code, solutions.as_str()), (Some(0), "14200"), "{stderr}");
    std::fs::read_to_string(journal)
        .unwrap()
        .lines()
        .filter(|line| !line.starts_with("complete ") && !line.starts_with("session "))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_line_cut_short_before_whole_lines_is_recovered_not_refused() {
    let scratch_dir = scratch("torn");
    let journal = scratch_dir.path().join("j.ckpt");
    let lines = task_lines(&journal);
    assert!(lines.len() > 8);
    for cut in [1, 7, lines[4].len() - 1] {
        // Line 5 (a task) written only in part, as on a full disk, and
        // whole lines written after it by other threads.
        let mut text = lines[..4].join("\n") + "\n";
        text.push_str(&lines[4][..cut]);
        text.push_str(&lines[5..].join("\n"));
        text.push('\n');
        std::fs::write(&journal, text).unwrap();
        let (code, solutions, stderr) = count_12(&journal);
        assert_eq!(code, Some(0), "cut at {cut}: {stderr}");
        assert_eq!(solutions, "14200", "cut at {cut}");
        assert!(
            stderr.contains("line(s) 5 begin with a write cut short"),
            "{stderr}"
        );
    }
    // Damage that is not a cut write is still refused.
    let mut text = lines.join("\n") + "\n";
    text = text.replacen(&lines[4], &lines[4].replacen(' ', "  ", 1), 1);
    std::fs::write(&journal, text).unwrap();
    let (code, _, stderr) = count_12(&journal);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("damaged at line 5"), "{stderr}");
}

#[test]
fn one_task_recorded_twice_with_different_counts_is_refused_naming_both() {
    let scratch_dir = scratch("conflict");
    let journal = scratch_dir.path().join("j.ckpt");
    let lines = task_lines(&journal);
    // `task ID solutions orbits o2 o4 o8 nodes micros #sum`
    let text = lines[3].rsplit_once(" #").unwrap().0;
    let mut fields: Vec<String> = text.split(' ').map(str::to_string).collect();
    let id = fields[1].clone();
    // The same record again, taken in another run: accepted.
    let mut same = lines.clone();
    fields[8] = "12345".to_string();
    same.push(seal_line(&lines[0], &fields.join(" ")));
    std::fs::write(&journal, same.join("\n") + "\n").unwrap();
    let (code, solutions, stderr) = count_12(&journal);
    assert_eq!((code, solutions.as_str()), (Some(0), "14200"), "{stderr}");
    // A record with one solution more: refused, both lines shown.
    let mut conflicting = lines.clone();
    let solutions: u64 = fields[2].parse().unwrap();
    fields[2] = (solutions + 1).to_string();
    conflicting.push(seal_line(&lines[0], &fields.join(" ")));
    let before = conflicting.join("\n") + "\n";
    std::fs::write(&journal, &before).unwrap();
    let (code, _, stderr) = count_12(&journal);
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("task {id} twice with different counts")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("line 4: {solutions} solutions")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "line {}: {} solutions",
            lines.len() + 1,
            solutions + 1
        )),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&journal).unwrap(), before);
}

#[cfg(unix)]
#[test]
fn a_path_that_is_not_utf8_is_quoted_in_the_resume_hint() {
    use std::os::unix::ffi::OsStrExt;
    let scratch_dir = scratch("bytes");
    let journal = scratch_dir
        .path()
        .join(std::ffi::OsStr::from_bytes(b"run \xff'.ckpt"));
    let child = StdCommand::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(["count", "16", "-m", "mirror", "-j", "1", "--checkpoint"])
        .arg(&journal)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for a finished task in the journal, then stop the count.
    common::wait::wait_for("a finished task", Duration::from_secs(120), || {
        std::fs::read_to_string(&journal).map_or(0, |text| text.lines().count()) >= 2
    });
    let _ = StdCommand::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    // The hint, run by a shell, resumes the same journal to the end.
    let hint = stderr
        .lines()
        .skip_while(|line| !line.contains("resume with:"))
        .nth(1)
        .unwrap_or_else(|| panic!("no resume hint: {stderr}"))
        .trim();
    assert!(hint.contains(r"$'"), "{hint}");
    let resumed = StdCommand::new("bash")
        .args(["-c", &format!("{hint} --format csv")])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&resumed.stdout);
    assert!(
        resumed.status.success(),
        "{}",
        String::from_utf8_lossy(&resumed.stderr)
    );
    assert!(stdout.contains(",14772512,"), "{stdout}");
}

#[test]
fn compare_and_merge_refuse_pipes_instead_of_waiting_on_them() {
    let scratch_dir = scratch("fifo");
    let fifo = scratch_dir.path().join("pipe");
    let made = StdCommand::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    for args in [vec!["merge"], vec!["compare", "/dev/null"]] {
        let started = Instant::now();
        let output = nqueens()
            .args(&args)
            .arg(&fifo)
            .timeout(Duration::from_secs(10))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains("is not a regular file"), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}

/// Runs `script` in `sh` with `dir` as $1; true if it succeeded.
fn sh(script: &str, dir: &Path) -> bool {
    StdCommand::new("sh")
        .args(["-c", script, "sh"])
        .arg(dir)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

#[test]
fn a_finished_journal_on_a_read_only_filesystem_is_read() {
    let scratch_dir = scratch("erofs");
    let mount = scratch_dir.path().join("mnt");
    std::fs::create_dir(&mount).unwrap();
    // A read-only filesystem needs a mount: root only (CI runs as root).
    if !sh("mount -t tmpfs -o size=4m tmpfs \"$1\"", &mount) {
        eprintln!("SKIPPED: cannot mount a tmpfs here (not root, or no mount rights)");
        return;
    }
    // Unmounted however the test ends.
    struct Unmount<'a>(&'a Path);
    impl Drop for Unmount<'_> {
        fn drop(&mut self) {
            sh("umount \"$1\"", self.0);
        }
    }
    let _unmount = Unmount(&mount);
    let journal = mount.join("done.ckpt");
    let (code, solutions, stderr) = count_12(&journal);
    // The same journal cut before its end: unfinished.
    let mut text = std::fs::read_to_string(&journal).unwrap();
    text.truncate(text.find("complete ").unwrap_or(text.len()));
    let half = mount.join("half.ckpt");
    std::fs::write(&half, &text).unwrap();
    let read_only = sh("mount -o remount,ro \"$1\"", &mount);
    let again = count_12(&journal);
    let half = count_12(&half);
    assert_eq!((code, solutions.as_str()), (Some(0), "14200"), "{stderr}");
    assert!(read_only);
    assert_eq!(
        (again.0, again.1.as_str()),
        (Some(0), "14200"),
        "{}",
        again.2
    );
    assert_eq!(half.0, Some(2), "{}", half.2);
    assert!(
        half.2
            .contains("is read-only and its count is not finished"),
        "{}",
        half.2
    );
}

#[test]
fn auto_says_when_join_does_not_fit_and_refuses_a_fallback_of_days() {
    // N = 24 in 1 KiB: d4 would take weeks on a few cores; refused at once.
    let started = Instant::now();
    let stderr = common::usage_error(&["count", "24", "--max-memory", "1K", "-j", "2"]);
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(
        stderr.contains("auto would count with d4: about"),
        "{stderr}"
    );
    assert!(stderr.contains("--allow-slow"), "{stderr}");
    // A fallback of seconds goes ahead, saying so on one line.
    let output = nqueens()
        .args(["count", "14", "--max-memory", "1K", "--format", "csv"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.starts_with("note: join needs "), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("\n14,365596,45752,"));
    // A method asked for by name is not second-guessed.
    let output = nqueens()
        .args(["count", "12", "-m", "d4", "--max-memory", "1K"])
        .output()
        .unwrap();
    assert!(output.status.success());
    assert!(output.stderr.is_empty());
    // Past join's range auto counts with d4 (for millennia): the first
    // line says so, before any progress.
    let mut child = StdCommand::new(env!("CARGO_BIN_EXE_nqueens"))
        .args(["count", "29", "--progress", "never", "-j", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stderr.take().unwrap()),
        &mut first,
    )
    .unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        first.starts_with(
            "note: N = 29 is past join's range (N <= 28), so auto counts with d4: roughly "
        ),
        "{first}"
    );
    assert!(first.contains(" years on these threads"), "{first}");
}

#[test]
fn a_scheduler_index_that_is_not_text_is_refused_as_one_that_is_not_a_number() {
    use std::os::unix::ffi::OsStrExt;
    let output = nqueens()
        .args(["count", "12"])
        .env("SLURM_ARRAY_TASK_ID", std::ffi::OsStr::from_bytes(b"\xff1"))
        .env("SLURM_ARRAY_TASK_COUNT", "4")
        .output()
        .unwrap();
    let (code, stdout, stderr) = common::outcome(output);
    assert_eq!(code, Some(2), "{stdout} {stderr}");
    assert!(stdout.is_empty(), "a whole count ran: {stdout}");
    assert!(
        stderr.contains("SLURM_ARRAY_TASK_ID=") && stderr.contains("is not a whole number"),
        "{stderr}"
    );
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}
