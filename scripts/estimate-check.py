#!/usr/bin/env python3
"""How well `plan N --estimate` would do, against the truth: draws samples
from a journal of a whole count (every task's time known) as the estimate
draws them, and reports how far their estimates fall from the journal's
total and how often their 95% intervals hold it, with the times alone and
adjusted by the tasks' costs (the regression estimator of `--by-cost`).

  nqueens count 21 -j2 --checkpoint j21.ckpt
  cargo run --release --example task_costs -- 21 > costs-21.txt
  scripts/estimate-check.py j21.ckpt costs-21.txt

Fixed sizes take one task from each of K equal runs of the plan (a
stratified sample, its error from neighbouring tasks); stopped at a
precision, the strata of a 10,000-task sample are taken in a random order
until the interval is within +-P% (a random sample, its error from the
spread). The arithmetic follows src/analysis/estimate/interval.rs, without
the batch means (a journal does not drift)."""

import math
import random
import statistics as st
import sys


def read(journal, costs):
    times = {}
    with open(journal) as lines:
        for line in lines:
            fields = line.split()
            if fields[:1] == ["task"] and len(fields) >= 9:
                times[int(fields[1])] = int(fields[8]) * 1e-6
    cost = {}
    with open(costs) as lines:
        for line in lines:
            task, value = line.split()
            cost[int(task)] = float(value)
    if set(times) != set(cost):
        sys.exit("the journal must hold every task of the plan the costs are of")
    return times, cost


def estimate(sample, times, cost, mean_cost, total, by_cost, stratified):
    ys = [times[i] for i in sample]
    if by_cost:
        xs = [cost[i] for i in sample]
        mx, my = st.fmean(xs), st.fmean(ys)
        sxx = sum((x - mx) ** 2 for x in xs)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else 0.0
        ys = [y - slope * (x - mean_cost) for x, y in zip(xs, ys)]
    n = len(ys)
    if stratified:
        order = sorted(range(n), key=lambda k: sample[k])
        variance = sum((ys[order[k]] - ys[order[k - 1]]) ** 2 for k in range(1, n)) / (2 * (n - 1))
    else:
        variance = st.variance(ys)
    correction = 1 - n / total
    return total * st.fmean(ys), total * math.sqrt(variance / n * correction)


def strata(ids, count, rng):
    total = len(ids)
    return [ids[k * total // count + rng.randrange((k + 1) * total // count - k * total // count)]
            for k in range(count)]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    times, cost = read(sys.argv[1], sys.argv[2])
    ids = sorted(times)
    total = len(ids)
    truth = sum(times.values())
    mean_cost = sum(cost.values()) / total
    print(f"{total} tasks, {truth:.1f} core-seconds in the journal")
    for size in (50, 200):
        for by_cost in (False, True):
            errors, held = [], 0
            for rep in range(2000):
                sample = strata(ids, size, random.Random(rep))
                value, error = estimate(sample, times, cost, mean_cost, total, by_cost, True)
                errors.append(abs(value / truth - 1))
                held += value - 1.96 * error <= truth <= value + 1.96 * error
            errors.sort()
            print(f"{size} strata, {'by cost' if by_cost else 'times alone'}: 95 in 100 within "
                  f"{100 * errors[1900]:.1f}%, interval held {held / 20:.0f} in 100")
    for share in (0.15, 0.05):
        for by_cost in (False, True):
            sizes, held = [], 0
            for rep in range(400):
                rng = random.Random(rep)
                picks = strata(ids, 10_000, rng)
                rng.shuffle(picks)
                n = 20
                while True:
                    value, error = estimate(picks[:n], times, cost, mean_cost, total, by_cost, False)
                    if 1.96 * error <= share * value or n >= len(picks):
                        break
                    n += max(1, n // 20)
                sizes.append(n)
                held += value - 1.96 * error <= truth <= value + 1.96 * error
            sizes.sort()
            print(f"stopped at +-{100 * share:.0f}%, {'by cost' if by_cost else 'times alone'}: "
                  f"median {sizes[200]} tasks, interval held {held / 4:.0f} in 100")


if __name__ == "__main__":
    main()
