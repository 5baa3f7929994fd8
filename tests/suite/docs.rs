//! The transcripts of README.md and docs/*.md run, so that what the pages
//! show is what the program does (tests/suite/pages.rs checks the other fences):
//!
//! - ```` ```text ```` fences are transcripts: each `$ ` line runs in bash
//!   (with this build's `nqueens` first on the PATH, in a scratch folder)
//!   and must print the lines below it and succeed, or fail where they
//!   show an `error:` (or a board `check` finds invalid). Times, rates, work measures (nodes) and thread
//!   counts differ between machines and runs, so they are masked on both
//!   sides. A command marked `# Ctrl-C` is interrupted after two seconds
//!   (and, with a checkpoint, once a task is saved in it),
//!   as is every command of its fence; there the lines shown must appear
//!   in order, and how many tasks were done by then is masked.
//!   `text failpoints` fences need a build with the `failpoints` feature
//!   (`.ci/run` runs this file with it).

use crate::common;

use common::pages::{fences_of, shell_words, Fence};

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// One command of a transcript and the output shown under it.
struct Step {
    command: String,
    shown: Vec<String>,
}

fn steps(fence: &Fence) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    for line in &fence.lines {
        match line.strip_prefix("$ ") {
            Some(command) => steps.push(Step {
                command: command.to_string(),
                shown: Vec::new(),
            }),
            None => steps.last_mut().unwrap().shown.push(line.clone()),
        }
    }
    for step in &mut steps {
        trim_blank_tail(&mut step.shown);
    }
    steps
}

fn trim_blank_tail(lines: &mut Vec<String>) {
    while lines.last().is_some_and(|line| line.trim().is_empty()) {
        lines.pop();
    }
}

/// Runs `command` in bash in `dir`, standard error merged into standard
/// output; interrupted (SIGINT to its process group) once it has run
/// `interrupt` of CPU time (with a checkpoint, once a task is saved).
fn run(command: &str, dir: &Path, interrupt: Option<Duration>) -> (Option<i32>, Vec<String>) {
    use std::os::unix::process::CommandExt;
    let binary = assert_cmd::cargo::cargo_bin("nqueens");
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // The Quick start runs the command through cargo: the same binary.
    let script = command.replace("cargo run --release -- ", "nqueens ");
    // A count with a checkpoint is interrupted once it has saved a task
    // (else a resumed run would have nothing to resume; a resume is
    // interrupted once it has saved one more).
    let words = shell_words(&script);
    let journal = words
        .iter()
        .position(|word| word == "--checkpoint")
        .and_then(|at| words.get(at + 1))
        .map(|name| dir.join(name));
    let saved_before = journal.as_deref().map_or(0, common::journaled_tasks);
    let child = Command::new("bash")
        .arg("-c")
        .arg(format!("exec 2>&1; {script}"))
        .env("PATH", path)
        .env_remove("NQUEENS_LANES")
        .env_remove("NQUEENS_MATCHER")
        .current_dir(dir)
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(work) = interrupt {
        match &journal {
            Some(journal) => {
                common::wait_for_journaled_task(journal, saved_before, Duration::from_secs(120));
            }
            None => common::process::await_cpu_work(child.id(), work),
        }
        // bash's own kill: no procps needed.
        let _ = Command::new("bash")
            .arg("-c")
            .arg(format!("kill -INT -- -{}", child.id()))
            .status();
    }
    let output = child.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    trim_blank_tail(&mut lines);
    (output.status.code(), lines)
}

/// Columns whose values differ between machines and runs.
const VOLATILE: [&str; 6] = [
    "threads",
    "seconds",
    "nodes",
    "nodes/s",
    "nodes_per_second",
    "elapsed",
];

/// A line as compared: JSON without its volatile fields; a row of a table
/// (after a header naming `nodes`) without its volatile columns; then
/// rates and decimal numbers masked. With `done_masked`, a count before
/// " of " is masked too (how far an interrupted run got).
fn normalize(line: &str, header: &mut Option<(char, Vec<String>)>, done_masked: bool) -> String {
    if line.starts_with('{') {
        if let Ok(serde_json::Value::Object(mut object)) = serde_json::from_str(line) {
            for key in VOLATILE {
                object.remove(key);
            }
            return serde_json::Value::Object(object).to_string();
        }
    }
    let line = mask_rates(line);
    let separator = if line.contains(',') && !line.contains(' ') {
        ','
    } else {
        ' '
    };
    let cells: Vec<String> = line
        .split(separator)
        .filter(|cell| separator == ',' || !cell.is_empty())
        .map(str::to_string)
        .collect();
    if cells.iter().any(|cell| cell == "nodes") {
        *header = Some((separator, cells.clone()));
    }
    let mut line = line.clone();
    if let Some((header_separator, names)) = header {
        if *header_separator == separator && names.len() == cells.len() {
            let kept: Vec<&str> = cells
                .iter()
                .zip(names.iter())
                .map(|(cell, name)| {
                    if VOLATILE.contains(&name.as_str()) && cell != name {
                        "_"
                    } else {
                        cell.as_str()
                    }
                })
                .collect();
            line = kept.join(if separator == ',' { "," } else { " " });
        }
    }
    let line = mask_decimals(&line);
    if done_masked {
        mask_before_of(&line)
    } else {
        line
    }
}

/// "30.1 G/s", "512 /s", "17.7 M/s" become "RATE".
fn mask_rates(line: &str) -> String {
    let words: Vec<&str> = line.split(' ').collect();
    let mut out: Vec<&str> = Vec::new();
    let mut index = 0;
    while index < words.len() {
        let number = is_number(words[index]);
        let unit = words.get(index + 1).copied().unwrap_or("");
        let is_unit = unit.ends_with("/s")
            && unit.len() <= 3
            && unit[..unit.len() - 2].chars().all(|c| "kMGTP".contains(c));
        if number && is_unit {
            out.push("RATE");
            index += 2;
        } else {
            out.push(words[index]);
            index += 1;
        }
    }
    out.join(" ")
}

fn is_number(word: &str) -> bool {
    !word.is_empty()
        && word.chars().any(|c| c.is_ascii_digit())
        && word.chars().all(|c| c.is_ascii_digit() || c == '.')
}

/// Every number with a decimal point becomes "#.#".
fn mask_decimals(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut index = 0;
    while index < chars.len() {
        if chars[index].is_ascii_digit() {
            let start = index;
            while index < chars.len() && (chars[index].is_ascii_digit() || chars[index] == '.') {
                index += 1;
            }
            let number: String = chars[start..index].iter().collect();
            let number = number.trim_end_matches('.');
            let dot = number.contains('.');
            out.push_str(if dot { "#.#" } else { number });
            out.extend(&chars[start + number.len()..index]);
        } else {
            out.push(chars[index]);
            index += 1;
        }
    }
    out
}

/// "324 of 18061" becomes "# of 18061".
fn mask_before_of(line: &str) -> String {
    let words: Vec<&str> = line.split(' ').collect();
    let masked: Vec<&str> = words
        .iter()
        .enumerate()
        .map(|(index, word)| {
            let before_of = words.get(index + 1) == Some(&"of");
            if before_of && word.chars().all(|c| c.is_ascii_digit()) {
                "#"
            } else {
                word
            }
        })
        .collect();
    masked.join(" ")
}

/// An interrupted count's last line without its note of tasks abandoned
/// in flight: the pages show the usual stop, where the tasks in flight
/// finish within the grace, and a loaded machine (a CI run beside other
/// work) may abandon one instead; both save what finished.
fn without_abandoned(line: &str) -> String {
    let Some(at) = line.find(" in flight abandoned (counted again on resume)") else {
        return line.to_string();
    };
    let Some(comma) = line[..at].rfind(", ") else {
        return line.to_string();
    };
    let end = at + " in flight abandoned (counted again on resume)".len();
    if !line[comma + 2..at].chars().all(|c| c.is_ascii_digit()) {
        return line.to_string();
    }
    format!("{}{}", &line[..comma], &line[end..])
}

fn check_transcript(fence: &Fence) {
    let dir = tempfile::tempdir().unwrap();
    let interrupted = fence.lines.iter().any(|line| line.contains("# Ctrl-C"));
    let interrupt = interrupted.then_some(Duration::from_secs(2));
    for step in steps(fence) {
        let (status, printed) = run(&step.command, dir.path(), interrupt);
        let context = format!(
            "{}: `{}`\nshown:\n{}\nprinted:\n{}",
            fence.place,
            step.command,
            step.shown.join("\n"),
            printed.join("\n")
        );
        let mut header = None;
        let shown: Vec<String> = step
            .shown
            .iter()
            .map(|line| normalize(line, &mut header, interrupted))
            .collect();
        let mut header = None;
        let printed: Vec<String> = printed
            .iter()
            .map(|line| normalize(&without_abandoned(line), &mut header, interrupted))
            .collect();
        if interrupted {
            // The lines shown, in order, among those printed.
            let mut rest = printed.iter();
            for line in &shown {
                assert!(
                    rest.any(|printed| printed == line),
                    "{context}\nmissing: {line}"
                );
            }
            continue;
        }
        assert_eq!(shown, printed, "{context}");
        // An error, or a board `check` finds invalid, ends in a non-zero
        // status.
        let fails = step
            .shown
            .iter()
            .any(|line| line.starts_with("error:") || line.contains(": invalid:"));
        if fails {
            assert!(
                status.is_some_and(|code| code != 0),
                "{context}\nit succeeded"
            );
        } else {
            assert_eq!(status, Some(0), "{context}");
        }
    }
}

#[test]
fn transcripts_print_what_the_pages_show() {
    let transcripts = fences_of("text");
    assert!(transcripts.len() >= 8, "{} transcripts", transcripts.len());
    std::thread::scope(|scope| {
        for fence in &transcripts {
            scope.spawn(|| check_transcript(fence));
        }
    });
}

#[cfg(feature = "failpoints")]
#[test]
fn fault_transcripts_print_what_the_pages_show() {
    let transcripts = fences_of("text failpoints");
    assert!(!transcripts.is_empty());
    for fence in &transcripts {
        check_transcript(fence);
    }
}

#[test]
fn the_masks_keep_what_must_match() {
    let mut header = None;
    let table = [
        "  N  solutions  unique  P  R  method threads   seconds   nodes     nodes/s  published",
        " 12      14200    1787 80  8    join       2     0.002  332828   210.7 M/s  ok",
    ];
    let lines: Vec<String> = table
        .iter()
        .map(|line| normalize(line, &mut header, false))
        .collect();
    assert_eq!(lines[1], "12 14200 1787 80 8 join _ _ _ _ ok");
    let mut header = None;
    assert_ne!(
        normalize(table[1], &mut None, false),
        normalize(&table[1].replace("14200", "14201"), &mut header, false)
    );
    assert_eq!(
        mask_decimals("0.5 s, 12 tasks, 3.25"),
        "#.# s, 12 tasks, #.#"
    );
    assert_eq!(
        mask_before_of("interrupted: 324 of 18061 tasks"),
        "interrupted: # of 18061 tasks"
    );
    assert_eq!(
        shell_words(r#"a 'b c' "d" # e"#),
        ["a", "b c", "d"].map(String::from)
    );
}

#[test]
fn an_abandoned_task_note_is_taken_as_the_usual_stop() {
    assert_eq!(
        without_abandoned("interrupted: 2 of 22714 tasks counted and saved, 1 in flight abandoned (counted again on resume); resume with:"),
        "interrupted: 2 of 22714 tasks counted and saved; resume with:"
    );
    let usual = "interrupted: 1372 of 22714 tasks counted and saved; resume with:";
    assert_eq!(without_abandoned(usual), usual);
}
