#!/usr/bin/env python3
"""Watches the progress bar as a person at a terminal sees it.

Runs `nqueens count` on a pseudo-terminal (so the bar is drawn as on a
real one), reads what it draws with timestamps, stops it with SIGINT and
checks:

  - the first line is drawn within a second, and its clock ticks before
    any task has finished (a phase line while the plan is built);
  - rates have at most three significant digits;
  - the first signal is answered at once ("stopping: ..."), the count ends
    within 2 s with exit status 130 and the resume command, and the bar is
    cleared (no bar left on the last line);
  - a resumed count's rate and ETA come from its own work: its first
    rate is no higher than 3x the first run's (finished tasks of the
    first run would inflate it by far more).

With --eta it instead runs the count to its end and holds every ETA the
bar showed against the real end: the worst error from the moment 5% of
the run's time had passed, and a line per tenth of the run.

Usage: scripts/check-bar.py [--nqueens PATH] [--eta [--wrap CMD]] [N] [METHOD] [-- COUNT ARGS]
(defaults: target/release/nqueens, N = 17, mirror: a few seconds on 2
threads; `24 d4` checks a stop with tasks of minutes in flight; with
--eta, `24 join -- --shard 7/500` times one shard). Exit 0 when every check holds, 1 otherwise, each failure named.
"""

import argparse
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time

CSI = re.compile(r"\x1b\[([0-9;]*)([A-Za-z])")
RATE = re.compile(r"\(([0-9.]+)([kMG]?) tasks/s")
CLOCK = re.compile(r"\[(\d\d:\d\d:\d\d)\]")


def run_on_terminal(command, stop_after, stdout=subprocess.DEVNULL):
    """Runs `command` with stderr on a pseudo-terminal; sends SIGINT after
    `stop_after` seconds (None: never). Returns (frames, chunks, text,
    status, signalled_at, ended_at): frames are (seconds, visible line)
    each time the line being drawn changed, chunks (seconds, text read)."""
    master, slave = os.openpty()
    started = time.monotonic()
    child = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=stdout, stderr=slave
    )
    os.close(slave)
    frames, text, line = [], "", ""
    chunks = []
    signalled_at = None
    while True:
        now = time.monotonic() - started
        if stop_after is not None and signalled_at is None and now >= stop_after:
            child.send_signal(signal.SIGINT)
            signalled_at = now
        ready, _, _ = select.select([master], [], [], 0.05)
        if not ready:
            if child.poll() is not None:
                break
            continue
        try:
            chunk = os.read(master, 65536).decode("utf-8", "replace")
        except OSError:
            break
        if not chunk:
            break
        text += chunk
        chunks.append((time.monotonic() - started, chunk))
        # A minimal terminal: the line being drawn, redrawn after \r or an
        # erase-line sequence.
        position = 0
        for match in CSI.finditer(chunk + "\x1b[0m"):
            for char in chunk[position : match.start()]:
                if char == "\r":
                    line = ""
                elif char == "\n":
                    line = ""
                else:
                    line += char
            if match.group(2) == "K":
                line = ""
            position = match.end()
        frames.append((time.monotonic() - started, line))
    status = child.wait()
    ended_at = time.monotonic() - started
    os.close(master)
    return frames, chunks, text, status, signalled_at, ended_at


ETA = re.compile(r"ETA ([\d.]+ (?:ms|s|min|h|days|years))\)")


def seconds_of(text):
    """'512 ms', '4.21 s', '17.3 min', '5.02 h', '12.1 days', '3.40 years' as seconds."""
    value, unit = text.split()
    scale = {"ms": 1e-3, "s": 1, "min": 60, "h": 3600, "days": 86400, "years": 365.25 * 86400}
    return float(value) * scale[unit]


def check_eta(args):
    """Runs the count to its end on a terminal; returns the worst relative
    ETA error from 5% of the run on."""
    command = args.wrap.split() + [args.nqueens, "count", args.n, "-m", args.method] + args.count_args
    with tempfile.TemporaryFile("w+") as report:
        frames, _, _, status, _, ended_at = run_on_terminal(command, None, report)
        report.seek(0)
        print(report.read(), end="")
    if status != 0:
        sys.exit(f"the count failed with status {status}")
    shown = [(at, seconds_of(m.group(1))) for at, line in frames for m in [ETA.search(line)] if m]
    worst, next_tenth = 0.0, 0.1
    print(f"N = {args.n}, {args.method}: ended after {ended_at:.1f} s")
    for at, eta in shown:
        error = (at + eta - ended_at) / ended_at
        if at >= 0.05 * ended_at:
            worst = max(worst, abs(error))
        if at >= next_tenth * ended_at:
            print(f"  at {at:7.1f} s ({at / ended_at:4.0%}): ETA {eta:6.0f} s, ends at {at + eta:7.1f} s: {error:+.1%}")
            next_tenth += 0.1
    print(f"worst ETA error from 5% of the run: {worst:.1%}")
    return worst


def significant_digits(number):
    digits = number.replace(".", "").lstrip("0")
    return len(digits)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nqueens", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "release", "nqueens"))
    parser.add_argument("n", nargs="?", default="17")
    parser.add_argument("method", nargs="?", default="mirror")
    parser.add_argument("--eta", action="store_true", help="hold the ETA against the real end")
    parser.add_argument("--wrap", default="", help="with --eta: a command the count runs under, e.g. '/usr/bin/time -v -o t.txt'")
    parser.add_argument("count_args", nargs=argparse.REMAINDER, help="with --eta: more arguments for count, after --")
    args = parser.parse_args()
    args.count_args = [a for a in args.count_args if a != "--"]
    if not os.access(args.nqueens, os.X_OK):
        sys.exit(f"no nqueens binary at {args.nqueens}: cargo build --release first")
    if args.eta:
        return 0 if check_eta(args) <= 0.25 else 1
    failures = []

    def check(ok, what):
        print(("ok    " if ok else "FAIL  ") + what)
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory() as scratch:
        journal = os.path.join(scratch, "bar.ckpt")
        command = [args.nqueens, "count", args.n, "-m", args.method, "--checkpoint", journal]
        frames, chunks, text, status, signalled_at, ended_at = run_on_terminal(command, 2.0)
        drawn = [(at, line) for at, line in frames if line.strip()]
        check(bool(drawn) and drawn[0][0] < 1.0, "a line is drawn within 1 s")
        clocks = {m.group(1) for at, line in drawn if at < signalled_at for m in CLOCK.finditer(line)}
        check(len(clocks) >= 2, f"the clock ticks ({len(clocks)} distinct readings before the stop)")
        rates = [m.group(1) for _, line in drawn for m in RATE.finditer(line)]
        if not rates:
            print("skip  no task finished before the stop: no rate to check")
        check(all(significant_digits(r) <= 3 for r in rates), "rates have at most 3 significant digits")
        after = text[text.find("stopping:") :] if "stopping:" in text else ""
        stopping_at = next((at for at, chunk in chunks if "stopping:" in chunk), None)
        check(
            stopping_at is not None and stopping_at - signalled_at < 0.5,
            "the signal is answered within 0.5 s",
        )
        check(ended_at - signalled_at < 2.0, f"the count ends within 2 s ({ended_at - signalled_at:.2f} s)")
        check(status == 130, f"exit status 130 (got {status})")
        check("resume with" in after, "the resume command is printed")
        last = text.rstrip("\r\n").split("\n")[-1]
        last = CSI.sub("", last.split("\r")[-1])
        check("tasks/s" not in last and "ETA" not in last, "no bar is left on the last line")
        first_rate = next((r for r in (RATE.search(line) for _, line in drawn) if r), None)

        # Resumed: the first rate shown counts this run's tasks only.
        frames, _, text, status, _, _ = run_on_terminal(command, 1.5)
        resumed = [m for _, line in frames for m in [RATE.search(line)] if m]
        if first_rate and resumed:
            scale = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}
            value = lambda m: float(m.group(1)) * scale[m.group(2)]
            check(
                value(resumed[0]) <= 3 * value(first_rate) + 1,
                f"a resumed count's rate is its own ({resumed[0].group(0)} against {first_rate.group(0)})",
            )
        else:
            print("skip  no rate in one of the runs: the resumed rate is not checked")
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("every check holds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
