//! `nqueens compare`: two runs of one plan, task by task (journals) or
//! shard by shard (shard result files).

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::Context;
use nqueens::run::compare::{
    compare_keyed, compare_shards, CompareError, Comparison, ShardComparison, ShardRecord, TaskIds,
};
use nqueens::run::key::RunKey;
use nqueens::run::shard::check_mac;
use nqueens::TaskCount;

use super::merge::read_shard_file;
use super::usage;
use crate::args::{CompareArgs, Format};
use crate::exit_codes::ExitCode;

/// Runs `nqueens compare`.
pub fn run(args: &CompareArgs) -> anyhow::Result<ExitCode> {
    if args.format == Format::Csv {
        return Err(usage(
            "compare prints text or json, not csv: use --format text or --format json".to_string(),
        ));
    }
    let (first, second): (&[PathBuf], &[PathBuf]) = match (args.first.len(), args.with.is_empty()) {
        (2, true) => (&args.first[..1], &args.first[1..]),
        (_, true) => {
            return Err(usage(format!(
                "compare takes two files (journals, or shard files), or the first run's files and --with the second's; got {} and no --with",
                args.first.len()
            )))
        }
        _ => (&args.first, &args.with),
    };
    for path in first.iter().chain(second) {
        super::must_be_regular(path, "a journal or shard result")?;
    }
    let key = super::run_key(args.key.as_deref())?;
    let shard_files = first
        .iter()
        .chain(second)
        .filter(|path| is_shard_file(path))
        .count();
    if shard_files > 0 {
        if shard_files < first.len() + second.len() {
            return Err(usage(
                "compare takes journals on both sides, or shard result files on both sides, not a mix"
                    .to_string(),
            ));
        }
        return run_shards(first, second, args.format, key.as_ref());
    }
    let comparison = compare_keyed(first, second, key.as_ref()).map_err(|err| match err {
        CompareError::Journal(err) => anyhow::Error::new(err),
        other => usage(other.to_string()),
    })?;
    let disagreement = (!comparison.agrees()).then(|| {
        format!(
            "{} task(s) counted differently, first task {}",
            comparison.disagreeing, comparison.disagreements[0].id
        )
    });
    finish(
        args.format,
        || json(&comparison),
        |out| write_text(out, &comparison),
        disagreement,
    )
}

/// Prints a comparison as `format` asks (`json` or `text`) and gives the
/// exit status: 0, or 3 with `disagreement` said on stderr.
fn finish(
    format: Format,
    json: impl FnOnce() -> serde_json::Value,
    text: impl FnOnce(&mut io::StdoutLock<'static>) -> io::Result<()>,
    disagreement: Option<String>,
) -> anyhow::Result<ExitCode> {
    let mut out = io::stdout().lock();
    match format {
        Format::Json => writeln!(out, "{}", json()),
        _ => text(&mut out),
    }
    .context("cannot write the comparison")?;
    let Some(disagreement) = disagreement else {
        return Ok(ExitCode::Success);
    };
    out.flush().ok();
    eprintln!("error: DISAGREEMENT: {disagreement}");
    Ok(ExitCode::CountMismatch)
}

/// Whether `path` holds a shard result file (JSON) rather than a journal
/// (whose first line is a sealed header): its first byte that is not
/// white space is `{`.
fn is_shard_file(path: &Path) -> bool {
    let mut head = [0u8; 64];
    let Ok(read) = fs::File::open(path).and_then(|mut file| file.read(&mut head)) else {
        return false;
    };
    head[..read]
        .iter()
        .find(|byte| !byte.is_ascii_whitespace())
        .is_some_and(|&byte| byte == b'{')
}

/// Compares two sets of shard files, shard by shard.
fn run_shards(
    first: &[PathBuf],
    second: &[PathBuf],
    format: Format,
    key: Option<&RunKey>,
) -> anyhow::Result<ExitCode> {
    let read = |paths: &[PathBuf]| {
        paths
            .iter()
            .map(|path| {
                let (name, result) = read_shard_file(path)?;
                if let Some(key) = key {
                    check_mac(&name, &result, key).map_err(usage)?;
                }
                Ok((name, result))
            })
            .collect::<anyhow::Result<Vec<_>>>()
    };
    let comparison = compare_shards(&read(first)?, &read(second)?).map_err(usage)?;
    let disagreement = (!comparison.agrees()).then(|| {
        format!(
            "{} shard(s) counted differently, first shard {}",
            comparison.disagreeing, comparison.disagreements[0].shard
        )
    });
    finish(
        format,
        || shards_json(&comparison),
        |out| write_shards_text(out, &comparison),
        disagreement,
    )
}

fn write_shards_text(out: &mut impl Write, comparison: &ShardComparison) -> io::Result<()> {
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

fn shards_json(comparison: &ShardComparison) -> serde_json::Value {
    let c = comparison;
    let ids = |ids: &TaskIds| serde_json::json!({ "count": ids.count, "first": ids.first });
    let record = |r: &ShardRecord| serde_json::json!({ "file": r.file, "solutions": r.solutions, "digest": r.digest });
    serde_json::json!({
        "n": c.n,
        "method": c.method,
        "fingerprint": c.fingerprint,
        "tasks": c.tasks,
        "shards": c.shards,
        "held_first": c.held[0],
        "held_second": c.held[1],
        "in_both": c.in_both,
        "only_first": ids(&c.only[0]),
        "only_second": ids(&c.only[1]),
        "agree": c.agrees(),
        "disagreeing": c.disagreeing,
        "disagreements": c.disagreements.iter().map(|d| serde_json::json!({
            "shard": d.shard,
            "first": record(&d.first),
            "second": record(&d.second),
        })).collect::<Vec<_>>(),
    })
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

fn write_text(out: &mut impl Write, comparison: &Comparison) -> io::Result<()> {
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

fn json(comparison: &Comparison) -> serde_json::Value {
    let c = comparison;
    let ids = |ids: &TaskIds| serde_json::json!({ "count": ids.count, "first": ids.first });
    let task = |count: &TaskCount| {
        serde_json::json!({
            "solutions": count.solutions,
            "orbits": count.orbits,
            "orbit_sizes": count.orbit_sizes,
        })
    };
    serde_json::json!({
        "n": c.n,
        "method": c.method,
        "fingerprint": c.fingerprint,
        "tasks": c.tasks,
        "held_first": c.held[0],
        "held_second": c.held[1],
        "in_both": c.in_both,
        "neither": c.neither,
        "only_first": ids(&c.only[0]),
        "only_second": ids(&c.only[1]),
        "agree": c.agrees(),
        "disagreeing": c.disagreeing,
        "disagreements": c.disagreements.iter().map(|d| serde_json::json!({
            "task": d.id,
            "first": task(&d.first),
            "second": task(&d.second),
        })).collect::<Vec<_>>(),
    })
}
