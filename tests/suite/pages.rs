//! The pages' code fences that are not transcripts (tests/suite/docs.rs runs
//! those): every fence is of a kind the tests run; ```` ```sh ```` recipes
//! name scripts that exist and are executable, and `nqueens` command lines
//! that parse; the ```` ```text layout ```` fence names files that exist;
//! README.md reads in ten minutes. ```` ```rust ```` fences are doctests:
//! their page is included in `src/lib.rs` under `cfg(doctest)`.

use crate::common;

use common::pages::{fences, fences_of, root, shell_words};

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
                "{}: fence kind `{other}` is not run by tests/suite/docs.rs (rust, sh, text, text layout, text failpoints)",
                fence.place
            ),
        }
    }
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
fn the_readme_reads_in_ten_minutes() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(
        lines <= 350,
        "README.md has {lines} lines: at most 350; move detail to docs/"
    );
}
