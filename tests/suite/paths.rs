//! Code paths as values: a count takes the builds of the hot loops its
//! caller passes, on every one of its threads, and counts the same on each.

use std::collections::BTreeSet;
use std::sync::Mutex;

use nqueens::analysis::bench::code_paths;
use nqueens::{count_with_hooks, CodePaths, CountOptions, Method, RunHooks, TaskOutcome};

/// Every (lanes, matcher) pair of builds this CPU runs.
fn paths_here() -> Vec<(&'static str, &'static str)> {
    let lanes = ["avx512-popcnt", "avx512", "avx2", "off"];
    let matchers = ["avx512", "avx2", "portable"];
    lanes
        .iter()
        .flat_map(|&lane| matchers.iter().map(move |&matcher| (lane, matcher)))
        .filter(|&(lane, matcher)| CodePaths::parse(Some(lane), Some(matcher)).is_ok())
        .collect()
}

#[test]
fn a_count_takes_the_paths_its_caller_passes_on_every_thread() {
    let pairs = paths_here();
    // Every CPU runs the scalar kernel and the portable matcher.
    assert!(pairs.contains(&("off", "portable")), "{pairs:?}");
    for (lanes, matcher) in pairs {
        let paths = CodePaths::parse(Some(lanes), Some(matcher)).expect("runs here");
        for (method, n, published) in [(Method::D4, 12, 14_200u128), (Method::Join, 13, 73_712)] {
            let seen = Mutex::new(BTreeSet::new());
            // Asked on the thread that counted the task: what it took.
            let on_task = |_: &TaskOutcome| {
                seen.lock().unwrap().insert(code_paths());
            };
            let options = CountOptions::default()
                .with_method(method)
                .with_threads(Some(2))
                .with_paths(paths);
            let hooks = RunHooks::new().on_task(&on_task);
            let report = count_with_hooks(n, &options, &hooks, |_| {}).expect("count");
            assert_eq!(report.solutions, published, "{method} N = {n} on {paths}");
            let expected = format!("lanes {lanes}, matcher {matcher}");
            assert_eq!(
                seen.into_inner().unwrap(),
                BTreeSet::from([expected]),
                "{method} N = {n}"
            );
        }
    }
}

#[test]
fn a_path_that_is_not_one_is_refused_naming_what_is_accepted() {
    let err = CodePaths::parse(Some("sse9"), None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("lanes sse9 is not a build"), "{err}");
    assert!(err.contains("accepted values are"), "{err}");
    let err = CodePaths::parse(None, Some("neon"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("matcher neon is not a matcher loop"), "{err}");
    // Left out, a path keeps its default.
    assert_eq!(CodePaths::parse(None, None).unwrap(), CodePaths::default());
    assert_eq!(
        CodePaths::default().to_string(),
        "lanes default, matcher default"
    );
}
