//! Events of a running child, read from Linux's `/proc`, for the tests
//! that signal a count: whether its handlers are set, and how much work it
//! has done. A wait on the wall clock means less work on a loaded machine
//! (a newcomer's test failed so at load 5 to 8); these do not.

use std::time::Duration;

/// SIGINT and SIGTERM in a `SigCgt` mask (bit n - 1 for signal n).
const STOP_SIGNALS: u64 = (1 << (2 - 1)) | (1 << (15 - 1));

/// Whether the process `pid` has ended (gone, or a zombie not yet waited
/// for).
fn ended(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).map_or(true, |stat| {
        stat.rfind(')')
            .is_none_or(|close| stat[close + 1..].trim_start().starts_with('Z'))
    })
}

/// Whether the process `pid` catches SIGINT and SIGTERM; `None` once it
/// has ended.
fn catches_stops(pid: u32) -> Option<bool> {
    if ended(pid) {
        return None;
    }
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let mask = status
        .lines()
        .find_map(|line| line.strip_prefix("SigCgt:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())?;
    Some(mask & STOP_SIGNALS == STOP_SIGNALS)
}

/// Waits until the process `pid` catches SIGINT and SIGTERM
/// or has ended, for at most 2 minutes: a stop sent before its handlers
/// are set kills it instead.
pub fn await_handlers(pid: u32) {
    super::wait::wait_for(
        &format!("process {pid} to set its SIGINT and SIGTERM handlers"),
        Duration::from_secs(120),
        || catches_stops(pid) != Some(false),
    );
}

/// CPU time the process `pid` and every process below it have run (user
/// and system, in the kernel's ticks of 10 ms), with the children they
/// have waited for.
fn tree_cpu_ticks(pid: u32) -> u64 {
    // Every process's parent and ticks; a process's own stat line has its
    // name in parentheses, which may hold spaces: fields follow the last ')'.
    let mut processes: Vec<(u32, u32, u64)> = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    for entry in entries.flatten() {
        let Some(id) = entry
            .file_name()
            .to_str()
            .and_then(|name| name.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some(close) = stat.rfind(')') else {
            continue;
        };
        // From the state on: state ppid ... utime (14th) stime cutime cstime.
        let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
        let field = |at: usize| fields.get(at).and_then(|value| value.parse::<u64>().ok());
        if let (Some(parent), Some(user), Some(system), Some(child_user), Some(child_system)) =
            (field(1), field(11), field(12), field(13), field(14))
        {
            processes.push((id, parent as u32, user + system + child_user + child_system));
        }
    }
    let mut tree = vec![pid];
    let mut ticks = 0;
    while let Some(at) = tree.pop() {
        for &(id, parent, own) in &processes {
            if id == at {
                ticks += own;
            }
            if parent == at {
                tree.push(id);
            }
        }
    }
    ticks
}

/// Waits until the process `pid` and those below it (an `mpirun`'s ranks,
/// a shell's command) have run `work` more CPU time than when called, or
/// `pid` has ended, for at most 5 minutes: "let it count for a while"
/// measured in counting, not in a wall clock that a loaded machine
/// stretches.
pub fn await_cpu_work(pid: u32, work: Duration) {
    let ticks = (work.as_millis() as u64).div_ceil(10);
    let from = tree_cpu_ticks(pid);
    super::wait::wait_for(
        &format!("process {pid} to run {work:?} more of CPU time or end"),
        Duration::from_secs(300),
        || tree_cpu_ticks(pid) >= from + ticks || ended(pid),
    );
}
