//! Files a count writes when it ends (a shard's result, a profile), made
//! ready before it begins: a path that cannot be written is refused before
//! any work, not after hours of it.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A file to be written at the end of a run. Reserving it creates and
/// removes a file beside it, so the directory is known to take one; the
/// content goes to a temporary file renamed over the path when it is
/// ready. Nothing is left behind by a run that stops, however it stops.
pub struct PendingFile {
    path: PathBuf,
    temporary: PathBuf,
}

impl PendingFile {
    /// Makes `path` ready to be written; `what` names it in errors (e.g.
    /// "the shard result").
    pub fn reserve(path: &Path, what: &str) -> anyhow::Result<PendingFile> {
        let refuse = |reason: String| {
            anyhow::anyhow!(
                "cannot write {what} {}: {reason}; nothing was counted",
                path.display()
            )
        };
        if let Some(kind) = not_regular(path) {
            return Err(refuse(format!(
                "it is {kind}, and only a regular file (or a new one) is replaced"
            )));
        }
        let name = path
            .file_name()
            .ok_or_else(|| refuse("the path names no file".to_string()))?;
        let directory = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let mut temporary_name = std::ffi::OsString::from(".");
        temporary_name.push(name);
        temporary_name.push(format!(".{}.partial", std::process::id()));
        let pending = PendingFile {
            path: path.to_path_buf(),
            temporary: directory.join(temporary_name),
        };
        pending
            .create_temporary()
            .map_err(|err| refuse(io_reason(&err)))?;
        let _ = std::fs::remove_file(&pending.temporary);
        Ok(pending)
    }

    /// Where the content will be.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes `content`, syncs it and renames it into place: a crash never
    /// leaves a half-written file at the path.
    pub fn commit(self, content: &[u8]) -> io::Result<()> {
        let written = self.create_temporary().and_then(|mut file| {
            file.write_all(content)?;
            file.sync_all()?;
            drop(file);
            std::fs::rename(&self.temporary, &self.path)
        });
        if written.is_err() {
            let _ = std::fs::remove_file(&self.temporary);
        }
        written
    }

    /// The temporary file, new, with mode 0666 less the umask (as any file
    /// a tool writes, not private to the user).
    fn create_temporary(&self) -> io::Result<File> {
        OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&self.temporary)
    }
}

/// What is at `path` if it is there and is not a regular file: a
/// directory, a device, a pipe, a socket or a symbolic link (not followed:
/// renaming over a link would replace the link, and writing through it
/// would reach a file the user did not name). None if nothing is there or a
/// regular file is.
pub fn not_regular(path: &Path) -> Option<String> {
    use std::os::unix::fs::FileTypeExt;
    let kind = std::fs::symlink_metadata(path).ok()?.file_type();
    if kind.is_file() {
        return None;
    }
    Some(if kind.is_dir() {
        "a directory".to_string()
    } else if kind.is_symlink() {
        match std::fs::read_link(path) {
            Ok(target) => format!(
                "a symbolic link (to {}; give that path to write there)",
                target.display()
            ),
            Err(_) => "a symbolic link".to_string(),
        }
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device".to_string()
    } else if kind.is_fifo() {
        "a pipe (FIFO)".to_string()
    } else if kind.is_socket() {
        "a socket".to_string()
    } else {
        "not a regular file".to_string()
    })
}

/// Refuses `path` (`what` names it) if something other than a regular file
/// is there.
pub fn refuse_unless_regular(path: &Path, what: &str) -> Result<(), String> {
    match not_regular(path) {
        None => Ok(()),
        Some(kind) => Err(format!(
            "cannot write {what} {}: it is {kind}, and only a regular file (or a new one) is replaced",
            path.display()
        )),
    }
}

/// Refuses `dir` (the option `option`) if something other than a directory
/// (a symbolic link included) is there.
pub fn refuse_unless_directory(dir: &Path, option: &str) -> Result<(), String> {
    match not_regular(dir) {
        Some(kind) if kind != "a directory" => Err(format!(
            "{option} {} is {kind}: give a directory, new or existing",
            dir.display()
        )),
        None if dir.exists() => Err(format!(
            "{option} {} is a file: give a directory, new or existing",
            dir.display()
        )),
        _ => Ok(()),
    }
}

/// What the system said, without the path (the message names it).
fn io_reason(err: &io::Error) -> String {
    match err.kind() {
        io::ErrorKind::NotFound => "its directory does not exist".to_string(),
        io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => without_os_code(err),
    }
}

/// What the system said, without its code: "No space left on device (os
/// error 28)" -> "No space left on device".
pub fn without_os_code(err: &io::Error) -> String {
    let text = err.to_string();
    text.split(" (os error").next().unwrap_or(&text).to_string()
}
