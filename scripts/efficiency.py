#!/usr/bin/env python3
"""Estimates how well a plan keeps K workers busy, from a measured profile.

    nqueens count 18 --profile profile.csv
    scripts/efficiency.py profile.csv [--seconds] [K ...]   (default K: 2 64 256 1024)

A task's cost is the queens it placed (exact and repeatable: on a shared
machine a task's seconds include the times its thread was descheduled), or
its measured seconds with --seconds. Tasks are handed out three ways and the efficiency
(total work / (K x the busiest worker's work)) is printed for each:
  dynamic  tasks in plan order, each to the first free worker (what work
           stealing and an MPI task queue do);
  greedy   longest task first to the least loaded worker (a lower bound on
           what any schedule of these tasks can reach, within 4/3);
  shards   task id mod K, as `--shard I/K` splits a plan.
"""
import csv
import heapq
import sys


def dynamic(costs, workers):
    loads = [0.0] * workers
    heap = [(0.0, w) for w in range(workers)]
    for cost in costs:
        load, worker = heapq.heappop(heap)
        loads[worker] = load + cost
        heapq.heappush(heap, (loads[worker], worker))
    return max(loads)


def greedy(costs, workers):
    return dynamic(sorted(costs, reverse=True), workers)


def shards(costs, workers):
    loads = [0.0] * workers
    for task_id, cost in enumerate(costs):
        loads[task_id % workers] += cost
    return max(loads)


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    arguments = sys.argv[2:]
    column = "nodes"
    if "--seconds" in arguments:
        arguments.remove("--seconds")
        column = "seconds"
    try:
        with open(sys.argv[1], newline="", encoding="utf-8") as handle:
            rows = sorted(csv.DictReader(handle), key=lambda row: int(row["id"]))
        costs = [float(row[column]) for row in rows]
        counts = [int(k) for k in arguments] or [2, 64, 256, 1024]
    except (OSError, KeyError, ValueError) as err:
        print(f"error: cannot read a profile from {sys.argv[1]}: {err}", file=sys.stderr)
        return 1
    total = sum(costs)
    if not costs or total <= 0:
        print("error: the profile has no measured tasks", file=sys.stderr)
        return 1
    unit = "s" if column == "seconds" else "nodes"
    print(f"{len(costs)} tasks, {total:.6g} {unit} of work, largest task {max(costs):.6g} {unit} "
          f"({max(costs) / (total / len(costs)):.1f}x the mean), cost = {column}")
    print(f"{'workers':>8} {'dynamic':>9} {'greedy':>9} {'shards':>9}")
    for workers in counts:
        row = [100 * total / (workers * schedule(costs, workers)) for schedule in (dynamic, greedy, shards)]
        print(f"{workers:>8} " + " ".join(f"{value:>8.1f}%" for value in row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
