//! Two runs held against each other: `compare` of journals and of shard files, through the real binary.

use std::path::{Path, PathBuf};

use crate::common;

use common::{nqueens, scratch, shard_files};

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
    // tests/suite/failpoints.rs.)
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
    lines[task_line] = common::seal_line(&lines[0], &body);
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

#[test]
fn one_file_on_both_sides_is_said_to_be_compared_with_itself() {
    let scratch_dir = scratch("compare-itself");
    let journal = scratch_dir.path().join("a.ckpt");
    nqueens()
        .args(["count", "10", "--checkpoint"])
        .arg(&journal)
        .assert()
        .success();
    let link = scratch_dir.path().join("b.ckpt");
    std::fs::hard_link(&journal, &link).unwrap();
    for other in [&journal, &link] {
        let output = nqueens()
            .arg("compare")
            .arg(&journal)
            .arg(other)
            .output()
            .unwrap();
        assert!(output.status.success());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.contains("are one file: it is compared with itself"),
            "{stderr}"
        );
    }
}
