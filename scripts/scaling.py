#!/usr/bin/env python3
"""Draws the scaling chart of an `nqueens bench --format json` report.

Two panels against the thread count: speed-up over one thread (with the ideal
line), and nodes per second. Needs matplotlib (pip install matplotlib).

    nqueens bench --format json > bench.json
    scripts/scaling.py bench.json docs/scaling.svg     # .svg or .png
"""
import json
import sys


def main() -> int:
    if len(sys.argv) != 3:
        print(f"usage: {sys.argv[0]} BENCH.json CHART.svg|CHART.png", file=sys.stderr)
        return 2
    source, target = sys.argv[1], sys.argv[2]
    try:
        with open(source, encoding="utf-8") if source != "-" else sys.stdin as handle:
            report = json.load(handle)
    except (OSError, json.JSONDecodeError) as err:
        print(f"error: cannot read a bench report from {source}: {err}", file=sys.stderr)
        return 1
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("error: matplotlib is missing: pip install matplotlib", file=sys.stderr)
        return 1

    results = sorted(report["results"], key=lambda r: r["threads"])
    threads = [r["threads"] for r in results]
    rates = [r["nodes_per_second"] / 1e6 for r in results]
    speedups = [r["speedup"] for r in results]

    figure, (left, right) = plt.subplots(1, 2, figsize=(9, 3.8))
    if all(s is not None for s in speedups):
        left.plot(threads, threads, linestyle="--", color="grey", label="ideal")
        left.plot(threads, speedups, marker="o", color="tab:blue", label="measured")
        for t, s in zip(threads, speedups):
            left.annotate(f"{s:.2f}x", (t, s), textcoords="offset points", xytext=(6, -12))
        left.set_ylabel("speed-up over 1 thread")
        left.legend(loc="upper left")
    else:
        left.text(0.5, 0.5, "no 1-thread run", ha="center", transform=left.transAxes)
    left.set_xlabel("threads")
    left.set_xticks(threads)

    right.plot(threads, rates, marker="o", color="tab:orange")
    for t, r in zip(threads, rates):
        right.annotate(f"{r:.0f}", (t, r), textcoords="offset points", xytext=(6, -12))
    right.set_xlabel("threads")
    right.set_ylabel("million nodes per second (median)")
    right.set_xticks(threads)
    right.set_ylim(bottom=0)

    figure.suptitle(
        f"nqueens {report['version']} bench, N = {report['n']} ({report['method']}), "
        f"{report['runs']} runs per point\n{report['cpu_model']}, "
        f"{report['logical_cores']} logical cores",
        fontsize=10,
    )
    figure.tight_layout()
    figure.savefig(target)
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
