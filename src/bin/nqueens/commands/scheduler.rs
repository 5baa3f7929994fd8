//! Which shard a count is: `--shard I/K`, else the job scheduler's array
//! index (Slurm's `SLURM_ARRAY_TASK_*`, a Kubernetes indexed job's
//! `JOB_COMPLETION_INDEX` with `--shards K`).

use nqueens::run::shard::ShardSpec;

use super::usage;
use crate::args::CountArgs;

/// The shard to run: `--shard`, else from the job scheduler's environment.
pub fn shard_of(args: &CountArgs) -> anyhow::Result<Option<ShardSpec>> {
    if let Some(shard) = args.shard {
        return Ok(Some(shard));
    }
    let number = |name: &str| -> anyhow::Result<Option<u64>> {
        match std::env::var(name) {
            Ok(text) => text
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| usage(format!("{name}={text} is not a whole number"))),
            Err(std::env::VarError::NotPresent) => Ok(None),
            Err(std::env::VarError::NotUnicode(text)) => Err(usage(format!(
                "{name}={} is not a whole number (nor text)",
                text.to_string_lossy()
            ))),
        }
    };
    if let (Some(id), Some(count)) = (
        number("SLURM_ARRAY_TASK_ID")?,
        number("SLURM_ARRAY_TASK_COUNT")?,
    ) {
        // Arrays may start anywhere (--array=1-8): count from the first.
        let first = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        let index = id.checked_sub(first).ok_or_else(|| {
            usage(format!(
                "SLURM_ARRAY_TASK_ID {id} is below SLURM_ARRAY_TASK_MIN {first}"
            ))
        })?;
        let shard =
            ShardSpec::new(index, count).map_err(|err| usage(format!("from SLURM: {err}")))?;
        eprintln!(
            "shard {shard} of the count, from SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT (--shard I/K chooses another)"
        );
        return Ok(Some(shard));
    }
    if let Some(index) = number("JOB_COMPLETION_INDEX")? {
        let Some(count) = args.shards else {
            return Err(usage(
                "JOB_COMPLETION_INDEX is set: give the shard count with --shards K (or --shard I/K)".to_string(),
            ));
        };
        let shard = ShardSpec::new(index, count)
            .map_err(|err| usage(format!("from JOB_COMPLETION_INDEX: {err}")))?;
        eprintln!(
            "shard {shard} of the count, from JOB_COMPLETION_INDEX and --shards (--shard I/K chooses another)"
        );
        return Ok(Some(shard));
    }
    if args.shards.is_some() {
        return Err(usage(
            "--shards K needs JOB_COMPLETION_INDEX in the environment; otherwise use --shard I/K"
                .to_string(),
        ));
    }
    Ok(None)
}
