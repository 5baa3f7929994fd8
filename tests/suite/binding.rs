//! Every journal line is bound to its plan (and key): a line copied from a
//! journal of another N, method, split or key is refused on resume and in
//! `compare`, so a total made of another plan's counts is never printed;
//! journals of the earlier format still resume; a torn tail of any length
//! is cut back, while whole lines that do not hold are refused.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proptest::prelude::*;

use crate::common;

use common::{fnv1a, nqueens, outcome, scratch, scratch_for_process, seal_line};
use nqueens::run::journal::JournalError;
use nqueens::run::signing::RunKey;
use nqueens::testing::SplitMix64;
use nqueens::{Method, Plan, SplitDepth, TaskCount};

/// A finished count's journal: its CLI arguments, its key file and its lines.
struct Made {
    args: Vec<String>,
    key: Option<PathBuf>,
    lines: Vec<String>,
}

/// The plans the splices are drawn from: several N, methods and splits,
/// with no key and with two different keys.
fn journals() -> &'static (tempfile::TempDir, Vec<Made>) {
    static MADE: OnceLock<(tempfile::TempDir, Vec<Made>)> = OnceLock::new();
    MADE.get_or_init(|| {
        let dir = scratch_for_process("binding-sources");
        let keys: Vec<PathBuf> = (1..=2u8)
            .map(|k| {
                let path = dir.path().join(format!("{k}.key"));
                std::fs::write(&path, [k; 32]).unwrap();
                path
            })
            .collect();
        let plans: [&[&str]; 7] = [
            &["11", "-m", "join"],
            &["12", "-m", "join"],
            &["12", "-m", "mirror", "--split-depth", "2"],
            &["12", "-m", "mirror", "--split-depth", "3"],
            &["12", "-m", "d4"],
            &["13", "-m", "join"],
            &["13", "-m", "mirror", "--split-depth", "2"],
        ];
        let mut made = Vec::new();
        for (p, plan) in plans.iter().enumerate() {
            for key in [None, Some(&keys[0]), Some(&keys[1])] {
                let journal = dir.path().join(format!("{p}-{}.ckpt", made.len()));
                let mut args: Vec<String> = ["count"]
                    .iter()
                    .chain(plan.iter())
                    .map(|arg| arg.to_string())
                    .collect();
                args.extend(["--format".into(), "csv".into()]);
                let mut command = nqueens();
                command.args(&args).arg("--checkpoint").arg(&journal);
                if let Some(key) = key {
                    command.arg("--key").arg(key);
                }
                let (code, _, stderr) = outcome(command.output().unwrap());
                assert_eq!(code, Some(0), "{args:?}: {stderr}");
                let lines = std::fs::read_to_string(&journal)
                    .unwrap()
                    .lines()
                    .map(str::to_string)
                    .collect();
                made.push(Made {
                    args,
                    key: key.cloned(),
                    lines,
                });
            }
        }
        (dir, made)
    })
}

/// Resumes the journal at `path` as `made`'s count: (status, stdout, stderr).
fn resume(made: &Made, path: &Path) -> (Option<i32>, String, String) {
    let mut command = nqueens();
    command.args(&made.args).arg("--checkpoint").arg(path);
    if let Some(key) = &made.key {
        command.arg("--key").arg(key);
    }
    outcome(command.output().unwrap())
}

#[test]
fn the_issues_splice_of_n_13_lines_into_an_n_14_journal_is_refused() {
    let scratch_dir = scratch("splice-13-14");
    let dir = scratch_dir.path();
    let key = dir.join("run.key");
    std::fs::write(&key, [7u8; 32]).unwrap();
    for keyed in [true, false] {
        let journal = |name: &str, n: &str| {
            let path = dir.join(format!("{name}-{keyed}.ckpt"));
            let mut command = nqueens();
            command.args(["count", n, "--checkpoint"]).arg(&path);
            if keyed {
                command.arg("--key").arg(&key);
            }
            (command, path)
        };
        let (mut a, a_path) = journal("a", "13");
        let (mut b, b_path) = journal("b", "14");
        assert!(a.output().unwrap().status.success());
        assert!(b.output().unwrap().status.success());
        let a_text = std::fs::read_to_string(&a_path).unwrap();
        let b_text = std::fs::read_to_string(&b_path).unwrap();
        // N = 14's header, then N = 13's tasks below N = 14's task count.
        let tasks_14: u64 = b_text
            .split(" tasks=")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .unwrap()
            .parse()
            .unwrap();
        let mut spliced = b_text.lines().next().unwrap().to_string() + "\n";
        for line in a_text.lines().filter(|line| line.starts_with("task ")) {
            let id: u64 = line.split(' ').nth(1).unwrap().parse().unwrap();
            if id < tasks_14 {
                spliced += &format!("{line}\n");
            }
        }
        let (mut c, c_path) = journal("c", "14");
        std::fs::write(&c_path, &spliced).unwrap();
        let (code, stdout, stderr) = outcome(c.output().unwrap());
        assert_eq!(code, Some(2), "keyed {keyed}: {stdout} {stderr}");
        assert!(stderr.contains("damaged at line 2"), "{stderr}");
        assert!(stderr.contains("another plan's journal"), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        // The file is left as it was: nothing is cut or appended.
        assert_eq!(std::fs::read_to_string(&c_path).unwrap(), spliced);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Lines of another plan's (or key's) journal, spliced at random
    /// places into a finished or a part-done journal, are always refused,
    /// on resume and by `compare`.
    #[test]
    fn lines_spliced_from_other_plans_are_always_refused(
        target in 0usize..21,
        source in 0usize..21,
        keep in 0.0f64..1.0,
        picks in prop::collection::vec((any::<prop::sample::Index>(), any::<prop::sample::Index>()), 1..4),
    ) {
        let (_, made) = journals();
        prop_assume!(target != source);
        let (target, source) = (&made[target], &made[source]);
        // A part-done target: its header and a share of its task lines.
        let body: Vec<&String> = target.lines[1..]
            .iter()
            .filter(|line| line.starts_with("task "))
            .collect();
        let kept = ((body.len() as f64 * keep) as usize).max(1);
        let mut lines: Vec<String> = body[..kept].iter().map(|line| line.to_string()).collect();
        let from: Vec<&String> = source.lines[1..].iter().collect();
        for (line, at) in &picks {
            let spliced = from[line.index(from.len())].clone();
            lines.insert(at.index(lines.len() + 1), spliced);
        }
        lines.insert(0, target.lines[0].clone());
        let dir = scratch("binding-splice");
        let path = dir.path().join("spliced.ckpt");
        let text = lines.join("\n") + "\n";
        std::fs::write(&path, &text).unwrap();
        let (code, stdout, stderr) = resume(target, &path);
        prop_assert_eq!(code, Some(2), "{} {}", stdout, stderr);
        prop_assert!(stderr.contains("damaged at line"), "{}", stderr);
        prop_assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        let mut compare = nqueens();
        compare.arg("compare").arg(&path).arg(&path);
        if let Some(key) = &target.key {
            compare.arg("--key").arg(key);
        }
        let (code, _, stderr) = outcome(compare.output().unwrap());
        prop_assert_eq!(code, Some(2), "{}", stderr);
    }
}

/// Opens `plan`'s journal at `path` and records tasks `ids` with made-up
/// counts (the journal does not count; it seals what it is given).
fn record(path: &Path, plan: &Plan, key: Option<&RunKey>, ids: &[u64]) {
    let (journal, _) = common::open_journal(path, plan, key).unwrap();
    for &id in ids {
        let count = TaskCount {
            solutions: id * 3,
            nodes: id * 7 + 1,
            ..TaskCount::default()
        };
        journal.record(id, &count, 0.5).unwrap();
    }
}

#[test]
fn lines_spliced_between_n_27_and_n_28_journals_are_refused() {
    // The plans a Q(28) run and its neighbour hold (260,780,208 and
    // 65,055,848 tasks): a line spliced either way, at random, is refused
    // when the journal is opened, with or without a key.
    let plans = [
        Plan::build(28, Method::Join, SplitDepth::Auto).unwrap(),
        Plan::build(27, Method::Join, SplitDepth::Auto).unwrap(),
    ];
    let key = RunKey::from_secret(&[9; 32]).unwrap();
    let dir = scratch("binding-28");
    let mut random = SplitMix64(0x9e37_79b9_7f4a_7c15);
    let mut next = |below: u64| random.below(below as usize) as u64;
    for keyed in [None, Some(&key)] {
        let ids: Vec<u64> = (0..64).map(|_| next(65_055_848)).collect();
        let paths: Vec<PathBuf> = (0..2)
            .map(|p| dir.path().join(format!("{p}-{}.ckpt", keyed.is_some())))
            .collect();
        for (plan, path) in plans.iter().zip(&paths) {
            record(path, plan, keyed, &ids);
            // Whole, each opens and holds its 64 tasks.
            let (_, resumed) = common::open_journal(path, plan, keyed).unwrap();
            assert_eq!(resumed.finished(), 64);
        }
        let texts: Vec<Vec<String>> = paths
            .iter()
            .map(|path| {
                let text = std::fs::read_to_string(path).unwrap();
                text.lines().map(str::to_string).collect()
            })
            .collect();
        for trial in 0..40 {
            let (to, from) = ((trial % 2) as usize, 1 - (trial % 2) as usize);
            let mut lines = texts[to].clone();
            let line = texts[from][1 + next(64) as usize].clone();
            let at = 1 + next(lines.len() as u64) as usize;
            lines.insert(at, line);
            let path = dir.path().join("spliced.ckpt");
            std::fs::write(&path, lines.join("\n") + "\n").unwrap();
            match common::open_journal(&path, &plans[to], keyed) {
                Err(JournalError::Corrupt { line, .. }) => assert_eq!(line, at + 1),
                other => panic!("trial {trial}: spliced at {at}: {:?}", other.map(|_| ())),
            }
        }
    }
}

/// `text` sealed as a line of a journal of the earlier format: by its own
/// text alone.
fn seal_unbound(text: &str) -> String {
    format!("{text} #{:016x}", fnv1a(text.as_bytes()))
}

#[test]
fn a_journal_of_the_earlier_format_resumes_with_a_note_and_stays_in_its_format() {
    let (_, made) = journals();
    let source = &made[3]; // N = 12 join, no key
    assert!(source.key.is_none() && source.args.contains(&"join".to_string()));
    // The same journal as the earlier format wrote it: a v1 header and
    // every line sealed by its own text; the last tasks left to count.
    let header = source.lines[0].rsplit_once(" #").unwrap().0;
    let header = header.replace("nqueens-journal-v2", "nqueens-journal-v1");
    let mut lines = vec![seal_unbound(&header)];
    let tasks: Vec<&String> = source
        .lines
        .iter()
        .filter(|line| line.starts_with("task "))
        .collect();
    for line in &tasks[..tasks.len() / 2] {
        lines.push(seal_unbound(line.rsplit_once(" #").unwrap().0));
    }
    let dir = scratch("binding-v1");
    let path = dir.path().join("v1.ckpt");
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let (code, stdout, stderr) = resume(source, &path);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains(",14200,"), "{stdout}");
    assert!(stderr.contains("earlier format"), "{stderr}");
    // Its new lines are sealed as its old ones: the whole file reads as
    // the earlier format, and resumes again.
    let text = std::fs::read_to_string(&path).unwrap();
    for line in text.lines() {
        let (body, sum) = line.rsplit_once(" #").unwrap();
        assert_eq!(sum, format!("{:016x}", fnv1a(body.as_bytes())), "{line}");
    }
    let (code, stdout, _) = resume(source, &path);
    assert_eq!(code, Some(0));
    assert!(stdout.contains(",14200,"), "{stdout}");
    // A current journal's line spliced into it is refused, as the other way.
    let mut spliced = lines.clone();
    spliced.push(tasks[tasks.len() - 1].to_string());
    std::fs::write(&path, spliced.join("\n") + "\n").unwrap();
    let (code, _, stderr) = resume(source, &path);
    assert_eq!(code, Some(2), "{stderr}");
    let mut spliced: Vec<String> = source.lines[..3].to_vec();
    spliced.push(lines[1].clone());
    std::fs::write(&path, spliced.join("\n") + "\n").unwrap();
    let (code, _, stderr) = resume(source, &path);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("earlier-format journal"), "{stderr}");
}

#[test]
fn a_torn_tail_of_any_length_is_cut_and_a_whole_bad_last_line_refused() {
    let (_, made) = journals();
    let source = &made[3];
    let dir = scratch("binding-tail");
    let path = dir.path().join("tail.ckpt");
    let head: Vec<&String> = source
        .lines
        .iter()
        .filter(|line| !line.starts_with("complete ") && !line.starts_with("session "))
        .take(40)
        .collect();
    let whole = head
        .iter()
        .map(|line| format!("{line}\n"))
        .collect::<String>();
    let tails: [Vec<u8>; 4] = [
        vec![0; 8192],
        vec![0; 100_000],
        // A line cut short, then zeros (a power loss after a partial page).
        [&source.lines[50].as_bytes()[..20], &[0u8; 5000][..]].concat(),
        // An unterminated line longer than any journal line.
        b"task 1 2 3 ".repeat(1000),
    ];
    for tail in &tails {
        let mut bytes = whole.clone().into_bytes();
        bytes.extend_from_slice(tail);
        std::fs::write(&path, &bytes).unwrap();
        let (code, stdout, stderr) = resume(source, &path);
        assert_eq!(code, Some(0), "{stderr}");
        assert!(stdout.contains(",14200,"), "{stdout}");
        let range = format!("cut bytes {}..{}", whole.len(), bytes.len());
        assert!(stderr.contains(&range), "{range}: {stderr}");
        assert!(stderr.contains("resuming: 39 of"), "{stderr}");
    }
    // A whole last line whose seal does not hold is no torn write: refused,
    // with the way to keep the whole lines before it.
    let bad = seal_line(&source.lines[0], "task 3 1 0 0 0 0 5 6").replace("task 3 1", "task 3 2");
    std::fs::write(&path, format!("{whole}{bad}\n")).unwrap();
    let (code, _, stderr) = resume(source, &path);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("head -c {} ", whole.len())),
        "{stderr}"
    );
    // Damage with whole lines after it: refused, the same way out.
    let mut damaged = whole.clone().into_bytes();
    damaged.extend_from_slice(&[0; 6000]);
    damaged.extend_from_slice(format!("{}\n", source.lines[45]).as_bytes());
    std::fs::write(&path, &damaged).unwrap();
    let (code, _, stderr) = resume(source, &path);
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("damaged at line 41"), "{stderr}");
}
