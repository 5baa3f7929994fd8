//! The code fences of README.md and docs/*.md, read for the `docs`
//! (transcripts) and `pages` tests (recipes, the layout, the page's size).

use std::path::PathBuf;

/// One fenced block of a page.
pub struct Fence {
    /// The page and the line of the opening fence, for messages.
    pub place: String,
    /// What follows the opening backticks.
    pub info: String,
    pub lines: Vec<String>,
}

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The pages: README.md and every docs/*.md.
pub fn pages() -> Vec<PathBuf> {
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

pub fn fences() -> Vec<Fence> {
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
pub fn fences_of(kind: &str) -> Vec<Fence> {
    fences()
        .into_iter()
        .filter(|fence| fence.info == kind)
        .collect()
}

/// The words of a shell line, quotes removed (a quoted string is one
/// word), up to a comment.
pub fn shell_words(line: &str) -> Vec<String> {
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
