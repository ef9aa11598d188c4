#!/usr/bin/env python3
"""The metamorphic harness (issue 34): every transform of tests/metamorphic/transforms.py applied to
every Python rule fixture, each variant analysed in the default mode and with --full-parse.

A positive site (a `# expect: RULE` line) survives a transform when both modes report RULE at the
site's line mapped through the transform; a fixture's unmarked lines are its negatives, and a
marker-less fixture is a negative file: any finding the variant gains is counted as new. Prints the
survival table and the lost sites; always exits 0 (a report, not a test, until survival is 100 %).

    python3 tests/metamorphic/run.py --cudnnlint build/cudnnlint [--keep DIR] [--only TRANSFORM ...]
"""
import argparse
import collections
import json
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(HERE))

import transforms as T  # noqa: E402

# The fixture conventions of tests/e2e/conftest.py (copied: that module imports pytest).
EXPECT = re.compile(r"(?:#|//)[^\n]*?\bexpect:\s*([A-Za-z0-9_, -]+)")
ARGS = re.compile(r"^(?:#|//)\s*cudnnlint-args:\s*(.*)$")
RULE_ROW = re.compile(r'CUDNNLINT_RULE\(\s*\w+\s*,\s*"([^"]+)"\s*,\s*(\w+)\s*,')
MODES = {"default": [], "full": ["--full-parse"]}


def expect_markers(text):
    found = set()
    for number, line in enumerate(text.splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            for rule in match.group(1).split(","):
                if rule.strip():
                    found.add((number, rule.strip()))
    return found


def fixture_args(text):
    lines = text.splitlines()
    match = ARGS.match(lines[0]) if lines else None
    return tuple(match.group(1).split()) if match else ()


def rule_families():
    """rule id -> family, from rules/rules.def (the folder rules/<family>/<rule>.cpp as a fallback)."""
    families = {m.group(1): m.group(2) for m in RULE_ROW.finditer((REPO / "rules" / "rules.def").read_text())}
    for cpp in (REPO / "rules").glob("*/*.cpp"):
        families.setdefault(cpp.stem, cpp.parent.name)
    return families


def analyse(binary, args, mode, folders):
    """One cudnnlint process over every variant folder of one args set: {path: {(line, rule)}}."""
    command = [binary, "--isolated", "-f", "json", "--no-cache", "--no-progress", *args, *MODES[mode],
               *map(str, folders)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    if result.returncode not in (0, 1):
        sys.exit(f"cudnnlint failed ({result.returncode}): {' '.join(command[:8])} ...\n{result.stderr[-3000:]}")
    doc = json.loads(result.stdout)
    found = collections.defaultdict(set)
    for f in doc["findings"]:
        found[str(pathlib.Path(f["path"]).resolve())].add((f["line"], f["rule"]))
    diagnostics = [d for d in doc.get("diagnostics", [])]
    return found, diagnostics


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cudnnlint", default=str(REPO / "build" / "cudnnlint"))
    parser.add_argument("--fixtures", nargs="+", default=[str(REPO / "tests" / "fixtures" / "rules" / "*.py")],
                        help="globs of Python fixtures (default: tests/fixtures/rules/*.py)")
    parser.add_argument("--keep", metavar="DIR", help="write the variants here (an empty or new folder) and keep them")
    parser.add_argument("--only", nargs="+", metavar="TRANSFORM", help="run only these transforms (and the control)")
    parser.add_argument("--verbose", action="store_true", help="also list the sites no transform applied to")
    opts = parser.parse_args()

    binary = str(pathlib.Path(opts.cudnnlint).resolve())
    if not pathlib.Path(binary).is_file():
        sys.exit(f"{binary} does not exist: build first (./setup.sh)")
    families = rule_families()
    names = list(T.TRANSFORMS)
    if opts.only:
        unknown = set(opts.only) - set(names)
        if unknown:
            sys.exit(f"unknown transforms: {', '.join(sorted(unknown))}; known: {', '.join(names)}")
        names = [n for n in names if n == "identity" or n in opts.only]

    fixtures = []
    for pattern in opts.fixtures:
        path = pathlib.Path(pattern)
        base = path.parent if path.is_absolute() else REPO / path.parent
        fixtures.extend(sorted(base.glob(path.name)))
    fixtures = [f for f in dict.fromkeys(fixtures) if f.suffix == ".py"]

    if opts.keep:
        root = pathlib.Path(opts.keep).resolve()
        root.mkdir(parents=True, exist_ok=True)
        if any(root.iterdir()):
            sys.exit(f"--keep {root}: the folder is not empty")
    else:
        root = pathlib.Path(tempfile.mkdtemp(prefix="cudnnlint-metamorphic-"))

    # ---- write every variant --------------------------------------------------------------------
    variants = []      # dicts
    skipped = []       # (fixture, transform, reason, sites)
    harness_errors = []
    counter = 0
    for fixture in fixtures:
        text = fixture.read_text(encoding="utf-8")
        expected = expect_markers(text)
        sites = sorted({line for line, _ in expected})
        try:
            source = T.Source(text, str(fixture))
        except SyntaxError as error:
            harness_errors.append(f"{fixture.name}: does not parse ({error})")
            continue
        family = families.get(fixture.stem) or (families.get(min(r for _, r in expected)) if expected else "negative")
        for name in names:
            counter += 1
            module = f"consts_{counter}"   # one module name per variant: the analyzer runs them as one project
            result = T.TRANSFORMS[name](source, sites, module=module)
            if isinstance(result, T.Skip):
                skipped.append((fixture, name, result.reason, expected))
                continue
            problem = None
            try:
                compile(result.text, fixture.name, "exec")
            except SyntaxError as error:
                problem = f"variant does not compile: {error}"
            new_lines = result.text.split("\n")
            for old, new in result.line_map.items():
                if old not in result.edited and new_lines[new - 1].strip() != source.lines[old - 1].strip():
                    problem = f"line map: old line {old} -> {new} holds other text"
                    break
            if problem:
                harness_errors.append(f"{fixture.name} × {name}: {problem}")
                continue
            folder = root / f"{fixture.stem}__{name}"
            folder.mkdir()
            # The variant is named as a module can be, uniquely across the batch (`bn_eps_zero_v12.py`):
            # the analyzer's project step (parameter defaults, constants of other modules) skips a file
            # whose name is no identifier, and a module name two files share is ambiguous to it.
            file_name = re.sub(r"\W", "_", fixture.stem) + f"_v{counter}.py"
            (folder / file_name).write_text(result.text, encoding="utf-8")
            for extra, content in result.extra_files.items():
                (folder / extra).write_text(content, encoding="utf-8")
            variants.append({"fixture": fixture, "transform": name, "family": family, "args": fixture_args(text),
                             "folder": folder, "path": str((folder / file_name).resolve()),
                             "expected": expected, "variant": result})

    # ---- analyse them in batches: one process per args set and mode ----------------------------
    by_args = collections.defaultdict(list)
    for v in variants:
        by_args[v["args"]].append(v)
    diagnostics = []
    for args, group in by_args.items():
        for mode in MODES:
            got, diags = analyse(binary, list(args), mode, [v["folder"] for v in group])
            diagnostics.extend(diags)
            for v in group:
                v[mode] = got.get(v["path"], set())
                for path, hits in got.items():   # findings in the variant's second module, if any
                    if path != v["path"] and pathlib.Path(path).parent == v["folder"].resolve():
                        v.setdefault("elsewhere", set()).update((pathlib.Path(path).name, l, r, mode) for l, r in hits)

    # ---- score -----------------------------------------------------------------------------------
    # per (transform, family): kept, total, n/a, collateral, disagreeing variants, new findings
    Cell = lambda: collections.Counter()
    table = collections.defaultdict(Cell)
    lost, collateral, new_findings, disagreements = [], [], [], []
    negatives = collections.defaultdict(lambda: [0, 0])
    for fixture, name, reason, expected in skipped:
        for line, rule in expected:
            table[(name, families.get(rule, "?"))]["na"] += 1
    for v in variants:
        res, name = v["variant"], v["transform"]
        if v["default"] != v["full"]:
            table[(name, v["family"])]["disagree"] += 1
            disagreements.append(v)
        accepted = set()
        for line, rule in sorted(v["expected"]):
            family = families.get(rule, "?")
            where = {res.line_map[line]} | res.also_at.get(line, set())
            accepted |= {(w, rule) for w in where}
            modes_lost = [m for m in MODES if not any((w, rule) in v[m] for w in where)]
            touched = res.touched.get(line, "not touched") is None
            cell = table[(name, family)]
            if touched:
                cell["total"] += 1
                if modes_lost:
                    lost.append((v, line, rule, modes_lost))
                else:
                    cell["kept"] += 1
            else:
                cell["na"] += 1
                if modes_lost:
                    cell["collateral"] += 1
                    collateral.append((v, line, rule, modes_lost, res.touched[line]))
        extra = (v["default"] | v["full"]) - accepted
        extra |= {(f"{name_}:{l}", r) for name_, l, r, _ in v.get("elsewhere", ())}
        if extra:
            table[(name, v["family"])]["new"] += len(extra)
            new_findings.append((v, sorted(extra)))
        if not v["expected"]:
            negatives[name][1] += 1
            negatives[name][0] += not extra

    # ---- print -----------------------------------------------------------------------------------
    fams = sorted({f for _, f in table})
    print(f"metamorphic harness: {len(fixtures)} fixtures × {len(names)} transforms -> {len(variants)} variants "
          f"({len(skipped)} fixture×transform pairs not applicable), {len(by_args) * len(MODES)} cudnnlint runs")
    print(f"variants in {root}" + ("" if opts.keep else " (removed at the end; --keep DIR keeps them)"))
    print()
    header = f"{'transform':<24} {'kept/total':>10} {'%':>5} {'n/a':>4} {'coll':>4} {'disagr':>6} {'new':>4}  " + \
        "  ".join(f"{f:>11}" for f in fams)
    print(header)
    print("-" * len(header))

    def row(label, cells):
        c = sum(cells, collections.Counter())
        pct = f"{100 * c['kept'] / c['total']:.0f}" if c["total"] else "-"
        return (f"{label:<24} {c['kept']:>4}/{c['total']:<5} {pct:>5} {c['na']:>4} {c['collateral']:>4} "
                f"{c['disagree']:>6} {c['new']:>4}  ")

    for name in names:
        per_fam = []
        for f in fams:
            c = table[(name, f)]
            per_fam.append(f"{c['kept']:>5}/{c['total']:<5}" if c["total"] else f"{'-':>6}{'':5}")
        print(row(name, [table[(name, f)] for f in fams]) + "  ".join(per_fam))
    print("-" * len(header))
    print(row("all but identity", [table[(n, f)] for n in names if n != "identity" for f in fams]))
    print()
    print(f"{'family':<24} {'kept/total':>10} {'%':>5} {'n/a':>4} {'coll':>4} {'disagr':>6} {'new':>4}   (all but identity)")
    for f in fams:
        print(row(f, [table[(n, f)] for n in names if n != "identity"]))
    if negatives:
        print()
        print("negative files (no marker) still clean: " +
              ", ".join(f"{n} {c}/{t}" for n, (c, t) in negatives.items()))

    def where(v):
        return f"  [{v['path']}]" if opts.keep else ""

    print()
    print(f"lost ({len(lost)}): fixture, transform, expected line (in the variant), rule, modes that miss it")
    for v, line, rule, modes in lost:
        print(f"  {v['fixture'].name}:{line} × {v['transform']}: line {v['variant'].line_map[line]} {rule} "
              f"[{'/'.join(modes)}]{where(v)}")
    if collateral:
        print(f"\ncollateral ({len(collateral)}): sites the transform did not touch, lost anyway")
        for v, line, rule, modes, why in collateral:
            print(f"  {v['fixture'].name}:{line} × {v['transform']}: line {v['variant'].line_map[line]} {rule} "
                  f"[{'/'.join(modes)}] (untouched: {why}){where(v)}")
    if new_findings:
        print(f"\nnew findings ({sum(len(e) for _, e in new_findings)}): reported in a variant, at no expected site")
        for v, extra in new_findings:
            modes = lambda f: "/".join(m for m in MODES if f in v[m])
            print(f"  {v['fixture'].name} × {v['transform']}: " +
                  ", ".join(f"line {l} {r} [{modes((l, r))}]" for l, r in extra) + where(v))
    if disagreements:
        print(f"\ndefault and --full-parse disagree ({len(disagreements)} variants)")
        for v in disagreements:
            only_d, only_f = sorted(v["default"] - v["full"]), sorted(v["full"] - v["default"])
            print(f"  {v['fixture'].name} × {v['transform']}: default only {only_d}, full only {only_f}{where(v)}")
    if opts.verbose:
        print("\nnot applicable:")
        for fixture, name, reason, expected in skipped:
            print(f"  {fixture.name} × {name}: {reason}")
        for v in variants:
            for line, why in sorted(v["variant"].touched.items()):
                if why is not None:
                    print(f"  {v['fixture'].name}:{line} × {v['transform']}: {why}")
    if diagnostics:
        print(f"\ncudnnlint diagnostics ({len(diagnostics)}):")
        for d in diagnostics[:20]:
            print("  " + json.dumps(d)[:300])
    if harness_errors:
        print(f"\nharness errors ({len(harness_errors)}): variants not analysed")
        for e in harness_errors:
            print("  " + e)
    if not opts.keep:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
