#!/usr/bin/env python3
"""Benchmark the C++/CUDA front-end against the compiler's own parse.

For every C/C++/CUDA file under the given paths that cudnnlint hands to clang (it names a cuDNN
function), time `clang -fsyntax-only` with exactly the command cudnnlint uses (from
`cudnnlint flags FILE`) and cudnnlint on that file alone (--jobs 1); then both over all the files,
in parallel with --jobs workers. Prints a per-TU table, the totals and the ratios. The target is
cudnnlint <= 1.2x the compiler's parse.

Usage:
  python3 tests/bench/bench_cpp.py [--cudnnlint build/cudnnlint] [--jobs 2] [--repeat 3]
                                   [--extra-arg ARG ...] [-p DIR] PATH...
Default PATH: tests/fixtures/cpp. Standard library only.
"""
import argparse
import concurrent.futures
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PRELUDE_VIRTUAL = "/cudnnlint-virtual/cuda_host_prelude.h"
PRELUDE_REAL = os.path.join(REPO, "analyzer", "cpp", "cuda_host_prelude.h")
SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".cu", ".cuh")


def find_sources(paths):
    out = []
    for p in paths:
        if os.path.isfile(p):
            out.append(p)
            continue
        for root, dirs, files in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "build")
            out.extend(os.path.join(root, f) for f in sorted(files) if f.endswith(SUFFIXES))
    return out


def clang_binary(driver):
    for name in (("clang-14", "clang") if driver == "clang" else ("clang++-14", "clang++")):
        found = shutil.which(name)
        if found:
            return found
    sys.exit("bench_cpp: no clang-14 on PATH (apt-get install clang-14)")


def timed(cmd, cwd=None):
    start = time.perf_counter()
    result = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=cwd)
    return time.perf_counter() - start, result.returncode


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="*", default=[os.path.join(REPO, "tests", "fixtures", "cpp")])
    ap.add_argument("--cudnnlint", default=os.path.join(REPO, "build", "cudnnlint"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--extra-arg", action="append", default=[])
    ap.add_argument("-p", dest="compile_commands_dir")
    args = ap.parse_args()

    common = [f"--extra-arg={a}" for a in args.extra_arg]
    if args.compile_commands_dir:
        common += ["-p", args.compile_commands_dir]
    sources = [s for s in find_sources(args.paths)
               if "cudnn" in open(s, encoding="utf-8", errors="replace").read()]
    if not sources:
        sys.exit("bench_cpp: no C/C++/CUDA file that names a cuDNN function under " + " ".join(args.paths))
    flags = subprocess.run([args.cudnnlint, "flags", *sources, *common], capture_output=True, text=True)
    if flags.returncode != 0:
        sys.exit("bench_cpp: `cudnnlint flags` failed: " + flags.stderr)
    commands = [json.loads(line)["arguments"] for line in flags.stdout.splitlines()]
    with tempfile.TemporaryDirectory() as tmp:
        prelude = os.path.join(tmp, "cuda_host_prelude.h")
        shutil.copy(PRELUDE_REAL, prelude)
        clang_cmds = []
        for cmd in commands:
            cmd = [prelude if a == PRELUDE_VIRTUAL else a for a in cmd]
            clang_cmds.append([clang_binary(cmd[0])] + cmd[1:])
        lint_cmds = [[args.cudnnlint, "--format", "json", "--no-cache", "--jobs", "1", "--fail-level", "none", *common, s]
                     for s in sources]

        print(f"{len(sources)} translation units; clang: {clang_cmds[0][0]}; median of {args.repeat} runs")
        print(f"{'TU':60} {'clang s':>9} {'cudnnlint s':>12} {'ratio':>7}")
        rows = []
        for src, ccmd, lcmd in zip(sources, clang_cmds, lint_cmds):
            c = statistics.median(timed(ccmd)[0] for _ in range(args.repeat))
            l = statistics.median(timed(lcmd)[0] for _ in range(args.repeat))
            rows.append((src, c, l))
            name = os.path.relpath(src)
            print(f"{name[-60:]:60} {c:9.3f} {l:12.3f} {l / c:7.2f}")
        sum_c = sum(r[1] for r in rows)
        sum_l = sum(r[2] for r in rows)
        print(f"{'sum over TUs (one at a time)':60} {sum_c:9.3f} {sum_l:12.3f} {sum_l / sum_c:7.2f}")

        def clang_all():
            with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
                list(pool.map(timed, clang_cmds))

        walls_c, walls_l = [], []
        for _ in range(args.repeat):
            start = time.perf_counter()
            clang_all()
            walls_c.append(time.perf_counter() - start)
            walls_l.append(timed([args.cudnnlint, "--format", "json", "--no-cache", "--jobs", str(args.jobs), "--fail-level",
                                  "none", *common, *sources])[0])
        wc, wl = statistics.median(walls_c), statistics.median(walls_l)
        print(f"{f'all TUs in parallel, {args.jobs} jobs (wall)':60} {wc:9.3f} {wl:12.3f} {wl / wc:7.2f}")
        print(f"cudnnlint / clang -fsyntax-only = {wl / wc:.2f}x (target <= 1.2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
