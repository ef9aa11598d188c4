#!/usr/bin/env python3
"""Benchmark the memory of each output format on many findings (issue 13: JSON and SARIF held the
whole document, 0.9 GB and 1.3 GB for 65,000 findings, against 287 MB for text).

Writes --files Python files of --per-file batch norms with eps=-1e-5 each (one finding per line) to a
temporary directory, runs `cudnnlint --format F` over it for text, json and sarif, and prints for
each the peak resident set (ru_maxrss of the child), the wall time and the output size. The JSON
and SARIF emitters write their findings one at a time (analyzer/emit/json_stream.h), so their peak
should stay within a few percent of text's, which holds every finding in memory too.

Usage: python3 tests/bench/bench_output_memory.py [--cudnnlint build/cudnnlint] [--files 65] [--per-file 1000]
Standard library only; Linux (resource.getrusage).
"""
import argparse
import os
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cudnnlint", default=os.path.join(REPO, "build", "cudnnlint"))
    parser.add_argument("--files", type=int, default=65)
    parser.add_argument("--per-file", type=int, default=1000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tree:
        os.mkdir(os.path.join(tree, ".git"))
        body = "import torch.nn as nn\n" + "".join(f"b{j} = nn.BatchNorm2d(8, eps=-1e-5)\n" for j in range(args.per_file))
        for i in range(args.files):
            with open(os.path.join(tree, f"m{i}.py"), "w") as f:
                f.write(body)
        print(f"{args.files * args.per_file} findings in {args.files} files")
        print(f"{'format':8} {'peak RSS':>10} {'wall':>8} {'output':>10}")
        # Each format from a fresh interpreter, so that RUSAGE_CHILDREN's peak is that run's own.
        for fmt in ("text", "json", "sarif"):
            code = ("import resource,subprocess,sys,time;t=time.perf_counter();"
                    "r=subprocess.run(sys.argv[1:],stdout=subprocess.PIPE,stderr=subprocess.DEVNULL);"
                    "e=time.perf_counter()-t;"
                    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,e,len(r.stdout),r.returncode)")
            probe = subprocess.run([sys.executable, "-c", code, args.cudnnlint, "--no-cache", "--format", fmt, "."], cwd=tree,
                                   capture_output=True, text=True, check=True)
            peak_kb, elapsed, size, rc = probe.stdout.split()
            if rc not in ("0", "1"):
                sys.exit(f"cudnnlint --format {fmt} exited {rc}")
            print(f"{fmt:8} {int(peak_kb) / 1024:8.0f} MB {float(elapsed):6.2f} s {int(size) / 1e6:7.1f} MB")


if __name__ == "__main__":
    main()
