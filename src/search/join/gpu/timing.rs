//! A GPU timed on a sample of a join plan's tasks, against one CPU thread
//! on the same tasks: the figures `nqueens gpu` prints and
//! `scripts/gpu-check.sh` records (solutions per second, GPU-days for the
//! whole plan with an interval, the ratio to a core).

use std::time::Instant;

use serde::Serialize;

use super::board_maker::GpuBoardMaker;
use super::board_timing::{time_boards, BoardsTiming};
use super::cells::DeviceCells;
use super::device::{GpuDevice, GpuPairCounter};
use super::whole::GpuTaskCounter;
use super::worker::count_on_gpu;
use crate::plan::Plan;
use crate::search::join::{self, JoinTask};

/// One task timed.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct TaskTiming {
    /// The task's id.
    pub id: u64,
    /// Its solutions (the same on both sides where both counted it).
    pub solutions: u64,
    /// Its pairs of half boards, all of them (the work measure a count
    /// reports as nodes): what a matcher that tried every pair would decide.
    pub pairs: u64,
    /// Wall seconds on the GPU (its host thread making the half boards,
    /// the GPU matching them).
    pub gpu_seconds: f64,
    /// The CPU thread's seconds (its CPU time), where it was timed there.
    pub cpu_seconds: Option<f64>,
}

/// A sample's figures.
#[derive(Clone, Debug, Serialize)]
pub struct Timing {
    /// The GPU, as the driver names it.
    pub device: String,
    /// Board size.
    pub n: u32,
    /// Tasks in the plan.
    pub tasks_in_plan: u64,
    /// The tasks timed.
    pub timed: Vec<TaskTiming>,
    /// The whole plan's seconds on this GPU, predicted from the sample's
    /// mean (one task at a time, as a count feeds it), with a 95% interval.
    pub gpu_seconds: f64,
    /// Its 95% interval.
    pub gpu_interval: (f64, f64),
    /// The same on one CPU thread, from the tasks it timed.
    pub cpu_seconds: Option<f64>,
    /// How many CPU threads one GPU is worth on the tasks both timed (their
    /// CPU seconds over their GPU seconds).
    pub gpu_per_cpu_thread: Option<f64>,
    /// Most GPU memory in use during the sample (the driver's total less
    /// its free), in bytes.
    pub peak_gpu_bytes: u64,
    /// Pairs the GPU's buckets let it decide, per second of GPU time.
    pub pairs_per_second: f64,
    /// Of all the pairs of the tasks timed, the share the GPU decided (the
    /// rest its buckets ruled out unseen).
    pub decided_share: f64,
    /// The host thread's seconds over the sample making half boards (and
    /// the rest of a task outside the pair counter), or for a task counted
    /// wholly on the GPU building its cells and tables of splits.
    pub boards_seconds: f64,
    /// Its seconds laying out buckets for the GPU.
    pub layout_seconds: f64,
    /// Its seconds in the driver: copies, launches, waiting for the GPU.
    pub device_seconds: f64,
    /// What one feeding host thread can take off the CPU at most, however
    /// fast the GPU: on the tasks both timed, the CPU thread's seconds over
    /// the host's own work on them (half boards and layout), in CPU
    /// threads. K feeders take up to K times this while the GPU keeps up.
    pub feeder_cpu_threads: Option<f64>,
    /// The half boards of the tasks the CPU timed too, made on the GPU by
    /// the board kernels alone and by the CPU's glue, checked alike.
    pub boards: Option<BoardsTiming>,
    /// Of the tasks timed, those counted wholly on the GPU (half boards
    /// made there); the others' half boards were made by the host thread.
    pub whole_tasks: u64,
}

/// Times `ids` of `plan` (a join plan) on `device`, and the first
/// `cpu_tasks` of them on this thread too, checking that both count each
/// the same. An error names a task the two count differently, or what the
/// GPU said.
pub fn time_tasks(
    device: &GpuDevice,
    plan: &Plan,
    ids: &[u64],
    cpu_tasks: usize,
) -> Result<Timing, String> {
    let mut cells = DeviceCells::with_budget(device.settings.cells_budget);
    let timing = time_tasks_with(device, plan, ids, cpu_tasks, &mut cells);
    cells.free(&device.cuda);
    timing
}

/// [`time_tasks`], the quadrant cells built into `cells`.
fn time_tasks_with(
    device: &GpuDevice,
    plan: &Plan,
    ids: &[u64],
    cpu_tasks: usize,
    cells: &mut DeviceCells,
) -> Result<Timing, String> {
    let n = plan.n;
    if plan.method != crate::Method::Join {
        return Err(format!("the plan of N = {n} is {}, not join", plan.method));
    }
    // The shared quadrant cells are built once per count, not per task.
    let _cells = (n / 2 <= join::SHARED_MAX_SIDE).then(|| join::shared_cells(n / 2));
    device.enter()?;
    let (_, total) = device.memory()?;
    let mut peak = 0u64;
    let mut counter = GpuPairCounter::new(device);
    let mut whole = GpuTaskCounter::new(device, cells);
    let mut timed = Vec::with_capacity(ids.len());
    // The host's own seconds on the tasks the CPU timed too, and the
    // driver's on the tasks counted wholly on the GPU.
    let mut paired_host = 0.0;
    let mut whole_device = 0.0;
    for (k, &id) in ids.iter().enumerate() {
        let task = plan.tasks.get(id as usize);
        let Some(join_task) = JoinTask::of(&task) else {
            return Err(format!("task {id} is not a join task"));
        };
        let device_before = counter.device_seconds;
        let (whole_before, whole_host_before) = (whole.tasks, whole.host_seconds);
        let started = Instant::now();
        let on_gpu = count_on_gpu(n, &join_task, &mut whole, &mut counter, None)?;
        let gpu_seconds = started.elapsed().as_secs_f64();
        // The host's own work: for a task counted wholly on the GPU, its
        // cells and split tables; else all but its time in the driver.
        let host_seconds = if whole.tasks > whole_before {
            let host = whole.host_seconds - whole_host_before;
            whole_device += gpu_seconds - host;
            host
        } else {
            gpu_seconds - (counter.device_seconds - device_before)
        };
        let on_gpu = on_gpu.ok_or("the GPU abandoned a task")?;
        let (free, _) = device.memory()?;
        peak = peak.max(total.saturating_sub(free));
        let cpu_seconds = (k < cpu_tasks).then(|| {
            let before = crate::system::thread_cpu_seconds();
            let on_cpu = join::count_task(n, &join_task);
            (on_cpu, crate::system::thread_cpu_seconds() - before)
        });
        if let Some((on_cpu, _)) = cpu_seconds {
            // Solutions only: the pairs are a work measure, which a grid's
            // tasks count before its filters on the GPU (as `compare`
            // leaves work measures aside).
            if on_cpu.solutions != on_gpu.solutions {
                return Err(format!(
                    "task {id} of N = {n}: the GPU counted {} solutions, the CPU {}",
                    on_gpu.solutions, on_cpu.solutions
                ));
            }
        }
        if cpu_seconds.is_some() {
            paired_host += host_seconds;
        }
        timed.push(TaskTiming {
            id,
            solutions: on_gpu.solutions,
            pairs: on_gpu.pairs,
            gpu_seconds,
            cpu_seconds: cpu_seconds.map(|(_, seconds)| seconds),
        });
    }
    // The board kernels alone on the tasks the CPU timed, against the
    // CPU's glue.
    let mut boards: Option<BoardsTiming> = None;
    let mut maker = GpuBoardMaker::new(device);
    for task in timed.iter().filter(|task| task.cpu_seconds.is_some()) {
        let join_task = JoinTask::of(&plan.tasks.get(task.id as usize))
            .ok_or("a join plan's task is a join task")?;
        let one = time_boards(&mut maker, n, &join_task)?;
        let sum = boards.get_or_insert_with(|| BoardsTiming {
            keys_compared: true,
            ..BoardsTiming::default()
        });
        sum.boards += one.boards;
        sum.gpu_seconds += one.gpu_seconds;
        sum.cpu_seconds += one.cpu_seconds;
        sum.keys_compared &= one.keys_compared;
    }
    let tasks_in_plan = plan.tasks.len() as u64;
    let wall: f64 = timed.iter().map(|task| task.gpu_seconds).sum();
    let (mean, error) = mean_and_error(timed.iter().map(|task| task.gpu_seconds));
    let scale = tasks_in_plan as f64;
    let cpu: Vec<&TaskTiming> = timed
        .iter()
        .filter(|task| task.cpu_seconds.is_some())
        .collect();
    let cpu_mean = (!cpu.is_empty())
        .then(|| cpu.iter().filter_map(|task| task.cpu_seconds).sum::<f64>() / cpu.len() as f64);
    let paired_gpu: f64 = cpu.iter().map(|task| task.gpu_seconds).sum();
    let paired_cpu: f64 = cpu.iter().filter_map(|task| task.cpu_seconds).sum();

    Ok(Timing {
        device: device.info().describe(),
        n,
        tasks_in_plan,
        gpu_seconds: mean * scale,
        gpu_interval: (
            ((mean - 1.96 * error) * scale).max(0.0),
            (mean + 1.96 * error) * scale,
        ),
        cpu_seconds: cpu_mean.map(|mean| mean * scale),
        gpu_per_cpu_thread: (paired_gpu > 0.0 && !cpu.is_empty()).then(|| paired_cpu / paired_gpu),
        peak_gpu_bytes: peak,
        pairs_per_second: (counter.pairs_decided + whole.pairs_decided) as f64 / wall.max(1e-9),
        decided_share: (counter.pairs_decided + whole.pairs_decided) as f64
            / timed
                .iter()
                .map(|task| task.pairs as f64)
                .sum::<f64>()
                .max(1.0),
        boards_seconds: (wall - counter.layout_seconds - counter.device_seconds - whole_device)
            .max(0.0),
        layout_seconds: counter.layout_seconds,
        device_seconds: counter.device_seconds + whole_device,
        feeder_cpu_threads: (paired_host > 0.0 && !cpu.is_empty())
            .then(|| paired_cpu / paired_host),
        boards,
        whole_tasks: whole.tasks,
        timed,
    })
}

/// The mean of `values` and its standard error.
fn mean_and_error(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let values: Vec<f64> = values.collect();
    let count = values.len() as f64;
    if values.is_empty() {
        return (0.0, 0.0);
    }
    let mean = values.iter().sum::<f64>() / count;
    if values.len() < 2 {
        return (mean, 0.0);
    }
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (count - 1.0);
    (mean, (variance / count).sqrt())
}

/// `count` task ids of a plan of `len`, one from each of `count` equal runs
/// of it, at a place drawn by `seed`: the sample spreads over the plan, as
/// the estimate's does.
pub fn sample_ids(len: u64, count: u64, seed: u64) -> Vec<u64> {
    let count = count.min(len).max(1);
    let mut draws = crate::random::SplitMix64(seed ^ 0x9e37_79b9_7f4a_7c15);
    (0..count)
        .map(|k| {
            let (from, to) = (len * k / count, len * (k + 1) / count);
            from + draws.next() % (to - from).max(1)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_takes_one_id_from_each_run_of_the_plan() {
        for (len, count) in [(10u64, 10u64), (1000, 7), (62_403_600, 200), (5, 9)] {
            let ids = sample_ids(len, count, 3);
            assert_eq!(ids.len() as u64, count.min(len));
            let count = ids.len() as u64;
            for (k, id) in ids.iter().enumerate() {
                let k = k as u64;
                assert!(
                    (len * k / count..len * (k + 1) / count).contains(id),
                    "{len} {k} {id}"
                );
            }
        }
        assert_ne!(sample_ids(1000, 7, 3), sample_ids(1000, 7, 4));
    }

    #[test]
    fn the_mean_and_its_error() {
        assert_eq!(mean_and_error([2.0].into_iter()), (2.0, 0.0));
        let (mean, error) = mean_and_error([1.0, 2.0, 3.0, 4.0].into_iter());
        assert_eq!(mean, 2.5);
        assert!((error - (5.0f64 / 3.0 / 4.0).sqrt()).abs() < 1e-12);
    }
}
