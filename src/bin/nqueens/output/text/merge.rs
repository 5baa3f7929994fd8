//! `nqueens merge` for people: the total as a count's row with a note on
//! what its threads and seconds are, or what a partial set holds.

use std::io::{self, Write};

use nqueens::Report;

use crate::output::{count_of, human_duration, PartialMerge};

/// The total of `shards` shard files whose tasks took `task_seconds`.
pub fn merged(
    out: &mut dyn Write,
    report: &Report,
    shards: usize,
    task_seconds: f64,
) -> io::Result<()> {
    super::count::row(out, report, true)?;
    // What the row's threads and seconds are, and the core time the row
    // cannot show.
    writeln!(
        out,
        "    merged {}: threads summed over them, seconds of the longest (over its runs); {task_seconds:.3} core-seconds of tasks in all",
        count_of(shards as u64, "shard"),
    )
}

/// What the shards given hold so far, and which are missing.
pub fn partial(out: &mut dyn Write, partial: &PartialMerge<'_>) -> io::Result<()> {
    let p = partial;
    let share = 100.0 * p.tasks_done as f64 / p.tasks_in_plan.max(1) as f64;
    writeln!(
        out,
        "N = {} ({}, plan {}): {} of {} shards merged, {} of {} tasks ({share:.1}%), all checked",
        p.n, p.method, p.fingerprint, p.shards_given, p.shards, p.tasks_done, p.tasks_in_plan
    )?;
    writeln!(out, "    solutions in them: {}", p.solutions)?;
    writeln!(
        out,
        "    core time in them: {} (their tasks' seconds, summed); the whole count at this rate: {}",
        human_duration(p.task_seconds),
        human_duration(p.projected_task_seconds)
    )?;
    let listed: Vec<String> = p.missing_first.iter().map(u64::to_string).collect();
    let more = p.missing_count.saturating_sub(p.missing_first.len() as u64);
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    writeln!(
        out,
        "    missing: {} {}{more}",
        if p.missing_count == 1 {
            "shard"
        } else {
            "shards"
        },
        listed.join(", ")
    )
}
