//! Any bytes as a shard result file, merged with a sound second shard: the
//! result is a sum, or a one-line refusal; never a panic or an overflow.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nqueens::run::shard::{check_checksum, check_plan, merge, ShardResult};

fuzz_target!(|bytes: &[u8]| {
    let Ok(first) = serde_json::from_slice::<ShardResult>(bytes) else {
        return;
    };
    let second = ShardResult {
        shard: 1,
        ..first.clone()
    };
    let files = [("a".to_string(), first), ("b".to_string(), second)];
    match merge(&files) {
        Ok(merged) => {
            for refusal in [
                check_plan("a", &merged.first),
                check_checksum("a", &files[0].1),
            ] {
                if let Err(err) = refusal {
                    assert_eq!(err.lines().count(), 1);
                }
            }
        }
        Err(err) => assert_eq!(err.lines().count(), 1),
    }
});
