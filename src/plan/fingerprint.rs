//! The plan fingerprint, and the hash behind it and the journal's line
//! checksums.

use super::{Plan, TaskKind};

impl Plan {
    /// A hash over N, method, depth and every task: two plans with the same
    /// fingerprint hand out the same work under the same ids. Worked out
    /// once per plan and kept (hashing the 65 million tasks of N = 27
    /// takes seconds, and a count asks for it several times).
    pub fn fingerprint(&self) -> u64 {
        *self.fingerprint.get_or_init(|| self.hash_tasks())
    }

    fn hash_tasks(&self) -> u64 {
        let mut hash = Fnv1a::new();
        hash.write(b"nqueens-plan-v1");
        hash.write(&self.n.to_le_bytes());
        hash.write(&[self.method.code()]);
        hash.write(&self.split_depth.to_le_bytes());
        hash.write(&(self.tasks.len() as u64).to_le_bytes());
        if let Some(join) = self.tasks.cut_join_tasks() {
            // An even-N join cut beside the middle: its tasks follow from
            // its row sets and the cut, so those are hashed (3.4 billion
            // tasks at N = 28 took 4 minutes to hash one by one).
            hash.write(&[6, join.cut_code()]);
            for (rows, tasks) in join.row_sets() {
                hash.write(&rows.to_le_bytes());
                hash.write(&tasks.to_le_bytes());
            }
            return hash.finish();
        }
        for task in self.tasks.iter() {
            hash.write(&task.id.to_le_bytes());
            hash.write(&task.weight.to_le_bytes());
            hash.write(&task.board.row.to_le_bytes());
            hash.write(&task.board.cols.to_le_bytes());
            hash.write(&task.board.ld.to_le_bytes());
            hash.write(&task.board.rd.to_le_bytes());
            let (kind, bound) = match task.kind {
                TaskKind::Plain => (0u8, 0u32),
                TaskKind::D4Corner { second } => (1, second),
                // Edge tasks count by the tie-pattern rule of
                // `d4::classify`; code 2 was the rule before it, whose
                // per-task counts differ, so old checkpoints must not match.
                TaskKind::D4Edge { k } => (5, k),
                TaskKind::Join { east_rows, middle } => {
                    hash.write(&east_rows.to_le_bytes());
                    (3, middle)
                }
            };
            hash.write(&[kind]);
            hash.write(&bound.to_le_bytes());
            hash.write(task.prefix_columns());
        }
        hash.finish()
    }
}

/// 64-bit FNV-1a: tiny, stable across platforms and releases, and enough to
/// tell plans apart (it guards against mistakes, not attackers).
#[derive(Clone)]
pub(crate) struct Fnv1a(u64);

impl Fnv1a {
    pub(crate) fn new() -> Fnv1a {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }

    pub(crate) fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    pub(crate) fn finish(&self) -> u64 {
        self.0
    }
}

/// The FNV-1a hash of `bytes`.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash = Fnv1a::new();
    hash.write(bytes);
    hash.finish()
}
