//! A GPU that fails mid-count or counts wrong, and what it lacks, said in one line.

use super::{checked, on_fake};

#[test]
fn a_gpu_that_fails_mid_count_hands_its_tasks_back_and_the_count_is_exact() {
    for fail in ["1", "3", "40"] {
        let (code, stdout, stderr) = on_fake(
            &["count", "15", "--format", "csv", "--gpu", "--gpu-only"],
            &[("FAKE_CUDA_FAIL_LAUNCH", fail)],
        );
        assert_eq!(code, Some(0), "launch {fail}: {stderr}");
        assert_eq!(checked(&stdout), [(15, true)], "launch {fail}");
        let warnings: Vec<&str> = stderr
            .lines()
            .filter(|line| line.starts_with("warning:"))
            .collect();
        assert_eq!(warnings.len(), 1, "{stderr}");
        assert!(
            warnings[0].contains("an illegal memory access was encountered (CUDA error 700)")
                && warnings[0].contains("go back to the CPU threads"),
            "{stderr}"
        );
    }
}

/// A GPU whose matcher counts nothing (the stand-in skips it): the timing
/// command's CPU thread and a count's tables both catch it, exit 3, and
/// say which task or N.
#[test]
fn a_gpu_that_counts_wrong_is_caught() {
    let skip = [("FAKE_CUDA_SKIP_MATCH", "1")];
    let (code, _, stderr) = on_fake(
        &[
            "gpu",
            "20",
            "--tasks",
            "3",
            "--cpu-tasks",
            "3",
            "--seed",
            "2",
        ],
        &skip,
    );
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stderr.contains("of N = 20: the GPU counted 0 solutions, the CPU "),
        "{stderr}"
    );
    let (code, stdout, stderr) = on_fake(
        &["count", "14", "--format", "csv", "--gpu", "--gpu-only"],
        &skip,
    );
    assert_eq!(code, Some(3), "{stderr}");
    assert_eq!(checked(&stdout), [(14, false)], "{stdout}");
    assert!(
        stderr.contains("WRONG COUNT: N = 14: counted 0 solutions but A000170 says 365596"),
        "{stderr}"
    );
}

#[test]
fn what_the_gpu_lacks_is_said_in_one_line() {
    /// Arguments, environment, exit status, what the error says.
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], i32, &'a str);
    let cases: [Case; 6] = [
        (
            &["count", "12", "--gpu"],
            &[("FAKE_CUDA_DEVICES", "0")],
            1,
            "the NVIDIA driver sees no GPU",
        ),
        (
            &["count", "12", "--gpu"],
            &[("FAKE_CUDA_CC", "35")],
            1,
            "needs 6.0 or later",
        ),
        (
            &["count", "12", "--gpu"],
            &[("FAKE_CUDA_FREE_MIB", "1")],
            1,
            "MiB free; a join counter needs",
        ),
        (
            &["count", "12", "--gpu", "3"],
            &[],
            1,
            "there is no GPU 3: the driver sees 1",
        ),
        (
            &["count", "12", "-m", "mirror", "--gpu"],
            &[],
            2,
            "--gpu counts join tasks",
        ),
        (
            &["count", "12", "--gpu"],
            &[("NQUEENS_NVRTC", "/nonexistent/libnvrtc.so")],
            1,
            "NVRTC",
        ),
    ];
    for (args, env, expected_code, needle) in cases {
        let (code, stdout, stderr) = on_fake(args, env);
        let errors: Vec<&str> = stderr
            .lines()
            .filter(|line| line.starts_with("error:"))
            .collect();
        assert_eq!(code, Some(expected_code), "{args:?} {env:?}: {stderr}");
        assert!(stdout.is_empty(), "{stdout}");
        assert_eq!(errors.len(), 1, "{stderr}");
        assert!(errors[0].contains(needle), "{args:?} {env:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    // auto: the CPU alone where the GPU cannot count, said in a note.
    let (code, stdout, stderr) = on_fake(
        &["count", "12", "--format", "csv", "--gpu", "auto"],
        &[("FAKE_CUDA_DEVICES", "0")],
    );
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(checked(&stdout), [(12, true)]);
    assert!(
        stderr.starts_with("note: --gpu auto: the NVIDIA driver sees no GPU"),
        "{stderr}"
    );
}
