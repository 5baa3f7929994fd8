//! Reading a journal: its header, its lines one at a time with their seals
//! checked, lines cut short by a failed write recovered, and tasks recorded
//! twice checked against each other.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use super::seal::{LineSeal, MAGIC, MAGIC_UNBOUND};
use super::{check_regular, describe, header_text, io_error, plan_part, JournalError};
use crate::plan::{Method, Plan};
use crate::run::engine::TaskCount;
use crate::run::signing::RunKey;

/// Why a header line that did not unseal under `key` is refused: made with
/// a key and read without, the other way round, or damaged.
fn header_refusal(line: &str, key: Option<&RunKey>) -> &'static str {
    let keyed = line
        .rsplit_once(" #k")
        .is_some_and(|(_, mac)| mac.len() == 32 && mac.bytes().all(|b| b.is_ascii_hexdigit()));
    match (keyed, key) {
        (true, None) => "it was made with --key: give the run's key file",
        (false, Some(_)) if LineSeal::unbound(None).unseal(line).is_some() => {
            "it was made without a key: run without --key, or start a new file"
        }
        (true, Some(_)) => {
            "its MAC does not match this key: it was made with another key, or edited"
        }
        _ => "the first line is not a sealed journal header",
    }
}

/// The plan a journal names in its header: N, method and split depth, as
/// given to [`Plan::build_within`]; the header is checked against the
/// rebuilt plan when the body is read ([`read_tasks`]).
pub(crate) fn read_plan_of(
    path: &Path,
    key: Option<&RunKey>,
) -> Result<(u32, Method, u32), JournalError> {
    check_regular(path)?;
    let file = File::open(path).map_err(|err| io_error(path, err))?;
    let mut line = Vec::new();
    next_line(&mut BufReader::new(file), &mut line).map_err(|err| io_error(path, err))?;
    let bad = |reason: &str| JournalError::BadHeader {
        path: path.display().to_string(),
        reason: reason.to_string(),
    };
    let first = line
        .strip_suffix(b"\n")
        .and_then(|body| std::str::from_utf8(body).ok())
        .unwrap_or_default();
    let header = LineSeal::unbound(key)
        .unseal(first)
        .filter(|header| plan_part(header).is_some())
        .ok_or_else(|| bad(header_refusal(first, key)))?;
    let field = |name: &str| {
        header
            .split(' ')
            .find_map(|field| field.strip_prefix(name)?.strip_prefix('='))
            .ok_or_else(|| bad(&format!("the header has no {name}")))
    };
    let number = |name: &str| {
        field(name)?
            .parse::<u32>()
            .map_err(|_| bad(&format!("the header's {name} is not a number")))
    };
    let method = field("method")?
        .parse()
        .map_err(|_| bad("the header names no known method"))?;
    Ok((number("n")?, method, number("split")?))
}

/// Reads the journal again for the tasks in `twice` (recorded more than
/// once) and refuses it, naming both lines, if two records of one task
/// disagree: a task's count does not depend on the run, so one of them is
/// wrong and the journal cannot say which.
pub(super) fn check_repeats(
    path: &Path,
    reader: impl BufRead,
    header: &str,
    tasks: u64,
    key: Option<&RunKey>,
    mut twice: Vec<u64>,
) -> Result<(), JournalError> {
    twice.sort_unstable();
    twice.dedup();
    let mut first: std::collections::HashMap<u64, (TaskCount, usize)> =
        std::collections::HashMap::with_capacity(twice.len());
    let mut conflict = None;
    let mut on_task = |id: u64, count: &TaskCount, _micros: u64, line: usize| {
        if conflict.is_some() || twice.binary_search(&id).is_err() {
            return;
        }
        match first.get(&id) {
            None => {
                first.insert(id, (*count, line));
            }
            Some((earlier, earlier_line)) if earlier != count => {
                conflict = Some((id, *earlier, *earlier_line, *count, line));
            }
            Some(_) => {}
        }
    };
    read_body(path, reader, header, tasks, key, &mut on_task)?;
    match conflict {
        None => Ok(()),
        Some((task, first, first_line, second, second_line)) => Err(JournalError::Conflict {
            path: path.display().to_string(),
            task,
            first: format!("line {first_line}: {}", describe_count(&first)),
            second: format!("line {second_line}: {}", describe_count(&second)),
        }),
    }
}

/// A task's count as people read it, for messages.
fn describe_count(count: &TaskCount) -> String {
    format!(
        "{} solutions, {} orbits, {} nodes",
        count.solutions, count.orbits, count.nodes
    )
}

/// Reads every task line of the journal at `path`, which must be of
/// `plan`, and hands each to `on_task` (a task recorded twice, twice);
/// returns whether the journal says the count completed. The file is not
/// changed: a torn last line is passed over.
pub(crate) fn read_tasks(
    path: &Path,
    plan: &Plan,
    key: Option<&RunKey>,
    on_task: &mut dyn FnMut(u64, &TaskCount),
) -> Result<bool, JournalError> {
    let on_task = &mut |id: u64, count: &TaskCount, _micros: u64, _line: usize| on_task(id, count);
    check_regular(path)?;
    let file = File::open(path).map_err(|err| io_error(path, err))?;
    let header = header_text(plan);
    let tasks = plan.tasks.len() as u64;
    let body = read_body(path, BufReader::new(file), &header, tasks, key, on_task)?;
    Ok(body.complete)
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

/// What reading a journal's lines found besides its tasks.
pub(super) struct Body {
    /// Bytes that are sound (the rest is a torn tail).
    pub(super) sound: u64,
    /// Whether a `complete` line was read.
    pub(super) complete: bool,
    /// `session` lines read, and their wall microseconds summed.
    pub(super) sessions: u64,
    pub(super) wall_micros: u64,
    /// Lines that began with a write cut short (line numbers from 1).
    pub(super) torn_lines: Vec<usize>,
    /// How the journal's lines are sealed (bound to its header, unless it
    /// is of the earlier format): lines appended to it are sealed alike.
    pub(super) seal: LineSeal,
}

/// Where a line starts in `line` after a cut-short write: a torn line is
/// the first part of a journal line (any number of its bytes) with a whole
/// line written straight after it. None unless `line` is that.
fn after_torn_write(line: &[u8]) -> Option<&[u8]> {
    const STARTS: [&[u8]; 3] = [b"task ", b"session ", b"complete "];
    // The last start in the line: a write may be cut more than once.
    let at = (1..line.len())
        .rev()
        .find(|&at| STARTS.iter().any(|start| line[at..].starts_with(start)))?;
    let cut = &line[..at];
    STARTS
        .iter()
        .any(|start| cut.starts_with(start) || start.starts_with(cut))
        .then_some(&line[at..])
}

/// Whether `line` or any of the rest of `reader`'s lines (`next` the first
/// of them) ends with a newline. A write cut short never does (the newline
/// is a line's last byte), nor zeros a power loss leaves: damage with no
/// newline after it is a torn tail, and a whole line that does not hold is
/// refused wherever it stands.
fn newline_ahead<R: BufRead>(line: &[u8], reader: &mut R, next: &mut Vec<u8>) -> io::Result<bool> {
    if line.ends_with(b"\n") {
        return Ok(true);
    }
    while !next.is_empty() {
        if next.ends_with(b"\n") {
            return Ok(true);
        }
        next_line(reader, next)?;
    }
    Ok(false)
}

/// Reads the lines of an existing journal one at a time, checking each
/// line's seal and the header against `expected_header`, and hands each
/// task line (id below `tasks`) to `on_task`, with the microseconds it
/// took (0 where a line does not say). A journal of the earlier format,
/// whose lines are sealed by their own text, is read too (see
/// [`Body::seal`]).
pub(super) fn read_body(
    path: &Path,
    mut reader: impl BufRead,
    expected_header: &str,
    tasks: u64,
    key: Option<&RunKey>,
    on_task: &mut dyn FnMut(u64, &TaskCount, u64, usize),
) -> Result<Body, JournalError> {
    let path_text = path.display().to_string();
    let read_error = |err: io::Error| io_error(path, err);
    let mut sound = 0u64;
    let (mut line, mut next) = (Vec::new(), Vec::new());
    next_line(&mut reader, &mut line).map_err(read_error)?;
    next_line(&mut reader, &mut next).map_err(read_error)?;
    // The header.
    let is_last = next.is_empty();
    let text_under = |bytes: &[u8], seal: &LineSeal| -> Option<String> {
        let body = bytes.strip_suffix(b"\n")?;
        std::str::from_utf8(body)
            .ok()
            .and_then(|line| seal.unseal(line))
            .map(str::to_string)
    };
    let seal = match text_under(&line, &LineSeal::unbound(key)) {
        Some(header) => {
            let Some(plan) = plan_part(&header) else {
                return Err(JournalError::BadHeader {
                    path: path_text,
                    reason: "the first line is not a journal header".to_string(),
                });
            };
            if plan_part(expected_header) != Some(plan) {
                return Err(JournalError::Foreign {
                    path: path_text,
                    differing: differing_fields(&header, expected_header),
                    expected: describe(expected_header),
                    found: describe(&header),
                });
            }
            sound += line.len() as u64;
            if header.starts_with(MAGIC_UNBOUND) {
                LineSeal::unbound(key)
            } else {
                LineSeal::bound(&header, key)
            }
        }
        _ if is_last
            && (line.starts_with(MAGIC.as_bytes())
                || line.starts_with(MAGIC_UNBOUND.as_bytes())) =>
        {
            // A header torn while first written: nothing was recorded yet.
            return Err(JournalError::BadHeader {
                path: path_text,
                reason: "the header line is cut short; delete the file to start over".to_string(),
            });
        }
        _ => {
            let first = line.strip_suffix(b"\n").unwrap_or(&line);
            let first = std::str::from_utf8(first).unwrap_or_default();
            return Err(JournalError::BadHeader {
                path: path_text,
                reason: header_refusal(first, key).to_string(),
            });
        }
    };
    let text = |bytes: &[u8]| text_under(bytes, &seal);
    let mut body = Body {
        sound: 0,
        complete: false,
        sessions: 0,
        wall_micros: 0,
        torn_lines: Vec::new(),
        seal: seal.clone(),
    };
    let mut line_number = 1;
    loop {
        std::mem::swap(&mut line, &mut next);
        if line.is_empty() {
            return Ok(Body { sound, ..body });
        }
        next_line(&mut reader, &mut next).map_err(read_error)?;
        line_number += 1;
        let corrupt = |reason: &str| JournalError::Corrupt {
            path: path_text.clone(),
            line: line_number,
            reason: reason.to_string(),
            whole_bytes: sound,
        };
        let content = match text(&line) {
            Some(content) => content,
            None => match after_torn_write(&line).and_then(&text) {
                // A write cut short (a full disk) and a whole line written
                // after it: the cut task was not recorded and is counted
                // again; the whole line stands.
                Some(content) => {
                    body.torn_lines.push(line_number);
                    content
                }
                None => {
                    if !newline_ahead(&line, &mut reader, &mut next).map_err(read_error)? {
                        // A torn tail, of any length: cut off.
                        return Ok(Body { sound, ..body });
                    }
                    return Err(corrupt(&why_unsealed(&line, &seal, key)));
                }
            },
        };
        let parse = |text: &str| {
            text.parse::<u64>()
                .map_err(|_| corrupt("a number does not parse"))
        };
        let fields: Vec<&str> = content.split(' ').collect();
        match fields.as_slice() {
            // Journals written before task times were kept have 6 numbers.
            ["task", id, numbers @ ..] if matches!(numbers.len(), 6 | 7) => {
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
                let micros = numbers.get(6).map_or(Ok(0), |text| parse(text))?;
                on_task(id, &count, micros, line_number);
            }
            ["session", micros, threads] => {
                parse(threads)?;
                body.sessions += 1;
                body.wall_micros = body.wall_micros.saturating_add(parse(micros)?);
            }
            ["complete", _] => body.complete = true,
            _ => return Err(corrupt("not a task or complete line")),
        }
        sound += line.len() as u64;
    }
}

/// The `name=value` fields of two headers that differ, as `its n is 12,
/// this run's 13`.
fn differing_fields(found: &str, expected: &str) -> String {
    let fields = |header: &str| -> Vec<(String, String)> {
        header
            .split(' ')
            .filter_map(|field| field.split_once('='))
            .map(|(name, value)| (name.to_string(), value.to_string()))
            .collect()
    };
    let (found, expected) = (fields(found), fields(expected));
    let differing: Vec<String> = expected
        .iter()
        .filter_map(|(name, value)| {
            let theirs = found
                .iter()
                .find(|(other, _)| other == name)
                .map_or("absent", |(_, theirs)| theirs.as_str());
            (theirs != value).then(|| format!("its {name} is {theirs}, this run's {value}"))
        })
        .collect();
    differing.join(", ")
}

/// Why a line whose seal does not hold under `seal` was refused: a line of
/// the earlier format, sealed by its own text, or one sealed for another
/// journal (or damaged: a checksum cannot tell those apart).
fn why_unsealed(line: &[u8], seal: &LineSeal, key: Option<&RunKey>) -> String {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let Ok(line) = std::str::from_utf8(line) else {
        return "not text: damaged".to_string();
    };
    if seal.is_bound() && LineSeal::unbound(key).unseal(line).is_some() {
        return "sealed by its own text alone: a line of an earlier-format journal, not bound to this plan".to_string();
    }
    if seal.is_bound() {
        "its seal does not hold: damaged, or copied from another plan's journal".to_string()
    } else {
        "checksum mismatch".to_string()
    }
}
