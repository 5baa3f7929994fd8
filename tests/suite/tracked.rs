//! The library's tracked count (`run::tracked`): the flow the command's
//! checkpointed and sharded counts and MPI's rank 0 share, driven here
//! without the command line.

use std::sync::atomic::AtomicBool;

use nqueens::run::shard::ShardSpec;
use nqueens::run::tracked::{Tracked, TrackedOutcome, Watch};
use nqueens::{CountOptions, Method, TaskOutcome};

fn options(method: Method) -> CountOptions {
    CountOptions::default()
        .with_method(method)
        .with_threads(Some(2))
}

fn run(tracked: Tracked, stop: &AtomicBool) -> TrackedOutcome {
    let on_task = |_: &TaskOutcome| {};
    tracked
        .run(&Watch {
            on_task: &on_task,
            stop,
            grace: None,
            workers: &[],
            on_worker_failed: None,
            workers_only: false,
        })
        .expect("a tracked count of a small board runs")
}

#[test]
fn a_batch_worker_beside_the_threads_journals_every_task_once() {
    use nqueens::run::workers::{BatchWorker, CpuBatchWorker};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("workers.ckpt");
    for method in [Method::Join, Method::D4] {
        let _ = std::fs::remove_file(&path);
        let tracked = Tracked::prepare(12, &options(method), 1, None, Some(&path), None).unwrap();
        let worker = CpuBatchWorker { batch_len: 5 };
        let workers: [&dyn BatchWorker; 1] = [&worker];
        let stop = AtomicBool::new(false);
        let outcome = tracked
            .run(&Watch {
                on_task: &|_| {},
                stop: &stop,
                grace: None,
                workers: &workers,
                on_worker_failed: None,
                workers_only: false,
            })
            .unwrap();
        let TrackedOutcome::Counted(report) = outcome else {
            panic!("{method}: a whole count ends with its report")
        };
        assert_eq!(report.solutions, 14_200, "{method}");
        let text = std::fs::read_to_string(&path).unwrap();
        let mut ids: Vec<u64> = text
            .lines()
            .filter(|line| line.starts_with("task "))
            .map(|line| line.split(' ').nth(1).unwrap().parse().unwrap())
            .collect();
        let journaled = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), journaled, "{method}: each task once");
        assert_eq!(ids.len(), report.tasks, "{method}");
    }
}

#[test]
fn a_journaled_count_finishes_then_reads_back_with_its_history() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("count.ckpt");
    let go = AtomicBool::new(false);
    for method in [Method::Mirror, Method::Join] {
        let _ = std::fs::remove_file(&path);
        let first = Tracked::prepare(12, &options(method), 2, None, Some(&path), None).unwrap();
        assert!(!first.resuming());
        let TrackedOutcome::Counted(report) = run(first, &go) else {
            panic!("{method}: a whole count ends with its report")
        };
        assert_eq!(report.solutions, 14_200, "{method}");
        assert_eq!(
            report.history, None,
            "{method}: a first run has no earlier runs"
        );
        // Read again: nothing left to count, the same total, one run.
        let again = Tracked::prepare(12, &options(method), 2, None, Some(&path), None).unwrap();
        assert_eq!(again.earlier().totals.solutions, 14_200, "{method}");
        assert!(
            !again.resuming(),
            "{method}: a finished journal is not resumed"
        );
        let TrackedOutcome::Counted(report) = run(again, &go) else {
            panic!("{method}: a finished journal reads back as its report")
        };
        assert_eq!(report.solutions, 14_200, "{method}");
        let history = report
            .history
            .expect("a journal read again has its history");
        assert_eq!(history.sessions, 1, "{method}: reading adds no run");
    }
}

#[test]
fn shards_add_up_to_the_count_and_a_stop_counts_nothing() {
    let go = AtomicBool::new(false);
    let stopped = AtomicBool::new(true);
    let shards = 3;
    let mut solutions = 0;
    let mut tasks = 0;
    for index in 0..shards {
        let shard = ShardSpec::new(index, shards).unwrap();
        let tracked =
            Tracked::prepare(11, &options(Method::Join), 2, Some(shard), None, None).unwrap();
        tasks += tracked.tasks();
        let TrackedOutcome::Shard(result) = run(tracked, &go) else {
            panic!("a shard ends with its result")
        };
        assert_eq!((result.shard, result.shards), (index, shards));
        assert!(result.checksum.is_some(), "a shard's result is checksummed");
        solutions += result.solutions;
    }
    assert_eq!(solutions, 2_680, "the shards' parts add up to Q(11)");
    let whole = Tracked::prepare(11, &options(Method::Join), 2, None, None, None).unwrap();
    assert_eq!(tasks, whole.tasks(), "every task is in one shard");
    // Stopped before it starts: no task counted, and it says so.
    match run(whole, &stopped) {
        TrackedOutcome::Stopped {
            counted, tasks: of, ..
        } => {
            assert_eq!((counted, of), (0, tasks));
        }
        other => panic!("a stopped count ends stopped, not {other:?}"),
    }
}
