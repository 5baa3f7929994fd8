//! `nqueens gpu` for people: a sample of tasks timed on the GPU (and some
//! on one CPU thread), and the whole plan's time on each.

use std::io::{self, Write};

use nqueens::gpu::Timing;
use nqueens::units::human_bytes;

use crate::output::human_duration;

/// The timing, a few lines.
pub fn timing(out: &mut dyn Write, timing: &Timing) -> io::Result<()> {
    let mean = |seconds: f64| seconds / timing.tasks_in_plan as f64;
    writeln!(out, "gpu: {}", timing.device)?;
    let cpu_timed = timing
        .timed
        .iter()
        .filter(|task| task.cpu_seconds.is_some())
        .count();
    writeln!(
        out,
        "N = {}: {} of {} tasks timed on the GPU ({cpu_timed} also on one CPU thread, counted alike)",
        timing.n,
        timing.timed.len(),
        timing.tasks_in_plan
    )?;
    writeln!(
        out,
        "  GPU: {:.3} ms a task; the whole plan {} on this GPU (95% interval {} to {})",
        mean(timing.gpu_seconds) * 1e3,
        human_duration(timing.gpu_seconds),
        human_duration(timing.gpu_interval.0),
        human_duration(timing.gpu_interval.1)
    )?;
    if let Some(cpu) = timing.cpu_seconds {
        writeln!(
            out,
            "  one CPU thread: {:.3} ms a task; the whole plan {} of one core",
            mean(cpu) * 1e3,
            human_duration(cpu)
        )?;
    }
    if let Some(ratio) = timing.gpu_per_cpu_thread {
        writeln!(
            out,
            "  one GPU = {ratio:.2} CPU threads on the tasks both counted"
        )?;
    }
    writeln!(
        out,
        "  peak GPU memory in use {}; {:.3e} pairs decided a second on the GPU, {:.1}% of all the tasks' pairs",
        human_bytes(timing.peak_gpu_bytes),
        timing.pairs_per_second,
        timing.decided_share * 100.0
    )?;
    writeln!(
        out,
        "  {} of the {} tasks counted wholly on the GPU (half boards made there), the others with the host's half boards",
        timing.whole_tasks,
        timing.timed.len()
    )?;
    let wall = (timing.boards_seconds + timing.layout_seconds + timing.device_seconds).max(1e-9);
    writeln!(
        out,
        "  host thread: {:.0}% making half boards, {:.0}% laying out buckets, {:.0}% in the driver (copies, launches, the GPU)",
        100.0 * timing.boards_seconds / wall,
        100.0 * timing.layout_seconds / wall,
        100.0 * timing.device_seconds / wall
    )?;
    if let Some(threads) = timing.feeder_cpu_threads {
        writeln!(
            out,
            "  one feeding host thread takes at most {threads:.2} CPU threads' worth of tasks, however fast the GPU (K feeders K times that)"
        )?;
    }
    if let Some(boards) = &timing.boards {
        let rate = |seconds: f64| boards.boards as f64 / seconds.max(1e-9);
        writeln!(
            out,
            "  half boards by the board kernels alone: the GPU made {:.3e} a second, one CPU thread's glue {:.3e} ({:.1}x), {} of them, {}",
            rate(boards.gpu_seconds),
            rate(boards.cpu_seconds),
            boards.cpu_seconds / boards.gpu_seconds.max(1e-9),
            boards.boards,
            if boards.keys_compared { "keys compared" } else { "counts compared" }
        )?;
    }
    Ok(())
}
