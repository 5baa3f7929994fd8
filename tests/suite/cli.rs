//! The real binary, one test per behaviour: `count`, its options and errors, help, completions and the man page.

use predicates::prelude::*;

use crate::common;

use common::{closed_pipe_is_quiet, nqueens, usage_error};

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
        .args(["count", "8", "12", "14", "--format", "json", "-j", "2"])
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
        (12, 14200, 1787, 80, 8, "d4"),
        // P and R as Burnside's lemma ties them to the tables' counts:
        // (365,596 + 420 + 2 x 0) / 8 = 45,752.
        (14, 365596, 45752, 420, 0, "join"),
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
fn markdown_is_a_table_of_equal_rows_with_the_checks() {
    let output = nqueens()
        .args(["count", "5..6", "--format", "markdown", "-m", "none"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    assert!(lines[0].starts_with("| N | solutions | unique | P | R |"));
    assert!(lines[1].starts_with("| ---: |"));
    let cells = |line: &str| line.matches('|').count();
    assert!(
        lines.iter().all(|line| cells(line) == cells(lines[0])),
        "{stdout}"
    );
    assert!(
        lines[2].starts_with("| 5 | 10 | 2 | 2 | 2 | none |"),
        "{}",
        lines[2]
    );
    assert!(
        lines[3].starts_with("| 6 | 4 | 1 | 4 | 0 | none |"),
        "{}",
        lines[3]
    );
    assert!(lines[3].ends_with("| ok |"));
    // compare has no table to give.
    usage_error(&["compare", "a.ckpt", "b.ckpt", "--format", "markdown"]);
}

#[test]
fn a_resumed_markdown_row_says_which_figures_are_this_runs() {
    let dir = tempfile::tempdir().unwrap();
    let journal = dir.path().join("run.ckpt");
    let journal = journal.to_str().unwrap();
    let count = || {
        let output = nqueens()
            .args([
                "count",
                "11",
                "--checkpoint",
                journal,
                "--format",
                "markdown",
            ])
            .output()
            .unwrap();
        assert!(output.status.success());
        String::from_utf8(output.stdout).unwrap()
    };
    let first = count();
    let row = first.lines().nth(2).unwrap();
    assert!(!row.contains("this run"), "{row}");
    let whole_nodes = row.split('|').nth(9).unwrap().trim().to_string();
    let again = count();
    let row = again.lines().nth(2).unwrap();
    let cells: Vec<&str> = row.split('|').map(str::trim).collect();
    assert_eq!(cells.len(), 12, "{row}");
    assert!(cells[8].contains("(this run; 1 run took"), "{row}");
    // The rerun counted nothing itself; the whole count's nodes are the first run's.
    assert_eq!(
        cells[9],
        format!("0 (this run; {whole_nodes} in all)"),
        "{row}"
    );
    assert_eq!(cells[10], "ok");
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

#[test]
fn closed_pipe_ends_quietly() {
    closed_pipe_is_quiet(&["count", "1..14", "--format", "csv"], 0);
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
    let builds: Vec<&str> = nqueens::testing::lanes::Lanes::ALL
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
    // No pointer to a page that does not exist (nqueens-count(1) and such).
    assert!(!page.contains("(1)"), "{page}");
    assert!(page.contains("nqueens count (its section below)"));
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
    // Boards without a solution have no index to give.
    for (n, wanted) in [
        ("2", "N = 2 has 0 solutions, none to pick"),
        ("1", "N = 1 has 1 solution, numbered 0"),
    ] {
        let line = usage_error(&["list", n, "--nth", "1"]);
        assert!(line.trim_end().ends_with(wanted), "{line}");
    }
    // A split depth the join has no use for.
    nqueens()
        .args(["count", "14", "--split-depth", "3"])
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
