//! Any bytes as the checkpoint journal of a small plan: read or refused in
//! one line, never a panic, and what is read is within the plan.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use nqueens::run::journal::Journal;
use nqueens::{Method, Plan, SplitDepth};

fuzz_target!(|bytes: &[u8]| {
    static PLAN: OnceLock<Plan> = OnceLock::new();
    let plan = PLAN.get_or_init(|| Plan::build(8, Method::Mirror, SplitDepth::Rows(2)).unwrap());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fuzzed.ckpt");
    std::fs::write(&path, bytes).unwrap();
    match Journal::open(&path, plan) {
        Ok((_, resumed)) => {
            assert!(resumed.finished() <= plan.tasks.len());
            assert_eq!(resumed.prior.tasks_run, resumed.finished() as u64);
        }
        Err(err) => assert_eq!(err.to_string().lines().count(), 1),
    }
});
