//! Shards: result files, merge, scheduler environments, plans and profiles, the Slurm and Kubernetes recipes, through the real binary.

use std::path::{Path, PathBuf};
use std::process::Command as StdCommand;

mod common;

use common::{nqueens, scratch, shard_files};

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
            if (run, index) == ("a", 0) {
                // While the array runs: how far it is.
                let progress = step("a", None, &["progress"], None);
                let stdout = String::from_utf8_lossy(&progress.stdout);
                assert!(progress.status.success(), "{stdout}");
                assert!(stdout.contains("1 of 3 shards merged"), "{stdout}");
                assert!(stdout.contains("missing: shards 1, 2"), "{stdout}");
            }
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
fn shards_carry_their_parts_of_p_and_r_and_merge_checks_them() {
    use nqueens::run::shard::{checksum_of, ShardResult};
    use nqueens::testing::symmetric::{count_symmetric, Turn};
    let scratch_dir = scratch("turns");
    let dir = scratch_dir.path();
    let files = shard_files(dir, "16", 5, &[]);
    let read = |path: &Path| -> ShardResult {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let write = |path: &Path, result: ShardResult| {
        let result = ShardResult {
            checksum: Some(checksum_of(&ShardResult {
                checksum: None,
                ..result.clone()
            })),
            ..result
        };
        std::fs::write(path, serde_json::to_string(&result).unwrap()).unwrap();
    };
    let parts: Vec<[u128; 2]> = files
        .iter()
        .map(|path| {
            read(path)
                .turn_fixed_part
                .expect("every shard carries its part")
        })
        .collect();
    let sum = |turn: usize| parts.iter().map(|part| part[turn]).sum::<u128>();
    assert_eq!(sum(0), u128::from(count_symmetric(16, Turn::Half)));
    assert_eq!(sum(1), u128::from(count_symmetric(16, Turn::Quarter)));
    // Several shards' parts are not empty: the search is shared.
    assert!(
        parts.iter().filter(|part| part[0] > 0).count() >= 3,
        "{parts:?}"
    );
    let expected = "\n16,14772512,1846955,";
    let merge_csv = |files: &[PathBuf]| {
        nqueens()
            .args(["merge", "--format", "csv"])
            .args(files)
            .output()
            .unwrap()
    };
    let output = merge_csv(&files);
    assert!(String::from_utf8_lossy(&output.stdout).contains(expected));
    // Files of an earlier version carry no parts: the merge searches.
    let old: Vec<PathBuf> = files
        .iter()
        .enumerate()
        .map(|(index, path)| {
            let copy = dir.join(format!("old-{index}.json"));
            write(
                &copy,
                ShardResult {
                    turn_fixed_part: None,
                    ..read(path)
                },
            );
            copy
        })
        .collect();
    let output = merge_csv(&old);
    assert!(output.status.success());
    assert!(String::from_utf8_lossy(&output.stdout).contains(expected));
    // A part changed with its checksum made again (a forgery, or a fault
    // in that shard's search) breaks Burnside's lemma: refused, exit 3.
    let mut forged = files.clone();
    let mut result = read(&files[2]);
    result.turn_fixed_part = result
        .turn_fixed_part
        .map(|[half, quarter]| [half + 2, quarter]);
    forged[2] = dir.join("forged.json");
    write(&forged[2], result);
    let output = merge_csv(&forged);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("break Burnside's lemma"), "{stderr}");
}

#[test]
fn the_committed_n23_shards_are_sound_and_listed() {
    // docs/data/q23 holds N = 23 counted shard by shard over several
    // sessions: every file there must be an undamaged, complete shard of
    // the current plan, listed with its count in the directory's README,
    // and once all 32 are there they must sum to the published Q(23).
    use nqueens::run::shard::{check_checksum, check_plan, check_together, merge, ShardResult};
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/data/q23");
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let mut results: Vec<(String, ShardResult)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .map(|path| {
            let name = path.display().to_string();
            let text = std::fs::read_to_string(&path).unwrap();
            (name, serde_json::from_str(&text).unwrap())
        })
        .collect();
    assert!(!results.is_empty(), "no shard files in {}", dir.display());
    results.sort_by_key(|(_, result)| result.shard);
    check_together(&results).unwrap();
    check_plan(&results[0].0, &results[0].1).unwrap();
    let total = nqueens::published::total(23).unwrap();
    for (name, result) in &results {
        check_checksum(name, result).unwrap();
        assert_eq!((result.n, result.shards), (23, 32), "{name}");
        let expected_tasks = (result.tasks_in_plan - result.shard).div_ceil(32);
        assert_eq!(result.tasks_done, expected_tasks, "{name} is incomplete");
        // Interleaved shards hold alike shares of the count (they differ
        // by 0.3% at most so far): a shard far off counted wrong.
        let share = result.solutions as f64 * 32.0 / total as f64;
        assert!((share - 1.0).abs() < 0.01, "{name}: {share}");
        // Its README row: "| shard | solutions (with commas) |".
        let digits = result.solutions.to_string();
        let grouped: Vec<String> = digits
            .as_bytes()
            .rchunks(3)
            .rev()
            .map(|group| String::from_utf8(group.to_vec()).unwrap())
            .collect();
        let row = format!("| {} | {} |", result.shard, grouped.join(","));
        assert!(readme.contains(&row), "README.md lacks the row {row}");
    }
    let rows = readme
        .lines()
        .filter(|line| {
            line.starts_with("| ") && line[2..].starts_with(|c: char| c.is_ascii_digit())
        })
        .count();
    assert_eq!(rows, results.len(), "README.md rows against shard files");
    if results.len() == 32 {
        assert_eq!(merge(&results).unwrap().solutions, total);
    }
}

#[test]
fn a_partial_merge_checks_the_files_given_and_says_what_is_missing() {
    let scratch_dir = scratch("merge-partial");
    let dir = scratch_dir.path();
    let files = shard_files(dir, "12", 3, &[]);
    let solutions = |path: &PathBuf| -> u64 {
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        json["solutions"].as_u64().unwrap()
    };
    let given = solutions(&files[0]) + solutions(&files[2]);
    let out = nqueens()
        .args(["merge", "--partial"])
        .args([&files[0], &files[2]])
        .assert()
        .success();
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(text.contains("2 of 3 shards merged"), "{text}");
    assert!(
        text.contains(&format!("solutions in them: {given}\n")),
        "{text}"
    );
    assert!(text.contains("missing: shard 1\n"), "{text}");
    let out = nqueens()
        .args(["merge", "--partial", "--format", "json"])
        .args([&files[2], &files[0]])
        .assert()
        .success();
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(json["solutions"], given.to_string());
    assert_eq!(
        (
            json["shards_given"].as_u64(),
            json["missing_count"].as_u64()
        ),
        (Some(2), Some(1))
    );
    assert_eq!(json["missing_first"], serde_json::json!([1]));
    let done = json["tasks_done"].as_f64().unwrap() / json["tasks_in_plan"].as_f64().unwrap();
    let projected = json["projected_task_seconds"].as_f64().unwrap();
    assert!(
        (projected * done - json["task_seconds"].as_f64().unwrap()).abs()
            < 1e-6 * projected.max(1.0)
    );
    // Every file given is checked as for the total: a damaged one is
    // named while its shard can still be counted again.
    let damaged = crafted(
        dir,
        &files[2],
        "solutions",
        &(solutions(&files[2]) + 1).to_string(),
    );
    let output = nqueens()
        .args(["merge", "--partial"])
        .args([&files[0], &damaged])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("damaged or was edited"), "{stderr}");
    // Complete, it is the merge; CSV is refused in one line.
    nqueens()
        .args(["merge", "--partial", "--format", "csv"])
        .args(&files)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("not CSV"));
    nqueens()
        .args(["merge", "--partial"])
        .args(&files)
        .assert()
        .success()
        .stdout(predicates::str::contains("14200"));
}
