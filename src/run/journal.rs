//! The checkpoint journal: an append-only record of finished tasks, so that a
//! long count can be interrupted and resumed without losing finished work.
//!
//! A header line names the plan (fingerprint, N, method, split depth, task
//! count); then one line per finished task; then, when every task is done, a
//! `complete` line. Every line ends with a checksum of its own text, so a torn
//! last line (a crash mid-write) is recognised and dropped, and damage
//! anywhere else is refused rather than trusted. Each task line is written
//! with one `write` as soon as the task finishes (a killed process loses only
//! the tasks in flight) and the file is synced to disk every few seconds.

use std::fs::{File, OpenOptions};
use std::io::{self, BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::engine::{RunTotals, TaskCount};
use crate::plan::{fnv1a, Plan};

/// How often the journal is synced to disk while a run goes on.
pub const SYNC_INTERVAL: Duration = Duration::from_secs(2);

const MAGIC: &str = "nqueens-journal-v1";

/// Why a journal cannot be used.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum JournalError {
    /// The file could not be read or written.
    #[error("checkpoint {path}: {reason}")]
    Io {
        /// The journal.
        path: String,
        /// What the system said.
        reason: String,
    },
    /// The file is not a journal, or its header is damaged.
    #[error("checkpoint {path} is not an nqueens journal or its header is damaged: {reason}")]
    BadHeader {
        /// The journal.
        path: String,
        /// What is wrong.
        reason: String,
    },
    /// The journal belongs to another plan.
    #[error("checkpoint {path} is for {found}, but this run is {expected}: use another file or the matching options")]
    Foreign {
        /// The journal.
        path: String,
        /// The plan of this run.
        expected: String,
        /// The plan the journal records.
        found: String,
    },
    /// A line before the last is damaged.
    #[error("checkpoint {path} is damaged at line {line} ({reason}); refusing to trust it")]
    Corrupt {
        /// The journal.
        path: String,
        /// Line number, from 1.
        line: usize,
        /// What is wrong.
        reason: String,
    },
}

/// 64-bit FNV-1a of a line's text: detects torn and altered lines.
fn checksum(text: &str) -> u64 {
    fnv1a(text.as_bytes())
}

/// `text` with its checksum appended, and a newline.
fn sealed(text: &str) -> String {
    format!("{text} #{:016x}\n", checksum(text))
}

/// The text of a sealed line, if its checksum holds.
fn unseal(line: &str) -> Option<&str> {
    let (text, sum) = line.rsplit_once(" #")?;
    let sum = u64::from_str_radix(sum, 16).ok()?;
    (sum == checksum(text)).then_some(text)
}

/// The header text naming a plan.
fn header_text(plan: &Plan) -> String {
    format!(
        "{MAGIC} fingerprint={} n={} method={} split={} tasks={}",
        plan.fingerprint_hex(),
        plan.n,
        plan.method,
        plan.split_depth,
        plan.tasks.len()
    )
}

/// A plan's identity as people read it, for messages.
fn describe(header: &str) -> String {
    header
        .strip_prefix(MAGIC)
        .unwrap_or(header)
        .trim()
        .to_string()
}

/// What an existing journal holds: which tasks are finished (one bit
/// each, so a plan of 65 million tasks takes 8 MB) and the sum of those a
/// run keeps.
#[derive(Debug, Default)]
pub struct Resumed {
    /// Finished tasks by id, 64 to a word.
    done: Vec<u64>,
    finished: usize,
    /// The sum of the finished tasks the run keeps (see
    /// [`Journal::open_keeping`]); a task recorded twice counts once.
    pub prior: RunTotals,
    /// Whether the journal says the run completed.
    pub complete: bool,
    /// A torn last line that was dropped.
    pub dropped_torn_line: bool,
}

impl Resumed {
    /// Tasks already finished.
    pub fn finished(&self) -> usize {
        self.finished
    }

    /// Whether task `id` is finished.
    pub fn is_done(&self, id: u64) -> bool {
        self.done
            .get((id / 64) as usize)
            .is_some_and(|word| word >> (id % 64) & 1 == 1)
    }

    /// Marks task `id` (below the plan's task count) finished; false if it
    /// already was.
    fn mark(&mut self, id: u64) -> bool {
        let word = &mut self.done[(id / 64) as usize];
        let bit = 1u64 << (id % 64);
        let new = *word & bit == 0;
        *word |= bit;
        self.finished += usize::from(new);
        new
    }
}

/// An open journal, appended to by worker threads.
pub struct Journal {
    path: PathBuf,
    file: Mutex<(File, Instant)>,
}

fn io_error(path: &Path, err: impl std::fmt::Display) -> JournalError {
    JournalError::Io {
        path: path.display().to_string(),
        reason: err.to_string(),
    }
}

impl Journal {
    /// Opens (or creates) the journal at `path` for `plan`, reading what an
    /// existing one holds. A torn last line is cut off the file.
    pub fn open(path: &Path, plan: &Plan) -> Result<(Journal, Resumed), JournalError> {
        Journal::open_keeping(path, plan, &|_| true)
    }

    /// [`Journal::open`], summing in [`Resumed::prior`] only the finished
    /// tasks whose ids `keep` selects (a shard's). The file is read line by
    /// line: its size does not decide the memory taken.
    pub fn open_keeping(
        path: &Path,
        plan: &Plan,
        keep: &dyn Fn(u64) -> bool,
    ) -> Result<(Journal, Resumed), JournalError> {
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(|err| io_error(path, err))?;
        let length = file.metadata().map_err(|err| io_error(path, err))?.len();
        let mut resumed = Resumed {
            done: vec![0; plan.tasks.len().div_ceil(64)],
            ..Resumed::default()
        };
        let header = header_text(plan);
        if length == 0 {
            file.write_all(sealed(&header).as_bytes())
                .and_then(|()| file.sync_data())
                .map_err(|err| io_error(path, err))?;
        } else {
            file.seek(SeekFrom::Start(0))
                .map_err(|err| io_error(path, err))?;
            let reader = BufReader::new(&mut file);
            let sound = read_body(path, reader, &header, plan, keep, &mut resumed)?;
            if sound < length {
                // Cut the torn tail so new lines start on a fresh line.
                file.set_len(sound).map_err(|err| io_error(path, err))?;
                file.seek(SeekFrom::End(0))
                    .map_err(|err| io_error(path, err))?;
                resumed.dropped_torn_line = true;
            }
        }
        let journal = Journal {
            path: path.to_path_buf(),
            file: Mutex::new((file, Instant::now())),
        };
        Ok((journal, resumed))
    }

    /// Appends a finished task, syncing when [`SYNC_INTERVAL`] has passed.
    pub fn record(&self, id: u64, count: &TaskCount) -> io::Result<()> {
        let [o2, o4, o8] = count.orbit_sizes;
        let line = sealed(&format!(
            "task {id} {} {} {o2} {o4} {o8} {}",
            count.solutions, count.orbits, count.nodes
        ));
        let mut guard = self
            .file
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (file, last_sync) = &mut *guard;
        file.write_all(line.as_bytes())?;
        if last_sync.elapsed() >= SYNC_INTERVAL {
            file.sync_data()?;
            *last_sync = Instant::now();
        }
        Ok(())
    }

    /// Marks the run complete and syncs.
    pub fn complete(&self, solutions: u128) -> io::Result<()> {
        let line = sealed(&format!("complete {solutions}"));
        let mut guard = self
            .file
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        guard.0.write_all(line.as_bytes())?;
        guard.0.sync_data()
    }

    /// Syncs everything written so far.
    pub fn sync(&self) -> io::Result<()> {
        let guard = self
            .file
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        guard.0.sync_data()
    }

    /// Where the journal is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Longest line a journal holds: a task line is under 200 bytes, and a
/// longer one is damage, not a line to buffer whole.
const MAX_LINE: u64 = 4096;

/// Reads the next line (with its newline, if any) into `line`, at most
/// [`MAX_LINE`] + 1 bytes; empty at the end of the file.
fn next_line<R: BufRead>(reader: &mut R, line: &mut Vec<u8>) -> io::Result<()> {
    line.clear();
    io::Read::take(&mut *reader, MAX_LINE + 1).read_until(b'\n', line)?;
    Ok(())
}

/// Reads the lines of an existing journal into `resumed`, one at a time;
/// returns how many bytes are sound (the rest is a torn last line).
fn read_body(
    path: &Path,
    mut reader: impl BufRead,
    expected_header: &str,
    plan: &Plan,
    keep: &dyn Fn(u64) -> bool,
    resumed: &mut Resumed,
) -> Result<u64, JournalError> {
    let path_text = path.display().to_string();
    let read_error = |err: io::Error| io_error(path, err);
    let mut sound = 0u64;
    let (mut line, mut next) = (Vec::new(), Vec::new());
    next_line(&mut reader, &mut line).map_err(read_error)?;
    next_line(&mut reader, &mut next).map_err(read_error)?;
    // The header.
    let is_last = next.is_empty();
    let text = |bytes: &[u8]| -> Option<String> {
        let body = bytes.strip_suffix(b"\n")?;
        std::str::from_utf8(body)
            .ok()
            .and_then(unseal)
            .map(str::to_string)
    };
    match text(&line) {
        Some(header) => {
            if !header.starts_with(MAGIC) {
                return Err(JournalError::BadHeader {
                    path: path_text,
                    reason: "the first line is not a journal header".to_string(),
                });
            }
            if header != expected_header {
                return Err(JournalError::Foreign {
                    path: path_text,
                    expected: describe(expected_header),
                    found: describe(&header),
                });
            }
            sound += line.len() as u64;
        }
        _ if is_last && line.starts_with(MAGIC.as_bytes()) => {
            // A header torn while first written: nothing was recorded yet.
            return Err(JournalError::BadHeader {
                path: path_text,
                reason: "the header line is cut short; delete the file to start over".to_string(),
            });
        }
        _ => {
            return Err(JournalError::BadHeader {
                path: path_text,
                reason: "the first line is not a sealed journal header".to_string(),
            });
        }
    }
    let tasks = plan.tasks.len() as u64;
    let mut line_number = 1;
    loop {
        std::mem::swap(&mut line, &mut next);
        if line.is_empty() {
            return Ok(sound);
        }
        next_line(&mut reader, &mut next).map_err(read_error)?;
        let is_last = next.is_empty();
        line_number += 1;
        let corrupt = |reason: &str| JournalError::Corrupt {
            path: path_text.clone(),
            line: line_number,
            reason: reason.to_string(),
        };
        let Some(body) = text(&line) else {
            if is_last {
                return Ok(sound);
            }
            return Err(corrupt("checksum mismatch"));
        };
        let fields: Vec<&str> = body.split(' ').collect();
        match fields.as_slice() {
            ["task", id, numbers @ ..] if numbers.len() == 6 => {
                let parse = |text: &str| {
                    text.parse::<u64>()
                        .map_err(|_| corrupt("a number does not parse"))
                };
                let id = parse(id)?;
                if id >= tasks {
                    return Err(corrupt("task id beyond the plan"));
                }
                let count = TaskCount {
                    solutions: parse(numbers[0])?,
                    orbits: parse(numbers[1])?,
                    orbit_sizes: [parse(numbers[2])?, parse(numbers[3])?, parse(numbers[4])?],
                    nodes: parse(numbers[5])?,
                };
                if resumed.mark(id) && keep(id) {
                    resumed.prior.add_task(&count);
                }
            }
            ["complete", _] => resumed.complete = true,
            _ => return Err(corrupt("not a task or complete line")),
        }
        sound += line.len() as u64;
    }
}
