#!/usr/bin/env python3
"""Time and memory of `cudnnlint triage` on a large log (issue 16: logs are streamed, memory stays
bounded). Writes a log of --mib MiB of training-progress lines with one 8 MiB line and a cuDNN
failure with its traceback at the end, then runs triage --runs times on it against the seed 004
fixture tree. Prints the median and max wall time and the peak RSS of the runs. Then times a hostile
log (issue 33): 200 failures whose message and 6 context lines repeat "BatchNorm " (5.7 MB), where
the KB's regexes run over 28 KB joined lines (linear with RE2; minutes with a backtracking engine).

Usage: python3 tests/bench/bench_triage.py [--cudnnlint build/cudnnlint] [--mib 100] [--runs 5]
Python 3 standard library only.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SEED = os.path.join(REPO_ROOT, "tests", "fixtures", "triage", "seed004")


def write_log(path, mib):
    line = b"step 123456 | loss 0.4321 | lr 1.0e-04 | grad_norm 3.21 | throughput 812.5 img/s\n"
    block = line * 4096
    with open(path, "wb") as out:
        written = 0
        while written < mib * 1024 * 1024:
            out.write(block)
            written += len(block)
        out.write(b"x" * (8 << 20) + b"\n")
        with open(os.path.join(SEED, "seed004.log"), "rb") as seed:
            out.write(seed.read())
    return os.path.getsize(path)


def write_hostile_log(path):
    unit = "BatchNorm "
    context = (unit * 2000)[:4090]
    block = "RuntimeError: cuDNN error: " + (unit * 2000)[:4000] + "\n" + "".join(context + "\n" for _ in range(6))
    with open(path, "w") as out:
        out.write(block * 200)
    return os.path.getsize(path)


def time_runs(cudnnlint, log, tree, runs, expect=None):
    walls = []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run([cudnnlint, "triage", log, tree, "--no-cache"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        walls.append(time.perf_counter() - started)
        if done.returncode != 0 or (expect is not None and expect not in done.stdout):
            sys.exit(f"triage failed ({done.returncode}): {done.stderr[-500:]}")
    return walls


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cudnnlint", default=os.path.join(REPO_ROOT, "build", "cudnnlint"))
    parser.add_argument("--mib", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        log = os.path.join(scratch, "big.log")
        size = write_log(log, args.mib)
        walls = time_runs(args.cudnnlint, log, os.path.join(SEED, "tree"), args.runs, "CUDNN_STATUS_EXECUTION_FAILED")
        peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"triage on a {size / 2**20:.0f} MiB log, {args.runs} runs: median {statistics.median(walls):.2f} s, "
              f"max {max(walls):.2f} s; peak RSS {peak_mib:.0f} MiB")
        os.remove(log)
        hostile = os.path.join(scratch, "hostile.log")
        size = write_hostile_log(hostile)
        empty_tree = os.path.join(scratch, "tree")
        os.mkdir(empty_tree)
        walls = time_runs(args.cudnnlint, hostile, empty_tree, args.runs)
        print(f"triage on a {size / 1e6:.1f} MB hostile log (28 KB joined lines), {args.runs} runs: "
              f"median {statistics.median(walls):.2f} s, max {max(walls):.2f} s")


if __name__ == "__main__":
    main()
