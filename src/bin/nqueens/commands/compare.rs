//! `nqueens compare`: two runs of one plan, task by task (journals) or
//! shard by shard (shard result files).

use std::fs;
use std::io::{self, Read, Write};

use std::path::{Path, PathBuf};

use anyhow::Context;
use nqueens::analysis::compare::{compare_keyed, compare_shards, CompareError};
use nqueens::run::shard::check_mac;
use nqueens::run::signing::RunKey;

use super::merge::read_shard_file;
use super::usage;
use crate::args::{CompareArgs, Format};
use crate::exit_codes::ExitCode;
use crate::output::{Kind, Output};

/// Runs `nqueens compare`.
pub fn run(args: &CompareArgs) -> anyhow::Result<ExitCode> {
    args.format.check_offers(Kind::Compare, "compare")?;
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
    // The same file on both sides agrees with itself whatever it holds:
    // said, so that no one reads it as two runs agreeing.
    for path in first {
        if let Some(twin) = second.iter().find(|other| same_file(path, other)) {
            eprintln!(
                "note: {} and {} are one file: it is compared with itself, which says nothing of another run",
                path.display(),
                twin.display()
            );
        }
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
    finish(args.format, &Output::Comparison(&comparison), disagreement)
}

/// Prints a comparison as `format` asks and gives the exit status: 0, or
/// 3 with `disagreement` said on stderr.
fn finish(
    format: Format,
    comparison: &Output<'_>,
    disagreement: Option<String>,
) -> anyhow::Result<ExitCode> {
    let mut out = io::stdout().lock();
    format
        .write(&mut out, comparison)
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
    finish(format, &Output::ShardComparison(&comparison), disagreement)
}

/// Whether `a` and `b` name one file (the same device and inode).
#[cfg(unix)]
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

/// Whether `a` and `b` name one file (the same path once resolved).
#[cfg(not(unix))]
fn same_file(a: &Path, b: &Path) -> bool {
    matches!((fs::canonicalize(a), fs::canonicalize(b)), (Ok(a), Ok(b)) if a == b)
}
