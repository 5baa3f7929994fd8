//! Every task's cost known before counting, of a `join` plan of N: one
//! line `id cost` per task, for `scripts/estimate-check.py` to read
//! beside a journal of the whole count.
//!
//!   cargo run --release --example task_costs -- 21 > costs-21.txt

use std::io::Write;

use nqueens::testing::join::{task_cost, JoinTasks, QuadrantCounts};

fn main() {
    let n: u32 = match std::env::args().nth(1).map(|text| text.parse()) {
        Some(Ok(n)) if (10..=28).contains(&n) => n,
        _ => {
            eprintln!("usage: task_costs N (a join plan, N from 10 to 28)");
            std::process::exit(2);
        }
    };
    let tasks = JoinTasks::new(n);
    let quadrants = QuadrantCounts::new(n / 2);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (id, task) in tasks.iter().enumerate() {
        if writeln!(out, "{id} {}", task_cost(n, &quadrants, &task)).is_err() {
            return;
        }
    }
}
