//! Counting methods against each other and against the published tables, at
//! several split depths and thread counts.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;

use nqueens::testing::naive;
use nqueens::{count, count_with_hooks, published};
use nqueens::{CountOptions, Method, Plan, RunHooks, SplitDepth, TaskOutcome};

use crate::common;

use common::options;

#[test]
fn methods_agree_at_every_depth_and_thread_count() {
    for n in 1..=14u32 {
        let mut depths = vec![SplitDepth::Auto];
        depths.extend((0..=n.min(4)).map(SplitDepth::Rows));
        let mut totals = Vec::new();
        for method in Method::ALL {
            let mut nodes_of_method = None;
            for &split in &depths {
                let mut nodes_of_split = None;
                for threads in [1, 2, 3] {
                    let report = count(n, &options(method, threads, split)).unwrap();
                    assert!(report.complete);
                    totals.push((method, split, threads, report.solutions));
                    // Nodes are queens placed: threads never change them,
                    // and for a single search per task neither does the
                    // split. `d4` searches an edge task in parts that share
                    // their top rows, which the split moves into the prefix.
                    let nodes = *nodes_of_split.get_or_insert(report.nodes);
                    assert_eq!(report.nodes, nodes, "n={n} {method} {split:?} threads");
                    if report.method != Method::D4 {
                        let nodes = *nodes_of_method.get_or_insert(report.nodes);
                        assert_eq!(report.nodes, nodes, "n={n} {method} {split:?} nodes");
                    }
                }
            }
        }
        let first = totals[0].3;
        for (method, split, threads, solutions) in totals {
            assert_eq!(
                solutions, first,
                "n={n} {method} {split:?} threads={threads}"
            );
        }
    }
}

#[test]
fn counts_equal_the_published_table_up_to_15() {
    for n in 1..=15u32 {
        let report = count(n, &CountOptions::default()).unwrap();
        assert_eq!(Some(report.solutions), published::total(n), "n={n}");
        assert_eq!(report.matches_published(), Some(true));
    }
    let full = count(15, &options(Method::NoSymmetry, 2, SplitDepth::Auto)).unwrap();
    assert_eq!(Some(full.solutions), published::total(15));
}

#[test]
fn full_tree_nodes_equal_the_naive_search() {
    for n in 1..=10u32 {
        let report = count(
            n,
            &options(Method::NoSymmetry, 2, SplitDepth::Rows(n.min(2))),
        )
        .unwrap();
        assert_eq!(
            report.nodes,
            u128::from(naive::count_completions(n, &[]).nodes),
            "n={n}"
        );
    }
}

#[test]
fn mirror_searches_about_half_the_full_tree() {
    for n in 8..=14u32 {
        let none = count(n, &options(Method::NoSymmetry, 2, SplitDepth::Auto)).unwrap();
        let mirror = count(n, &options(Method::Mirror, 2, SplitDepth::Auto)).unwrap();
        let ratio = mirror.nodes as f64 / none.nodes as f64;
        assert!((0.45..0.56).contains(&ratio), "n={n} ratio {ratio}");
    }
}

#[test]
fn plans_are_deterministic_and_ordered() {
    for method in Method::DEPTH_FIRST {
        for depth in [1, 3] {
            let a = Plan::build(12, method, SplitDepth::Rows(depth)).unwrap();
            let b = Plan::build(12, method, SplitDepth::Rows(depth)).unwrap();
            assert_eq!(a.fingerprint(), b.fingerprint());
            assert_eq!(a.tasks, b.tasks);
            for (index, task) in a.tasks.iter().enumerate() {
                assert_eq!(task.id, index as u64);
            }
        }
        let shallow = Plan::build(12, method, SplitDepth::Rows(2)).unwrap();
        let deep = Plan::build(12, method, SplitDepth::Rows(3)).unwrap();
        assert_ne!(shallow.fingerprint(), deep.fingerprint());
        assert!(deep.tasks.len() > shallow.tasks.len());
    }
    let none = Plan::build(12, Method::NoSymmetry, SplitDepth::Rows(3)).unwrap();
    let mirror = Plan::build(12, Method::Mirror, SplitDepth::Rows(3)).unwrap();
    assert_ne!(none.fingerprint(), mirror.fingerprint());
    assert_eq!(none.fingerprint_hex().len(), 16);
}

#[test]
fn auto_split_gives_enough_tasks_for_large_boards() {
    for n in [18u32, 20] {
        for method in Method::DEPTH_FIRST {
            let plan = Plan::build(n, method, SplitDepth::Auto).unwrap();
            assert!(
                plan.tasks.len() >= nqueens::plan::AUTO_MIN_TASKS,
                "n={n} {method}"
            );
            assert!(plan.split_depth + nqueens::plan::AUTO_TASK_ROWS <= n);
        }
    }
}

/// Below N = 18 the automatic split stops where deeper tasks would be too
/// small to pay for themselves, but only once the plan has enough tasks to
/// spread over threads: the rule of `SplitDepth::Auto`, checked against
/// the plan one row shallower and against the plan's own tasks and rows.
#[test]
fn auto_split_stops_where_tasks_would_get_small() {
    use nqueens::plan::{AUTO_FEW_TASKS, AUTO_MIN_ROWS_LEFT, AUTO_MIN_TASKS, AUTO_TASK_ROWS};
    let mut stopped_early = 0;
    for n in 6u32..=17 {
        for method in Method::DEPTH_FIRST {
            let plan = Plan::build(n, method, SplitDepth::Auto).unwrap();
            let depth = plan.split_depth;
            let tasks = plan.tasks.len();
            let floor = depth + AUTO_MIN_ROWS_LEFT >= n;
            assert!(depth + AUTO_MIN_ROWS_LEFT <= n, "n={n} {method}");
            // It went no deeper than it had to.
            let shallower = depth
                .checked_sub(1)
                .map(|rows| Plan::build(n, method, SplitDepth::Rows(rows)).unwrap());
            if let Some(had) = shallower
                .map(|plan| plan.tasks.len())
                .filter(|&had| had < tasks)
            {
                assert!(
                    had < AUTO_MIN_TASKS && (had < AUTO_FEW_TASKS || n - depth >= AUTO_TASK_ROWS),
                    "n={n} {method}: depth {depth} where {} gave {had} tasks",
                    depth - 1
                );
            }
            // And it stopped for a reason.
            let small_tasks_next = n - depth <= AUTO_TASK_ROWS && tasks >= AUTO_FEW_TASKS;
            assert!(
                tasks >= AUTO_MIN_TASKS || small_tasks_next || floor,
                "n={n} {method}: stopped at depth {depth} with {tasks} tasks"
            );
            if small_tasks_next && tasks < AUTO_MIN_TASKS {
                stopped_early += 1;
            }
        }
    }
    assert!(stopped_early > 0, "no plan stopped for small tasks");
}

#[test]
fn skipped_tasks_are_left_out_and_the_rest_adds_up() {
    let n = 12;
    let opts = options(Method::Mirror, 2, SplitDepth::Rows(3));
    let total = count(n, &opts).unwrap().solutions;
    let parts: u128 = (0..2)
        .map(|parity| common::shard_solutions(n, &opts, 2, parity))
        .sum();
    assert_eq!(parts, total);
}

#[test]
fn each_task_is_reported_once() {
    let seen = Mutex::new(Vec::new());
    let on_task = |outcome: &TaskOutcome| seen.lock().unwrap().push(outcome.id);
    let hooks = RunHooks::new().on_task(&on_task);
    let mut tasks = 0;
    count_with_hooks(13, &CountOptions::default(), &hooks, |plan| {
        tasks = plan.tasks.len()
    })
    .unwrap();
    let mut seen = seen.into_inner().unwrap();
    seen.sort_unstable();
    assert_eq!(seen, (0..tasks as u64).collect::<Vec<_>>());
}

#[test]
fn cancel_stops_handing_out_tasks() {
    let cancel = AtomicBool::new(false);
    let done = AtomicU64::new(0);
    let on_task = |_: &TaskOutcome| {
        if done.fetch_add(1, Ordering::Relaxed) == 9 {
            cancel.store(true, Ordering::Relaxed);
        }
    };
    let hooks = RunHooks::new().on_task(&on_task).cancel(&cancel);
    let report = count_with_hooks(
        14,
        &options(Method::Mirror, 2, SplitDepth::Auto),
        &hooks,
        |_| {},
    )
    .unwrap();
    assert!(!report.complete);
    assert!(report.solutions < published::total(14).unwrap());
    // Only tasks already in flight when the flag went up may finish after it.
    assert!(done.load(Ordering::Relaxed) <= 12);
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    assert!(count(0, &CountOptions::default()).is_err());
    assert!(count(33, &CountOptions::default()).is_err());
    let zero = CountOptions::default().with_threads(Some(0));
    assert_eq!(count(8, &zero).unwrap_err(), nqueens::Error::ZeroThreads);
    assert!(Plan::build(8, Method::NoSymmetry, SplitDepth::Rows(9)).is_err());
    assert!(Plan::build(30, Method::NoSymmetry, SplitDepth::Rows(17)).is_err());
    let huge = Plan::build(30, Method::NoSymmetry, SplitDepth::Rows(16)).unwrap_err();
    assert!(
        matches!(huge, nqueens::Error::SplitTooDeep { .. }),
        "{huge}"
    );
    assert!("sideways".parse::<Method>().is_err());
    assert_eq!("MIRROR".parse::<Method>(), Ok(Method::Mirror));
}

#[test]
fn the_repositorys_own_reference_counter_agrees_with_the_library() {
    // scripts/reference/queens.c, the yardstick of compare-reference.sh in
    // a fresh clone, must count what the library counts.
    let source =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/reference/queens.c");
    let dir = tempfile::tempdir().unwrap();
    let binary = dir.path().join("queens");
    let built = std::process::Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&binary)
        .arg(&source)
        .status();
    if !built.is_ok_and(|status| status.success()) {
        eprintln!("SKIPPED: no C compiler (cc) to build scripts/reference/queens.c");
        return;
    }
    for n in 1..=13u32 {
        let output = std::process::Command::new(&binary)
            .arg(n.to_string())
            .output()
            .unwrap();
        let expected = nqueens::count(n, &nqueens::CountOptions::default())
            .unwrap()
            .solutions;
        assert_eq!(
            String::from_utf8_lossy(&output.stdout).trim(),
            format!("{n} {expected}")
        );
    }
}

#[test]
fn a_report_serializes_as_its_record() {
    let report = count(8, &CountOptions::default()).unwrap();
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["n"], 8);
    assert_eq!(json["solutions"], 92);
    assert_eq!(json["unique"], 12);
    assert_eq!(json["matches_published"], true);
    assert_eq!(json["unique_matches_published"], true);
    assert!(
        json.get("runs").is_none(),
        "a count without a journal has no history fields: {json}"
    );
}

#[test]
fn handing_out_only_a_shards_ids_counts_what_skipping_the_others_does() {
    for method in [Method::Join, Method::Mirror, Method::D4] {
        let options = CountOptions::default()
            .with_method(method)
            .with_threads(Some(2));
        let shards = 3;
        let mut total = 0;
        for index in 0..shards {
            let skip = move |id: u64| id % shards != index;
            let skipping = RunHooks::new().skip(&skip);
            let handing = RunHooks::new().only_ids(index, shards);
            let by_skip = count_with_hooks(11, &options, &skipping, |_| {}).unwrap();
            let by_ids = count_with_hooks(11, &options, &handing, |_| {}).unwrap();
            assert_eq!(
                by_ids.solutions, by_skip.solutions,
                "{method} shard {index}"
            );
            assert!(!by_ids.complete, "{method} shard {index} is a part");
            total += by_ids.solutions;
        }
        assert_eq!(total, 2_680, "{method}: the shards add up to Q(11)");
    }
}
