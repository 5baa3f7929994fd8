//! The benchmark: its report, its checks, and its failure on a wrong count.

use nqueens::analysis::bench::{default_thread_counts, median, run_bench, BenchConfig};
use nqueens::{Error, Method};

fn tiny(expected: u128) -> BenchConfig {
    let mut config = BenchConfig::standard(10, Method::Auto).expect("N = 10 is published");
    config.runs = 2;
    config.warmup = true;
    config.thread_counts = vec![1, 2];
    config.expected_solutions = expected;
    config
}

#[test]
fn a_tiny_bench_reports_every_thread_count() {
    let mut steps = Vec::new();
    let report = run_bench(&tiny(724), |step| {
        steps.push((step.done, step.total, step.threads))
    })
    .unwrap();
    assert_eq!(steps.len(), 6, "2 runs and a warm-up at 2 thread counts");
    assert_eq!(steps.last(), Some(&(6, 6, 2)));
    assert_eq!(report.solutions, 724);
    assert_eq!(report.method, "d4", "auto resolves to the method it ran");
    assert!(report.nodes > 0);
    assert_eq!(report.results.len(), 2);
    for (result, threads) in report.results.iter().zip([1, 2]) {
        assert_eq!(result.threads, threads);
        assert_eq!(result.seconds.len(), 2);
        assert!(
            result.min_seconds <= result.median_seconds
                && result.median_seconds <= result.max_seconds
        );
        assert!(result.nodes_per_second > 0.0);
        assert!(
            (result.nodes_per_second_per_thread * threads as f64 - result.nodes_per_second).abs()
                < 1e-3
        );
        assert!(result.speedup.is_some() && result.efficiency_percent.is_some());
    }
    assert_eq!(report.results[0].speedup, Some(1.0));
    assert_eq!(
        report.score_one_core,
        Some(report.results[0].nodes_per_second)
    );
    assert_eq!(report.score_all_cores, report.results[1].nodes_per_second);
    assert!(!report.cpu_model.is_empty());
    assert_eq!(report.version, env!("CARGO_PKG_VERSION"));
}

#[test]
fn a_wrong_count_fails_the_bench() {
    let err = run_bench(&tiny(725), |_| {}).unwrap_err();
    assert_eq!(
        err,
        Error::WrongCount {
            n: 10,
            threads: 1,
            counted: 724,
            expected: 725
        }
    );
    assert!(err.to_string().contains("WRONG COUNT"));
}

#[test]
fn without_one_thread_there_is_no_speedup() {
    let mut config = tiny(724);
    config.thread_counts = vec![2];
    let report = run_bench(&config, |_| {}).unwrap();
    assert_eq!(report.results[0].speedup, None);
    assert_eq!(report.score_one_core, None);
}

#[test]
fn bad_configurations_are_errors() {
    let mut config = tiny(724);
    config.runs = 0;
    assert_eq!(run_bench(&config, |_| {}).unwrap_err(), Error::NoRuns);
    let mut config = tiny(724);
    config.thread_counts = vec![1, 0];
    assert_eq!(run_bench(&config, |_| {}).unwrap_err(), Error::ZeroThreads);
    assert!(matches!(
        BenchConfig::standard(28, Method::Auto),
        Err(Error::NoPublishedCount { n: 28, largest: 27 })
    ));
}

#[test]
fn thread_counts_double_up_to_every_core() {
    assert_eq!(default_thread_counts(1), vec![1]);
    assert_eq!(default_thread_counts(2), vec![1, 2]);
    assert_eq!(default_thread_counts(6), vec![1, 2, 4, 6]);
    assert_eq!(default_thread_counts(8), vec![1, 2, 4, 8]);
}

#[test]
fn medians_of_odd_and_even_lists() {
    assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
    assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
}
