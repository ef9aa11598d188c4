#!/usr/bin/env python3
"""Real-world recall benchmark for cudnnlint (issue 35).

    python3 tests/realworld/run.py --cudnnlint build/cudnnlint [--json] [--min-recall P]
    python3 tests/realworld/run.py --confirm --python /path/to/venv/bin/python [--only SUBSTR]

Recall mode runs the binary once (in batches of files) over every case and mutant, and prints per
family: cases, found, recall and the misses; then every finding on an original (a false positive).
A case is found when a finding with its expected rule lands on a line marked `# expect-here`
(anywhere in the file when no line is marked).

Confirm mode runs each file with the given Python (one subprocess per file, 120 s timeout) and
checks that a case or mutant fails with its `realworld-key` phrase in its output (an exception's
text, or "nan"/"inf" printed for the NaN cases) and that an original runs clean.

With --check FILE (the ctest `realworld`), recall mode fails unless the misses are exactly those
FILE lists (tests/realworld/known_misses.txt; --write-known-misses regenerates it) and no original
has a finding.

Standard library only. Exit status 0 unless --min-recall is given and a family is under it (recall
mode), --check fails, or, in confirm mode, --strict is given and a confirmation failed.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
FAMILIES = ("batchnorm", "dtype", "loader", "shape")
META_RE = re.compile(r"^#\s*realworld-([a-z]+):\s*(.*?)\s*$")


def notebook_module(path):
    """A notebook's code cells as one module, read here independently of cudnnlint: (the module's
    lines, {cell number counting every cell: the module line before its first line}). IPython lines
    (`%...`, `!...` at a statement's start) are `pass`, a cell magic's line blank."""
    with open(path, encoding="utf-8") as f:
        cells = json.load(f)["cells"]
    lines, starts = [], {}
    for number, cell in enumerate(cells, start=1):
        if cell["cell_type"] != "code":
            continue
        starts[number] = len(lines)
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        for line in source.splitlines():
            code = line.lstrip()
            if code.startswith("%%"):
                line = ""
            elif code.startswith(("%", "!")):
                line = line[:len(line) - len(code)] + "pass"
            lines.append(line)
    return lines, starts


def module_line(case, finding):
    """A finding's line in the case's terms: a notebook's (cell, line) is a line of its module."""
    if "cell" in finding and case.cell_starts is not None:
        return case.cell_starts.get(finding["cell"], -10 ** 6) + finding["line"]
    return finding.get("line", 0)


class Case:
    def __init__(self, path):
        self.path = path
        self.rel = os.path.relpath(path, HERE)
        self.meta = {}
        self.expect_lines = []
        self.cell_starts = None
        if path.endswith(".ipynb"):
            lines, self.cell_starts = notebook_module(path)
        else:
            with open(path, encoding="utf-8") as f:
                lines = f.read().split("\n")
        for lineno, line in enumerate(lines, 1):
            m = META_RE.match(line)
            if m and m.group(1) not in self.meta:
                self.meta[m.group(1)] = m.group(2)
            if "# expect-here" in line:
                self.expect_lines.append(lineno)
                # a marked line covers the whole statement: its continuation lines up to the closing bracket
                depth = 0
                for k in range(lineno - 1, len(lines)):
                    code = lines[k].split("#", 1)[0]
                    depth += sum(code.count(c) for c in "([{") - sum(code.count(c) for c in ")]}")
                    if k > lineno - 1:
                        self.expect_lines.append(k + 1)
                    if depth <= 0:
                        break
        self.expect = [r.strip() for r in self.meta.get("expect", "none").split(",") if r.strip()]
        if self.expect == ["none"]:
            self.expect = []
        self.family = self.meta.get("family", "?")
        self.kind = "original" if os.path.splitext(os.path.basename(path))[0] == "original" else (
            "mutant" if self.rel.startswith("mutants" + os.sep) else "case")
        self.key = self.meta.get("key", "")


def collect(root=HERE):
    cases = []
    for sub in ("cases", "mutants"):
        for dirpath, _, files in os.walk(os.path.join(root, sub)):
            for name in sorted(files):
                if name.endswith((".py", ".ipynb")):
                    cases.append(Case(os.path.join(dirpath, name)))
    cases.sort(key=lambda c: c.rel)
    return cases


def run_cudnnlint(binary, cases, batch=200):
    """{realpath: [finding, ...]} from one invocation per batch of files."""
    by_file = {}
    for i in range(0, len(cases), batch):
        chunk = [c.path for c in cases[i:i + batch]]
        cmd = [binary, "--format", "json", "--no-progress", "--isolated", "--no-cache",
               "--fail-level", "none"] + chunk
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0 and not proc.stdout.strip():
            sys.exit("cudnnlint failed (%d): %s" % (proc.returncode, proc.stderr.strip()[:2000]))
        report = json.loads(proc.stdout)
        for f in report.get("findings", []):
            by_file.setdefault(os.path.realpath(f["path"]), []).append(f)
    return by_file


def judge(case, findings):
    """(found, matching findings) for a case with an expected rule."""
    hits = []
    for f in findings:
        if f.get("rule") not in case.expect:
            continue
        first = module_line(case, f)
        lines = set(range(first, first + f.get("end_line", f.get("line", 0)) - f.get("line", 0) + 1))
        if not case.expect_lines or lines & set(case.expect_lines):
            hits.append(f)
    return bool(hits), hits


def recall(args):
    cases = collect()
    by_file = run_cudnnlint(args.cudnnlint, cases)
    summary = {"families": {}, "false_positives": [], "originals": 0, "cases": 0, "mutants": 0}
    rows = {fam: {"cases": 0, "found": 0, "misses": []} for fam in FAMILIES}
    for c in cases:
        findings = by_file.get(os.path.realpath(c.path), [])
        if c.kind == "original":
            summary["originals"] += 1
            for f in findings:
                summary["false_positives"].append({"file": c.rel, "line": module_line(c, f), "rule": f["rule"],
                                                   "message": f.get("message", "")[:200]})
            continue
        summary["cases" if c.kind == "case" else "mutants"] += 1
        row = rows.setdefault(c.family, {"cases": 0, "found": 0, "misses": []})
        row["cases"] += 1
        ok, _ = judge(c, findings)
        if ok:
            row["found"] += 1
        else:
            got = sorted({"%s@%d" % (f["rule"], module_line(c, f)) for f in findings})
            row["misses"].append({"file": c.rel, "expected": ",".join(c.expect),
                                  "lines": sorted(set(c.expect_lines)), "got": got, "why": c.meta.get("why", "")})
    for fam, row in rows.items():
        row["recall"] = round(100.0 * row["found"] / row["cases"], 1) if row["cases"] else 0.0
        summary["families"][fam] = row
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print("cudnnlint real-world recall: %d cases, %d mutants, %d originals (negatives)"
              % (summary["cases"], summary["mutants"], summary["originals"]))
        print("%-10s %6s %6s %8s" % ("family", "cases", "found", "recall"))
        for fam, row in summary["families"].items():
            print("%-10s %6d %6d %7.1f%%" % (fam, row["cases"], row["found"], row["recall"]))
        total = sum(r["cases"] for r in rows.values())
        found = sum(r["found"] for r in rows.values())
        print("%-10s %6d %6d %7.1f%%" % ("all", total, found, 100.0 * found / total if total else 0))
        for fam, row in summary["families"].items():
            if row["misses"]:
                print("\nmisses in %s:" % fam)
                for m in row["misses"]:
                    print("  %-52s expected %-32s got %s" % (m["file"], m["expected"], ", ".join(m["got"]) or "-"))
        print("\nfalse positives on originals: %d" % len(summary["false_positives"]))
        for fp in summary["false_positives"]:
            print("  %s:%d [%s] %s" % (fp["file"], fp["line"], fp["rule"], fp["message"]))
    missed = sorted(m["file"] for row in rows.values() for m in row["misses"])
    if args.write_known_misses:
        with open(args.write_known_misses, "w") as out:
            out.write("# The cases and mutants the analyzer misses today (tests/realworld/run.py --write-known-misses).\n"
                      "# --check fails on a miss not listed here (a regression), on a listed one that is now found\n"
                      "# (update the list: recall went up) and on any finding on an original.\n")
            for rel in missed:
                out.write(rel + "\n")
    if args.check:
        with open(args.check) as listed_file:
            listed = {line.strip() for line in listed_file if line.strip() and not line.startswith("#")}
        new = sorted(set(missed) - listed)
        fixed = sorted(listed - set(missed))
        for rel in new:
            print("check: newly missed: %s" % rel, file=sys.stderr)
        for rel in fixed:
            print("check: now found, drop it from %s: %s" % (args.check, rel), file=sys.stderr)
        for fp in summary["false_positives"]:
            print("check: finding on an original: %s:%d [%s]" % (fp["file"], fp["line"], fp["rule"]), file=sys.stderr)
        if new or fixed or summary["false_positives"]:
            return 1
        print("check: passed (%d known misses, no finding on an original)" % len(listed))
    if args.min_recall is not None:
        low = [f for f, r in summary["families"].items() if r["cases"] and r["recall"] < args.min_recall]
        if low:
            print("families under %.1f%%: %s" % (args.min_recall, ", ".join(low)), file=sys.stderr)
            return 1
    return 0


def confirm_one(python, case, timeout):
    env = dict(os.environ, PYTHONHASHSEED="0", TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="",
               KERAS_BACKEND="tensorflow", PYTHONWARNINGS="ignore")
    start = time.time()
    script = case.path
    if case.cell_starts is not None:  # a notebook runs as the script of its code cells
        import tempfile
        handle, script = tempfile.mkstemp(suffix=".py", prefix="realworld-notebook-")
        with os.fdopen(handle, "w", encoding="utf-8") as f:
            f.write("\n".join(notebook_module(case.path)[0]) + "\n")
    try:
        proc = subprocess.run([python, script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, timeout=timeout, cwd=os.path.dirname(case.path), env=env)
        out, rc = proc.stdout + "\n" + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired:
        return "timeout", time.time() - start, ""
    finally:
        if script != case.path:
            os.unlink(script)
    secs = time.time() - start
    last = [l for l in out.strip().splitlines() if l.strip()]
    tail = last[-1][:160] if last else ""
    if case.kind == "original":
        return ("clean" if rc == 0 else "FAILED(rc=%d)" % rc), secs, tail
    key = case.key
    if not key or key.lower().startswith("none"):
        return ("gpu-only, ran clean" if rc == 0 else "gpu-only, but rc=%d" % rc), secs, tail
    if key.lower() in ("nan", "inf", "nan-or-inf"):
        ok = re.search(r"\b(nan|inf)\b", out, re.I) is not None
    else:
        ok = key.lower() in out.lower()
    if ok:
        return "confirmed", secs, tail
    return ("NOT-CONFIRMED(rc=%d)" % rc), secs, tail


def confirm(args):
    cases = [c for c in collect() if not args.only or args.only in c.rel]
    results = []
    bad = 0
    print("%-56s %-9s %-24s %6s  %s" % ("file", "kind", "result", "secs", "last line of output"))
    for c in cases:
        res, secs, tail = confirm_one(args.python, c, args.timeout)
        ok = res in ("confirmed", "clean") or res.startswith("gpu-only, ran clean")
        bad += 0 if ok else 1
        results.append({"file": c.rel, "kind": c.kind, "family": c.family, "result": res,
                        "seconds": round(secs, 2), "measured": c.meta.get("measured", "")})
        print("%-56s %-9s %-24s %6.1f  %s" % (c.rel, c.kind, res, secs, tail), flush=True)
    counts = {}
    for r in results:
        counts[r["result"]] = counts.get(r["result"], 0) + 1
    print("\nsummary: " + ", ".join("%s %d" % kv for kv in sorted(counts.items())))
    if args.json:
        with open(args.json_out or os.devnull, "w") as f:
            json.dump(results, f, indent=2)
    return 1 if (args.strict and bad) else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cudnnlint", default=os.path.join(HERE, "..", "..", "build", "cudnnlint"))
    ap.add_argument("--json", action="store_true", help="machine summary on stdout (recall mode)")
    ap.add_argument("--json-out", help="confirm mode: write the results as JSON to this file")
    ap.add_argument("--min-recall", type=float, help="exit 1 when a family's recall is under P percent")
    ap.add_argument("--check", metavar="FILE",
                    help="exit 1 unless the misses are exactly FILE's list and no original has a finding")
    ap.add_argument("--write-known-misses", metavar="FILE", help="write today's misses to FILE")
    ap.add_argument("--confirm", action="store_true", help="run every case with --python instead")
    ap.add_argument("--python", default=sys.executable, help="confirm mode: the Python with the frameworks")
    ap.add_argument("--only", help="confirm mode: only files whose path contains this")
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--strict", action="store_true", help="confirm mode: exit 1 when a case is not confirmed")
    args = ap.parse_args()
    if args.confirm:
        if args.json_out:
            args.json = True
        return confirm(args)
    return recall(args)


if __name__ == "__main__":
    sys.exit(main())
