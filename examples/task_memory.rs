//! How near a worker thread's buffers run to the plan's memory bound: the
//! tasks of a `join` plan of N ranked heaviest by their cost (and a
//! random spread of others) counted one after another on this thread,
//! as a worker meets them, with each part's high-water mark of live bytes
//! against that part's term of the bound.
//!
//!   cargo run --release --features testing --example task_memory -- 26 20 20
//!
//! (N, the heaviest K, then R random tasks; N = 28's ranking costs every
//! task first, about two minutes on one thread.)

use std::collections::BinaryHeap;
use std::time::Instant;

use nqueens::testing::join::{
    allocator_slack, count_task_in_parts, task_cost, thread_bound, thread_bytes,
    thread_scratch_parts, JoinTasks, Parts, QuadrantCounts, ScratchBytes,
};

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|text| text.parse().unwrap_or(u64::MAX))
        .collect();
    let (n, heaviest, random) = match args[..] {
        [n, k, r] if (10..=28).contains(&n) && k < 1 << 20 && r < 1 << 20 => (n as u32, k, r),
        _ => {
            eprintln!("usage: task_memory N K R (a join plan, N from 10 to 28; the K heaviest tasks, then R random ones)");
            std::process::exit(2);
        }
    };
    let tasks = JoinTasks::new(n);
    let quadrants = QuadrantCounts::new(n / 2);
    let started = Instant::now();
    // The K heaviest by cost: a min-heap of (cost, id) kept at K.
    let mut ranked: BinaryHeap<std::cmp::Reverse<(u64, u64)>> = BinaryHeap::new();
    if heaviest > 0 {
        for (id, task) in tasks.iter().enumerate() {
            // Positive floats order as their bits do (the costs pass u64::MAX).
            let cost = task_cost(n, &quadrants, &task).to_bits();
            ranked.push(std::cmp::Reverse((cost, id as u64)));
            if ranked.len() as u64 > heaviest {
                ranked.pop();
            }
        }
    }
    let mut ids: Vec<u64> = ranked.into_iter().map(|entry| entry.0 .1).collect();
    ids.sort_unstable();
    let mut state = 0x9e37_79b9_7f4a_7c15_u64 ^ u64::from(n);
    for _ in 0..random {
        // splitmix64: a spread of ids, the same each run.
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        ids.push((z ^ (z >> 31)) % tasks.len());
    }
    eprintln!(
        "N = {n}: {} tasks chosen in {:.1} s",
        ids.len(),
        started.elapsed().as_secs_f64()
    );
    // Other part sizes to try, from the environment.
    let size = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|text| text.parse().ok())
            .unwrap_or(default)
    };
    // A count's sizes for this N unless the environment says otherwise.
    let count_parts = Parts::of(n);
    let parts = Parts {
        stored_keys: size("STORED_KEYS", count_parts.stored_keys),
        query_keys: size("QUERY_KEYS", count_parts.query_keys),
        held_keys: size("HELD_KEYS", count_parts.held_keys),
        ..count_parts
    };
    let mut seconds = 0.0;
    let mut peak = ScratchBytes::default();
    let mut peak_total = 0u64;
    for (done, &id) in ids.iter().enumerate() {
        let began = Instant::now();
        count_task_in_parts(n, &tasks.get(id), parts);
        seconds += began.elapsed().as_secs_f64();
        let now = thread_scratch_parts();
        peak = peak.max(now);
        peak_total = peak_total.max(now.total());
        eprintln!(
            "{}/{} task {id}: {:.2} s, {:.1} MiB held, resident {}",
            done + 1,
            ids.len(),
            began.elapsed().as_secs_f64(),
            mib(now.total()),
            resident()
        );
    }
    let bound = thread_bound(n);
    println!(
        "N = {n}, {} tasks ({heaviest} heaviest, {random} random), one thread, {seconds:.2} s; {parts:?}",
        ids.len()
    );
    println!("| part | high-water, MiB | bound, MiB | share |");
    println!("| --- | --- | --- | --- |");
    let rows = peak
        .named()
        .into_iter()
        .zip(bound.named())
        .map(|((part, high), (_, limit))| (part, high, limit))
        .chain([("all at once", peak_total, bound.total())]);
    for (part, high, limit) in rows {
        let share = if limit > 0 {
            format!("{:.0}%", 100.0 * high as f64 / limit as f64)
        } else {
            "-".to_string()
        };
        println!(
            "| {part} | {:.1} | {:.1} | {share} |",
            mib(high),
            mib(limit)
        );
    }
    println!(
        "thread bound: {:.1} MiB (the parts above and {:.1} MiB the allocator holds freed); resident now {}",
        mib(thread_bytes(n)),
        mib(allocator_slack(n)),
        resident()
    );
}

/// The process's resident memory and its peak, as the kernel reports them
/// (Linux; empty elsewhere).
fn resident() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .map(|rest| rest.trim().to_string())
            .unwrap_or_default()
    };
    format!("{} (peak {})", field("VmRSS:"), field("VmHWM:"))
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1u64 << 20) as f64
}
