//! Every code fence in README.md and docs/*.md is run or checked here, so
//! that what the pages show is what the program does:
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
//!   (`.ci/run` runs this file with it); `text layout` is the source
//!   layout, whose every file and folder must exist.
//! - ```` ```sh ```` fences are recipes: every script they name exists and
//!   is executable, and every `nqueens` command line in them parses.
//! - ```` ```rust ```` fences are doctests: their page is included in
//!   `src/lib.rs` under `cfg(doctest)`.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// One fenced block of a page.
struct Fence {
    /// The page and the line of the opening fence, for messages.
    place: String,
    /// What follows the opening backticks.
    info: String,
    lines: Vec<String>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The pages: README.md and every docs/*.md.
fn pages() -> Vec<PathBuf> {
    let mut pages = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

fn fences() -> Vec<Fence> {
    let mut fences = Vec::new();
    for page in pages() {
        let name = page.strip_prefix(root()).unwrap().display().to_string();
        let text = std::fs::read_to_string(&page).unwrap();
        let mut open: Option<Fence> = None;
        for (index, line) in text.lines().enumerate() {
            match (line.strip_prefix("```"), open.take()) {
                (Some(_), Some(fence)) => fences.push(fence),
                (Some(info), None) => {
                    open = Some(Fence {
                        place: format!("{name}:{}", index + 1),
                        info: info.trim().to_string(),
                        lines: Vec::new(),
                    })
                }
                (None, Some(mut fence)) => {
                    fence.lines.push(line.to_string());
                    open = Some(fence);
                }
                (None, None) => {}
            }
        }
        assert!(open.is_none(), "{name}: a fence is not closed");
    }
    fences
}

/// The fences whose kind (what follows the backticks) is `kind`.
fn fences_of(kind: &str) -> Vec<Fence> {
    fences()
        .into_iter()
        .filter(|fence| fence.info == kind)
        .collect()
}

#[test]
fn every_fence_is_of_a_kind_these_tests_run() {
    let lib = std::fs::read_to_string(root().join("src/lib.rs")).unwrap();
    let all = fences();
    assert!(all.len() >= 15, "only {} fences found", all.len());
    for fence in &all {
        match fence.info.as_str() {
            "rust" => {
                let page = fence.place.split(':').next().unwrap();
                assert!(
                    lib.contains(&format!("include_str!(\"../{page}\")")),
                    "{}: a rust fence on a page src/lib.rs does not include as doctests",
                    fence.place
                );
            }
            "sh" | "text layout" => {}
            "text" | "text failpoints" => assert!(
                fence.lines.first().is_some_and(|line| line.starts_with("$ ")),
                "{}: a text fence is a transcript and starts with a `$ ` command",
                fence.place
            ),
            other => panic!(
                "{}: fence kind `{other}` is not run by tests/docs.rs (rust, sh, text, text layout, text failpoints)",
                fence.place
            ),
        }
    }
}

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
/// output; interrupted (SIGINT to its process group) after `interrupt`.
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
    if let Some(after) = interrupt {
        std::thread::sleep(after);
        // A count with a checkpoint is interrupted once a task is saved
        // too: on a loaded machine two seconds may not reach the first
        // (the resumed run then has nothing to resume).
        let words = shell_words(&script);
        let journal = words
            .iter()
            .position(|word| word == "--checkpoint")
            .and_then(|at| words.get(at + 1))
            .map(|name| dir.join(name));
        let waited = std::time::Instant::now();
        while let Some(journal) = &journal {
            let saved = std::fs::read_to_string(journal)
                .unwrap_or_default()
                .lines()
                .any(|line| line.starts_with("task "));
            if saved || waited.elapsed() > Duration::from_secs(120) {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
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

/// The words of a shell line, quotes removed (a quoted string is one
/// word), up to a comment.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut in_word = false;
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '#') if !in_word => break,
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The argument lists of every `nqueens` command in `words` (also inside
/// a quoted word such as sbatch's `--wrap "..."`).
fn nqueens_commands(words: &[String], found: &mut Vec<Vec<String>>) {
    for (index, word) in words.iter().enumerate() {
        if word.contains(' ') {
            nqueens_commands(&shell_words(word), found);
        } else if word == "nqueens"
            || word.ends_with("/nqueens")
            || (word == "--" && index >= 2 && words[index - 2..index] == ["run", "--release"])
        {
            found.push(words[index + 1..].to_vec());
            return;
        }
    }
}

#[test]
fn recipes_name_scripts_that_exist_and_commands_that_parse() {
    use std::os::unix::fs::PermissionsExt;
    let mut commands = Vec::new();
    let mut scripts = 0;
    for fence in &fences_of("sh") {
        let joined = fence.lines.join("\n").replace("\\\n", " ");
        for line in joined.lines() {
            let words = shell_words(line);
            for word in words.iter().filter(|word| word.starts_with("scripts/")) {
                let path = root().join(word);
                let mode = std::fs::metadata(&path)
                    .unwrap_or_else(|_| panic!("{}: {word} does not exist", fence.place))
                    .permissions()
                    .mode();
                assert!(
                    mode & 0o111 != 0,
                    "{}: {word} is not executable",
                    fence.place
                );
                scripts += 1;
            }
            let mut found = Vec::new();
            nqueens_commands(&words, &mut found);
            commands.extend(found.into_iter().map(|args| (fence.place.clone(), args)));
        }
    }
    assert!(
        scripts >= 5 && commands.len() >= 4,
        "{scripts} scripts, {commands:?}"
    );
    for (place, args) in commands {
        // Clap reads the arguments in order and meets --help last: it
        // fails on any it does not accept before printing the help.
        let output = common::nqueens()
            .args(&args)
            .arg("--help")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{place}: nqueens {} does not parse: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[test]
fn the_source_layout_names_files_that_exist() {
    let layouts = fences_of("text layout");
    assert_eq!(layouts.len(), 1, "one source layout, in README.md");
    let mut paths = vec!["src/".to_string()];
    let mut stack = vec![root().join("src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(root()).unwrap().display().to_string();
            if path.is_dir() {
                paths.push(format!("{relative}/"));
                stack.push(path);
            } else {
                paths.push(relative);
            }
        }
    }
    let mut named = 0;
    for line in &layouts[0].lines {
        for word in line.split(|c: char| c.is_whitespace() || ",:()`".contains(c)) {
            if !(word.ends_with(".rs") || word.ends_with('/')) || word.len() < 3 {
                continue;
            }
            named += 1;
            assert!(
                paths.iter().any(|path| path.ends_with(word)
                    && (path.len() == word.len()
                        || path[..path.len() - word.len()].ends_with('/'))),
                "the source layout names {word}, which is not under src/"
            );
        }
    }
    assert!(named >= 30, "only {named} files and folders named");
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
fn the_readme_reads_in_ten_minutes() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 350,
        "README.md has {lines} lines: at most 350; move detail to docs/"
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
