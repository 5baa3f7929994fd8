//! Merging shard results through the real binary: totals, refusals of
//! missing, foreign and crafted files, P and R, partial merges and the
//! committed N = 23 shards.

use std::path::{Path, PathBuf};

use crate::common;

use common::{nqueens, scratch, shard_files};

/// A shard file as JSON.
fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Runs `merge` over `files` and asserts it is refused with exit 2 and
/// one stderr line holding `needle`.
fn refuse_merge(files: &[&PathBuf], needle: &str) {
    let output = nqueens().arg("merge").args(files).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{needle}: {stderr}");
    assert!(stderr.contains(needle), "{needle}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// Copies the shard file `from` with `field` set to `value` (JSON text)
/// into a new file of `dir`.
fn crafted(dir: &Path, from: &Path, field: &str, value: &str) -> PathBuf {
    let mut json = read_json(from);
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
            .stdout(predicates::str::contains("\n13,73712,9233,136,8,d4,"));
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
            let record = read_json(path);
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
    refuse_merge(&[&files[0], &files[2]], "missing shards of 3: 1");
    refuse_merge(
        &[&files[0], &files[1], &files[1], &files[2]],
        "more than once: 1",
    );
    let other = shard_files(dir, "12", 3, &["-m", "mirror"]);
    refuse_merge(&[&files[0], &other[1], &files[2]], "from another run");
    let junk = dir.join("junk.json");
    std::fs::write(&junk, "{}").unwrap();
    refuse_merge(&[&junk], "not an nqueens shard file");
}

#[test]
fn merge_refuses_crafted_files_without_panicking() {
    let scratch_dir = scratch("merge-crafted");
    let dir = scratch_dir.path();
    let files = shard_files(dir, "12", 3, &[]);
    let (zero, two) = (&files[0], &files[2]);
    let no_shards = crafted(dir, zero, "shards", "0");
    refuse_merge(&[&no_shards], "0 shards");
    let past = crafted(dir, zero, "shard", "7");
    refuse_merge(&[&past], "shard 7 is out of range for 3 shards");
    // A huge shard count is answered at once, naming a few missing shards.
    let many: Vec<PathBuf> = files
        .iter()
        .map(|file| crafted(dir, file, "shards", "100000000"))
        .collect();
    refuse_merge(&[&many[0]], "missing shards of 100000000: 1, 2, 3");
    // A count changed to overflow the sum, and files whose plan is made up.
    let huge = crafted(dir, &files[1], "solutions", &u128::MAX.to_string());
    refuse_merge(&[zero, &huge, two], "overflows");
    let forged: Vec<PathBuf> = files
        .iter()
        .map(|file| crafted(dir, file, "fingerprint", "\"0123456789abcdef\""))
        .collect();
    refuse_merge(
        &[&forged[0], &forged[1], &forged[2]],
        "does not match the plan it names",
    );
    // The field that differs is named, with both values.
    refuse_merge(
        &[&forged[0], &forged[1], &forged[2]],
        "its fingerprint is 0123456789abcdef, the plan's ",
    );
    let edited_tasks = crafted(dir, &files[1], "tasks_in_plan", "5");
    refuse_merge(&[zero, &edited_tasks, two], "is from another run than");
    refuse_merge(
        &[zero, &edited_tasks, two],
        "its tasks_in_plan is 5 where the first's is ",
    );
    let big_n: Vec<PathBuf> = files
        .iter()
        .map(|file| crafted(dir, file, "n", "200"))
        .collect();
    refuse_merge(
        &[&big_n[0], &big_n[1], &big_n[2]],
        "N = 200 is out of range",
    );
    // A file far larger than any shard file is not read whole.
    let large = dir.join("large.json");
    std::fs::write(&large, vec![b' '; 1 << 20]).unwrap();
    refuse_merge(&[&large], "larger than");
    // A count changed within range: only the checksum tells.
    let changed = crafted(dir, &files[1], "solutions", "1");
    refuse_merge(
        &[zero, &changed, two],
        "its checksum does not match its contents",
    );
    let mut json = read_json(&files[1]);
    json.as_object_mut().unwrap().remove("checksum");
    let unsealed = dir.join("unsealed.json");
    std::fs::write(&unsealed, json.to_string()).unwrap();
    refuse_merge(&[zero, &unsealed, two], "has no checksum");
    // The real files still merge.
    nqueens().arg("merge").args(&files).assert().success();
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
    let solutions = |path: &PathBuf| read_json(path)["solutions"].as_u64().unwrap();
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
        .stderr(predicates::str::contains(
            "merge --partial prints text or json, not csv",
        ));
    nqueens()
        .args(["merge", "--partial"])
        .args(&files)
        .assert()
        .success()
        .stdout(predicates::str::contains("14200"));
}
