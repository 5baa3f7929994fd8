//! A CPU throughput benchmark: one fixed, checked workload, timed at several
//! thread counts, reduced to medians, spreads and a score.
//!
//! N-queens counting is pure integer and branch work with no memory traffic,
//! so nodes per second compare CPUs well, but only for the same workload and
//! the same version of the search: a faster kernel or another method changes
//! what a node costs. Every run's count is checked; a wrong count fails the
//! benchmark instead of producing a number.

use serde::Serialize;

use crate::error::Error;
use crate::plan::{effective_method, Method};
use crate::run::{available_cores, count, CountOptions};
use crate::{published, system};

/// The default workload: N = 17 with the default method (`join`), 0.66 s
/// a run on one Zen 5 core (AVX-512), so that five runs at each thread
/// count take seconds.
pub const DEFAULT_N: u32 = 17;

/// What to run.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct BenchConfig {
    /// Board size.
    pub n: u32,
    /// Counting method.
    pub method: Method,
    /// Timed runs per thread count.
    pub runs: usize,
    /// Whether to run once untimed first (caches, frequency, page faults).
    pub warmup: bool,
    /// Thread counts to time, in order.
    pub thread_counts: Vec<usize>,
    /// The count every run must produce (the published value).
    pub expected_solutions: u128,
}

impl BenchConfig {
    /// Runs in all, warm-ups included: what [`BenchProgress::total`] says.
    pub fn total_runs(&self) -> usize {
        (self.runs + usize::from(self.warmup)) * self.thread_counts.len()
    }

    /// The standard configuration for `n` and `method`: 5 runs, a warm-up,
    /// threads 1, 2, 4, ... up to every core, checked against A000170.
    pub fn standard(n: u32, method: Method) -> Result<BenchConfig, Error> {
        let expected = published::total(n).ok_or(Error::NoPublishedCount {
            n,
            largest: published::largest_known(),
        })?;
        Ok(BenchConfig {
            n,
            method,
            runs: 5,
            warmup: true,
            thread_counts: default_thread_counts(available_cores()),
            expected_solutions: expected,
        })
    }
}

/// 1, 2, 4, ... below `cores`, then `cores` itself.
pub fn default_thread_counts(cores: usize) -> Vec<usize> {
    let cores = cores.max(1);
    let mut counts: Vec<usize> = std::iter::successors(Some(1usize), |t| Some(t * 2))
        .take_while(|&t| t < cores)
        .collect();
    counts.push(cores);
    counts
}

/// The timings at one thread count.
#[derive(Clone, Debug, Serialize)]
pub struct ThreadResult {
    /// Worker threads.
    pub threads: usize,
    /// Wall time of every timed run, in order.
    pub seconds: Vec<f64>,
    /// Median wall time.
    pub median_seconds: f64,
    /// Fastest run.
    pub min_seconds: f64,
    /// Slowest run.
    pub max_seconds: f64,
    /// (max - min) / median, in percent.
    pub spread_percent: f64,
    /// Nodes per second at the median time.
    pub nodes_per_second: f64,
    /// Nodes per second per thread at the median time.
    pub nodes_per_second_per_thread: f64,
    /// Median time at 1 thread over median time here; null without 1 thread.
    pub speedup: Option<f64>,
    /// Speedup over threads, in percent; null without 1 thread.
    pub efficiency_percent: Option<f64>,
}

/// A whole benchmark, as printed and exported.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// Board size.
    pub n: u32,
    /// Method counted with (after `auto` is resolved).
    pub method: String,
    /// Solutions every run counted (checked against A000170).
    pub solutions: u128,
    /// Nodes per run (the same for every run and thread count).
    pub nodes: u128,
    /// Timed runs per thread count.
    pub runs: usize,
    /// CPU model, from the operating system.
    pub cpu_model: String,
    /// Logical cores.
    pub logical_cores: usize,
    /// Physical cores.
    pub physical_cores: usize,
    /// Version of this crate.
    pub version: String,
    /// Build profile: release or debug.
    pub profile: String,
    /// The CPU features the searches choose their builds by, as found.
    pub cpu_features: Vec<String>,
    /// The vector-lane build of the depth-first searches (`off`: none).
    pub lanes: String,
    /// The loop of the join's matcher.
    pub matcher: String,
    /// When the benchmark ended (UTC, RFC 3339).
    pub timestamp: String,
    /// The 1-minute load average before the first run, where the system
    /// keeps one: other work on the machine skews the figures.
    pub load_average_before: Option<f64>,
    /// Results per thread count.
    pub results: Vec<ThreadResult>,
    /// Median nodes per second at the largest thread count timed.
    pub score_all_cores: f64,
    /// Median nodes per second at 1 thread, if timed.
    pub score_one_core: Option<f64>,
}

/// Where a running benchmark is, for progress displays.
#[derive(Clone, Copy, Debug)]
pub struct BenchProgress {
    /// Runs finished so far, warm-ups included.
    pub done: usize,
    /// Runs in all.
    pub total: usize,
    /// Thread count of the run just finished.
    pub threads: usize,
}

/// Runs the benchmark, calling `on_run` after every run. Fails on the first
/// count that differs from `config.expected_solutions`.
pub fn run_bench(
    config: &BenchConfig,
    mut on_run: impl FnMut(BenchProgress),
) -> Result<BenchReport, Error> {
    if config.runs == 0 {
        return Err(Error::NoRuns);
    }
    if config.thread_counts.contains(&0) || config.thread_counts.is_empty() {
        return Err(Error::ZeroThreads);
    }
    let load_average_before = system::load_average();
    let per_count = config.runs + usize::from(config.warmup);
    let total = config.total_runs();
    let mut done = 0;
    let mut nodes = 0;
    let mut timings = Vec::new();
    for &threads in &config.thread_counts {
        let options = CountOptions::default()
            .with_method(config.method)
            .with_threads(Some(threads));
        let mut seconds = Vec::with_capacity(config.runs);
        for run in 0..per_count {
            let report = count(config.n, &options)?;
            if report.solutions != config.expected_solutions {
                return Err(Error::WrongCount {
                    n: config.n,
                    threads,
                    counted: report.solutions,
                    expected: config.expected_solutions,
                });
            }
            nodes = report.nodes;
            if run >= usize::from(config.warmup) {
                seconds.push(report.seconds);
            }
            done += 1;
            on_run(BenchProgress {
                done,
                total,
                threads,
            });
        }
        timings.push((threads, seconds));
    }
    let one_thread_median = timings
        .iter()
        .find(|(threads, _)| *threads == 1)
        .map(|(_, seconds)| median(seconds));
    let results: Vec<ThreadResult> = timings
        .into_iter()
        .map(|(threads, seconds)| {
            let median_seconds = median(&seconds);
            let min_seconds = seconds.iter().copied().fold(f64::INFINITY, f64::min);
            let max_seconds = seconds.iter().copied().fold(0.0, f64::max);
            let nodes_per_second = nodes as f64 / median_seconds;
            let speedup = one_thread_median.map(|one| one / median_seconds);
            ThreadResult {
                threads,
                median_seconds,
                min_seconds,
                max_seconds,
                spread_percent: 100.0 * (max_seconds - min_seconds) / median_seconds,
                nodes_per_second,
                nodes_per_second_per_thread: nodes_per_second / threads as f64,
                speedup,
                efficiency_percent: speedup.map(|s| 100.0 * s / threads as f64),
                seconds,
            }
        })
        .collect();
    let widest = results
        .iter()
        .max_by_key(|result| result.threads)
        .expect("at least one thread count");
    Ok(BenchReport {
        n: config.n,
        method: effective_method(config.n, config.method).to_string(),
        solutions: config.expected_solutions,
        nodes,
        runs: config.runs,
        cpu_model: system::cpu_model(),
        logical_cores: available_cores(),
        physical_cores: system::physical_cores(),
        version: env!("CARGO_PKG_VERSION").to_string(),
        profile: if cfg!(debug_assertions) {
            "debug"
        } else {
            "release"
        }
        .to_string(),
        cpu_features: system::cpu_features(),
        lanes: crate::search::paths::taken_now().0.to_string(),
        matcher: crate::search::paths::taken_now().1.to_string(),
        timestamp: system::timestamp_utc(),
        load_average_before,
        score_all_cores: widest.nodes_per_second,
        score_one_core: results
            .iter()
            .find(|result| result.threads == 1)
            .map(|result| result.nodes_per_second),
        results,
    })
}

/// The median of a non-empty list.
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let middle = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[middle]
    } else {
        (sorted[middle - 1] + sorted[middle]) / 2.0
    }
}

/// Why the figures of `report` may not be the machine's own: other work
/// running when it started (a load average of half a core or more per
/// core), or one thread's runs spread by more than 10%. Empty when
/// neither.
pub fn busy_warnings(report: &BenchReport) -> Vec<String> {
    let mut warnings = Vec::new();
    if let Some(load) = report.load_average_before {
        if load >= 0.5 * report.logical_cores as f64 {
            warnings.push(format!(
                "the machine was busy: load average {load:.2} on {} cores before the first run",
                report.logical_cores
            ));
        }
    }
    if let Some(one) = report.results.iter().find(|result| result.threads == 1) {
        if one.spread_percent > 10.0 && one.seconds.len() > 1 {
            warnings.push(format!(
                "the 1-thread runs spread by {:.0}% (over 10%): other work shared the machine",
                one.spread_percent
            ));
        }
    }
    warnings
}

/// The code paths a count takes on this CPU, as people read them: `lanes
/// avx512-popcnt, matcher avx512` (figures differ by path several times
/// over, so a count names it where a person watches).
pub fn code_paths() -> String {
    let (lanes, matcher) = crate::search::paths::taken_now();
    format!("lanes {lanes}, matcher {matcher}")
}
