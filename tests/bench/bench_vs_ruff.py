#!/usr/bin/env python3
"""Benchmark cudnnlint against Ruff on a real corpus of deep-learning code.

Corpus: every .py file of two pinned wheels (transformers, timm), downloaded
with pip at benchmark time, SHA-256 verified, and extracted into
tests/bench/corpus/<pkg>-<ver>/ (gitignored; reused when already extracted).

Tools, each run --repeat times (alternating, so drift hits all tools alike):
  cudnnlint      <binary> --format json --no-color --no-cache --jobs 2 tests/bench/corpus
                 (cold: the cache is off; tests/bench/bench_cache.py times it)
  ruff-default   ruff check --isolated --no-cache --exit-zero --quiet ... tests/bench/corpus
  ruff-all       same, plus --select ALL
Ruff is the version pinned in tests/bench/requirements.txt, installed into
tests/bench/.venv (gitignored). Ruff uses all cores (not restricted); the core count
is recorded.

For each run: wall time (perf_counter around the child) and the child's peak
RSS (ru_maxrss from os.wait4 on its pid). Tool output goes to temp files.

Usage:
  python3 tests/bench/bench_vs_ruff.py --corpus-only
  python3 tests/bench/bench_vs_ruff.py [--cudnnlint build/cudnnlint] [--repeat 3]
                                 [--json results.json] [--list-findings]
Python 3 standard library only.
"""

import argparse
import datetime
import hashlib
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter

# ----------------------------------------------------------------------------
# Pinned corpus: (package, version, SHA-256 of the py3-none-any wheel).
CORPUS_PINS = [
    ("transformers", "5.23.0",
     "018e82fd07490ad5bb58414f65e31576033dc7f36bed10c574843f69b90991bf"),
    ("timm", "1.0.31",
     "5bd50f7d0fe6d09bf9285ac2523234a1b7e6bf075c0be3e7aed09139fcb617c7"),
]

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_ROOT = os.path.dirname(os.path.dirname(BENCH_DIR))
CORPUS_DIR = os.path.join(BENCH_DIR, "corpus")
VENV_DIR = os.path.join(BENCH_DIR, ".venv")
REQUIREMENTS = os.path.join(BENCH_DIR, "requirements.txt")

# Ruff flags common to both variants. --isolated: ignore any config file.
# --no-respect-gitignore: the corpus lives under a gitignored folder of this
# repo, and Ruff would otherwise skip it.
RUFF_COMMON = ["check", "--isolated", "--no-respect-gitignore", "--no-cache",
               "--exit-zero", "--quiet"]


class StepError(Exception):
    """A failure in a named step of the benchmark."""

    def __init__(self, step, message):
        super().__init__(message)
        self.step = step


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def rel(path):
    """Path relative to the repo root when inside it, else absolute."""
    path = os.path.abspath(path)
    if os.path.commonpath([path, REPO_ROOT]) == REPO_ROOT:
        return os.path.relpath(path, REPO_ROOT)
    return path


def tail(text, n=20):
    lines = text.strip().splitlines()
    return "\n".join(lines[-n:])


# ----------------------------------------------------------------------------
# Step 1: corpus

def marker_path(pkg, ver):
    # Written last, once a package is fully extracted; lives beside (not in)
    # the package folder and is not a .py file, so no tool analyses it.
    return os.path.join(CORPUS_DIR, ".%s-%s.complete" % (pkg, ver))


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def download_wheel(pkg, ver, expected_sha, dest):
    step = "download %s==%s" % (pkg, ver)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps",
           "--only-binary=:all:", "--ignore-requires-python",
           "--disable-pip-version-check", "--dest", dest,
           "%s==%s" % (pkg, ver)]
    log("[corpus] %s" % " ".join(cmd[1:]))
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    except OSError as e:
        raise StepError(step, "cannot run pip: %s" % e)
    if proc.returncode != 0:
        raise StepError(step, "pip download exited %d:\n%s"
                        % (proc.returncode, tail(proc.stdout)))
    wheels = [f for f in os.listdir(dest) if f.endswith(".whl")
              and f.lower().startswith(pkg.lower().replace("-", "_") + "-")]
    if len(wheels) != 1:
        raise StepError(step, "expected one wheel in %s, found %r"
                        % (dest, os.listdir(dest)))
    wheel = os.path.join(dest, wheels[0])
    got = sha256_file(wheel)
    if got != expected_sha:
        raise StepError("verify %s==%s" % (pkg, ver),
                        "SHA-256 mismatch for %s: expected %s, got %s"
                        % (wheels[0], expected_sha, got))
    log("[corpus] %s: SHA-256 OK" % wheels[0])
    return wheel


def extract_py(wheel, out_dir, pkg, ver):
    step = "extract %s==%s" % (pkg, ver)
    count = 0
    try:
        with zipfile.ZipFile(wheel) as zf:
            for info in zf.infolist():
                name = info.filename
                if info.is_dir() or not name.endswith(".py"):
                    continue
                parts = name.split("/")
                if name.startswith("/") or ".." in parts or "\\" in name:
                    raise StepError(step, "unsafe path in wheel: %r" % name)
                target = os.path.join(out_dir, *parts)
                os.makedirs(os.path.dirname(target), exist_ok=True)
                with zf.open(info) as src, open(target, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                count += 1
    except (zipfile.BadZipFile, OSError) as e:
        raise StepError(step, str(e))
    if count == 0:
        raise StepError(step, "no .py files in %s" % os.path.basename(wheel))
    return count


def corpus_stats(path):
    files = 0
    size = 0
    for root, dirs, names in os.walk(path):
        dirs.sort()
        for n in names:
            if n.endswith(".py"):
                files += 1
                size += os.path.getsize(os.path.join(root, n))
    return files, size


def prepare_corpus():
    """Make sure tests/bench/corpus/<pkg>-<ver>/ exists for every pin."""
    try:
        os.makedirs(CORPUS_DIR, exist_ok=True)
    except OSError as e:
        raise StepError("corpus", "cannot create %s: %s" % (rel(CORPUS_DIR), e))

    # Drop folders of other versions of the pinned packages (left by an
    # earlier pin), since the tools are run on the whole corpus folder.
    wanted = {"%s-%s" % (p, v) for p, v, _ in CORPUS_PINS}
    names = {p for p, _, _ in CORPUS_PINS}
    for entry in sorted(os.listdir(CORPUS_DIR)):
        full = os.path.join(CORPUS_DIR, entry)
        base = entry.lstrip(".").replace(".complete", "")
        if base in wanted:
            continue
        if base.rsplit("-", 1)[0] in names:
            log("[corpus] removing stale %s" % rel(full))
            if os.path.isdir(full):
                shutil.rmtree(full)
            else:
                os.remove(full)
        else:
            log("[corpus] warning: unexpected entry %s (it will be analysed too)"
                % rel(full))

    per_pkg = []
    for pkg, ver, sha in CORPUS_PINS:
        out_dir = os.path.join(CORPUS_DIR, "%s-%s" % (pkg, ver))
        marker = marker_path(pkg, ver)
        if os.path.isfile(marker) and os.path.isdir(out_dir):
            log("[corpus] reusing %s" % rel(out_dir))
        else:
            if os.path.exists(out_dir):  # partial extraction: start over
                shutil.rmtree(out_dir)
            with tempfile.TemporaryDirectory(prefix="bench-wheel-") as tmp:
                wheel = download_wheel(pkg, ver, sha, tmp)
                n = extract_py(wheel, out_dir, pkg, ver)
            with open(marker, "w") as f:
                f.write("%s %s sha256=%s files=%d\n" % (pkg, ver, sha, n))
            log("[corpus] extracted %d .py files into %s" % (n, rel(out_dir)))
        files, size = corpus_stats(out_dir)
        per_pkg.append({"package": pkg, "version": ver, "wheel_sha256": sha,
                        "path": rel(out_dir), "files": files, "bytes": size})
    files = sum(p["files"] for p in per_pkg)
    size = sum(p["bytes"] for p in per_pkg)
    return {"path": rel(CORPUS_DIR), "files": files, "bytes": size,
            "packages": per_pkg}


# ----------------------------------------------------------------------------
# Step 2: Ruff

def ruff_pin():
    try:
        with open(REQUIREMENTS) as f:
            for line in f:
                m = re.match(r"\s*ruff\s*==\s*([\w.]+)", line)
                if m:
                    return m.group(1)
    except OSError as e:
        raise StepError("ruff setup", "cannot read %s: %s" % (rel(REQUIREMENTS), e))
    raise StepError("ruff setup", "no 'ruff==X' pin in %s" % rel(REQUIREMENTS))


def ruff_version(ruff):
    try:
        out = subprocess.run([ruff, "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True)
    except OSError:
        return None
    if out.returncode != 0:
        return None
    parts = out.stdout.split()
    return parts[1] if len(parts) >= 2 else None


def prepare_ruff():
    want = ruff_pin()
    ruff = os.path.join(VENV_DIR, "bin", "ruff")
    py = os.path.join(VENV_DIR, "bin", "python")
    have = ruff_version(ruff) if os.path.exists(ruff) else None
    if have == want:
        log("[ruff] using %s (ruff %s)" % (rel(ruff), have))
        return ruff, have
    if not os.path.exists(py) or subprocess.run(
            [py, "-c", "pass"], stderr=subprocess.DEVNULL).returncode != 0:
        if os.path.exists(VENV_DIR):
            shutil.rmtree(VENV_DIR)
        log("[ruff] creating %s" % rel(VENV_DIR))
        proc = subprocess.run([sys.executable, "-m", "venv", VENV_DIR],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True)
        if proc.returncode != 0:
            raise StepError("ruff setup (venv)", tail(proc.stdout))
    log("[ruff] installing from %s (found %s, want %s)"
        % (rel(REQUIREMENTS), have or "none", want))
    proc = subprocess.run([py, "-m", "pip", "install", "--disable-pip-version-check",
                           "-r", REQUIREMENTS],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0:
        raise StepError("ruff setup (pip install)", tail(proc.stdout))
    have = ruff_version(ruff)
    if have != want:
        raise StepError("ruff setup", "installed ruff reports %r, want %s"
                        % (have, want))
    return ruff, have


def ruff_file_count(ruff):
    """How many files Ruff would check in the corpus (sanity check)."""
    proc = subprocess.run([ruff, "check", "--isolated", "--no-respect-gitignore",
                           "--show-files", rel(CORPUS_DIR)], cwd=REPO_ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise StepError("ruff --show-files", tail(proc.stderr or proc.stdout))
    return sum(1 for line in proc.stdout.splitlines() if line.strip().endswith(".py"))


# ----------------------------------------------------------------------------
# Step 3: timed runs

def read_tail(f, limit=64 * 1024):
    """Last `limit` bytes of an open binary file, decoded."""
    f.seek(0, os.SEEK_END)
    f.seek(max(0, f.tell() - limit))
    return f.read().decode("utf-8", "replace")


def timed_run(cmd, keep_stdout=None):
    """Run cmd from the repo root; return wall s, peak RSS KiB, CPU s, rc and
    the tail of stderr. stdout goes to a temp file (to keep_stdout if given),
    stderr to another; neither is read into this process whole.

    Peak RSS caveat (Linux): when the child execs, the kernel folds the peak
    RSS of the address space it leaves (this process's, as spawned by
    vfork/posix_spawn) into the child's ru_maxrss. So a child's ru_maxrss is
    never below this process's own peak; we keep ours small (tool output is
    never loaded while timing) and record it, so that a figure equal to it
    can be flagged as an upper bound only."""
    parent_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out = open(keep_stdout, "wb") if keep_stdout else tempfile.TemporaryFile()
    with out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=REPO_ROOT, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=err)
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)  # already reaped
        stderr_tail = read_tail(err)
    # On Linux ru_maxrss is in KiB and covers the child and any of its own
    # reaped children.
    return {"wall_s": wall, "rss_kib": ru.ru_maxrss,
            "rss_at_parent_peak": ru.ru_maxrss <= parent_kib,
            "parent_rss_kib": parent_kib,
            "cpu_s": ru.ru_utime + ru.ru_stime, "rc": proc.returncode,
            "stderr_tail": stderr_tail}


def parse_findings(text):
    """Findings from cudnnlint's JSON: top-level {"findings": [...]}."""
    try:
        doc = json.loads(text)
    except ValueError as e:
        log("[cudnnlint] warning: output is not JSON (%s)" % e)
        return None
    items = doc.get("findings") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        log("[cudnnlint] warning: JSON has no 'findings' array")
        return None
    out = []
    for it in items:
        if isinstance(it, dict):
            out.append({"rule": str(it.get("rule", "?")),
                        "path": str(it.get("path", "?")),
                        "line": it.get("line", "?"),
                        "message": str(it.get("message", ""))})
    return out


def run_benchmark(tools, repeat, warmup, keep_stdout):
    """tools: list of (name, cmd, ok_codes). Alternates tools every round.
    keep_stdout: {tool name: path} where that tool's stdout is kept (the
    last run's wins). Returns per-tool runs and per-tool failures."""
    runs = {name: [] for name, _, _ in tools}
    failed = {}
    total = warmup + repeat
    for i in range(total):
        label = "warm-up" if i < warmup else "run %d/%d" % (i - warmup + 1, repeat)
        for name, cmd, ok_codes in tools:
            if name in failed:
                continue
            try:
                r = timed_run(cmd, keep_stdout.get(name))
            except OSError as e:
                failed[name] = "cannot start %s: %s" % (cmd[0], e)
                log("[%s] error: %s" % (name, failed[name]))
                continue
            if r["rc"] not in ok_codes:
                failed[name] = "exit code %d; stderr tail:\n%s" % (
                    r["rc"], tail(r["stderr_tail"]))
                log("[%s] error in %s: %s" % (name, label, failed[name]))
                continue
            log("[%s] %s: %.2f s wall, %.2f s CPU, %.0f MiB peak RSS%s, rc %d"
                % (name, label, r["wall_s"], r["cpu_s"], r["rss_kib"] / 1024.0,
                   " (upper bound: not above this script's own peak)" if r["rss_at_parent_peak"] else "",
                   r["rc"]))
            if i >= warmup:
                runs[name].append({k: r[k] for k in ("wall_s", "rss_kib", "rss_at_parent_peak",
                                                     "parent_rss_kib", "cpu_s", "rc")})
    return runs, failed


def summarize(runs, corpus):
    walls = [r["wall_s"] for r in runs]
    med = statistics.median(walls)
    mb = corpus["bytes"] / 1e6
    return {"wall_median_s": med, "wall_min_s": min(walls),
            "cpu_median_s": statistics.median(r["cpu_s"] for r in runs),
            "files_per_s": corpus["files"] / med if med else None,
            "mb_per_s": mb / med if med else None,
            "peak_rss_mib": max(r["rss_kib"] for r in runs) / 1024.0,
            "peak_rss_at_parent_peak": any(r["rss_at_parent_peak"] for r in runs),
            "runs": runs}


def print_table(results, corpus):
    hdr = ["tool", "files", "MB", "wall med s", "wall min s", "CPU s",
           "files/s", "MB/s", "peak RSS MiB"]
    rows = []
    for name, s in results.items():
        rows.append([name, str(corpus["files"]), "%.1f" % (corpus["bytes"] / 1e6),
                     "%.3f" % s["wall_median_s"], "%.3f" % s["wall_min_s"],
                     "%.2f" % s["cpu_median_s"], "%.0f" % s["files_per_s"],
                     "%.2f" % s["mb_per_s"],
                     "%.1f%s" % (s["peak_rss_mib"], "*" if s["peak_rss_at_parent_peak"] else "")])
    widths = [max(len(r[i]) for r in rows + [hdr]) for i in range(len(hdr))]
    fmt = lambda r: "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                              for i, (c, w) in enumerate(zip(r, widths)))
    print(fmt(hdr))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print(fmt(r))
    print("(MB = 10^6 bytes of .py source; wall = median and min; CPU = median "
          "user+sys; peak RSS = max over timed runs)")
    if any(s["peak_rss_at_parent_peak"] for s in results.values()):
        print("* peak RSS not above this script's own peak, so only an upper bound")


# ----------------------------------------------------------------------------

TIMINGS = re.compile(r"timings: analysis ([0-9.e-]+) s, of which the project step ([0-9.e-]+) s \((\d+) extra passes, "
                     r"(\d+) project callables\); parsed (\d+) of \d+ bytes read, and (\d+) more in the project step")


def measure_project_step(binary, jobs, repeat):
    """The project step's share of cudnnlint's analysis, as the binary measures it (--timings)."""
    samples = []
    for _ in range(max(1, repeat)):
        out = subprocess.run([binary, "--format", "json", "--no-color", "--no-cache", "--jobs", str(jobs), "--timings",
                              rel(CORPUS_DIR)], capture_output=True, text=True, cwd=REPO_ROOT)
        match = TIMINGS.search(out.stderr)
        if match is None:
            raise StepError("project step", "no timings line in cudnnlint's stderr:\n" + out.stderr[-1000:])
        samples.append(match)
    median = lambda k, cast=float: statistics.median(cast(m.group(k)) for m in samples)
    return {"analysis_s": median(1), "project_s": median(2), "passes": int(median(3, int)),
            "callables": int(median(4, int)), "first_pass_mb": median(5) / 1e6, "project_mb": median(6) / 1e6}


def check_equivalence(binary):
    """cudnnlint skips files and top-level regions that cannot produce facts. Show on the whole
    corpus that it extracts exactly the facts (and so the findings) a full parse extracts."""
    def facts(extra):
        out = subprocess.run([binary, "--format", "facts", "--no-cache", *extra, rel(CORPUS_DIR)],
                             capture_output=True, text=True, cwd=REPO_ROOT)
        if out.returncode not in (0, 1):
            raise StepError("equivalence", out.stderr[-2000:])
        return json.loads(out.stdout)

    def findings(extra):
        out = subprocess.run([binary, "--format", "json", "--no-cache", *extra, rel(CORPUS_DIR)],
                             capture_output=True, text=True, cwd=REPO_ROOT)
        return json.loads(out.stdout)["findings"]

    # Every family (what --format facts extracts), then the batch-norm family alone (what a run
    # of the default rules extracts: other trigger words, another plan).
    fast, full = facts([]), facts(["--full-parse"])
    norm_only = ["--select", "bn-eps-negative,bn-eps-zero,bn-eps-below-cudnn-min,bn-eps-silently-clamped"]
    fast_norm, full_norm = facts(norm_only), facts(norm_only + ["--full-parse"])
    kinds = ("normalizations", "convolutions", "descriptors", "tensor_inputs", "forwardings", "arguments",
             "config_defaults", "loaders", "shape_chains", "low_precision_constants")
    by_path = lambda doc: {f["path"]: {k: f.get(k, []) for k in kinds} for f in doc["files"]
                           if any(f.get(k) for k in kinds)}
    identical = (by_path(fast) == by_path(full) and by_path(fast_norm) == by_path(full_norm)
                 and findings([]) == findings(["--full-parse"]))
    return {"files": fast["summary"]["files"],
            "facts": sum(len(kind) for v in by_path(fast).values() for kind in v.values()),
            "read_mb": fast["summary"]["bytes_read"] / 1e6,
            "parsed_mb": fast["summary"]["bytes_parsed"] / 1e6,
            "identical": "yes" if identical else "NO"}


def main():
    ap = argparse.ArgumentParser(
        description="Benchmark cudnnlint against Ruff on transformers + timm.")
    ap.add_argument("--cudnnlint", default="build/cudnnlint",
                    help="cudnnlint binary (default: %(default)s; a relative path is tried from the current folder, then the repo root)")
    ap.add_argument("--cudnnlint-jobs", type=int, default=2, metavar="N",
                    help="--jobs passed to cudnnlint (default: %(default)s)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="timed runs per tool; the median is reported (default: %(default)s)")
    ap.add_argument("--warmup", type=int, default=1,
                    help="untimed runs per tool first, to warm caches alike (default: %(default)s)")
    ap.add_argument("--json", metavar="OUT", help="write the figures to OUT as JSON")
    ap.add_argument("--list-findings", action="store_true",
                    help="print every cudnnlint finding (path:line rule message)")
    ap.add_argument("--corpus-only", action="store_true",
                    help="only prepare the corpus and print its size")
    ap.add_argument("--no-ruff", action="store_true", help="skip Ruff (time cudnnlint only)")
    ap.add_argument("--no-equivalence", action="store_true",
                    help="skip the check that the fast path finds exactly what --full-parse finds")
    args = ap.parse_args()
    if args.repeat < 1 or args.warmup < 0:
        ap.error("--repeat must be >= 1 and --warmup >= 0")

    try:
        corpus = prepare_corpus()
    except StepError as e:
        log("bench_vs_ruff: error in step '%s': %s" % (e.step, e))
        return 2

    for p in corpus["packages"]:
        print("corpus %-24s %6d .py files  %7.2f MB  (wheel sha256 %s)"
              % ("%s-%s" % (p["package"], p["version"]), p["files"],
                 p["bytes"] / 1e6, p["wheel_sha256"]))
    print("corpus %-24s %6d .py files  %7.2f MB"
          % ("total (" + corpus["path"] + ")", corpus["files"], corpus["bytes"] / 1e6))
    if args.corpus_only:
        return 0

    tools = []
    ruff_ver = None
    notes = []
    # A relative --cudnnlint is looked up from the current folder first, then
    # from the repo root (so the default works from anywhere).
    binary = os.path.abspath(args.cudnnlint)
    if not os.path.isabs(args.cudnnlint) and not os.path.exists(binary):
        binary = os.path.join(REPO_ROOT, args.cudnnlint)
    have_cudnnlint = os.path.isfile(binary) and os.access(binary, os.X_OK)
    if have_cudnnlint:
        # Any exit code below 2 is fine: linters commonly exit 1 on findings.
        tools.append(("cudnnlint", [binary, "--format", "json", "--no-color", "--no-cache",
                                    "--jobs", str(args.cudnnlint_jobs),
                                    rel(CORPUS_DIR)], (0, 1)))
    else:
        msg = ("cudnnlint binary not found or not executable at %s%s"
               % (rel(binary), "" if args.no_ruff else "; running Ruff only"))
        notes.append(msg)
        log("[cudnnlint] " + msg)

    if not args.no_ruff:
        try:
            ruff, ruff_ver = prepare_ruff()
            n = ruff_file_count(ruff)
        except StepError as e:
            log("bench_vs_ruff: error in step '%s': %s" % (e.step, e))
            return 2
        if n != corpus["files"]:
            msg = ("ruff would check %d files but the corpus has %d .py files"
                   % (n, corpus["files"]))
            notes.append(msg)
            log("[ruff] warning: " + msg)
        tools.append(("ruff-default", [ruff] + RUFF_COMMON + [rel(CORPUS_DIR)], (0,)))
        tools.append(("ruff-all", [ruff] + RUFF_COMMON + ["--select", "ALL",
                                                          rel(CORPUS_DIR)], (0,)))
    if not tools:
        log("bench_vs_ruff: error in step 'run': no tool to run")
        return 2

    log("[bench] %d warm-up + %d timed run(s) per tool, alternating; os.cpu_count() = %s"
        % (args.warmup, args.repeat, os.cpu_count()))
    with tempfile.TemporaryDirectory(prefix="bench-out-") as tmp:
        cudnnlint_out = os.path.join(tmp, "cudnnlint.json")
        runs, failed = run_benchmark(tools, args.repeat, args.warmup,
                                     {"cudnnlint": cudnnlint_out})
        # Parsed only now: loading it while timing would raise this script's
        # peak RSS, which the kernel folds into later children's ru_maxrss.
        findings = None
        if have_cudnnlint and "cudnnlint" not in failed and os.path.exists(cudnnlint_out):
            with open(cudnnlint_out, encoding="utf-8", errors="replace") as f:
                findings = parse_findings(f.read())

    results = {name: summarize(runs[name], corpus) for name, _, _ in tools
               if name not in failed and runs[name]}
    print()
    print("machine: %s, os.cpu_count() = %s; ruff %s (all cores), cudnnlint --jobs %d; "
          "median of %d run(s)" % (platform.platform(), os.cpu_count(), ruff_ver or "-",
                                   args.cudnnlint_jobs, args.repeat))
    if results:
        print_table(results, corpus)
    for name, why in failed.items():
        print("%s: FAILED: %s" % (name, why.replace("\n", "\n    ")))
    for note in notes:
        print("note: " + note)

    ratios = {}
    if "cudnnlint" in results:
        for rname in ("ruff-default", "ruff-all"):
            if rname in results:
                ratios[rname] = (results["cudnnlint"]["wall_median_s"]
                                 / results[rname]["wall_median_s"])
                print("cudnnlint wall / %s wall = %.2fx" % (rname, ratios[rname]))

    project_step = None
    if have_cudnnlint and "cudnnlint" not in failed:
        project_step = measure_project_step(binary, args.cudnnlint_jobs, args.repeat)
        print("cudnnlint project step (inside the timed runs, from --timings, median of %d): %.3f s of %.3f s "
              "analysis (%.0f%%); %d extra pass(es), %d project callable(s); parsed %.2f MB in the first pass "
              "and %.2f MB in the project step"
              % (args.repeat, project_step["project_s"], project_step["analysis_s"],
                 100.0 * project_step["project_s"] / max(project_step["analysis_s"], 1e-9), project_step["passes"],
                 project_step["callables"], project_step["first_pass_mb"], project_step["project_mb"]))

    equivalence = None
    if have_cudnnlint and not args.no_equivalence:
        equivalence = check_equivalence(binary)
        print("\nshortcut check: %(files)d files, %(facts)d facts; %(parsed_mb).2f of %(read_mb).2f MB parsed; "
              "facts and findings identical to --full-parse: %(identical)s" % equivalence)

    if findings is not None:
        by_rule = Counter(f["rule"] for f in findings)
        print("\ncudnnlint findings: %d" % len(findings))
        for rule, n in sorted(by_rule.items(), key=lambda kv: (-kv[1], kv[0])):
            print("  %6d  %s" % (n, rule))
        if args.list_findings:
            print()
            for f in sorted(findings, key=lambda f: (f["path"], str(f["line"]).zfill(9))):
                print("%s:%s %s %s" % (f["path"], f["line"], f["rule"], f["message"]))

    if args.json:
        doc = {
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
            "machine": {"platform": platform.platform(), "cpu_count": os.cpu_count(),
                        "python": platform.python_version()},
            "corpus": corpus,
            "settings": {"repeat": args.repeat, "warmup": args.warmup,
                         "cudnnlint": rel(binary) if have_cudnnlint else None,
                         "cudnnlint_jobs": args.cudnnlint_jobs, "ruff_version": ruff_ver,
                         "commands": {name: [rel(c) if os.path.isabs(c) else c for c in cmd]
                                      for name, cmd, _ in tools}},
            "results": results, "failed": failed, "notes": notes,
            "ratio_cudnnlint_wall_over": ratios,
            "shortcut_equivalence": equivalence,
            "cudnnlint_project_step": project_step,
            "cudnnlint_findings_by_rule": (dict(Counter(f["rule"] for f in findings))
                                           if findings is not None else None),
        }
        try:
            with open(args.json, "w") as f:
                json.dump(doc, f, indent=2)
                f.write("\n")
        except OSError as e:
            log("bench_vs_ruff: error in step 'write --json': %s" % e)
            return 2
        log("[bench] figures written to %s" % args.json)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
