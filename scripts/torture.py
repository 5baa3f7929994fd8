#!/usr/bin/env python3
"""Faults and hostile input at random, for a given time: the program must
count exactly, or refuse in one line; never print a wrong count, panic or
hang.

Each trial is one of:
  kill     a checkpointed count killed with SIGKILL (or stopped with SIGINT)
           at random moments, one to three times, then resumed to the end;
  splice   a journal with lines of another plan's (or key's) journal put in
           at random places, resumed;
  damage   a finished or part-done journal cut at a random byte, given a
           zero-filled or junk tail, or one byte changed, resumed;
  full     a checkpointed count whose file size limit (RLIMIT_FSIZE, SIGXFSZ
           ignored: writes past it fail as on a full disk) stops its
           journal at a random size; it must finish exact or fail in one
           line, and its journal must then resume to the exact count;
  args     a random command line from the program's words and hostile
           values (N out of range, bad shards, odd bytes), run once.

Outcomes: exact (the published count), refused (exit 1 or 2 with one
error line), wrong (exit 0 and a count that is not the published one, or a
usage error's other exit), panic (a Rust panic or exit 101), hang (past the
trial's time limit). The table goes to stdout; exit 1 if any trial was
wrong, panicked or hung. With --seed the trials are the same again.

    scripts/torture.py --seconds 60                  # as CI runs it
    scripts/torture.py --seconds 3600 --seed 7       # longer, by hand
"""

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# A000170, for the N the trials count.
PUBLISHED = {8: 92, 9: 352, 10: 724, 11: 2680, 12: 14200, 13: 73712, 14: 365596, 15: 2279184}
METHODS = ["join", "mirror", "d4", "none"]


def default_binary():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        out = subprocess.run(["cargo", "metadata", "--format-version", "1", "--no-deps"],
                             cwd=root, capture_output=True, text=True, timeout=60)
        import json
        target = json.loads(out.stdout)["target_directory"]
    except Exception:
        target = os.path.join(root, "target")
    for profile in ("release", "debug"):
        path = os.path.join(target, profile, "nqueens")
        if os.path.exists(path):
            return path
    return os.path.join(target, "release", "nqueens")


class Torture:
    def __init__(self, binary, rng, scratch):
        self.binary = binary
        self.rng = rng
        self.scratch = scratch
        self.table = {}
        self.notes = []
        self.serial = 0

    def path(self, name):
        self.serial += 1
        return os.path.join(self.scratch, f"{self.serial}-{name}")

    def record(self, kind, outcome, detail=""):
        row = self.table.setdefault(kind, {"trials": 0, "exact": 0, "refused": 0,
                                           "wrong": 0, "panic": 0, "hang": 0})
        row["trials"] += 1
        row[outcome] += 1
        if outcome in ("wrong", "panic", "hang") and len(self.notes) < 20:
            self.notes.append(f"{kind}: {outcome}: {detail}")

    def run(self, args, limit=60, env=None):
        """(exit status or 'hang', stdout, stderr)."""
        try:
            # In the scratch folder: a hostile --out or --checkpoint writes there.
            done = subprocess.run([self.binary] + args, capture_output=True, timeout=limit,
                                  env=env, cwd=self.scratch, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return "hang", b"", b""
        return done.returncode, done.stdout, done.stderr

    @staticmethod
    def csv_solutions(stdout):
        lines = stdout.decode(errors="replace").strip().splitlines()
        if len(lines) < 2:
            return None
        fields = lines[-1].split(",")
        try:
            return int(fields[1])
        except (IndexError, ValueError):
            return None

    def judge(self, kind, n, status, stdout, stderr, detail):
        text = stderr.decode(errors="replace")
        if status == "hang":
            self.record(kind, "hang", detail)
        elif status == 101 or "panicked" in text:
            self.record(kind, "panic", f"{detail}: {text.strip()[:200]}")
        elif status == 0:
            solutions = self.csv_solutions(stdout)
            outcome = "exact" if solutions == PUBLISHED[n] else "wrong"
            self.record(kind, outcome, f"{detail}: printed {solutions}, published {PUBLISHED[n]}")
        elif status in (1, 2) and text.count("error:") == 1:
            self.record(kind, "refused")
        else:
            self.record(kind, "wrong", f"{detail}: exit {status}: {text.strip()[:200]}")

    def count_args(self, n, method, journal, key=None):
        args = ["count", str(n), "-m", method, "--format", "csv", "--progress", "never",
                "-j", "2", "--checkpoint", journal]
        if key:
            args += ["--key", key]
        return args

    def finished_journal(self, n, method, key=None):
        journal = self.path(f"{n}-{method}.ckpt")
        status, _, stderr = self.run(self.count_args(n, method, journal, key))
        if status != 0:
            raise RuntimeError(f"a plain count failed: {stderr.decode(errors='replace')}")
        return journal

    def key_file(self):
        path = self.path("run.key")
        with open(path, "wb") as f:
            f.write(bytes(self.rng.randrange(256) for _ in range(32)))
        return path

    def trial_kill(self):
        n = self.rng.choice([13, 14, 15])
        method = self.rng.choice(METHODS[:3])
        journal = self.path("killed.ckpt")
        args = self.count_args(n, method, journal)
        for _ in range(self.rng.randint(1, 3)):
            child = subprocess.Popen([self.binary] + args, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, cwd=self.scratch)
            time.sleep(self.rng.uniform(0.0, 0.4))
            child.send_signal(self.rng.choice([signal.SIGKILL, signal.SIGKILL, signal.SIGINT]))
            try:
                child.wait(timeout=30)
            except subprocess.TimeoutExpired:
                child.kill()
                self.record("kill", "hang", f"N = {n} {method}: did not stop")
                return
        status, stdout, stderr = self.run(args)
        self.judge("kill", n, status, stdout, stderr, f"N = {n} {method} resumed")

    def trial_splice(self):
        plans = [(12, "join"), (13, "join"), (12, "mirror"), (12, "d4"), (11, "join")]
        target, source = self.rng.sample(plans, 2)
        same_plan_other_key = self.rng.random() < 0.25
        key = self.key_file() if self.rng.random() < 0.5 or same_plan_other_key else None
        other_key = self.key_file() if same_plan_other_key else key
        if same_plan_other_key:
            source = target
        a = self.finished_journal(*target, key=key)
        b = self.finished_journal(*source, key=other_key)
        with open(a) as f:
            lines = f.read().splitlines()
        with open(b) as f:
            donor = [line for line in f.read().splitlines()[1:]]
        body = [line for line in lines[1:] if line.startswith("task ")]
        body = body[: self.rng.randint(1, len(body))]
        for _ in range(self.rng.randint(1, 4)):
            body.insert(self.rng.randint(0, len(body)), self.rng.choice(donor))
        spliced = self.path("spliced.ckpt")
        with open(spliced, "w") as f:
            f.write("\n".join([lines[0]] + body) + "\n")
        status, stdout, stderr = self.run(self.count_args(*target, spliced, key))
        # A spliced line must be refused: a count, even an exact one, means
        # it was taken.
        if status == 0:
            self.record("splice", "wrong", f"{source} into {target}: accepted")
        else:
            self.judge("splice", target[0], status, stdout, stderr, f"{source} into {target}")

    def trial_damage(self):
        n = self.rng.choice([12, 13])
        method = self.rng.choice(METHODS[:3])
        journal = self.finished_journal(n, method)
        with open(journal, "rb") as f:
            data = bytearray(f.read())
        how = self.rng.choice(["cut", "zeros", "junk", "flip", "cut-zeros"])
        if how == "cut":
            data = data[: self.rng.randrange(len(data))]
        elif how == "zeros":
            data += bytes(self.rng.choice([10, 4096, 8192, 100_000]))
        elif how == "junk":
            data += bytes(self.rng.randrange(256) for _ in range(self.rng.randint(1, 6000)))
        elif how == "flip":
            at = self.rng.randrange(len(data))
            data[at] ^= 1 << self.rng.randrange(8)
        else:
            data = data[: self.rng.randrange(len(data))] + bytes(self.rng.randint(1, 9000))
        with open(journal, "wb") as f:
            f.write(data)
        status, stdout, stderr = self.run(self.count_args(n, method, journal))
        self.judge("damage", n, status, stdout, stderr, f"N = {n} {method} {how}")

    def trial_full(self):
        import resource

        n = self.rng.choice([13, 14])
        method = self.rng.choice(METHODS[:3])
        journal = self.path("full.ckpt")
        limit = self.rng.choice([200, 1000, 4096, 20_000, 60_000])

        def small_disk():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        args = self.count_args(n, method, journal)
        try:
            done = subprocess.run([self.binary] + args, capture_output=True, timeout=60,
                                  cwd=self.scratch, stdin=subprocess.DEVNULL,
                                  preexec_fn=small_disk)
        except subprocess.TimeoutExpired:
            self.record("full", "hang", f"N = {n} {method}, {limit} bytes")
            return
        text = done.stderr.decode(errors="replace")
        detail = f"N = {n} {method}, journal limited to {limit} bytes"
        if done.returncode == 101 or "panicked" in text:
            self.record("full", "panic", f"{detail}: {text.strip()[:200]}")
            return
        if done.returncode == 0:
            self.judge("full", n, done.returncode, done.stdout, done.stderr, detail)
            return
        if done.returncode != 1 or text.count("error:") != 1:
            self.record("full", "wrong", f"{detail}: exit {done.returncode}: {text.strip()[:200]}")
            return
        # Refused in one line: what it saved must resume to the exact count.
        status, stdout, stderr = self.run(args)
        self.judge("full", n, status, stdout, stderr, f"{detail}, resumed")

    WORDS = ["count", "list", "solve", "check", "plan", "merge", "compare", "verify", "bench",
             "-m", "--method", "-j", "--threads", "--shard", "--shards", "--checkpoint",
             "--out", "--key", "--format", "--split-depth", "--max-memory", "--nth", "--limit",
             "--estimate", "--sample", "--time", "--seed", "--heaviest", "--profile",
             "--gpu", "--gpu-only", "--one-based", "--random", "--progress"]
    VALUES = ["0", "1", "2", "3", "-1", "33", "64", "99999999999999999999", "3/2", "0/0", "1/",
              "/4", "a/b", "2/4", "join", "d4", "mirror", "none", "auto", "json", "csv", "x",
              "", " ", "8..6", "4..5", "1e9", "NaN", "0x10", "\u00e9", "\udcff", "/dev/null",
              "/dev/zero", "/nonexistent/x", ".", "1k", "-5G", "12", "10", "9"]

    def trial_args(self):
        words = [self.rng.choice(self.WORDS[:9])]
        for _ in range(self.rng.randint(0, 6)):
            pool = self.WORDS if self.rng.random() < 0.5 else self.VALUES
            words.append(self.rng.choice(pool))
        # Keep every count small: a hostile line must not start a real
        # count of hours.
        words = [w if not (w.isdigit() and 16 <= int(w) <= 32) else "40" for w in words]
        if words[0] in ("bench", "verify", "plan") or "--estimate" in words or "--heaviest" in words:
            words.append("--help")
        argv = [os.fsencode(w) if "\udcff" in w else w for w in words]
        env = dict(os.environ)
        status, stdout, stderr = self.run(argv, limit=20, env=env)
        text = stderr.decode(errors="replace")
        detail = " ".join(repr(w) for w in words)
        if status == "hang":
            self.record("args", "hang", detail)
        elif status == 101 or "panicked" in text:
            self.record("args", "panic", f"{detail}: {text.strip()[:200]}")
        elif status in (1, 2):
            self.record("args", "refused")
        elif status in (0, 3, 130):
            self.record("args", "exact")
        else:
            self.record("args", "wrong", f"{detail}: exit {status}")

    def report(self, seconds, seed):
        kinds = sorted(self.table)
        print(f"torture: {seconds:.0f} s, seed {seed}, binary {self.binary}")
        header = ["kind", "trials", "exact", "refused", "wrong", "panic", "hang"]
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for kind in kinds:
            row = self.table[kind]
            print("| " + " | ".join([kind] + [str(row[h]) for h in header[1:]]) + " |")
        for note in self.notes:
            print("  " + note)
        return all(self.table[k]["wrong"] + self.table[k]["panic"] + self.table[k]["hang"] == 0
                   for k in kinds)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--binary", default=None)
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.randrange(1 << 32)
    binary = os.path.abspath(args.binary or default_binary())
    if not os.path.exists(binary):
        sys.exit(f"no nqueens binary at {binary}: build it first (cargo build --release)")
    rng = random.Random(seed)
    scratch = tempfile.mkdtemp(prefix="nqueens-torture-")
    torture = Torture(binary, rng, scratch)
    kinds = [torture.trial_kill, torture.trial_splice, torture.trial_damage, torture.trial_full,
             torture.trial_args, torture.trial_args]
    started = time.time()
    try:
        while time.time() - started < args.seconds:
            rng.choice(kinds)()
            # Each trial's files go with it.
            for name in os.listdir(scratch):
                os.unlink(os.path.join(scratch, name))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    sound = torture.report(time.time() - started, seed)
    sys.exit(0 if sound else 1)


if __name__ == "__main__":
    main()
