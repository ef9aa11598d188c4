#!/usr/bin/env python3
"""Time and memory of `cudnnlint triage` on a large log (issue 16: logs are streamed, memory stays
bounded). Writes a log of --mib MiB of training-progress lines with one 8 MiB line and a cuDNN
failure with its traceback at the end, then runs triage --runs times on it against the seed 004
fixture tree. Prints the median and max wall time and the peak RSS of the runs.

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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cudnnlint", default=os.path.join(REPO_ROOT, "build", "cudnnlint"))
    parser.add_argument("--mib", type=int, default=100)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        log = os.path.join(scratch, "big.log")
        size = write_log(log, args.mib)
        walls = []
        for _ in range(args.runs):
            started = time.perf_counter()
            done = subprocess.run([args.cudnnlint, "triage", log, os.path.join(SEED, "tree"), "--no-cache"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            walls.append(time.perf_counter() - started)
            if done.returncode != 0 or "CUDNN_STATUS_EXECUTION_FAILED" not in done.stdout:
                sys.exit(f"triage failed ({done.returncode}): {done.stderr[-500:]}")
        peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"triage on a {size / 2**20:.0f} MiB log, {args.runs} runs: median {statistics.median(walls):.2f} s, "
              f"max {max(walls):.2f} s; peak RSS {peak_mib:.0f} MiB")


if __name__ == "__main__":
    main()
