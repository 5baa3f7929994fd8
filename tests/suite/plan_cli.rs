//! The real binary's measuring commands, one test per behaviour: `bench`, `plan` (and its estimate) and `verify`.

use predicates::prelude::*;

use crate::common;

use common::{nqueens, usage_error};

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
    assert!(lines[1].starts_with("10,d4,1,2,"), "{}", lines[1]);
    assert!(lines[2].starts_with("10,d4,2,2,"), "{}", lines[2]);
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
    assert!(usage_error(&["bench", "--format", "xml"]).contains("text, json, csv, markdown"));
}

/// Every command takes the one set of formats and refuses, in one line
/// and before any work, one it does not write; `table` still names text.
#[test]
fn a_format_a_command_does_not_write_is_refused_naming_those_it_does() {
    for (args, says) in [
        (
            &["plan", "12", "--format", "csv"][..],
            "plan prints text or json, not csv: use --format text or --format json",
        ),
        (
            &["verify", "12", "--format", "markdown"][..],
            "verify prints text or json, not markdown",
        ),
        (
            &["compare", "a", "b", "--format", "csv"][..],
            "compare prints text or json, not csv",
        ),
    ] {
        let said = usage_error(args);
        assert!(said.contains(says), "{args:?}: {said}");
    }
    let table = nqueens()
        .args([
            "bench", "--n", "8", "--runs", "1", "-j", "1", "-q", "--format", "table",
        ])
        .output()
        .unwrap();
    assert!(table.status.success());
    let text = String::from_utf8_lossy(&table.stdout);
    assert!(
        text.contains("score: ") && text.contains("threads  median s"),
        "{text}"
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
        // join from 14 through 28 (in bounded memory), d4 beyond.
        match n {
            14..=28 => {
                assert_eq!(method, "join", "n={n}");
                assert!(memory < 1 << 30, "n={n}: {memory} bytes");
            }
            29.. => assert_eq!(method, "d4", "n={n}"),
            _ => {}
        }
    }
    assert!(usage_error(&["plan", "29", "-m", "join"]).contains("up to 28, not 29"));
    // Where join does not fit, auto plans d4 and says why on one line.
    let out = nqueens()
        .args(["plan", "24", "--max-memory", "1M"])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(stdout.starts_with("N = 24, method d4"), "{stdout}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("join needs") && stderr.contains("so auto plans d4"),
        "{stderr}"
    );
    // Where it fits, no note.
    let out = nqueens().args(["plan", "24"]).assert().success();
    assert!(out.get_output().stderr.is_empty());
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
    assert!(usage_error(&["plan", "12", "--time", "5"]).contains("--estimate"));
    assert!(usage_error(&["plan", "12", "--estimate", "--time", "0"])
        .contains("--time takes a whole number from 1 to 604800"));
    assert!(usage_error(&["plan", "12", "--estimate", "--sample", "0"])
        .contains("--sample takes a whole number from 1 to 1000000"));
}

/// `--within P` stops the sample at a +-P% interval, the times adjusted by
/// the tasks' costs; `--by-cost` adjusts them with the sample as asked.
#[test]
fn an_estimate_stops_at_the_precision_asked_and_says_how_costs_adjusted_it() {
    let loose = plan_json(&["16", "--estimate", "--within", "40", "--seed", "2"]);
    let sampled = loose["sampled"].as_u64().unwrap();
    assert!((20..6470).contains(&sampled), "{loose}");
    assert_eq!(loose["within"].as_f64(), Some(0.4));
    let correlation = loose["cost_correlation"].as_f64().unwrap();
    assert!((-1.0..=1.0).contains(&correlation), "{loose}");
    let by_cost = plan_json(&["14", "--estimate", "--sample", "50", "--by-cost"]);
    assert_eq!(by_cost["sampled"].as_u64(), Some(50));
    assert!(by_cost["cost_correlation"].is_number(), "{by_cost}");
    assert!(by_cost["cost_seconds"].as_f64().unwrap() >= 0.0);
    let plain = plan_json(&["14", "--estimate", "--sample", "50"]);
    assert!(plain["cost_correlation"].is_null(), "{plain}");
    let text = nqueens()
        .args(["plan", "16", "--estimate", "--within", "40"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("stopped once the interval was within +-40%")
            && text.contains("times adjusted by the tasks' costs (correlation"),
        "{text}"
    );
    assert!(usage_error(&["plan", "12", "--estimate", "--within", "0"])
        .contains("--within (percent) takes a whole number from 1 to 50"));
    assert!(usage_error(&["plan", "12", "--by-cost"]).contains("--estimate"));
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
        #[cfg(target_arch = "x86_64")]
        let runs = matcher == "portable"
            || (matcher == "avx2" && std::arch::is_x86_feature_detected!("avx2"))
            || (matcher == "avx512" && std::arch::is_x86_feature_detected!("avx512f"));
        #[cfg(not(target_arch = "x86_64"))]
        let runs = matcher == "portable";
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
        // Refused before the table's header, not after it.
        let stdout = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        assert_eq!(stdout, "", "{args:?}");
    }
}

#[test]
fn the_estimate_keeps_to_its_time() {
    // N = 24's tasks take tens of ms: 10,000 of them would take far
    // longer than the second asked, so the sample stops early, past its
    // first 10.
    let plan = plan_json(&["24", "--estimate", "--time", "1", "-j", "2"]);
    let sampled = plan["sampled"].as_u64().unwrap();
    assert_eq!(plan["asked"], 10_000);
    assert_eq!(plan["time_budget_seconds"], 1);
    assert!((10..10_000).contains(&sampled), "{plan}");
    // Tasks start within the second; the last ones started finish after.
    assert!(plan["estimate_seconds"].as_f64().unwrap() < 30.0, "{plan}");
    // The text says it stopped, and how to ask for more.
    let out = nqueens()
        .args(["plan", "24", "--estimate", "--time", "1"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("N = 24, method join"), "{text}");
    assert!(
        text.contains("stopped at the time asked (1 s) before 10000 tasks"),
        "{text}"
    );
    // A sample asked for without a time is timed whole; by default the
    // budget is half a minute.
    let asked = plan_json(&["12", "--estimate", "--sample", "30"]);
    assert_eq!(
        (
            asked["sampled"].as_u64(),
            asked["time_budget_seconds"].as_u64()
        ),
        (Some(30), None)
    );
    let default = plan_json(&["12", "--estimate"]);
    assert_eq!(default["time_budget_seconds"], 30);
}

#[test]
fn the_heaviest_tasks_are_ranked_by_cost_and_each_timed() {
    for method in ["join", "mirror"] {
        let plan = plan_json(&["14", "-m", method, "--heaviest", "6", "-j", "2"]);
        let found = &plan["heaviest"];
        assert_eq!(found["tasks"], plan["tasks"], "{method}");
        let tasks = found["heaviest"].as_array().unwrap();
        assert_eq!(tasks.len(), 6, "{method}: {plan}");
        let costs: Vec<f64> = tasks.iter().map(|t| t["cost"].as_f64().unwrap()).collect();
        assert!(
            costs.windows(2).all(|w| w[0] >= w[1]),
            "{method}: {costs:?}"
        );
        // The heaviest by cost is at least the mean.
        assert!(costs[0] >= found["mean_cost"].as_f64().unwrap(), "{plan}");
        for task in tasks {
            assert!(task["id"].as_u64().unwrap() < plan["tasks"].as_u64().unwrap());
            assert!(task["seconds"].as_f64().unwrap() >= 0.0, "{task}");
        }
    }
    let text = nqueens()
        .args(["plan", "12", "--heaviest", "3"])
        .assert()
        .success();
    let stdout = String::from_utf8_lossy(&text.get_output().stdout).into_owned();
    assert_eq!(stdout.matches("\n  task ").count(), 3, "{stdout}");
    assert!(stdout.contains("  longest: task "), "{stdout}");
    assert!(usage_error(&["plan", "12", "--heaviest", "0"]).contains("--heaviest"));
    assert!(usage_error(&["plan", "12", "--heaviest", "3", "--estimate"]).contains("--estimate"));
}
