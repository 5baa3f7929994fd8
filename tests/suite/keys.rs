//! `--key FILE`: journal lines and shard files carry a keyed MAC, and a
//! coordinator given the key refuses results not made with it, where the
//! checksums alone take any edit whose checksum was recomputed.

use std::path::{Path, PathBuf};

use crate::common;

use common::{nqueens, outcome, scratch, usage_error};
use nqueens::run::shard::{checksum_of, ShardResult};

/// Writes a key file of `bytes` random-looking bytes.
fn key_file(dir: &Path, name: &str, bytes: usize) -> PathBuf {
    let path = dir.join(name);
    let secret: Vec<u8> = (0..bytes)
        .map(|i| (i as u8).wrapping_mul(97) ^ name.len() as u8)
        .collect();
    std::fs::write(&path, secret).unwrap();
    path
}

/// `count 12` with `args`: (status, stdout, stderr).
fn count_12(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    let output = nqueens()
        .args(["count", "12", "--format", "csv"])
        .args(args)
        .output()
        .unwrap();
    outcome(output)
}

#[test]
fn a_keyed_journal_is_read_only_with_its_key() {
    let scratch_dir = scratch("keyed-journal");
    let dir = scratch_dir.path();
    let key = key_file(dir, "run.key", 32);
    let other = key_file(dir, "other.key", 32);
    let journal = dir.join("j.ckpt");
    let with = |key: &Path| {
        count_12(&[
            "--checkpoint".as_ref(),
            journal.as_os_str(),
            "--key".as_ref(),
            key.as_os_str(),
        ])
    };
    let (code, stdout, stderr) = with(&key);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("\n12,14200,"), "{stdout}");
    let text = std::fs::read_to_string(&journal).unwrap();
    for line in text.lines() {
        let mac = line
            .rsplit_once(" #k")
            .map(|(_, mac)| mac)
            .unwrap_or_default();
        assert_eq!(mac.len(), 32, "{line}");
    }
    // Again with the key: the finished count is read.
    assert_eq!(with(&key).0, Some(0));
    // Without it, or with another: refused in one line.
    let (code, _, stderr) = count_12(&["--checkpoint".as_ref(), journal.as_os_str()]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("made with --key"), "{stderr}");
    let (code, _, stderr) = with(&other);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("does not match this key"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    // A task line edited and sealed again the only way an editor without
    // the key can (the unkeyed checksum): refused.
    let lines: Vec<&str> = text.lines().collect();
    let edited_text = lines[3]
        .rsplit_once(" #k")
        .unwrap()
        .0
        .replacen(' ', " 1", 2);
    let hash = edited_text
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| {
            (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
        });
    let mut forged = lines.clone();
    let forged_line = format!("{edited_text} #{hash:016x}");
    forged[3] = &forged_line;
    std::fs::write(&journal, forged.join("\n") + "\n").unwrap();
    let (code, _, stderr) = with(&key);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("damaged at line 4"), "{stderr}");
    // compare checks the MACs too.
    std::fs::write(&journal, &text).unwrap();
    nqueens()
        .arg("compare")
        .arg(&journal)
        .arg(&journal)
        .arg("--key")
        .arg(&key)
        .assert()
        .success();
    let output = nqueens()
        .arg("compare")
        .arg(&journal)
        .arg(&journal)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    // A journal made without a key is refused by a run with one.
    let plain = dir.join("plain.ckpt");
    assert_eq!(
        count_12(&["--checkpoint".as_ref(), plain.as_os_str()]).0,
        Some(0)
    );
    let (code, _, stderr) = count_12(&[
        "--checkpoint".as_ref(),
        plain.as_os_str(),
        "--key".as_ref(),
        key.as_os_str(),
    ]);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("made without a key"), "{stderr}");
}

#[test]
fn merge_with_the_key_takes_only_shards_made_with_it() {
    let scratch_dir = scratch("keyed-shards");
    let dir = scratch_dir.path();
    let key = key_file(dir, "run.key", 32);
    let shard = |index: u64, key: Option<&Path>| {
        let out = dir.join(format!("s{index}-{}.json", key.is_some()));
        let mut command = nqueens();
        command
            .args(["count", "12", "--shard", &format!("{index}/3"), "--out"])
            .arg(&out);
        if let Some(key) = key {
            command.arg("--key").arg(key);
        }
        command.assert().success();
        out
    };
    let keyed: Vec<PathBuf> = (0..3).map(|index| shard(index, Some(&key))).collect();
    let merge = |files: &[PathBuf], key: Option<&Path>| {
        let mut command = nqueens();
        command.args(["merge", "--format", "csv"]).args(files);
        if let Some(key) = key {
            command.arg("--key").arg(key);
        }
        command.output().unwrap()
    };
    let output = merge(&keyed, Some(&key));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("\n12,14200,"));
    // Without --key, as before: the checksums are checked.
    assert!(merge(&keyed, None).status.success());
    // One shard made without the key: refused by a merge with it.
    let mut mixed = keyed.clone();
    mixed[1] = shard(1, None);
    let output = merge(&mixed, Some(&key));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("carries no MAC"), "{stderr}");
    // One shard's count edited and its checksum made again: the checksum
    // passes, the MAC does not.
    let mut result: ShardResult =
        serde_json::from_str(&std::fs::read_to_string(&keyed[2]).unwrap()).unwrap();
    result.solutions += 8;
    result.checksum = Some(checksum_of(&result));
    let forged = dir.join("forged.json");
    std::fs::write(&forged, serde_json::to_string(&result).unwrap()).unwrap();
    let mut with_forged = keyed.clone();
    with_forged[2] = forged;
    assert!(
        !String::from_utf8_lossy(&merge(&with_forged, None).stderr).contains("checksum"),
        "the recomputed checksum holds"
    );
    let output = merge(&with_forged, Some(&key));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("MAC does not match this run's key"),
        "{stderr}"
    );
}

#[test]
fn bad_key_files_are_refused_in_one_line() {
    let scratch_dir = scratch("bad-keys");
    let dir = scratch_dir.path();
    let short = key_file(dir, "short.key", 5);
    let journal = dir.join("j.ckpt");
    let journal = journal.to_str().unwrap();
    let stderr = usage_error(&[
        "count",
        "12",
        "--checkpoint",
        journal,
        "--key",
        short.to_str().unwrap(),
    ]);
    assert!(stderr.contains("holds 5 bytes, fewer than 16"), "{stderr}");
    let missing = dir.join("missing.key");
    let stderr = usage_error(&["merge", "x.json", "--key", missing.to_str().unwrap()]);
    assert!(stderr.contains("cannot read"), "{stderr}");
    let stderr = usage_error(&["count", "12", "--key", short.to_str().unwrap()]);
    assert!(
        stderr.contains("add --checkpoint FILE or --shard I/K"),
        "{stderr}"
    );
}
