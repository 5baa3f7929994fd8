use nqueens::join;
fn main() {
    let args: Vec<u32> = std::env::args().skip(1).map(|a| a.parse().unwrap()).collect();
    for n in args[0]..=args[1] {
        let t = std::time::Instant::now();
        let tasks = join::tasks(n);
        let mut total = 0u64; let mut hb = 0u64; let mut pairs=0u64;
        for task in &tasks { let c = join::count_task(n, task); total += c.solutions; hb += c.half_boards; pairs += c.pairs; }
        println!("{n} {total} tasks={} half={hb} pairs={pairs} {:.3}s", tasks.len(), t.elapsed().as_secs_f64());
    }
}
