use nqueens::*;
fn main() {
    let n: u32 = std::env::args().nth(1).unwrap().parse().unwrap();
    let m: Method = std::env::args().nth(2).unwrap().parse().unwrap();
    let r = count(
        n,
        &CountOptions {
            method: m,
            threads: Some(1),
            split_depth: SplitDepth::Auto,
        },
    )
    .unwrap();
    println!(
        "{n} {m} total={} nodes={} {:.3}s {:.1} M/s",
        r.solutions,
        r.nodes,
        r.seconds,
        r.nodes as f64 / r.seconds / 1e6
    );
}
