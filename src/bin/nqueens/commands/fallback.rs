//! `auto` that cannot fit join in its memory falls back to d4: said on one
//! line with d4's predicted time, or refused past a day; past join's range
//! a line says d4 counts, and roughly how long.

use nqueens::units::human_bytes;

use super::usage;

/// Core-nanoseconds per solution of a d4 count, measured at N = 17 and 18
/// on one Zen 4 core (`scripts/compare-reference.sh 17 1 --method d4`: 2.28 s
/// for 95,815,104 solutions): what a fallback to d4 is priced at.
const D4_CORE_NS_PER_SOLUTION: f64 = 25.0;

/// When `auto` cannot fit join in the memory it may take, it counts with
/// d4, which can take years where join takes hours: says so in one line,
/// with d4's predicted time, or refuses when that is more than a day on
/// `threads` threads and `allow_slow` was not given.
pub fn check_fallback(
    n: u32,
    options: &nqueens::CountOptions,
    threads: usize,
    allow_slow: bool,
) -> anyhow::Result<()> {
    let Some((needed, limit)) = join_left_out(n, options.method, options.memory_limit, threads)
    else {
        return Ok(());
    };
    let core_seconds = solutions_about(n) * D4_CORE_NS_PER_SOLUTION * 1e-9;
    let wall = core_seconds / threads as f64;
    let refused = wall > 86_400.0 && !allow_slow;
    let what = format!(
        "join needs {} for N = {n} on {threads} thread(s) but may take {}, so auto {} with d4: about {} on these threads ({} of core time at d4's {D4_CORE_NS_PER_SOLUTION} core-ns per solution)",
        human_bytes(needed),
        human_bytes(limit),
        if refused { "would count" } else { "counts" },
        crate::output::human_duration(wall),
        crate::output::human_duration(core_seconds),
    );
    if refused {
        return Err(usage(format!(
            "{what}; raise --max-memory (or free memory), use fewer threads (-j), or add --allow-slow to count with d4 anyway"
        )));
    }
    eprintln!("note: {what}");
    Ok(())
}

/// What join needs and may take, where `method` is `auto`, which would
/// take join for `n`, but join does not fit `memory_limit` on `threads`;
/// else `None`. The plan's own memory check, on its task list alone: the
/// plan is built once, by the count (building and fingerprinting it here
/// too costs seconds at N = 27).
pub fn join_left_out(
    n: u32,
    method: nqueens::Method,
    memory_limit: Option<u64>,
    threads: usize,
) -> Option<(u64, u64)> {
    if method != nqueens::Method::Auto {
        return None;
    }
    match nqueens::Plan::check_memory(n, method, memory_limit, threads) {
        Err(nqueens::Error::JoinTooBig { needed, limit, .. }) => Some((needed, limit)),
        _ => None,
    }
}

/// Past join's range only d4 counts, for centuries: says so on one line
/// with a rough time, before the bar has a task's time to go by (called
/// once the plan is built, so a refused option speaks first).
pub fn note_past_join(n: u32, options: &nqueens::CountOptions, threads: usize) {
    let auto = nqueens::Method::Auto;
    if options.method != auto || nqueens::plan::effective_method(n, auto) != nqueens::Method::D4 {
        return;
    }
    let core_seconds = solutions_about(n) * D4_CORE_NS_PER_SOLUTION * 1e-9;
    eprintln!(
        "note: N = {n} is past join's range (N <= 28), so auto counts with d4: roughly {} on these threads ({} of core time, Q({n}) taken as {:.1e} at d4's {D4_CORE_NS_PER_SOLUTION} core-ns per solution)",
        crate::output::human_duration(core_seconds / threads as f64),
        crate::output::human_duration(core_seconds),
        solutions_about(n),
    );
}

/// Q(N) from the table; past it, about 10x per step from Q(27) (Q(27) /
/// Q(26) is 10.5).
fn solutions_about(n: u32) -> f64 {
    let table = nqueens::published::A000170;
    match table.get(n as usize) {
        Some(&q) => q as f64,
        None => {
            let last = table.len() - 1;
            table[last] as f64 * 10f64.powi(n as i32 - last as i32)
        }
    }
}
