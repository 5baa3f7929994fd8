//! The real binary, one test per behaviour.

use assert_cmd::Command;
use predicates::prelude::*;

fn nqueens() -> Command {
    Command::cargo_bin("nqueens").unwrap()
}

/// Runs a command expected to be refused as a usage error and returns its
/// single line of stderr.
fn usage_error(args: &[&str]) -> String {
    let output = nqueens().args(args).output().unwrap();
    assert_eq!(output.status.code(), Some(2), "{args:?}");
    assert!(output.stdout.is_empty(), "{args:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn count_prints_a_checked_table_row() {
    nqueens().args(["count", "8"]).assert().success().stdout(
        predicate::str::is_match(
            r"(?m)^\s+8\s+92\s+12\s+4\s+0\s+mirror\s+\d+\s+[\d.]+\s+\d+\s+.*/s\s+ok$",
        )
        .unwrap(),
    );
}

#[test]
fn count_range_prints_one_row_per_n() {
    let output = nqueens()
        .args(["count", "4..7", "--progress", "never"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 5, "{stdout}");
    for (line, expected) in lines[1..].iter().zip(["2", "10", "4", "40"]) {
        assert_eq!(line.split_whitespace().nth(1), Some(expected), "{line}");
    }
}

#[test]
fn json_is_one_object_per_n_with_every_field() {
    let output = nqueens()
        .args(["count", "8", "10", "12", "--format", "json", "-j", "2"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let rows: Vec<serde_json::Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(rows.len(), 3);
    let expected = [
        (8, 92, 12, 4, 0, "mirror"),
        (10, 724, 92, 12, 0, "join"),
        (12, 14200, 1787, 80, 8, "join"),
    ];
    for (row, (n, solutions, unique, p, r, method)) in rows.iter().zip(expected) {
        assert_eq!(row["n"], n);
        assert_eq!(row["solutions"], solutions);
        assert_eq!(row["unique"], unique);
        assert_eq!(row["half_turn_symmetric"], p);
        assert_eq!(row["quarter_turn_symmetric"], r);
        assert_eq!(row["method"], method, "auto picks by N");
        assert_eq!(row["unique_matches_published"], true);
        let from_orbits = if method == "d4" {
            serde_json::json!(unique)
        } else {
            serde_json::Value::Null
        };
        assert_eq!(row["unique_from_orbits"], from_orbits);
        assert_eq!(row["threads"], 2);
        assert_eq!(row["matches_published"], true);
        assert!(row["seconds"].as_f64().unwrap() >= 0.0);
        assert!(row["nodes"].as_u64().unwrap() > 0);
        assert!(row["nodes_per_second"].is_number());
    }
    // d4 also reports the unique count its leaves found.
    let output = nqueens()
        .args(["count", "10", "-m", "d4", "--format", "json"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let row: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(row["method"], "d4");
    assert_eq!(row["unique"], 92);
    assert_eq!(row["unique_from_orbits"], 92);
}

#[test]
fn csv_has_a_header_and_a_record_per_n() {
    let output = nqueens()
        .args(["count", "5..6", "--format", "csv", "-m", "none"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0],
        "n,solutions,unique,half_turn_symmetric,quarter_turn_symmetric,method,threads,seconds,nodes,nodes_per_second,matches_published,unique_matches_published"
    );
    assert!(lines[1].starts_with("5,10,2,2,2,none,"), "{}", lines[1]);
    assert!(lines[2].starts_with("6,4,1,4,0,none,"), "{}", lines[2]);
    assert!(lines[1].ends_with(",true,true"));
    assert_eq!(lines.len(), 3);
}

#[test]
fn forced_progress_goes_to_stderr_and_leaves_stdout_clean() {
    let output = nqueens()
        .args(["count", "13", "--progress", "always", "--format", "json"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let row: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(row["solutions"], 73712);
    assert!(!output.stderr.is_empty(), "a forced bar draws something");
}

#[test]
fn progress_is_silent_when_not_a_terminal() {
    nqueens()
        .args(["count", "12"])
        .assert()
        .success()
        .stderr(predicate::str::is_empty());
}

#[test]
fn split_depth_and_threads_do_not_change_the_count() {
    for args in [
        ["-j", "1", "--split-depth", "0"],
        ["-j", "3", "--split-depth", "5"],
    ] {
        nqueens()
            .args(["count", "11", "-m", "d4", "--format", "csv"])
            .args(args)
            .assert()
            .success()
            .stdout(predicate::str::contains("\n11,2680,341,48,0,d4,"));
    }
}

#[test]
fn bad_ranges_are_refused() {
    assert!(usage_error(&["count", "10..8"]).contains("empty"));
    assert!(usage_error(&["count", "a..b"]).contains("'a' is not a board size"));
    assert!(usage_error(&["count", "8..x"]).contains("'x'"));
}

#[test]
fn sizes_out_of_range_are_refused() {
    assert!(usage_error(&["count", "0"]).contains("from 1 to 32"));
    assert!(usage_error(&["count", "33"]).contains("from 1 to 32"));
    assert!(usage_error(&["count", "-4"]).contains("error:"));
    assert!(usage_error(&["count", "99999999999999999999"]).contains("board size"));
}

#[test]
fn zero_threads_are_refused() {
    assert!(usage_error(&["count", "8", "--threads", "0"]).contains("at least 1"));
    assert!(usage_error(&["count", "8", "-j", "many"]).contains("thread count"));
}

#[test]
fn unknown_methods_and_formats_are_refused() {
    let method = usage_error(&["count", "8", "--method", "sideways"]);
    assert!(
        method.contains("sideways") && method.contains("none, mirror"),
        "{method}"
    );
    let format = usage_error(&["count", "8", "--format", "xml"]);
    assert!(format.contains("text, json, csv"), "{format}");
}

#[test]
fn impossible_split_depths_are_refused() {
    assert!(usage_error(&["count", "8", "--split-depth", "9"]).contains("from 0 to 8"));
    assert!(
        usage_error(&["count", "30", "--split-depth", "16", "-m", "none"]).contains("too deep")
    );
    assert!(usage_error(&["count", "30", "--split-depth", "17"]).contains("from 0 to 16"));
    assert!(usage_error(&["count", "8", "--split-depth", "-1"]).contains("error:"));
}

#[test]
fn missing_arguments_are_usage_errors() {
    nqueens().assert().code(2);
    nqueens().arg("count").assert().code(2);
    nqueens().arg("frobnicate").assert().code(2);
}

#[test]
fn help_and_version_succeed() {
    nqueens()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("count"));
    nqueens()
        .args(["count", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("--split-depth"));
    nqueens().arg("--version").assert().success();
}

/// Runs the binary with `args`, reads `read_first` bytes of its output, then
/// closes the pipe: the program must end with status 0 and say nothing.
fn closed_pipe_is_quiet(args: &[&str], read_first: usize) {
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

#[test]
fn closed_pipe_ends_quietly() {
    closed_pipe_is_quiet(&["count", "1..14", "--format", "csv"], 0);
}

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
    assert!(usage_error(&["list", "8", "--out-dir", "x"]).contains("--format svg"));
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
}

#[test]
fn bench_json_has_every_field() {
    let output = nqueens()
        .args([
            "bench", "--n", "10", "--runs", "2", "-j", "1,2", "--format", "json",
        ])
        .output()
        .unwrap();
    assert!(output.status.success());
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    for field in [
        "n",
        "method",
        "solutions",
        "nodes",
        "runs",
        "cpu_model",
        "logical_cores",
        "physical_cores",
        "version",
        "profile",
        "results",
        "score_all_cores",
        "score_one_core",
    ] {
        assert!(!report[field].is_null(), "{field} missing");
    }
    assert_eq!(report["solutions"], 724);
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    for result in results {
        for field in [
            "threads",
            "seconds",
            "median_seconds",
            "min_seconds",
            "max_seconds",
            "spread_percent",
            "nodes_per_second",
            "nodes_per_second_per_thread",
            "speedup",
            "efficiency_percent",
        ] {
            assert!(!result[field].is_null(), "{field} missing");
        }
        assert_eq!(result["seconds"].as_array().unwrap().len(), 2);
    }
}

#[test]
fn bench_csv_and_markdown_have_a_row_per_thread_count() {
    let csv = nqueens()
        .args([
            "bench", "--n", "10", "--runs", "2", "-j", "1,2", "--format", "csv",
        ])
        .output()
        .unwrap();
    assert!(csv.status.success());
    let text = String::from_utf8(csv.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    let columns = lines[0].split(',').count();
    assert_eq!(columns, 17);
    assert!(lines[1].starts_with("10,join,1,2,"), "{}", lines[1]);
    assert!(lines[2].starts_with("10,join,2,2,"), "{}", lines[2]);
    let markdown = nqueens()
        .args([
            "bench",
            "--n",
            "10",
            "--runs",
            "2",
            "-j",
            "1,2",
            "--format",
            "markdown",
            "--no-warmup",
        ])
        .output()
        .unwrap();
    assert!(markdown.status.success());
    let text = String::from_utf8(markdown.stdout).unwrap();
    let rows: Vec<&str> = text.lines().filter(|line| line.starts_with('|')).collect();
    assert_eq!(rows.len(), 4, "header, rule and two thread counts:\n{text}");
    assert!(text.contains("score: "), "{text}");
}

#[test]
fn bench_refuses_bad_settings() {
    assert!(usage_error(&["bench", "--runs", "0"])
        .contains("--runs takes a whole number from 1 to 10000"));
    assert!(usage_error(&["bench", "-j", "1,0"]).contains("at least 1"));
    assert!(usage_error(&["bench", "-j", "1,x"]).contains("thread count"));
    assert!(usage_error(&["bench", "--n", "28"]).contains("--n takes a whole number from 1 to 27"));
    assert!(usage_error(&["bench", "--format", "xml"]).contains("table, json, csv, markdown"));
}

#[test]
fn every_search_build_counts_the_same() {
    // NQUEENS_LANES picks the build of the lane search, or `off` for the
    // depth-first one; the counts and nodes must not change.
    let row = |lanes: &str, method: &str| {
        let output = nqueens()
            .env("NQUEENS_LANES", lanes)
            .args(["count", "13", "-m", method, "--format", "csv", "-j", "2"])
            .output()
            .unwrap();
        assert!(output.status.success(), "{lanes} {method}");
        let text = String::from_utf8(output.stdout).unwrap();
        let fields: Vec<String> = text
            .lines()
            .nth(1)
            .unwrap()
            .split(',')
            .map(String::from)
            .collect();
        // solutions, unique, P, R, method, nodes, checks.
        [1, 2, 3, 4, 5, 8, 10, 11].map(|i| fields[i].clone())
    };
    let builds: Vec<&str> = nqueens::search::lanes::Lanes::ALL
        .into_iter()
        .filter(|lanes| lanes.runs_here())
        .map(|lanes| lanes.name())
        .chain(["off", ""])
        .collect();
    for method in ["mirror", "d4"] {
        let expected = row("off", method);
        assert_eq!(expected[7], "true", "{method}: unique checked");
        for lanes in &builds {
            assert_eq!(row(lanes, method), expected, "{lanes} {method}");
        }
    }
}

#[test]
fn an_unknown_search_build_is_refused() {
    let output = nqueens()
        .env("NQUEENS_LANES", "avx1024")
        .args(["count", "8"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("NQUEENS_LANES=avx1024 is not a build")
            && stderr.contains("avx2")
            && stderr.contains("off"),
        "{stderr}"
    );
}

/// `plan ARGS --format json`, parsed.
fn plan_json(args: &[&str]) -> serde_json::Value {
    let out = nqueens()
        .arg("plan")
        .args(args)
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn every_board_size_has_a_plan_under_the_default_method() {
    for n in 1..=32u64 {
        // One thread: a join count's memory grows with the threads.
        let plan = plan_json(&[&n.to_string(), "-j", "1"]);
        assert_eq!(plan["n"], n);
        assert!(plan["tasks"].as_u64().unwrap() >= 1, "n={n}");
        let memory = plan["peak_memory_bytes"].as_u64().unwrap();
        assert!(memory > 0, "n={n}");
        let method = plan["method"].as_str().unwrap();
        // join from 10 through 28 (in bounded memory), d4 beyond.
        match n {
            10..=28 => {
                assert_eq!(method, "join", "n={n}");
                assert!(memory < 1 << 30, "n={n}: {memory} bytes");
            }
            29.. => assert_eq!(method, "d4", "n={n}"),
            _ => {}
        }
    }
    assert!(usage_error(&["plan", "29", "-m", "join"]).contains("up to 28, not 29"));
}

#[test]
fn the_estimate_samples_and_brackets_its_figure() {
    for method in ["join", "d4", "mirror"] {
        let plan = plan_json(&[
            "13",
            "-m",
            method,
            "--estimate",
            "--sample",
            "40",
            "-j",
            "2",
        ]);
        let tasks = plan["tasks"].as_u64().unwrap();
        assert_eq!(plan["sampled"].as_u64().unwrap(), tasks.min(40), "{method}");
        let (low, core, high) = (
            plan["interval_low"].as_f64().unwrap(),
            plan["estimated_core_seconds"].as_f64().unwrap(),
            plan["interval_high"].as_f64().unwrap(),
        );
        assert!(
            low <= core && core <= high && core > 0.0,
            "{method}: {plan}"
        );
        assert_eq!(plan["threads"], 2);
        // The costliest sampled task costs at least the sample's mean (the
        // estimate's mean task) and at most the whole count.
        let largest = plan["largest_task_seconds"].as_f64().unwrap();
        assert!(largest >= core / tasks as f64 * 0.999, "{method}: {plan}");
        assert!(largest <= core, "{method}: {plan}");
        // The published count gives core-ns per solution.
        let per_solution = plan["core_ns_per_solution"].as_f64().unwrap();
        let published = nqueens::published::total(13).unwrap() as f64;
        assert!(
            (per_solution - core * 1e9 / published).abs() < 1e-6 * per_solution,
            "{method}: {plan}"
        );
    }
    // A sample of every task has no sampling error.
    let whole = plan_json(&["9", "--estimate", "--sample", "100000"]);
    assert_eq!(whole["interval_low"], whole["estimated_core_seconds"]);
    // Large tasks are probed, not counted: N = 24 under d4 answers at once.
    let probed = plan_json(&[
        "24",
        "-m",
        "d4",
        "--estimate",
        "--sample",
        "8",
        "--cores",
        "1000",
    ]);
    assert!(
        probed["estimated_core_seconds"].as_f64().unwrap() > 1000.0,
        "{probed}"
    );
    assert!(probed["cores_wall_seconds"].as_f64().unwrap() > 0.0);
    assert!(usage_error(&["plan", "12", "--sample", "5"]).contains("--estimate"));
    assert!(usage_error(&["plan", "12", "--estimate", "--sample", "0"])
        .contains("--sample takes a whole number from 1 to 1000000"));
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
fn completions_and_the_manual_page_are_generated() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let output = nqueens().args(["completions", shell]).output().unwrap();
        assert!(output.status.success(), "{shell}");
        let script = String::from_utf8(output.stdout).unwrap();
        for word in ["count", "compare", "--checkpoint"] {
            assert!(script.contains(word), "{shell} completes {word}");
        }
    }
    assert!(usage_error(&["completions", "tcsh"]).contains("tcsh"));
    let output = nqueens().arg("manpage").output().unwrap();
    assert!(output.status.success());
    let page = String::from_utf8(output.stdout).unwrap();
    assert!(page.starts_with(".ie"), "roff");
    assert!(page.contains(".TH nqueens 1"), "{}", &page[..200]);
    for section in ["NQUEENS COUNT", "NQUEENS COMPARE", "\\-\\-checkpoint"] {
        assert!(page.contains(section), "{section}");
    }
}

#[test]
fn every_example_in_the_help_runs() {
    // The examples under each command's --help, run in a scratch directory
    // (the ones that need a file make it first or are run in order).
    let dir = tempfile::tempdir().unwrap();
    let help = |command: &str| -> String {
        let output = nqueens().args([command, "--help"]).output().unwrap();
        String::from_utf8(output.stdout).unwrap()
    };
    let mut ran = 0;
    for command in [
        "count",
        "list",
        "solve",
        "check",
        "merge",
        "plan",
        "compare",
        "completions",
        "manpage",
    ] {
        let text = help(command);
        let examples = text
            .split("Examples:\n")
            .nth(1)
            .unwrap_or_else(|| panic!("{command} --help has examples"));
        for line in examples.lines() {
            // "  nqueens ARGS   what it does": the words before the gap.
            let Some(call) = line.trim().strip_prefix("nqueens ") else {
                continue;
            };
            let call = call.split("  ").next().unwrap();
            // Shell plumbing is the reader's; the nqueens part is run.
            let call = call.split(['|', '>', '&']).next().unwrap().trim();
            let args: Vec<&str> = call.split_whitespace().collect();
            // The long ones are cut to a size a test affords.
            let args: Vec<&str> = args
                .iter()
                .map(|&arg| match arg {
                    "16" | "15" | "20" | "22" if command != "solve" => "10",
                    "1000000" => "1000",
                    other => other,
                })
                .collect();
            let mut run = nqueens();
            run.current_dir(dir.path()).args(&args);
            if command == "check" && args.last() == Some(&"-") {
                run.write_stdin("1 3 0 2\n");
            }
            if args == ["check", "boards.txt"] {
                std::fs::write(dir.path().join("boards.txt"), "1 3 0 2\n").unwrap();
            }
            if args.first() == Some(&"compare") && args.contains(&"--with") {
                continue;
            }
            let output = run.output().unwrap();
            assert!(
                output.status.success(),
                "nqueens {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&output.stderr)
            );
            ran += 1;
        }
    }
    assert!(ran >= 20, "{ran} examples ran");
}

#[test]
fn every_numeric_option_names_itself_and_its_range() {
    let cases: [(&[&str], &str); 10] = [
        (
            &["count", "8", "-j", "100000"],
            "threads is too many: at most",
        ),
        (
            &["list", "8", "-j", "18446744073709551615"],
            "threads is too many",
        ),
        (
            &["list", "8", "--nth", "1e3"],
            "'1e3' is not a whole number: --nth takes a whole number from 0",
        ),
        (
            &["list", "8", "--limit", "abc"],
            "'abc' is not a whole number: --limit takes a whole number from 1",
        ),
        (
            &["list", "8", "--limit", "0"],
            "0 is out of range: --limit takes a whole number from 1",
        ),
        (
            &["count", "8", "--split-depth", "x"],
            "--split-depth takes a whole number from 0 to 32",
        ),
        (
            &["plan", "8", "--split-depth", "100"],
            "100 is out of range: --split-depth takes a whole number from 0 to 32",
        ),
        (
            &["bench", "--runs", "99999999999"],
            "--runs takes a whole number from 1 to 10000",
        ),
        (
            &["plan", "16", "--estimate", "--cores", "0"],
            "--cores takes a whole number from 1 to 100000000",
        ),
        (
            &["count", "8", "--shards", "0"],
            "--shards takes a whole number from 1",
        ),
    ];
    for (args, wanted) in cases {
        let line = usage_error(args);
        assert!(line.contains(wanted), "{args:?}: {line}");
    }
}

#[test]
fn impossible_requests_are_refused_or_warned_about_at_once() {
    // An index past the published count: refused without a search.
    let started = std::time::Instant::now();
    let line = usage_error(&["list", "20", "--nth", "99999999999999999999"]);
    assert!(line.contains("N = 20 has 39029188884 solutions"), "{line}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    // A split depth the join has no use for.
    nqueens()
        .args(["count", "12", "--split-depth", "3"])
        .assert()
        .success()
        .stderr(predicate::str::contains("--split-depth 3 is ignored"));
    // A scheduler's variables that pick a shard say so.
    let dir = tempfile::tempdir().unwrap();
    nqueens()
        .current_dir(dir.path())
        .args(["count", "10"])
        .env("SLURM_ARRAY_TASK_ID", "1")
        .env("SLURM_ARRAY_TASK_COUNT", "2")
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "shard 1/2 of the count, from SLURM_ARRAY_TASK_ID",
        ));
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
fn the_bar_shows_the_plan_phase_then_this_runs_rate_in_three_digits() {
    let output = nqueens()
        .args(["count", "17", "--progress", "always"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("building the plan"), "{stderr}");
    let rate = shows_a_three_digit_rate(&stderr);
    assert!(rate, "no rate of three significant digits in {stderr}");
}

/// Whether `text` shows a rate like "5.60k tasks/s" or "812 tasks/s" (three
/// significant digits), and none with more.
fn shows_a_three_digit_rate(text: &str) -> bool {
    let rate =
        predicate::str::is_match(r"\((\d\.\d\d|\d\d\.\d|\d{3})[kMG]? tasks/s, ETA ").unwrap();
    let long = predicate::str::is_match(r"\d\.\d{3,} tasks/s|\d{4,} tasks/s").unwrap();
    rate.eval(text) && !long.eval(text)
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
fn bench_records_the_build_paths_and_when() {
    let output = nqueens()
        .args([
            "bench", "--n", "10", "--runs", "1", "-j", "1", "--format", "json", "-q",
        ])
        .env("NQUEENS_MATCHER", "portable")
        .env("NQUEENS_LANES", "off")
        .output()
        .unwrap();
    assert!(output.status.success());
    let report: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(report["matcher"], "portable");
    assert_eq!(report["lanes"], "off");
    assert!(report["cpu_features"].is_array());
    let stamp = report["timestamp"].as_str().unwrap();
    assert!(
        predicate::str::is_match(r"^20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
            .unwrap()
            .eval(stamp),
        "{stamp}"
    );
    // The forced loops count right, and a loop that is not one is refused.
    nqueens()
        .args(["count", "14", "-m", "join", "--format", "csv"])
        .env("NQUEENS_MATCHER", "portable")
        .assert()
        .success()
        .stdout(predicate::str::contains("\n14,365596,45752,"));
    let refused = nqueens()
        .args(["count", "8"])
        .env("NQUEENS_MATCHER", "sse9")
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains(
        "NQUEENS_MATCHER=sse9 is not a matcher loop: accepted values are avx512, avx2, portable"
    ));
}

#[test]
fn verify_counts_sampled_join_tasks_both_ways() {
    for n in ["8", "15", "18"] {
        let out = nqueens()
            .args([
                "verify", n, "--tasks", "6", "--seed", "3", "--format", "json",
            ])
            .assert()
            .success();
        let record: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        assert_eq!(record["agree"], true, "{record}");
        let checks = record["checks"].as_array().unwrap();
        assert_eq!(
            checks.len(),
            6.min(record["tasks"].as_u64().unwrap() as usize)
        );
        for check in checks {
            assert_eq!(check["join"], check["rows"], "{check}");
        }
    }
    // Under every matcher loop this CPU runs (the glue follows it).
    for (seed, matcher) in ["portable", "avx2", "avx512"].into_iter().enumerate() {
        let runs = matcher == "portable"
            || (matcher == "avx2" && std::arch::is_x86_feature_detected!("avx2"))
            || (matcher == "avx512" && std::arch::is_x86_feature_detected!("avx512f"));
        if !runs {
            eprintln!("verify under NQUEENS_MATCHER={matcher}: this CPU cannot run it; skipped");
            continue;
        }
        for n in ["10", "16", "20"] {
            nqueens()
                .args(["verify", n, "--tasks", "4", "--seed", &seed.to_string()])
                .env("NQUEENS_MATCHER", matcher)
                .assert()
                .success()
                .stdout(predicate::str::contains("  NO").not());
        }
    }
    // Bad input: one line, exit 2.
    for args in [
        vec!["verify", "3"],
        vec!["verify", "29"],
        vec!["verify", "12", "--tasks", "0"],
    ] {
        let out = nqueens().args(&args).assert().code(2);
        let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    }
}
