//! The plan fingerprint.

use super::{Fnv1a, Plan};

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
        if self.method.counting().hash_tasks_summarily(self, &mut hash) {
            return hash.finish();
        }
        for task in self.tasks.iter() {
            hash.write(&task.id.to_le_bytes());
            hash.write(&task.weight.to_le_bytes());
            hash.write(&task.board.row.to_le_bytes());
            hash.write(&task.board.cols.to_le_bytes());
            hash.write(&task.board.ld.to_le_bytes());
            hash.write(&task.board.rd.to_le_bytes());
            task.kind.hash_into(&mut hash);
            hash.write(task.prefix_columns());
        }
        hash.finish()
    }
}
