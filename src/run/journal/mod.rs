//! The checkpoint journal: an append-only record of finished tasks, so that a
//! long count can be interrupted and resumed without losing finished work.
//!
//! A header line names the plan (fingerprint, N, method, split depth, task
//! count); then one line per finished task (its counts, work and the
//! microseconds it took); a `session` line where a run ends (its wall
//! microseconds and threads), so a count spread over several runs knows its
//! whole cost; then, when every task is done, a `complete` line. The header
//! ends with a checksum of its own text and every later line with a
//! checksum of the header's text and its own (see `seal.rs`), so a torn tail (a
//! crash mid-write, zeros after a power loss) is recognised and cut off, a
//! line copied from another plan's journal does not hold, and damage
//! anywhere else is refused rather than trusted. Each task line is written
//! with one `write` as soon as the task finishes (a killed process loses only
//! the tasks in flight) and the file is synced to disk every few seconds.

use std::fs::{File, OpenOptions};
use std::io::{self, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::engine::{RunTotals, TaskCount};
use super::signing::RunKey;
use crate::plan::Plan;

/// How often the journal is synced to disk while a run goes on.
pub(crate) const SYNC_INTERVAL: Duration = Duration::from_secs(2);

pub use crate::error::JournalError;
pub(crate) use read::{read_plan_of, read_tasks};

mod read;
mod seal;

use read::{check_repeats, read_body};
use seal::{LineSeal, MAGIC, MAGIC_UNBOUND};

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

/// A header's plan, without its format tag (either format's).
fn plan_part(header: &str) -> Option<&str> {
    header
        .strip_prefix(MAGIC)
        .or_else(|| header.strip_prefix(MAGIC_UNBOUND))
        .map(str::trim)
}

/// A plan's identity as people read it, for messages.
fn describe(header: &str) -> String {
    plan_part(header).unwrap_or(header).trim().to_string()
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
    /// Runs that recorded their end, their wall seconds summed.
    pub sessions: u64,
    /// Wall seconds of those runs.
    pub wall_seconds: f64,
    /// Seconds the kept tasks took, summed over threads and runs (tasks
    /// journaled before their time was recorded count 0).
    pub task_seconds: f64,
    /// The same, in whole microseconds as the lines record them: summed as
    /// integers, so every reading of a journal gives the same total.
    pub task_micros: u64,
    /// A torn tail cut off the file: its byte range (a last line cut short,
    /// or zeros or an unterminated line after the last whole line, as a
    /// power loss can leave).
    pub cut_tail: Option<std::ops::Range<u64>>,
    /// The journal is of the earlier format, whose lines are not bound to
    /// their plan: it resumes, and lines go on being written in its format.
    pub unbound: bool,
    /// Lines (numbered from 1) that began with a write cut short, a full
    /// disk's, before a whole line: the cut task is counted again.
    pub torn_lines: Vec<usize>,
}

impl Resumed {
    /// What reading the journal repaired, one sentence each, for a warning.
    pub fn repairs(&self) -> Vec<String> {
        let mut repairs = Vec::new();
        if let Some(cut) = &self.cut_tail {
            repairs.push(format!(
                "cut bytes {}..{} off its end, a torn tail after the last whole line (a task recorded there will be counted again)",
                cut.start, cut.end
            ));
        }
        if !self.torn_lines.is_empty() {
            let lines: Vec<String> = self.torn_lines.iter().map(usize::to_string).collect();
            repairs.push(format!(
                "line(s) {} begin with a write cut short (a full disk?) before a whole line; the cut task(s) will be counted again",
                lines.join(", ")
            ));
        }
        if self.unbound {
            repairs.push(
                "it is of the earlier format, whose lines are not bound to their plan: it resumes as it is, but a line copied from another journal would not be caught (start a new file to have every line bound)"
                    .to_string(),
            );
        }
        repairs
    }

    /// Tasks already finished.
    pub fn finished(&self) -> usize {
        self.finished
    }

    /// The finished tasks as a bitset, 64 ids to a word (task `id` is bit
    /// `id % 64` of word `id / 64`): what MPI ranks are sent.
    pub fn done_words(&self) -> &[u64] {
        &self.done
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
        // Not `finished += usize::from(new)`: rustc 1.95 (and nightlies to
        // at least 2026-05-19) drops that sum when the caller also branches
        // on `new` (MIR pass SimplifyComparisonIntegral, rust-lang/rust
        // #158206); a test of damaged journals found it.
        if new {
            self.finished += 1;
        }
        new
    }
}

/// The journal's file and what is known of it, behind the lock.
struct Appender {
    file: File,
    last_sync: Instant,
    /// Bytes of whole lines in the file: where a failed write is cut back to.
    whole: u64,
    /// A write failed and the file could not be cut back to its whole lines:
    /// nothing more is appended, so no whole line follows a torn one.
    torn: bool,
}

impl Appender {
    /// Appends `line` whole, or leaves the file as it was: a write that
    /// fails part-way (a full disk) is cut back to the last whole line
    /// before anything else is written.
    fn append(&mut self, line: &str) -> io::Result<()> {
        if self.torn {
            return Err(io::Error::other(
                "an earlier write failed and could not be undone; nothing more is written",
            ));
        }
        let written = self.write_line(line.as_bytes());
        match written {
            Ok(()) => self.whole += line.len() as u64,
            Err(_) => {
                if self.file.set_len(self.whole).is_err() {
                    self.torn = true;
                }
            }
        }
        written
    }

    #[cfg(not(feature = "failpoints"))]
    fn write_line(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.write_all(bytes)
    }

    /// With `FAILPOINTS='journal-write=return'`, a line is written half and
    /// the disk is full, as on a filesystem that runs out of space.
    #[cfg(feature = "failpoints")]
    fn write_line(&mut self, bytes: &[u8]) -> io::Result<()> {
        if fail::eval("journal-write", |_| ()).is_some() {
            self.file.write_all(&bytes[..bytes.len() / 2])?;
            return Err(io::Error::from_raw_os_error(28));
        }
        self.file.write_all(bytes)
    }
}

/// The journal's file, locked.
type JournalGuard<'a> = std::sync::MutexGuard<'a, Appender>;

/// An open journal, appended to by worker threads.
pub struct Journal {
    path: PathBuf,
    file: Mutex<Appender>,
    /// How its lines are sealed: bound to its header (and key).
    seal: LineSeal,
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
        Journal::open_keyed(path, plan, keep, None)
    }

    /// [`Journal::open_keeping`] for a run with a key: every line read must
    /// carry its MAC under `key`, and every line written carries one (a
    /// journal made without a key is refused, and the other way round).
    pub fn open_keyed(
        path: &Path,
        plan: &Plan,
        keep: &dyn Fn(u64) -> bool,
        key: Option<&RunKey>,
    ) -> Result<(Journal, Resumed), JournalError> {
        check_regular(path)?;
        // The header first: its fingerprint takes seconds at N = 27, and a
        // file is not created until it can be written at once.
        let header = header_text(plan);
        let (mut file, writable) = match OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
        {
            Ok(file) => (file, true),
            // A finished count's journal may be kept read-only: it is
            // read, and its result reported, if it is complete.
            Err(err)
                if matches!(
                    err.kind(),
                    io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem
                ) && path.exists() =>
            {
                let file = File::open(path).map_err(|err| io_error(path, err))?;
                (file, false)
            }
            Err(err) => {
                let reason = match err.kind() {
                    io::ErrorKind::NotFound => "its directory does not exist".to_string(),
                    _ => err.to_string(),
                };
                return Err(io_error(
                    path,
                    format!("cannot open or create it: {reason}; nothing was counted"),
                ));
            }
        };
        // The file may have been swapped for something else since the check.
        let metadata = file.metadata().map_err(|err| io_error(path, err))?;
        if !metadata.is_file() {
            return Err(not_regular(path));
        }
        if writable {
            lock(&file, path)?;
        }
        let length = metadata.len();
        let mut resumed = Resumed {
            done: vec![0; plan.tasks.len().div_ceil(64)],
            ..Resumed::default()
        };
        // How the lines are sealed: bound to the header, for a new journal;
        // as the journal read says, for one resumed (its format's way).
        let seal = if length == 0 {
            file.write_all(LineSeal::unbound(key).seal(&header).as_bytes())
                .and_then(|()| file.sync_data())
                .map_err(|err| io_error(path, err))?;
            LineSeal::bound(&header, key)
        } else {
            file.seek(SeekFrom::Start(0))
                .map_err(|err| io_error(path, err))?;
            let reader = BufReader::new(&mut file);
            let tasks = plan.tasks.len() as u64;
            // Tasks recorded more than once: checked below that every
            // record of each says the same.
            let mut twice = Vec::new();
            let mut on_task = |id: u64, count: &TaskCount, micros: u64, _line: usize| {
                if !resumed.mark(id) {
                    twice.push(id);
                } else if keep(id) {
                    resumed.prior.add_task(id, count);
                    resumed.task_micros = resumed.task_micros.saturating_add(micros);
                }
            };
            let body = read_body(path, reader, &header, tasks, key, &mut on_task)?;
            if !twice.is_empty() {
                file.seek(SeekFrom::Start(0))
                    .map_err(|err| io_error(path, err))?;
                check_repeats(path, BufReader::new(&mut file), &header, tasks, key, twice)?;
            }
            resumed.complete = body.complete;
            resumed.sessions = body.sessions;
            resumed.torn_lines = body.torn_lines;
            resumed.unbound = !body.seal.is_bound();
            resumed.task_seconds = resumed.task_micros as f64 * 1e-6;
            resumed.wall_seconds = body.wall_micros as f64 * 1e-6;
            let sound = body.sound;
            if sound < length {
                // Cut the torn tail so new lines start on a fresh line.
                file.set_len(sound).map_err(|err| io_error(path, err))?;
                file.seek(SeekFrom::End(0))
                    .map_err(|err| io_error(path, err))?;
                resumed.cut_tail = Some(sound..length);
            }
            body.seal
        };
        if !writable && !resumed.complete {
            return Err(JournalError::ReadOnly {
                path: path.display().to_string(),
                finished: resumed.finished,
                tasks: plan.tasks.len() as u64,
            });
        }
        let whole = file.metadata().map_err(|err| io_error(path, err))?.len();
        let journal = Journal {
            path: path.to_path_buf(),
            file: Mutex::new(Appender {
                file,
                last_sync: Instant::now(),
                whole,
                torn: false,
            }),
            seal,
        };
        Ok((journal, resumed))
    }

    /// Appends a finished task that took `seconds`, syncing when
    /// 2 s (`SYNC_INTERVAL`) have passed.
    pub fn record(&self, id: u64, count: &TaskCount, seconds: f64) -> io::Result<()> {
        let [o2, o4, o8] = count.orbit_sizes;
        let micros = (seconds * 1e6).round() as u64;
        let line = self.seal.seal(&format!(
            "task {id} {} {} {o2} {o4} {o8} {} {micros}",
            count.solutions, count.orbits, count.nodes
        ));
        let mut guard = self
            .file
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        guard.append(&line)?;
        if guard.last_sync.elapsed() >= SYNC_INTERVAL {
            guard.file.sync_data()?;
            guard.last_sync = Instant::now();
        }
        Ok(())
    }

    /// Records the end of a run of `seconds` wall time on `threads`
    /// threads, and syncs.
    pub fn end_session(&self, seconds: f64, threads: usize) -> io::Result<()> {
        self.write_session(seconds, threads).1
    }

    /// Writes the `session` line and syncs; returns the lock, still held,
    /// with how that went.
    fn write_session(&self, seconds: f64, threads: usize) -> (JournalGuard<'_>, io::Result<()>) {
        let micros = (seconds * 1e6).round() as u64;
        let line = self.seal.seal(&format!("session {micros} {threads}"));
        let mut guard = self
            .file
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let written = guard.append(&line).and_then(|()| guard.file.sync_data());
        (guard, written)
    }

    /// Marks the run complete and syncs.
    pub fn complete(&self, solutions: u128) -> io::Result<()> {
        let line = self.seal.seal(&format!("complete {solutions}"));
        let mut guard = self
            .file
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        guard.append(&line)?;
        guard.file.sync_data()
    }

    /// [`Journal::end_session`] for a process about to exit with tasks in
    /// flight: afterwards no thread can append (the journal stays locked
    /// until the process ends), so no line is torn by the exit.
    pub fn end_before_exit(&self, seconds: f64, threads: usize) -> io::Result<()> {
        let (guard, written) = self.write_session(seconds, threads);
        std::mem::forget(guard);
        written
    }

    /// Syncs everything written so far.
    pub fn sync(&self) -> io::Result<()> {
        let guard = self
            .file
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        guard.file.sync_data()
    }

    /// Where the journal is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn not_regular(path: &Path) -> JournalError {
    JournalError::NotRegular {
        path: path.display().to_string(),
    }
}

/// Refuses a path that exists and is not a regular file: a device such as
/// /dev/zero would be read without end, a pipe would block.
fn check_regular(path: &Path) -> Result<(), JournalError> {
    match std::fs::metadata(path) {
        Ok(metadata) if !metadata.is_file() => Err(not_regular(path)),
        _ => Ok(()),
    }
}

/// Takes the journal for this process alone: a second process counting
/// into it would duplicate every line it counts again.
fn lock(file: &File, path: &Path) -> Result<(), JournalError> {
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(std::fs::TryLockError::WouldBlock) => Err(JournalError::InUse {
            path: path.display().to_string(),
            holder: lock_holder(file).map_or_else(
                || "another process".to_string(),
                |pid| format!("another process (pid {pid})"),
            ),
        }),
        Err(std::fs::TryLockError::Error(err)) => Err(io_error(path, err)),
    }
}

/// The process holding a lock on `file`, where the system lists locks
/// (Linux: /proc/locks names the holder's pid and the file's inode).
fn lock_holder(file: &File) -> Option<u32> {
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::fs::MetadataExt;
        let inode = file.metadata().ok()?.ino();
        let locks = std::fs::read_to_string("/proc/locks").ok()?;
        let own = std::process::id();
        locks.lines().find_map(|line| {
            // "1: FLOCK  ADVISORY  WRITE 4242 08:01:123456 0 EOF"
            let fields: Vec<&str> = line.split_whitespace().collect();
            let pid: u32 = fields.get(4)?.parse().ok()?;
            let lock_inode: u64 = fields.get(5)?.rsplit(':').next()?.parse().ok()?;
            (lock_inode == inode && pid != own).then_some(pid)
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = file;
        None
    }
}
