#!/usr/bin/env python3
"""Benchmark the cache (issue 14, part 5) on the benchmark corpus (tests/bench/corpus, prepared
by bench_vs_ruff.py: transformers 5.23.0 + timm 1.0.31, pinned and hash-checked).

Four figures, each the median of --repeat runs of the whole process (wall time, peak RSS):
  no cache   --no-cache: what every run cost before the cache
  cold       an empty cache folder: the analysis plus writing every entry
  warm       the same folder again, nothing changed: answered by the run's entry
  files      the same folder with another target (--cudnn-version): the run's entry misses, each
             file's entry hits (the project step and the rules run again): what a run whose
             options changed, or a pre-commit run over a few files of a cached tree, costs
and the ratios warm/cold and warm/no-cache (the target: warm <= 0.1 x cold). The reports of the
cold, warm and files runs are checked to equal the --no-cache runs'.

Usage:
  python3 tests/bench/bench_cache.py [--cudnnlint build/cudnnlint] [--repeat 7] [--jobs 2]
Python 3 standard library only.
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(BENCH_DIR))
sys.path.insert(0, BENCH_DIR)
import bench_vs_ruff  # noqa: E402  (the corpus)


def timed(cmd, cwd):
    """Wall seconds, peak RSS (MiB) and stdout of one run of cmd."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if code not in (0, 1):
            sys.exit(f"{' '.join(cmd)} exited {code}: {err.read().decode(errors='replace')[-2000:]}")
        return wall, usage.ru_maxrss / 1024, out.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cudnnlint", default=os.path.join(REPO_ROOT, "build", "cudnnlint"))
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    binary = os.path.abspath(args.cudnnlint)
    corpus = bench_vs_ruff.prepare_corpus()
    print(f"corpus: {corpus['files']:,} files, {corpus['bytes'] / 1e6:.1f} MB ({corpus['path']}); "
          f"{os.cpu_count()} cores; --jobs {args.jobs}; {args.repeat} runs each")
    base = [binary, "--format", "json", "--no-color", "--jobs", str(args.jobs)]
    target = bench_vs_ruff.CORPUS_DIR
    work = tempfile.mkdtemp(prefix="bench-cache-")
    try:
        folder = os.path.join(work, "cache")
        figures = {name: [] for name in ("no cache", "cold", "warm", "files")}
        reference = {}
        for i in range(args.repeat + 1):  # the first round warms the page cache and is not counted
            versions = ("9.1", f"8.{i % 10}")
            rounds = {}
            rounds["no cache"] = timed([*base, "--no-cache", target], REPO_ROOT)
            shutil.rmtree(folder, ignore_errors=True)
            rounds["cold"] = timed([*base, "--cache-dir", folder, "--cudnn-version", versions[0], target], REPO_ROOT)
            rounds["warm"] = timed([*base, "--cache-dir", folder, "--cudnn-version", versions[0], target], REPO_ROOT)
            rounds["files"] = timed([*base, "--cache-dir", folder, "--cudnn-version", versions[1], target], REPO_ROOT)
            for version in versions:
                if version not in reference:
                    reference[version] = timed([*base, "--no-cache", "--cudnn-version", version, target], REPO_ROOT)[2]
            if rounds["cold"][2] != reference[versions[0]] or rounds["warm"][2] != reference[versions[0]] or \
                    rounds["files"][2] != reference[versions[1]]:
                sys.exit("a cached run's report differs from the --no-cache run's")
            if i > 0:
                for name, figure in rounds.items():
                    figures[name].append(figure[:2])
        print(f"{'run':10} {'wall median':>12} {'min':>8} {'max':>8} {'peak RSS':>10}")
        medians = {}
        for name, runs in figures.items():
            walls = [w for w, _ in runs]
            medians[name] = statistics.median(walls)
            print(f"{name:10} {medians[name]:10.3f} s {min(walls):8.3f} {max(walls):8.3f} "
                  f"{statistics.median(r for _, r in runs):7.1f} MiB")
        pack = os.path.getsize(os.path.join(folder, "pack"))
        print(f"warm / cold     {medians['warm'] / medians['cold']:.3f}x  (target <= 0.1x)")
        print(f"warm / no cache {medians['warm'] / medians['no cache']:.3f}x")
        print(f"cold / no cache {medians['cold'] / medians['no cache']:.3f}x  (what writing the entries costs)")
        print(f"files / no cache {medians['files'] / medians['no cache']:.3f}x")
        print(f"cache folder: pack {pack / 1e6:.1f} MB; reports equal to --no-cache runs: yes")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
