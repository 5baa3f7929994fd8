//! The join's roofline on this CPU, one thread: how far the matcher's leaf
//! sums run from the core's limit on the instructions they take.
//!
//! A leaf decides 512 pairs of half boards per visit of a query to a block
//! of stored keys: it loads one 64-byte line per chunk of key bits, ANDs
//! them and counts the bits. A core that loads k lines per cycle needs
//! at least L/k cycles for a visit of L lines: the floor this table
//! compares against. k is 2 on the AVX-512 path where a core loads 512
//! bits at once (Zen 5, Intel from Ice Lake), 1 where it loads two
//! 256-bit halves a cycle (the AVX2 path everywhere, and Zen 4's AVX-512),
//! and 0.5 on the portable path (`lines_per_cycle`). The clock is
//! measured (a chain of dependent adds, one a cycle), since virtual
//! machines hide the performance counters.
//!
//! For each N: a sample of the plan's tasks (all of them to N = 18, evenly
//! spaced ids above), counted on this thread in id order (warm, as a count
//! meets them): core-ns and cycles per solution; the pairs a brute-force
//! join would test, and those the leaves decide (the split rules out the
//! rest on cut bits without visiting them); lines per visit; cycles per
//! visit if all the time were the leaves' (an upper bound on the leaves'
//! share), against the floor. Then the leaves alone, on the keys of a real
//! N = 20 task with full blocks: the kernel's own cycles per visit. Last,
//! the floor as this core reaches it: the lines a cycle a loop of the
//! leaves' loads alone (7 random lines a query ANDed, at the offsets a
//! leaf reads, from one block's tables and from a pair's) sustains, and
//! the share of that rate the leaves reach. Random lines do not load at
//! the nominal rate everywhere (Zen 3: 0.7 lines a cycle on AVX2, not 1),
//! so a kernel far below the nominal floor may still be at the core's.
//!
//!   cargo bench --bench roofline                  # N = 16 18 20 22 24
//!   cargo bench --bench roofline -- 20 24 26      # some N
//!   NQUEENS_MATCHER=avx2 cargo bench --bench roofline
//!
//! Under `cargo test --benches` it checks itself on N = 12 instead: the
//! sampled counts against the published total, the work counters
//! against the pairs they must cover, and the load loop's ANDs against a
//! line-by-line twin.

use std::hint::black_box;

use nqueens::testing::disjoint::{
    count_disjoint_naive, matcher_path, take_leaf_work, Matcher, MatcherPath, BLOCK_KEYS,
};
use nqueens::testing::join::{count_task, task_keys, tasks, JoinTasks};
use nqueens::testing::{thread_cpu_seconds, SplitMix64};

/// 64-byte lines a core loads per cycle on `path`, and why: the floor's
/// divisor. Two vector loads a cycle on every x86 core the paths run on;
/// a 512-bit load is one line only where the core loads 512 bits at once
/// (Intel with AVX-512, AMD from Zen 5, family 26), while Zen 4 (family
/// 25) splits it in two 256-bit halves, as the AVX2 path's loads are on
/// every core. `ROOFLINE_LINES_PER_CYCLE` overrides it.
fn lines_per_cycle(path: MatcherPath) -> (f64, String) {
    if let Some(lines) = std::env::var("ROOFLINE_LINES_PER_CYCLE")
        .ok()
        .and_then(|value| value.parse::<f64>().ok())
        .filter(|lines| *lines > 0.0)
    {
        return (lines, "ROOFLINE_LINES_PER_CYCLE".to_string());
    }
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let amd_family = info.contains("AuthenticAMD").then(|| {
        cpu_field(&info, "cpu family")
            .parse::<u32>()
            .unwrap_or_default()
    });
    match path {
        MatcherPath::Avx512 if amd_family.is_none_or(|family| family >= 26) => {
            (2.0, "two 512-bit loads a cycle".to_string())
        }
        MatcherPath::Avx512 => (
            1.0,
            "two 256-bit loads a cycle (a 512-bit load is two)".to_string(),
        ),
        MatcherPath::Avx2 => (1.0, "two 256-bit loads a cycle".to_string()),
        MatcherPath::Portable => (
            0.5,
            "two 128-bit loads a cycle (the portable build's SSE2)".to_string(),
        ),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !args.iter().any(|arg| arg == "--bench") {
        self_check();
        return;
    }
    let mut sizes: Vec<u32> = args.iter().filter_map(|arg| arg.parse().ok()).collect();
    if sizes.is_empty() {
        sizes = vec![16, 18, 20, 22, 24];
    }
    let ghz = clock_ghz();
    let path = matcher_path();
    let (lines_per_cycle, why) = lines_per_cycle(path);
    println!(
        "# {}, matcher {}, one thread, clock {ghz:.2} GHz (measured), floor at {lines_per_cycle} lines a cycle ({why})",
        cpu_name(),
        path.name(),
    );
    println!();
    println!("| N | tasks | core-ns per solution | cycles per solution | brute-force pairs per solution | leaf pairs per solution | lines per visit | cycles per visit, all time | floor | share of the floor |");
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    for n in sizes {
        let sample = sample_of(n);
        let row = measure(n, &sample);
        let solutions = row.solutions as f64;
        let seconds_per_visit = row.seconds / row.work.visits.max(1) as f64;
        let lines_per_visit = row.work.lines as f64 / row.work.visits.max(1) as f64;
        let floor = lines_per_visit / lines_per_cycle;
        let cycles_per_visit = seconds_per_visit * ghz * 1e9;
        println!(
            "| {n} | {} | {:.3} | {:.2} | {:.0} | {:.1} | {:.2} | {:.2} | {:.2} | {:.0}% |",
            sample.len(),
            row.seconds * 1e9 / solutions,
            row.seconds * ghz * 1e9 / solutions,
            row.pairs as f64 / solutions,
            (row.work.visits * BLOCK_KEYS as u64 + row.work.naive_pairs) as f64 / solutions,
            lines_per_visit,
            cycles_per_visit,
            floor,
            100.0 * floor / cycles_per_visit,
        );
    }
    let (lines_per_visit, seconds_per_visit) = leaves_alone();
    let floor = lines_per_visit / lines_per_cycle;
    let cycles = seconds_per_visit * ghz * 1e9;
    println!();
    println!(
        "leaves alone (N = 20 task, full blocks): {lines_per_visit:.2} lines per visit, {cycles:.2} cycles per visit, floor {floor:.2}: {:.0}% of the floor",
        100.0 * floor / cycles
    );
    // The floor as this core reaches it: the leaf loop's loads alone.
    for (tables, what) in [(1, "one block's"), (2, "a pair's")] {
        let rate = measured_lines_per_cycle(path, tables, ghz);
        let measured_floor = lines_per_visit / rate;
        println!(
            "lines loaded alone from {what} {} KB of tables (7 random lines a query, ANDed): {rate:.2} a cycle, a visit's {lines_per_visit:.2} lines in {measured_floor:.2} cycles: the leaves reach {:.0}% of it",
            tables * TABLE_LINES * 64 / 1024,
            100.0 * measured_floor / cycles
        );
    }
}

/// Lines in one block's tables at 7 chunks of 6 bits (28 KB): what a
/// leaf of the median N = 20 to 28 task holds per block.
const TABLE_LINES: usize = 7 * 64;

/// A 64-byte line, aligned as the leaves' are.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Line([u64; 8]);

/// Lines a cycle this core loads as the leaf loop does, on `path`: each
/// query ANDs 7 random lines (one per chunk's table of 64) of each of
/// `blocks` blocks' tables at the same offsets, two queries a step, and
/// nothing else (no counting, no routing). Best of three half-second
/// runs, by the thread's CPU time.
fn measured_lines_per_cycle(path: MatcherPath, blocks: usize, ghz: f64) -> f64 {
    let lines = vec![Line([u64::MAX; 8]); blocks * TABLE_LINES];
    let mut random = SplitMix64(0x2545_f491_4f6c_dd1d);
    // A query's offsets as the leaves hold them: bytes from its block's
    // first line, a row of 8 (the seventh's chunk repeated as padding).
    let rows: Vec<[u16; 8]> = (0..1 << 14)
        .map(|_| std::array::from_fn(|chunk| ((chunk.min(6) * 64 + random.below(64)) * 64) as u16))
        .collect();
    let mut best = 0.0f64;
    for _ in 0..3 {
        let started = thread_cpu_seconds();
        let mut rounds = 0u64;
        while thread_cpu_seconds() - started < 0.5 {
            black_box(and_lines_on(path, black_box(&lines), &rows, blocks));
            rounds += 1;
        }
        let cycles = (thread_cpu_seconds() - started) * ghz * 1e9;
        let loaded = rounds * (rows.len() * 7 * blocks) as u64;
        best = best.max(loaded as f64 / cycles);
    }
    best
}

/// The AND of each query's lines, folded into one word so none is
/// skipped, built for `path`'s instructions.
fn and_lines_on(path: MatcherPath, lines: &[Line], rows: &[[u16; 8]], blocks: usize) -> u64 {
    match path {
        // SAFETY: the matcher path runs on this CPU (`matcher_path`).
        #[cfg(target_arch = "x86_64")]
        MatcherPath::Avx512 => unsafe { and_lines_avx512(lines, rows, blocks) },
        // SAFETY: as above.
        #[cfg(target_arch = "x86_64")]
        MatcherPath::Avx2 => unsafe { and_lines_avx2(lines, rows, blocks) },
        _ => and_lines_by_blocks(lines, rows, blocks),
    }
}

/// [`and_lines`] for a count of blocks known only at run time, built
/// for the caller's instructions.
#[inline(always)]
fn and_lines_by_blocks(lines: &[Line], rows: &[[u16; 8]], blocks: usize) -> u64 {
    if blocks == 2 {
        and_lines::<2>(lines, rows)
    } else {
        and_lines::<1>(lines, rows)
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn and_lines_avx512(lines: &[Line], rows: &[[u16; 8]], blocks: usize) -> u64 {
    and_lines_by_blocks(lines, rows, blocks)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn and_lines_avx2(lines: &[Line], rows: &[[u16; 8]], blocks: usize) -> u64 {
    and_lines_by_blocks(lines, rows, blocks)
}

/// The loop of [`and_lines_on`] for `BLOCKS` blocks (1 or 2).
#[inline(always)]
fn and_lines<const BLOCKS: usize>(lines: &[Line], rows: &[[u16; 8]]) -> u64 {
    assert!(lines.len() >= BLOCKS * TABLE_LINES);
    let base = lines.as_ptr().cast::<u8>();
    let mut sink = Line([0; 8]);
    // SAFETY: every offset is below TABLE_LINES lines (`rows` above), so
    // the line at it in block b < BLOCKS lies within `lines`.
    let line = |block: usize, offset: u16| unsafe {
        *base
            .add(block * TABLE_LINES * 64 + usize::from(offset))
            .cast::<Line>()
    };
    for row in rows {
        for block in 0..BLOCKS {
            let mut acc = line(block, row[0]);
            for &offset in &row[1..7] {
                for (word, other) in acc.0.iter_mut().zip(line(block, offset).0) {
                    *word &= other;
                }
            }
            for (word, other) in sink.0.iter_mut().zip(acc.0) {
                *word ^= other;
            }
        }
    }
    sink.0.iter().fold(0, |all, word| all ^ word)
}

/// The ids of the tasks timed for `n`: every task to N = 18, else evenly
/// spaced ids, fewer as tasks grow (seconds a task at N = 24).
fn sample_of(n: u32) -> Vec<u64> {
    let len = JoinTasks::new(n).len();
    let wanted: u64 = match n {
        0..=18 => len,
        19..=20 => 4000,
        21..=22 => 600,
        23..=24 => 60,
        _ => 6,
    };
    let wanted = wanted.min(len);
    (0..wanted).map(|k| k * len / wanted).collect()
}

/// What a sample counted.
struct Row {
    solutions: u64,
    pairs: u64,
    seconds: f64,
    work: nqueens::testing::disjoint::LeafWork,
}

/// Counts the tasks `ids` of `n` on this thread, timing each by the
/// thread's CPU time, with the leaves' work.
fn measure(n: u32, ids: &[u64]) -> Row {
    let all = JoinTasks::new(n);
    let mut row = Row {
        solutions: 0,
        pairs: 0,
        seconds: 0.0,
        work: Default::default(),
    };
    take_leaf_work();
    for &id in ids {
        let task = all.get(id);
        let started = thread_cpu_seconds();
        let tally = black_box(count_task(n, &task));
        row.seconds += thread_cpu_seconds() - started;
        row.solutions += tally.solutions;
        row.pairs += tally.pairs;
    }
    row.work = take_leaf_work();
    row
}

/// The leaves alone on the keys of the median N = 20 task: lines per
/// visit and seconds per visit.
fn leaves_alone() -> (f64, f64) {
    let all = tasks(20);
    let (east, west) = task_keys(20, &all[all.len() / 2]);
    // Whole blocks only: the last block's padding would count as work.
    let east = &east[..east.len() / BLOCK_KEYS * BLOCK_KEYS];
    let queries = &west[0];
    let mut matcher = Matcher::default();
    matcher.load(east);
    take_leaf_work();
    let mut rounds = 0u64;
    let started = thread_cpu_seconds();
    while thread_cpu_seconds() - started < 2.0 {
        black_box(matcher.sum_disjoint(black_box(queries), 0));
        rounds += 1;
    }
    let seconds = thread_cpu_seconds() - started;
    let work = take_leaf_work();
    assert_eq!(
        work.visits,
        rounds * (queries.len() * east.len() / BLOCK_KEYS) as u64
    );
    (
        work.lines as f64 / work.visits as f64,
        seconds / work.visits as f64,
    )
}

/// `cargo test --benches`: the sampled counts of N = 12 sum to the table,
/// and every brute-force pair is either ruled out or decided by a leaf
/// (a leaf decides at most 512 a visit, padding included).
fn self_check() {
    let n = 12;
    let row = measure(n, &sample_of(n));
    assert_eq!(
        Some(u128::from(row.solutions)),
        nqueens::published::total(n)
    );
    let decided = row.work.visits * BLOCK_KEYS as u64 + row.work.naive_pairs;
    assert!(
        row.work.naive_pairs + row.work.visits > 0,
        "the leaves did no work"
    );
    assert!(
        row.work.lines >= row.work.visits,
        "a visit reads a line at least"
    );
    // Padding aside, the leaves decide no more pairs than a brute-force
    // join tests.
    assert!(
        decided <= row.pairs + row.work.visits * BLOCK_KEYS as u64,
        "{decided} leaf pairs against {} brute-force pairs",
        row.pairs
    );
    // The plain matcher's visits are queries x blocks, and it counts as
    // the naive loop does.
    let all = tasks(16);
    let (east, west) = task_keys(16, &all[all.len() / 2]);
    let mut matcher = Matcher::default();
    matcher.load(&east);
    take_leaf_work();
    let sum = matcher.sum_disjoint(&west[0], 0);
    let expected: u64 = west[0]
        .iter()
        .map(|&q| count_disjoint_naive(&east, q))
        .sum();
    assert_eq!(sum, expected);
    let work = take_leaf_work();
    if east.len() >= BLOCK_KEYS {
        assert_eq!(
            work.visits,
            (west[0].len() * east.len().div_ceil(BLOCK_KEYS)) as u64
        );
    }
    // The load-rate loop ANDs the lines it is given on every path that
    // runs here, as a line-by-line twin does.
    let mut generator = SplitMix64(0x9e37_79b9_7f4a_7c15);
    let mut random = || generator.next();
    let lines: Vec<Line> = (0..2 * TABLE_LINES)
        .map(|_| Line(std::array::from_fn(|_| random() | random())))
        .collect();
    let rows: Vec<[u16; 8]> = (0..64)
        .map(|_| std::array::from_fn(|_| (random() % TABLE_LINES as u64 * 64) as u16))
        .collect();
    for blocks in [1, 2] {
        let mut expected = 0;
        for row in &rows {
            for block in 0..blocks {
                let line = |offset: u16| lines[block * TABLE_LINES + usize::from(offset) / 64].0;
                let and = row[1..7].iter().fold(line(row[0]), |acc, &offset| {
                    std::array::from_fn(|word| acc[word] & line(offset)[word])
                });
                expected ^= and.iter().fold(0, |all, word| all ^ word);
            }
        }
        for path in MatcherPath::ALL.into_iter().filter(|path| path.runs_here()) {
            assert_eq!(
                and_lines_on(path, &lines, &rows, blocks),
                expected,
                "{path:?}, {blocks} blocks"
            );
        }
    }
    println!("roofline: self-check of N = 12, the leaf counters and the load-rate loop passed");
}

/// The core's clock in GHz: a chain of dependent adds retires one a
/// cycle, so its length over its CPU time is the clock (best of five).
/// The adds take their step from a register: Intel cores from Golden
/// Cove (Sapphire and Emerald Rapids) fold adds of an immediate at
/// rename, and such a chain read 11.76 GHz on one.
#[cfg(target_arch = "x86_64")]
fn clock_ghz() -> f64 {
    const ROUNDS: u64 = 100_000_000;
    (0..5)
        .map(|_| {
            let started = thread_cpu_seconds();
            let mut value = 0u64;
            let mut left = ROUNDS;
            // SAFETY: registers only: eight dependent adds of `step` (1,
            // in a register) on `value` and a count down of `left` to
            // zero; no memory is touched.
            unsafe {
                std::arch::asm!(
                    "2:",
                    "add {value}, {step}",
                    "add {value}, {step}",
                    "add {value}, {step}",
                    "add {value}, {step}",
                    "add {value}, {step}",
                    "add {value}, {step}",
                    "add {value}, {step}",
                    "add {value}, {step}",
                    "sub {left}, 1",
                    "jnz 2b",
                    value = inout(reg) value,
                    left = inout(reg) left,
                    step = in(reg) 1u64,
                    options(nomem, nostack),
                );
            }
            assert_eq!((value, left), (8 * ROUNDS, 0));
            8.0 * ROUNDS as f64 / (thread_cpu_seconds() - started) / 1e9
        })
        .fold(0.0, f64::max)
}

#[cfg(not(target_arch = "x86_64"))]
fn clock_ghz() -> f64 {
    f64::NAN
}

/// The CPU's name and family/model, from /proc/cpuinfo where there is one.
fn cpu_name() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    format!(
        "{} (family {}, model {})",
        cpu_field(&info, "model name"),
        cpu_field(&info, "cpu family"),
        cpu_field(&info, "model")
    )
}

/// The first value of `/proc/cpuinfo`'s field `name` in `info`, or `?`.
fn cpu_field(info: &str, name: &str) -> String {
    info.lines()
        .find(|line| line.split(':').next().is_some_and(|key| key.trim() == name))
        .and_then(|line| line.split(':').nth(1))
        .map(|value| value.trim().to_string())
        .unwrap_or_else(|| "?".to_string())
}
