//! `nqueens compare`'s report for people: what each run holds, and the
//! tasks or shards they count differently.

use std::io::{self, Write};

use nqueens::analysis::compare::{Comparison, ShardComparison, TaskIds};
use nqueens::TaskCount;

pub fn shards(out: &mut dyn Write, comparison: &ShardComparison) -> io::Result<()> {
    let c = comparison;
    writeln!(
        out,
        "plan: N = {}, {}, {} tasks in {} shards, fingerprint {}",
        c.n, c.method, c.tasks, c.shards, c.fingerprint
    )?;
    writeln!(
        out,
        "held: {} shards by the first run, {} by the second, {} by both",
        c.held[0], c.held[1], c.in_both
    )?;
    for (side, ids) in ["first", "second"].iter().zip(&c.only) {
        if ids.count > 0 {
            writeln!(out, "only in the {side}: {}", listed_as(ids, "shards"))?;
        }
    }
    if c.agrees() {
        writeln!(
            out,
            "agree: every shard both runs hold has the same task digest and solutions"
        )?;
    } else {
        writeln!(out, "DISAGREE: {} shard(s)", c.disagreeing)?;
        for d in &c.disagreements {
            writeln!(
                out,
                "  shard {}: first {} solutions, digest {} ({}); second {} solutions, digest {} ({})",
                d.shard,
                d.first.solutions,
                d.first.digest,
                d.first.file,
                d.second.solutions,
                d.second.digest,
                d.second.file
            )?;
        }
        writeln!(
            out,
            "a shard file holds one digest of all its tasks: to name the tasks, count the shard again with --checkpoint on both sides and compare the journals"
        )?;
    }
    Ok(())
}

fn counts(count: &TaskCount) -> String {
    let [o2, o4, o8] = count.orbit_sizes;
    let plural = if count.solutions == 1 { "" } else { "s" };
    let solutions = format!("{} solution{plural}", count.solutions);
    if count.orbits == 0 {
        solutions
    } else {
        format!(
            "{solutions}, {} classes ({o2}/{o4}/{o8} of 2/4/8 boards)",
            count.orbits
        )
    }
}

fn listed(ids: &TaskIds) -> String {
    listed_as(ids, "tasks")
}

/// `ids` as "count (what a, b, ...)".
fn listed_as(ids: &TaskIds, what: &str) -> String {
    let shown: Vec<String> = ids.first.iter().map(u64::to_string).collect();
    let more = if ids.count > ids.first.len() as u64 {
        ", ..."
    } else {
        ""
    };
    format!("{} ({what} {}{more})", ids.count, shown.join(", "))
}

pub fn tasks(out: &mut dyn Write, comparison: &Comparison) -> io::Result<()> {
    let c = comparison;
    writeln!(
        out,
        "plan: N = {}, {}, {} tasks, fingerprint {}",
        c.n, c.method, c.tasks, c.fingerprint
    )?;
    writeln!(
        out,
        "held: {} tasks by the first run, {} by the second, {} by both, {} by neither",
        c.held[0], c.held[1], c.in_both, c.neither
    )?;
    for (side, ids) in ["first", "second"].iter().zip(&c.only) {
        if ids.count > 0 {
            writeln!(out, "only in the {side}: {}", listed(ids))?;
        }
    }
    if c.agrees() {
        writeln!(out, "agree: every task both runs hold has the same counts")?;
    } else {
        writeln!(out, "DISAGREE: {} task(s)", c.disagreeing)?;
        for disagreement in &c.disagreements {
            writeln!(
                out,
                "  task {}: first {}; second {}",
                disagreement.id,
                counts(&disagreement.first),
                counts(&disagreement.second)
            )?;
        }
    }
    Ok(())
}
