//! The real binary's board commands, one test per behaviour: `list`, `solve` and `check`.

use crate::common;

use common::{closed_pipe_is_quiet, nqueens, usage_error};

#[test]
fn list_streams_every_board_in_order() {
    let output = nqueens().args(["list", "8"]).output().unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 92);
    assert_eq!(lines[0], "0 4 7 5 2 6 1 3");
    nqueens()
        .args(["list", "8", "--one-based", "--limit", "1"])
        .assert()
        .success()
        .stdout("1 5 8 6 3 7 2 4\n");
    nqueens()
        .args(["list", "8", "--nth", "91"])
        .assert()
        .success()
        .stdout("7 3 0 2 5 1 6 4\n");
    nqueens()
        .args(["list", "8", "--format", "fen", "--limit", "1"])
        .assert()
        .success()
        .stdout("q7/4q3/7q/5q2/2q5/6q1/1q6/3q4\n");
}

#[test]
fn list_of_a_board_without_solutions_is_empty() {
    for n in ["2", "3"] {
        nqueens().args(["list", n]).assert().success().stdout("");
    }
}

#[test]
fn list_output_passes_check() {
    let listed = nqueens()
        .args(["list", "9", "--one-based"])
        .output()
        .unwrap();
    nqueens()
        .args(["check", "--one-based"])
        .write_stdin(listed.stdout)
        .assert()
        .success()
        .stderr("checked 352 boards: 352 valid, 0 invalid\n");
}

#[test]
fn list_refuses_bad_requests() {
    let past = usage_error(&["list", "8", "--nth", "92"]);
    assert!(past.contains("N = 8 has 92 solutions"), "{past}");
    assert!(usage_error(&["list", "0"]).contains("from 1 to 32"));
    assert!(usage_error(&["list", "8..9"]).contains("one board size"));
    assert!(usage_error(&["list", "8", "--format", "png"]).contains("vector, grid, fen, svg"));
    assert!(usage_error(&["list", "8", "--format", "svg"]).contains("--out-dir"));
    assert!(
        usage_error(&["list", "8", "--out-dir", "x", "--format", "grid"]).contains("--format svg")
    );
    assert!(
        usage_error(&["list", "8", "--nth", "1", "--limit", "2"]).contains("cannot be used with")
    );
}

#[test]
fn list_writes_one_svg_file_per_board() {
    let scratch_dir = tempfile::tempdir().unwrap();
    let dir = scratch_dir.path().join("boards");
    nqueens()
        .args(["list", "6", "--format", "svg", "--out-dir"])
        .arg(&dir)
        .assert()
        .success();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), 4);
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(text.starts_with("<svg") && text.trim_end().ends_with("</svg>"));
}

#[test]
fn list_into_a_closed_pipe_ends_quietly() {
    closed_pipe_is_quiet(&["list", "14"], 64);
}

#[test]
fn solve_gives_valid_boards_that_check_accepts() {
    for args in [
        vec!["solve", "4"],
        vec!["solve", "1000"],
        vec!["solve", "1000000"],
        vec!["solve", "1000", "--random", "--seed", "9"],
        vec!["solve", "500", "--one-based"],
    ] {
        let board = nqueens().args(&args).output().unwrap();
        assert!(board.status.success(), "{args:?}");
        let mut check = nqueens();
        check.arg("check");
        if args.contains(&"--one-based") {
            check.arg("--one-based");
        }
        check.write_stdin(board.stdout).assert().success();
    }
    nqueens()
        .args(["solve", "1"])
        .assert()
        .success()
        .stdout("0\n");
}

#[test]
fn solve_refuses_impossible_and_oversized_requests() {
    for n in ["2", "3"] {
        let output = nqueens().args(["solve", n]).output().unwrap();
        assert_eq!(output.status.code(), Some(1));
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains("no solution exists"), "{stderr}");
    }
    assert!(usage_error(&["solve", "2000", "--format", "grid"]).contains("up to N = 1000"));
    assert!(usage_error(&["solve", "300", "--format", "svg"]).contains("up to N = 256"));
    assert!(usage_error(&["solve", "0"]).contains("from 1 to"));
    assert!(usage_error(&["solve", "8", "--seed", "3"]).contains("--random"));
}

#[test]
fn check_reports_each_invalid_board() {
    let output = nqueens()
        .arg("check")
        .write_stdin("0 4 7 5 2 6 1 3\n0 1\n1 3 0 3\nfoo\n")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        stdout,
        "line 2: invalid: rows 0 and 1 are on one diagonal\n\
         line 3: invalid: rows 1 and 3 share column 3\n\
         line 4: invalid: 'foo' is not a column number\n"
    );
}

#[test]
fn check_refuses_an_unreadable_file() {
    let output = nqueens()
        .args(["check", "/nonexistent/boards.txt"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("cannot read /nonexistent/boards.txt"),
        "{stderr}"
    );
    // A directory opens but cannot be read: named, before any output.
    let dir = tempfile::tempdir().unwrap();
    let output = nqueens().arg("check").arg(dir.path()).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("it is a directory"), "{stderr}");
    assert!(
        stderr.contains(&dir.path().display().to_string()),
        "{stderr}"
    );
}

#[test]
fn check_reads_any_bytes_line_by_line_and_quotes_them_escaped() {
    // '-' is stdin; bytes that are not text, escape sequences and a token
    // of a million digits each make their own line invalid, and the run
    // goes on to the end.
    let mut input = b"1 3 0 2\n\xff\xfe 1\nabc\x1b[31m 2\n".to_vec();
    input.extend(std::iter::repeat_n(b'7', 1_000_000));
    input.extend(b"\n\n2 0 3 1");
    let output = nqueens()
        .args(["check", "-"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            r"line 2: invalid: '\xff\xfe' is not a column number",
            r"line 3: invalid: 'abc\x1b[31m' is not a column number",
            "line 4: invalid: '777777777777777777777777...' is not a column number",
        ]
    );
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "checked 5 boards: 2 valid, 3 invalid\n"
    );
}

#[test]
fn a_random_board_without_a_seed_says_its_seed() {
    let output = nqueens()
        .args(["solve", "30", "--random"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8(output.stderr).unwrap();
    let seed = stderr
        .trim()
        .strip_prefix("random board with --seed ")
        .unwrap_or_else(|| panic!("{stderr}"));
    nqueens()
        .args(["solve", "30", "--random", "--seed", seed])
        .assert()
        .success()
        .stdout(output.stdout);
}

#[test]
fn a_few_boards_of_any_n_come_at_once_and_in_order() {
    // --limit K takes the first K boards of the ordered list, from one
    // search that prints as it finds (the parallel pieces would each search
    // for K boards first: the first board of N = 32 took 57 s).
    let full = nqueens()
        .args(["list", "10", "--format", "grid"])
        .output()
        .unwrap();
    let full = String::from_utf8(full.stdout).unwrap();
    let few = nqueens()
        .args(["list", "10", "--format", "grid", "--limit", "3"])
        .output()
        .unwrap();
    let few = String::from_utf8(few.stdout).unwrap();
    assert!(full.starts_with(&few) && few.lines().count() == 33, "{few}");
    let first = nqueens()
        .args(["list", "32", "--limit", "1"])
        .timeout(std::time::Duration::from_secs(30))
        .output()
        .unwrap();
    assert!(first.status.success());
    nqueens()
        .args(["list", "32", "--nth", "0"])
        .assert()
        .success()
        .stdout(first.stdout);
}

#[test]
fn the_board_pictures_in_docs_are_what_the_program_draws() {
    // Redrawn by scripts/boards.sh; a change to the drawing shows up here.
    let out = nqueens()
        .args(["list", "8", "--limit", "1", "--format", "svg"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/queens-8.svg");
    let pictured = std::fs::read(path).unwrap();
    assert!(
        pictured == out.stdout,
        "docs/queens-8.svg is not what `nqueens list 8 --limit 1 --format svg` draws: run scripts/boards.sh"
    );
}

#[test]
fn the_cost_chart_in_docs_is_drawn_from_the_tables_beside_it() {
    // docs/cost.svg is scripts/cost-chart.py over docs/data/*.md (the
    // README's command): redrawn, it must come out the same.
    let root = env!("CARGO_MANIFEST_DIR");
    let dir = tempfile::tempdir().unwrap();
    let drawn = dir.path().join("cost.svg");
    let run = std::process::Command::new("python3")
        .current_dir(root)
        .arg("scripts/cost-chart.py")
        .arg(&drawn)
        .args([
            "Zen 5, AVX-512=docs/data/estimate-zen5-avx512.md",
            "Zen 5, AVX2=docs/data/estimate-zen5-avx2.md",
            "Zen 3, AVX2=docs/data/estimate-zen3-avx2.md",
        ])
        .output();
    let Ok(run) = run else {
        eprintln!("SKIPPED: no python3 here");
        return;
    };
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let stored = std::fs::read_to_string(format!("{root}/docs/cost.svg")).unwrap();
    assert_eq!(std::fs::read_to_string(&drawn).unwrap(), stored);
    // One point per N of each table: 8 AVX-512 rows, 5 and 3 AVX2 ones.
    assert_eq!(stored.matches("<circle").count(), 16);
    // A table without the column is refused in one line.
    let bad = dir.path().join("bad.md");
    std::fs::write(&bad, "| N | tasks |\n| 20 | 5 |\n").unwrap();
    let refused = std::process::Command::new("python3")
        .current_dir(root)
        .arg("scripts/cost-chart.py")
        .arg(dir.path().join("x.svg"))
        .arg(format!("x={}", bad.display()))
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).starts_with("error: "));
}

#[test]
fn check_refuses_devices_and_ends_on_input_that_is_not_text() {
    // A device is refused as merge and compare refuse one (it may never end).
    let output = nqueens().args(["check", "/dev/zero"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("not a regular file"), "{stderr}");
    // Zeros on standard input end at the first: one line, not a hang.
    let zeros = std::fs::File::open("/dev/zero").unwrap();
    let output = std::process::Command::new(assert_cmd::cargo::cargo_bin("nqueens"))
        .arg("check")
        .stdin(zeros)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("line 1 holds a NUL byte"), "{stderr}");
    // A program file: one line, not hundreds of escaped ones.
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("program");
    std::fs::write(&binary, b"1 3 0 2\n\x7fELF\x02\x01\x01\x00\x00\n0 1\n").unwrap();
    let output = nqueens().arg("check").arg(&binary).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("line 2 holds a NUL byte"), "{stderr}");
}
