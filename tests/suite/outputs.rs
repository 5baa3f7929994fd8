//! Where a count writes its results: paths checked before anything is
//! counted, only regular files replaced, a full disk under standard output
//! or at the end of a shard, files made with the umask.

use std::path::Path;
use std::process::{Command as StdCommand, Stdio};
use std::time::{Duration, Instant};

use crate::common;

use common::{nqueens, scratch};

#[test]
fn output_paths_are_checked_before_anything_is_counted() {
    let scratch_dir = scratch("outputs");
    let dir = scratch_dir.path();
    let missing = dir.join("no-such-dir");
    let cases: [(Vec<std::ffi::OsString>, &str); 5] = [
        (
            vec!["--checkpoint".into(), missing.join("j.ckpt").into()],
            "checkpoint",
        ),
        (
            vec!["--profile".into(), missing.join("p.csv").into()],
            "cannot write the profile",
        ),
        (
            vec![
                "--shard".into(),
                "0/2".into(),
                "--out".into(),
                missing.join("s.json").into(),
            ],
            "cannot write the shard result",
        ),
        (
            vec!["--shard".into(), "0/2".into(), "--out".into(), dir.into()],
            "it is a directory",
        ),
        (
            vec![
                "--shard".into(),
                "0/2".into(),
                "--checkpoint".into(),
                dir.join("j.ckpt").into(),
                "--out".into(),
                missing.join("s.json").into(),
            ],
            "its directory does not exist",
        ),
    ];
    for (extra, expected) in cases {
        // N = 27 would take years: the refusal must come first.
        let started = Instant::now();
        let output = nqueens()
            .args(["count", "27", "-m", "d4"])
            .args(&extra)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(1), "{extra:?}: {stderr}");
        assert!(stderr.contains(expected), "{stderr}");
        assert!(stderr.contains("nothing was counted"), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(started.elapsed() < Duration::from_secs(30), "{extra:?}");
    }
    // Nothing was left in the directory but the journal's file.
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .filter(|name| name != "j.ckpt")
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn outputs_replace_only_regular_files_that_are_theirs() {
    // A device, a pipe, a socket-like special file, a directory or a
    // symbolic link at --out, --profile or among --out-dir's files is
    // refused before counting and left as it was (a temporary file renamed
    // over it had made /dev/null a regular file, as root).
    let scratch_dir = scratch("special-outputs");
    let dir = scratch_dir.path();
    let fifo = dir.join("pipe");
    assert!(StdCommand::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let target = dir.join("target.json");
    std::fs::write(&target, "theirs").unwrap();
    let link = dir.join("link.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    // A null device of our own where we may make one (root): replacing it
    // would harm nothing else.
    let device = dir.join("null");
    let have_device = StdCommand::new("mknod")
        .arg(&device)
        .args(["c", "1", "3"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success());
    if !have_device {
        eprintln!("cannot make a device node here (not root): that case SKIPPED");
    }
    let mut cases = vec![
        (fifo.clone(), "a pipe"),
        (link.clone(), "a symbolic link"),
        (dir.to_path_buf(), "a directory"),
    ];
    if have_device {
        cases.push((device.clone(), "a device"));
    }
    for (path, kind) in &cases {
        for option in [&["--shard", "0/2", "--out"][..], &["--profile"][..]] {
            let output = nqueens()
                .args(["count", "27", "-m", "d4"])
                .args(option)
                .arg(path)
                .output()
                .unwrap();
            let (code, _, stderr) = common::outcome(output);
            assert_eq!(code, Some(1), "{option:?} {path:?}: {stderr}");
            assert!(stderr.contains(kind), "{stderr}");
            assert!(stderr.contains("nothing was counted"), "{stderr}");
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
        }
    }
    use std::os::unix::fs::FileTypeExt;
    let kind = |path: &Path| std::fs::symlink_metadata(path).unwrap().file_type();
    assert!(kind(&fifo).is_fifo());
    assert!(kind(&link).is_symlink());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "theirs");
    if have_device {
        assert!(kind(&device).is_char_device());
    }
    // --out-dir: the directory must be one, and a file in it that is a
    // link is not written through.
    let svgs = dir.join("svgs");
    std::fs::create_dir(&svgs).unwrap();
    std::os::unix::fs::symlink(&target, svgs.join("queens-6-00000000.svg")).unwrap();
    let output = nqueens()
        .args(["list", "6", "--out-dir"])
        .arg(&svgs)
        .output()
        .unwrap();
    let (code, _, stderr) = common::outcome(output);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("a symbolic link"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "theirs");
    let output = nqueens()
        .args(["list", "6", "--out-dir"])
        .arg(&link)
        .output()
        .unwrap();
    let (code, _, stderr) = common::outcome(output);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("give a directory"), "{stderr}");
    // Without --format, --out-dir writes SVGs (as the README says).
    let fresh = dir.join("fresh");
    let output = nqueens()
        .args(["list", "6", "--out-dir"])
        .arg(&fresh)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(std::fs::read_dir(&fresh).unwrap().count(), 4);
}

#[test]
fn a_full_disk_under_standard_output_is_one_line_naming_the_output() {
    // Linux's /dev/full refuses every write with "no space left".
    if !Path::new("/dev/full").exists() {
        eprintln!("no /dev/full here; skipped");
        return;
    }
    let scratch_dir = scratch("full-merge");
    let shards = common::shard_files(scratch_dir.path(), "10", 2, &[]);
    let shard_args: Vec<&str> = shards.iter().map(|path| path.to_str().unwrap()).collect();
    let merge: Vec<&str> = ["merge"].into_iter().chain(shard_args.clone()).collect();
    let partial: Vec<&str> = ["merge", "--partial"]
        .into_iter()
        .chain(shard_args[..1].iter().copied())
        .collect();
    for args in [
        &["list", "10"][..],
        &["solve", "10"],
        &["plan", "12"],
        &["count", "12"],
        &merge,
        &partial,
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let output = StdCommand::new(env!("CARGO_BIN_EXE_nqueens"))
            .args(args)
            .stdout(Stdio::from(full))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("error: cannot write the "),
            "{args:?}: {stderr}"
        );
        assert!(
            stderr.contains("No space left on device"),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn a_shard_whose_file_cannot_be_written_at_the_end_still_prints_its_result() {
    let scratch_dir = scratch("late");
    let out_dir = scratch_dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let out = out_dir.join("s.json");
    // A count of some seconds; its output directory is removed meanwhile,
    // once a task is journaled (the path was checked before counting: a
    // removal before that would be refused at once).
    let journal = scratch_dir.path().join("j.ckpt");
    let child = StdCommand::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .args(["count", "16", "-m", "mirror", "-j", "1", "--shard", "0/1"])
        .arg("--out")
        .arg(&out)
        .arg("--checkpoint")
        .arg(&journal)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    common::await_journaled_task(&journal);
    std::fs::remove_dir(&out_dir).unwrap();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("it is printed above"), "{stderr}");
    let result: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["solutions"], 14772512, "{result}");
    // The printed result, saved, merges like the file would have.
    let saved = scratch_dir.path().join("saved.json");
    std::fs::write(&saved, &output.stdout).unwrap();
    let merged = nqueens().arg("merge").arg(&saved).output().unwrap();
    assert!(
        merged.status.success(),
        "{}",
        String::from_utf8_lossy(&merged.stderr)
    );
    assert!(String::from_utf8_lossy(&merged.stdout).contains("14772512"));
}

#[cfg(unix)]
#[test]
fn shard_files_are_created_with_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let scratch_dir = scratch("umask");
    let out = scratch_dir.path().join("s.json");
    let status = StdCommand::new("sh")
        .arg("-c")
        .arg(format!(
            "umask 022 && exec '{}' count 12 --shard 0/2 --out '{}'",
            assert_cmd::cargo::cargo_bin("nqueens").display(),
            out.display()
        ))
        .status()
        .unwrap();
    assert!(status.success());
    let mode = std::fs::metadata(&out).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644, "{mode:o}");
}
