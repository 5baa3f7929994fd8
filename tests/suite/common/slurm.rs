//! A real Slurm for the tests: the one-node cluster `scripts/slurm-local.sh`
//! starts (`.ci/run` starts it, as root). Where none answers, the tests that
//! need it say SKIPPED and return.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// Whether a Slurm controller answers and has a node to run on.
pub fn slurm_up() -> bool {
    let Ok(output) = Command::new("sinfo").args(["-h", "-o", "%T"]).output() else {
        return false;
    };
    let states = String::from_utf8_lossy(&output.stdout);
    output.status.success()
        && states
            .lines()
            .any(|state| state.starts_with("idle") || state.starts_with("mixed"))
}

/// Says why a Slurm test does not run.
pub fn skip_without_slurm(test: &str) -> bool {
    if slurm_up() {
        return false;
    }
    eprintln!(
        "SKIPPED {test}: no Slurm answers here (start one as root with scripts/slurm-local.sh start)"
    );
    true
}

/// Runs a Slurm command and returns its stdout; panics with its stderr if
/// it fails.
pub fn slurm(program: &str, args: &[&str], cwd: &Path) -> String {
    let output = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap_or_else(|err| panic!("{program}: {err}"));
    assert!(
        output.status.success(),
        "{program} {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

/// The ids (`JOB` or `JOB_TASK`) of the job's parts in `state` (e.g. `R`),
/// or in any state not yet finished.
pub fn job_parts(job: &str, state: Option<&str>) -> Vec<String> {
    let mut command = Command::new("squeue");
    command.args(["-h", "-j", job, "-o", "%i"]);
    if let Some(state) = state {
        command.args(["-t", state]);
    }
    let output = command.output().unwrap();
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// Waits until `job` has left the queue (`limit` at most). A part that was
/// requeued is held about two minutes by Slurm (its begin time is moved
/// on): it is released at once.
pub fn wait_for_job(job: &str, limit: Duration) {
    super::wait::wait_for(&format!("job {job} to leave the queue"), limit, || {
        if job_parts(job, None).is_empty() {
            return true;
        }
        let output = Command::new("squeue")
            .args(["-h", "-j", job, "-t", "PD", "-o", "%i %r"])
            .output()
            .unwrap();
        for line in String::from_utf8_lossy(&output.stdout).lines() {
            if let Some((part, reason)) = line.split_once(' ') {
                if reason.contains("BeginTime") {
                    let _ = Command::new("scontrol")
                        .args(["update", &format!("jobid={part}"), "starttime=now"])
                        .status();
                }
            }
        }
        false
    });
}
