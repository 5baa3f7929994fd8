//! `auto` whose first pick does not fit in its memory falls back to the
//! method it takes where memory is short
//! (`Method::auto_when_memory_is_short`): said on one line with its
//! predicted time, or refused past a day; past the fastest method's range
//! a line says which counts, and roughly how long.

use nqueens::units::human_bytes;

use super::usage;

/// When `auto` cannot fit its first pick in the memory it may take, it
/// counts with the method it takes where memory is short, which can take
/// years where the first takes hours: says so in one line, with that
/// method's predicted time, or refuses when that is more than a day on
/// `threads` threads and `allow_slow` was not given.
pub fn check_fallback(
    n: u32,
    options: &nqueens::CountOptions,
    threads: usize,
    allow_slow: bool,
) -> anyhow::Result<()> {
    let Some(short) = first_pick_left_out(n, options.method, options.memory_limit, threads) else {
        return Ok(());
    };
    let (first, instead) = (short.method, short.instead);
    let head = format!(
        "{first} needs {} for N = {n} on {threads} thread(s) but may take {}",
        human_bytes(short.needed),
        human_bytes(short.limit),
    );
    let Some(price) = instead.core_ns_per_solution() else {
        eprintln!("note: {head}, so auto counts with {instead}");
        return Ok(());
    };
    let core_seconds = solutions_about(n) * price * 1e-9;
    let wall = core_seconds / threads as f64;
    let refused = wall > 86_400.0 && !allow_slow;
    let what = format!(
        "{head}, so auto {} with {instead}: about {} on these threads ({} of core time at {instead}'s {price} core-ns per solution)",
        if refused { "would count" } else { "counts" },
        crate::output::human_duration(wall),
        crate::output::human_duration(core_seconds),
    );
    if refused {
        return Err(usage(format!(
            "{what}; raise --max-memory (or free memory), use fewer threads (-j), or add --allow-slow to count with {instead} anyway"
        )));
    }
    eprintln!("note: {what}");
    Ok(())
}

/// What `auto`'s first pick for an `n` board needs and may take, where
/// it does not fit on `threads` threads.
pub struct LeftOut {
    /// The method `auto` would take, that does not fit.
    pub method: nqueens::Method,
    /// Bytes it needs.
    pub needed: u64,
    /// Bytes it may take.
    pub limit: u64,
    /// The method `auto` counts with instead.
    pub instead: nqueens::Method,
}

/// Where `method` is `auto` and its first pick for `n` does not fit in
/// `memory_limit` on `threads` threads, what it needs and may take; else
/// `None`. The plan's own memory check, on its task list alone: the plan
/// is built once, by the count (building and fingerprinting it here too
/// costs seconds at N = 27).
pub fn first_pick_left_out(
    n: u32,
    method: nqueens::Method,
    memory_limit: Option<u64>,
    threads: usize,
) -> Option<LeftOut> {
    if method != nqueens::Method::Auto {
        return None;
    }
    match nqueens::Plan::check_memory(n, method, memory_limit, threads) {
        Err(nqueens::Error::TooBig { needed, limit, .. }) => Some(LeftOut {
            method: nqueens::plan::effective_method(n, method),
            needed,
            limit,
            instead: nqueens::Method::auto_when_memory_is_short(n),
        }),
        _ => None,
    }
}

/// Past the range of `auto`'s fastest method a slower one counts, for
/// centuries: says so on one line with a rough time, before the bar has
/// a task's time to go by (called once the plan is built, so a refused
/// option speaks first).
pub fn note_past_range(n: u32, options: &nqueens::CountOptions, threads: usize) {
    let auto = nqueens::Method::Auto;
    if options.method != auto {
        return;
    }
    let Some(outgrown) = nqueens::Method::auto_outgrown(n) else {
        return;
    };
    let taken = nqueens::plan::effective_method(n, auto);
    let max = *outgrown.own_range().end();
    let Some(price) = taken.core_ns_per_solution() else {
        eprintln!(
            "note: N = {n} is past {outgrown}'s range (N <= {max}), so auto counts with {taken}"
        );
        return;
    };
    let core_seconds = solutions_about(n) * price * 1e-9;
    eprintln!(
        "note: N = {n} is past {outgrown}'s range (N <= {max}), so auto counts with {taken}: roughly {} on these threads ({} of core time, Q({n}) taken as {:.1e} at {taken}'s {price} core-ns per solution)",
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
