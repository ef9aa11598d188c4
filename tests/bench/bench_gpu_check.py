#!/usr/bin/env python3
"""Benchmark gpu_check over the bundled examples.

Times, with the wall clock, `cudnnlint examples/` alone and `cudnnlint --gpu-check
--gpu-check-tier cudnn examples/` (descriptor tier; the execution tier too when a GPU is present;
target: under 1 s), each --repeat times, and prints the medians, gpu_check's own time from its
summary line, and the verdict counts. With --framework-bin DIR (repeatable: a bin/ folder whose
python3 has a framework, put first on PATH), also `--gpu-check-tier framework` (target: under 10 s,
one interpreter start per framework).

Usage: python3 tests/bench/bench_gpu_check.py [--cudnnlint build/cudnnlint] [--repeat 10]
                                              [--framework-bin DIR ...] [PATH ...]
Standard library only.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def timed(command, env=None):
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    elapsed = time.perf_counter() - started
    if result.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr}")
    return elapsed, result.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cudnnlint", default=os.path.join(REPO, "build", "cudnnlint"))
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--framework-bin", action="append", default=[],
                        help="a bin/ folder with a python3 that has a framework (repeatable)")
    parser.add_argument("paths", nargs="*", default=[os.path.join(REPO, "examples")])
    args = parser.parse_args()

    print(subprocess.run([args.cudnnlint, "doctor"], capture_output=True, text=True).stdout)
    plain, checked, inner = [], [], []
    summary = ""
    for _ in range(args.repeat):
        plain.append(timed([args.cudnnlint, "--no-color", "--no-cache", *args.paths])[0])
        elapsed, out = timed([args.cudnnlint, "--no-color", "--no-cache", "--gpu-check", "--gpu-check-tier", "cudnn",
                              *args.paths])
        checked.append(elapsed)
        summary = [line for line in out.splitlines() if line.startswith("gpu_check: ")][-1]
        inner.append(float(re.search(r" in ([0-9.]+) s;", summary).group(1)))
    print(f"paths: {' '.join(args.paths)}   runs: {args.repeat}")
    print(f"cudnnlint                  median {statistics.median(plain):.3f} s  (min {min(plain):.3f}, max {max(plain):.3f})")
    print(f"cudnnlint --gpu-check      median {statistics.median(checked):.3f} s  (min {min(checked):.3f}, max {max(checked):.3f})")
    print(f"gpu_check itself (summary) median {statistics.median(inner):.3f} s")
    print(summary)
    verdict = "met" if statistics.median(checked) < 1.0 else "MISSED"
    print(f"target: --gpu-check over the examples under 1 s of wall time: {verdict}")
    if args.framework_bin:
        env = dict(os.environ, PATH=os.pathsep.join(args.framework_bin + [os.environ.get("PATH", "")]))
        framework, summary = [], ""
        for _ in range(args.repeat):
            elapsed, out = timed([args.cudnnlint, "--no-color", "--no-cache", "--gpu-check", "--gpu-check-tier",
                                  "framework", *args.paths], env=env)
            framework.append(elapsed)
            summary = [line for line in out.splitlines() if line.startswith("gpu_check: ")][-1]
        print(f"--gpu-check-tier framework median {statistics.median(framework):.3f} s  (min {min(framework):.3f}, "
              f"max {max(framework):.3f})")
        print(summary)
        verdict = "met" if statistics.median(framework) < 10.0 else "MISSED"
        print(f"target: the framework tier over the examples under 10 s of wall time: {verdict}")


if __name__ == "__main__":
    main()
