//! Any bytes as `check` input: every line gets a verdict, refusals are one
//! line with no control bytes, and nothing panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nqueens::boards::validate::check_lines;

fuzz_target!(|bytes: &[u8]| {
    for shift in [0, 1] {
        let mut lines = 0u64;
        check_lines(bytes, shift, |number, verdict| {
            assert!(number > lines, "line numbers grow");
            lines = number;
            if let Err(reason) = verdict {
                assert!(!reason.contains('\n'));
                assert!(!reason.bytes().any(|byte| byte < 0x20));
            }
            Ok(())
        })
        .unwrap();
    }
});
