//! `--profile FILE`: every task's count and time, as CSV, written after
//! the result.

use std::sync::Mutex;

use anyhow::Context;
use nqueens::TaskOutcome;

use super::PendingFile;

/// Per-task measurements for `--profile`, collected from the workers.
#[derive(Default)]
pub struct Profiler {
    rows: Mutex<Vec<TaskOutcome>>,
}

impl Profiler {
    /// Records one finished task.
    pub fn record(&self, outcome: &TaskOutcome) {
        self.rows
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(*outcome);
    }

    /// `id,solutions,nodes,seconds` per task, by id.
    pub fn csv(self) -> String {
        let mut rows = self.rows.into_inner().unwrap_or_else(|p| p.into_inner());
        rows.sort_by_key(|row| row.id);
        let mut text = String::from("id,solutions,nodes,seconds\n");
        for row in rows {
            text.push_str(&format!(
                "{},{},{},{:.9}\n",
                row.id, row.count.solutions, row.count.nodes, row.seconds
            ));
        }
        text
    }
}

/// Writes the per-task profile, if one was asked for, after the result is
/// printed: a profile that cannot be written loses no count.
pub fn write_profile(out: Option<PendingFile>, profiler: Profiler) -> anyhow::Result<()> {
    let Some(out) = out else {
        return Ok(());
    };
    let path = out.path().to_path_buf();
    out.commit(profiler.csv().as_bytes())
        .with_context(|| format!("cannot write the profile {}", path.display()))
}
