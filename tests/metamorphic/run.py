#!/usr/bin/env python3
"""The metamorphic harness (issue 34): the transforms of tests/metamorphic/transforms.py (Python) and
cpp_transforms.py (C++) applied to every rule fixture (tests/fixtures/rules) and to the value projects
(tests/fixtures/values), each variant analysed in the default mode and with --full-parse.

A positive site (a `# expect: RULE` line, or a value project's expected finding) survives a transform
when both modes report RULE where the transform moved it; every other finding of a variant is new (a
negative that stopped being clean). Prints the survival table, the lost sites and the new findings.

    python3 tests/metamorphic/run.py --cudnnlint build/cudnnlint            # the report (exit 0)
    python3 tests/metamorphic/run.py --check tests/metamorphic/known_losses.txt   # the test (ctest)
    python3 tests/metamorphic/run.py --write-known-losses tests/metamorphic/known_losses.txt
    python3 tests/metamorphic/run.py --self-test                             # --check can fail
"""
import argparse
import collections
import concurrent.futures
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parents[1]
FIXTURES = REPO / "tests" / "fixtures"
sys.path.insert(0, str(HERE))

import cpp_transforms as C  # noqa: E402
import transforms as T  # noqa: E402

# The fixture conventions of tests/e2e/conftest.py (copied: that module imports pytest).
EXPECT = re.compile(r"(?:#|//)[^\n]*?\bexpect:\s*([A-Za-z0-9_, -]+)")
ARGS = re.compile(r"^(?:#|//)\s*cudnnlint-args:\s*(.*)$")
RULE_ROW = re.compile(r'CUDNNLINT_RULE\(\s*\w+\s*,\s*"([^"]+)"\s*,\s*(\w+)\s*,')
MODES = {"default": [], "full": ["--full-parse"]}
CPP_SUFFIXES = {".c", ".cc", ".cpp", ".cxx", ".cu"}

# Sites whose value a transform made a run-time choice (Variant.runtime: a command-line flag's
# default, a config file) are exempt for the rules whose documentation says they do not take such
# values: rule id -> that documentation. None does now (every rule follows command-line defaults,
# and config values that the tree's config files agree on), so every rule must find them.
EXEMPT = {}


def exemption(rule, runtime):
    """Why a site whose value a transform made a run-time choice is exempt, or None: only a command-line
    default is (a config file's value is followed where the tree's config files agree on it)."""
    return EXEMPT.get(rule) if runtime and "command-line" in runtime else None

# Transforms that move or rebind a module's top-level code: not applied to a value project's module
# that another module of the project imports (what it exports would change).
MOVES_MODULE_CODE = {"into_function", "into_method", "into_nested_function", "if_main", "into_module_class"}
# Transforms that make a module a file nothing can import (a notebook): not applied to an imported one.
NOT_IMPORTABLE = {"into_notebook"}
# Transforms that make a module read another file (a second module, argv, a YAML file beside it): not
# applied to a config module that its framework executes from a copy (mmcv) with argv of its own.
READS_ANOTHER_FILE = {"hoist_imported_name", "hoist_module_attribute", "hoist_argparse_default", "hoist_yaml_config"}


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


def analyse(binary, args, mode, paths):
    """One cudnnlint process over `paths`: {resolved path: [finding]}."""
    command = [binary, "--isolated", "-f", "json", "--no-cache", "--no-progress", *args, *MODES[mode],
               *map(str, paths)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    if result.returncode not in (0, 1):
        raise RuntimeError(f"cudnnlint failed ({result.returncode}): {' '.join(command[:9])} ...\n"
                           f"{result.stderr[-3000:]}")
    doc = json.loads(result.stdout)
    found = collections.defaultdict(list)
    for f in doc["findings"]:
        found[str(pathlib.Path(f["path"]).resolve())].append(f)
    return found, doc.get("diagnostics", [])


def normalise(text):
    """An inserted line's text, less the numbers that depend on the batch (consts_12, mm_v12)."""
    text = re.sub(r"\bconsts_\d+\b", "consts_N", text.strip())
    text = re.sub(r"\bmm_v\d+\b", "mm_vN", text)
    return re.sub(r"\s+", " ", text)[:80]


# ------------------------------------------------------------------------------------------------
# A variant: one folder, some of its files transformed. Sites are scored on (relative path, line).


class Case:
    def __init__(self, fixture_key, transform, args, folder):
        self.fixture_key = fixture_key   # "rules/bn-eps-zero.py", "values/yaml_config"
        self.transform = transform
        self.args = args
        self.folder = folder
        self.files = {}      # relative path -> (original Source/CppSource, Variant or None (copied))
        self.sites = []      # dicts: file, line, rule, family, touched, accepted {(rel, line)}, runtime
        self.found = {}      # mode -> {(rel, line, rule)}
        self.single = False  # one file, named by the batch: places are its lines alone
        self.family = "negative"

    def original_where(self, rel, line):
        """A finding's place in the original terms: `line` (or `file:line`) of the original, or the
        inserted text / written file it is in (stable across runs)."""
        for name, (_, variant) in self.files.items():
            if variant is None:
                continue
            if rel == name:
                back = {new: old for old, new in variant.line_map.items()}
                if line in back:
                    return self.where(name, back[line])
                text = variant.text.split("\n")[line - 1] if line <= variant.text.count("\n") else ""
                return self.where(name, "+" + normalise(text))
            folder = str(pathlib.PurePath(name).parent)
            if str(pathlib.PurePath(rel).parent) == folder and pathlib.PurePath(rel).name in variant.extra_files:
                return self.where(name, f"{normalise(pathlib.PurePath(rel).name)}:{line}")
        return self.where(rel, line)

    def where(self, rel, line):
        return str(line) if self.single and rel in self.files else f"{rel}:{line}"


def score(case):
    """Per site: kept / lost modes; the new findings; findings in one mode only at accepted places."""
    accepted = set()
    results = []
    for site in case.sites:
        where = site["accepted"]
        accepted |= {(r, l, site["rule"]) for r, l in where}
        lost = [m for m in MODES if not any((r, l, site["rule"]) in case.found[m] for r, l in where)]
        results.append((site, lost))
    new = {m: case.found[m] - accepted for m in MODES}
    # Findings at an expected place in one mode only, where no site they stand for is already lost
    # in the other mode (that loss says it).
    one_mode = []
    for m in MODES:
        other = next(o for o in MODES if o != m)
        for f in (case.found[m] & accepted) - case.found[other]:
            mine = [lost for site, lost in results if site["rule"] == f[2] and (f[0], f[1]) in site["accepted"]]
            if not any(other in lost for lost in mine):
                one_mode.append((f, m))
    return results, new, one_mode


# ------------------------------------------------------------------------------------------------
# Rule fixtures: every variant in one folder of its own, all analysed in one process per args set.


def rule_cases(fixtures, names, root, families, harness_errors, skipped, uid):
    cases = []
    for fixture in fixtures:
        text = fixture.read_text(encoding="utf-8")
        expected = expect_markers(text)
        sites = sorted({line for line, _ in expected})
        cpp = fixture.suffix in CPP_SUFFIXES
        registry = C.TRANSFORMS if cpp else T.TRANSFORMS
        try:
            source = C.CppSource(text, str(fixture)) if cpp else T.Source(text, str(fixture))
        except SyntaxError as error:
            harness_errors.append(f"{fixture.name}: does not parse ({error})")
            continue
        key = fixture_key(fixture)
        family = families.get(fixture.stem) or (families.get(min(r for _, r in expected)) if expected else "negative")
        for name in names:
            if name not in registry:
                continue
            uid[0] += 1
            module = f"consts_{uid[0]}"   # one module name per variant: the analyzer runs them as one project
            result = registry[name](source, sites, module=module, uid=uid[0])
            if isinstance(result, T.Skip):
                skipped.append((key, name, result.reason, [(r, families.get(r, "?")) for _, r in expected]))
                continue
            problem = check_variant(source, result, fixture.name, cpp)
            if problem:
                harness_errors.append(f"{fixture.name} × {name}: {problem}")
                continue
            folder = root / "rules" / f"{fixture.stem}__{name}"
            folder.mkdir(parents=True)
            # The variant is named as a module can be, uniquely across the batch (`bn_eps_zero_v12.py`):
            # the analyzer's project step (parameter defaults, constants of other modules) skips a file
            # whose name is no identifier, and a module name two files share is ambiguous to it.
            file_name = re.sub(r"\W", "_", fixture.stem) + f"_v{uid[0]}{fixture.suffix}"
            write_variant(folder / file_name, result)
            for extra, content in result.extra_files.items():
                (folder / extra).write_text(content, encoding="utf-8")
            case = Case(key, name, fixture_args(text), folder)
            case.files[file_name] = (source, result)
            case.single, case.family = True, family
            for line, rule in sorted(expected):
                case.sites.append(site_record(file_name, line, rule, families, result,
                                              result.touched.get(line, "not touched")))
            cases.append(case)
    return cases


def write_variant(target, variant):
    """The variant's file: its text, or the notebook written in its place (`x.py` -> `x.ipynb`)."""
    if variant.notebook is None:
        target.write_text(variant.text, encoding="utf-8")
        return
    target.unlink(missing_ok=True)
    target.with_suffix(".ipynb").write_text(variant.notebook, encoding="utf-8")


def module_place(case, rel, finding):
    """(file, line) of a finding in the terms of the case's files: a finding in a notebook variant
    (`cell`, its line) is at the line of the module its code cells make, in the file it replaced."""
    if "cell" not in finding:
        return rel, finding["line"]
    py = str(pathlib.PurePath(rel).with_suffix(".py"))
    variant = case.files.get(py, (None, None))[1]
    if variant is None or variant.notebook is None or finding["cell"] not in variant.cell_starts:
        return rel, -finding["line"]   # no module line: counts as a new finding
    return py, variant.cell_starts[finding["cell"]] + finding["line"]


def site_record(rel, line, rule, families, variant, touched, extra_where=None):
    folder = pathlib.PurePath(rel).parent
    if variant is None:
        accepted = {(rel, line)}
    else:
        accepted = {(rel, variant.line_map[line])} | {(rel, n) for n in variant.also_at.get(line, ())}
        accepted |= {(str(folder / f), n) for f, n in variant.also_in.get(line, ())}
    runtime = variant.runtime.get(line) if variant is not None else None
    return {"file": rel, "line": line, "rule": rule, "family": families.get(rule, "?"), "touched": touched,
            "accepted": accepted | (extra_where or set()), "runtime": runtime,
            "exempt": exemption(rule, runtime)}


def check_variant(source, result, name, cpp):
    if not cpp:
        try:
            compile(result.text, name, "exec")
        except SyntaxError as error:
            return f"variant does not compile: {error}"
    new_lines = result.text.split("\n")
    for old, new in result.line_map.items():
        if old not in result.edited and new_lines[new - 1].strip() != source.lines[old - 1].strip():
            return f"line map: old line {old} -> {new} holds other text"
    return None


# ------------------------------------------------------------------------------------------------
# Value projects: a variant is a copy of the project with each of its Python modules transformed.
# Copies of one project cannot share a run (they read the same config keys and name the same
# modules), so the variants go in rounds: one copy of each project of a group of projects that do
# not disturb each other (found by running them together), one process per round and mode.


def expected_in(directory):
    """(relative path, line, rule): tests/e2e/test_snapshots.py's expected_in, relative to the project."""
    found = set()
    for path in sorted(directory.rglob("*")):
        if path.suffix in (".py", ".yaml", ".yml"):
            found |= {(str(path.relative_to(directory)), line, rule)
                      for line, rule in expect_markers(path.read_text(encoding="utf-8"))}
    sidecar = directory / "expected.txt"
    if sidecar.exists():
        for line in sidecar.read_text(encoding="utf-8").split("\n"):
            if line.strip():
                where, rule = line.split()
                path, number = where.rsplit(":", 1)
                found.add((path, int(number), rule))
    return found


def project_findings(found, folder):
    out = set()
    for path, findings in found.items():
        try:
            rel = str(pathlib.Path(path).relative_to(folder.resolve()))
        except ValueError:
            continue
        out |= {(rel, f["line"], f["rule"]) for f in findings}
    return out


def copy_project(src, dst):
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__", "expected.txt"))


def imported_modules(directory):
    """{file: why}: Python files whose module-level names other code reads: those another file of the
    project imports (by any component of an import statement or a Hydra `_target_`), package
    __init__ files, and config modules (under config/, configs/ or conf/: mmcv and yacs read a config
    file's top-level names)."""
    files = sorted(directory.rglob("*.py"))
    words = collections.defaultdict(set)
    for f in files:
        try:
            tree = T.ast.parse(f.read_text(encoding="utf-8"))
        except SyntaxError:
            continue
        for node in T.ast.walk(tree):
            if isinstance(node, T.ast.Import):
                for a in node.names:
                    words[f] |= set(a.name.split("."))
            elif isinstance(node, T.ast.ImportFrom):
                words[f] |= set((node.module or "").split(".")) | {a.name for a in node.names}
    for f in directory.rglob("*"):
        if f.suffix in (".yaml", ".yml"):
            for target in re.findall(r"_target_:\s*([\w.]+)", f.read_text(encoding="utf-8")):
                words[f] |= set(target.split("."))
    imported = {}
    for f in files:
        if f.name == "__init__.py":
            imported[f] = "a package's __init__.py"
        elif any(f.stem in w for g, w in words.items() if g != f):
            imported[f] = "imported by another module of the project"
        elif {"config", "configs", "conf"} & set(f.relative_to(directory).parts[:-1]):
            imported[f] = "a config module, read for its top-level names"
    return imported


def value_cases(projects, names, root, families, binary, harness_errors, skipped, uid, pool):
    """(cases, rounds): rounds is a list of lists of cases analysed together."""
    # Each project alone: its findings, which must be its expected ones, and their notes.
    baseline_root = root / "values_baseline"
    futures = {}
    for p in projects:
        copy_project(p, baseline_root / p.name)
        futures[p] = pool.submit(analyse, binary, [], "default", [baseline_root / p.name])
    notes, ok = {}, []
    for p in projects:
        found, _ = futures[p].result()
        folder = baseline_root / p.name
        got = project_findings(found, folder)
        want = expected_in(p)
        if got != want:
            harness_errors.append(f"values/{p.name}: the original project's findings differ from its expectations "
                                  f"(missing {sorted(want - got)}, extra {sorted(got - want)}): not transformed")
            continue
        ok.append(p)
        notes[p.name] = collections.defaultdict(set)   # (rel, line, rule) -> {(rel, line)} of notes
        for path, findings in found.items():
            for f in findings:
                rel = str(pathlib.Path(path).relative_to(folder.resolve()))
                for r in f.get("related", []):
                    try:
                        notes[p.name][(rel, f["line"], f["rule"])].add(
                            (str(pathlib.Path(r["path"]).resolve().relative_to(folder.resolve())), r["line"]))
                    except ValueError:
                        pass
    groups = value_groups(binary, ok, {p.name: expected_in(p) for p in ok}, root / "values_groups")

    cases = collections.defaultdict(list)   # project -> cases
    for p in ok:
        expected = expected_in(p)
        imported = imported_modules(p)
        modules = sorted(f for f in p.rglob("*.py") if "__pycache__" not in f.parts)
        for name in names:
            if name not in T.TRANSFORMS:
                continue
            uid[0] += 1
            variants, reasons = {}, []
            for f in modules:
                rel = str(f.relative_to(p))
                sites = sorted({l for r, l, _ in expected if r == rel} |
                               {l for where in notes[p.name].values() for r, l in where if r == rel})
                if name in MOVES_MODULE_CODE and f in imported:
                    reasons.append(f"{rel}: {imported[f]}: moving its module code would change what it exports")
                    continue
                if name in NOT_IMPORTABLE and f in imported:
                    reasons.append(f"{rel}: {imported[f]}: a notebook cannot be imported")
                    continue
                if name in READS_ANOTHER_FILE and imported.get(f, "").startswith("a config module"):
                    reasons.append(f"{rel}: {imported[f]} (mmcv executes a copy of it): a module, flag or file "
                                   "it would read is not there")
                    continue
                try:
                    source = T.Source(f.read_text(encoding="utf-8"), str(f))
                except SyntaxError as error:
                    harness_errors.append(f"values/{p.name}/{rel}: does not parse ({error})")
                    continue
                uid[0] += 1
                result = T.TRANSFORMS[name](source, sites, module=f"consts_{uid[0]}", uid=uid[0],
                                            package=(f.parent / "__init__.py").exists())
                if isinstance(result, T.Skip):
                    reasons.append(f"{rel}: {result.reason}")
                    continue
                problem = check_variant(source, result, rel, False)
                if problem:
                    harness_errors.append(f"values/{p.name}/{rel} × {name}: {problem}")
                    continue
                variants[rel] = (source, result)
            if not variants:
                skipped.append((f"values/{p.name}", name, "; ".join(reasons) or "no module",
                                [(r, families.get(r, "?")) for _, _, r in expected]))
                continue
            case = Case(f"values/{p.name}", name, (), None)
            case.files = variants
            case.family = families.get(min(r for _, _, r in expected), "?") if expected else "negative"
            for rel_f, line, rule in sorted(expected):
                # Where a transform moved a note's value (a flag's default, a config key), the finding
                # may point now.
                moved_to = set()
                for r, l in notes[p.name].get((rel_f, line, rule), ()):
                    if r in variants:
                        v = variants[r][1]
                        moved_to |= {(r, n) for n in v.also_at.get(l, ())}
                        moved_to |= {(str(pathlib.PurePath(r).parent / f), n) for f, n in v.also_in.get(l, ())}
                if rel_f in variants:
                    variant = variants[rel_f][1]
                    touched = variant.touched.get(line, "not touched")
                    case.sites.append(site_record(rel_f, line, rule, families, variant, touched, moved_to))
                    continue
                # A finding in a file left as it was: touched when the transform touched a note of it.
                touched, runtime = "its file and notes were not transformed", None
                for r, l in notes[p.name].get((rel_f, line, rule), ()):
                    if r in variants:
                        t = variants[r][1].touched.get(l, "not touched")
                        if t is None:
                            touched = None
                            runtime = runtime or variants[r][1].runtime.get(l)
                        elif touched is not None:
                            touched = t
                record = site_record(rel_f, line, rule, families, None, touched, moved_to)
                record["runtime"], record["exempt"] = runtime, exemption(rule, runtime)
                case.sites.append(record)
            cases[p.name].append(case)
    # rounds: the k-th case of each project of a group
    rounds = []
    for group in groups:
        depth = max((len(cases[p.name]) for p in group), default=0)
        for k in range(depth):
            members = [cases[p.name][k] for p in group if k < len(cases[p.name])]
            folder = root / "values" / f"g{groups.index(group)}r{k}"
            for case, p in zip(members, [p for p in group if k < len(cases[p.name])]):
                case.folder = folder / p.name
                copy_project(p, case.folder)
                for rel, (source, variant) in case.files.items():
                    target = case.folder / rel
                    write_variant(target, variant)
                    for extra, content in variant.extra_files.items():
                        (target.parent / extra).write_text(content, encoding="utf-8")
            rounds.append(members)
    return [c for p in ok for c in cases[p.name]], rounds, len(groups)


def value_groups(binary, projects, alone, folder):
    """Groups of projects whose findings do not change when they are analysed together (`alone`: each
    one's findings on its own)."""
    groups, remaining, attempt = [], list(projects), 0
    while remaining:
        group = list(remaining)
        while len(group) > 1:
            attempt += 1
            together = folder / f"try{attempt}"
            for p in group:
                copy_project(p, together / p.name)
            found, _ = analyse(binary, [], "default", [together / p.name for p in group])
            bad = [p for p in group if project_findings(found, together / p.name) != alone[p.name]]
            if not bad:
                break
            group = [p for p in group if p not in bad] or bad[:1]
        groups.append(group)
        remaining = [p for p in remaining if p not in group]
    return groups


# ------------------------------------------------------------------------------------------------


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cudnnlint", default=str(REPO / "build" / "cudnnlint"))
    parser.add_argument("--fixtures", nargs="*", default=[str(FIXTURES / "rules" / "*.py"),
                                                          str(FIXTURES / "rules" / "*.cpp")],
                        help="globs of rule fixtures (default: tests/fixtures/rules/*.py and *.cpp; none: --fixtures)")
    parser.add_argument("--values", nargs="*", default=None, metavar="DIR",
                        help="value projects (default: every folder of tests/fixtures/values; none: --values)")
    parser.add_argument("--keep", metavar="DIR", help="write the variants here (an empty or new folder) and keep them")
    parser.add_argument("--only", nargs="+", metavar="TRANSFORM", help="run only these transforms (and the control)")
    parser.add_argument("--verbose", action="store_true", help="also list why sites were not transformed or exempt")
    parser.add_argument("--check", metavar="FILE", help="the test: exit 1 on any loss, disagreement or new finding "
                        "FILE does not list, and on any FILE lists that is gone")
    parser.add_argument("--write-known-losses", metavar="FILE", help="write this run's losses to FILE")
    parser.add_argument("--self-test", action="store_true", help="show that --check fails where it must")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2, help="cudnnlint processes at once")
    opts = parser.parse_args(argv)

    binary = str(pathlib.Path(opts.cudnnlint).resolve())
    if not pathlib.Path(binary).is_file():
        sys.exit(f"{binary} does not exist: build first (./setup.sh)")
    if opts.self_test:
        return self_test(binary)
    families = rule_families()
    names = list(dict.fromkeys(list(T.TRANSFORMS) + list(C.TRANSFORMS)))
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
    fixtures = [f for f in dict.fromkeys(fixtures) if f.suffix == ".py" or f.suffix in CPP_SUFFIXES]
    if opts.values is None:
        projects = sorted(p for p in (FIXTURES / "values").iterdir() if p.is_dir())
    else:
        projects = [pathlib.Path(v).resolve() for v in opts.values]

    if opts.keep:
        root = pathlib.Path(opts.keep).resolve()
        root.mkdir(parents=True, exist_ok=True)
        if any(root.iterdir()):
            sys.exit(f"--keep {root}: the folder is not empty")
    else:
        # Hundreds of small folders: in memory where the machine has a tmpfs (removing them from a
        # disk took seconds).
        shm = pathlib.Path("/dev/shm")
        where = shm if shm.is_dir() and os.access(shm, os.W_OK) else None
        root = pathlib.Path(tempfile.mkdtemp(prefix="cudnnlint-metamorphic-", dir=where))
    try:
        return run(opts, binary, families, names, fixtures, projects, root)
    finally:
        if not opts.keep:
            shutil.rmtree(root, ignore_errors=True)


def run(opts, binary, families, names, fixtures, projects, root):
    skipped, harness_errors, uid = [], [], [0]
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, opts.jobs))
    cases = rule_cases(fixtures, names, root, families, harness_errors, skipped, uid)
    v_cases, rounds, n_groups = value_cases(projects, names, root, families, binary, harness_errors, skipped, uid,
                                            pool) if projects else ([], [], 0)

    # ---- analyse: one process per args set and mode (rule fixtures), per round and mode (values) ----
    batches = []
    by_args = collections.defaultdict(list)
    for c in cases:
        by_args[c.args].append(c)
    batches += [(list(args), group) for args, group in by_args.items()]
    batches += [([], group) for group in rounds]
    futures = {(k, mode): pool.submit(analyse, binary, args, mode, [c.folder for c in group])
               for k, (args, group) in enumerate(batches) for mode in MODES}
    diagnostics = []
    for (k, mode), future in futures.items():
        found, diags = future.result()
        diagnostics.extend(diags)
        by_folder = {str(c.folder.resolve()): c for c in batches[k][1]}
        for c in batches[k][1]:
            c.found[mode] = set()
        for path, findings in found.items():
            for parent in pathlib.PurePath(path).parents:
                c = by_folder.get(str(parent))
                if c is not None:
                    rel = str(pathlib.PurePath(path).relative_to(parent))
                    c.found[mode] |= {(*module_place(c, rel, f), f["rule"]) for f in findings}
                    break
    pool.shutdown()
    all_cases = cases + v_cases

    # ---- score ----
    table = collections.defaultdict(collections.Counter)   # (transform, family) -> counts
    lost, collateral, new_findings, disagreements, exempt = [], [], [], [], []
    entries = set()    # the known-losses keys
    for key, name, reason, expected in skipped:
        for rule, family in expected:
            table[(name, family)]["na"] += 1
    for c in all_cases:
        results, new, one_mode = score(c)
        for site, modes_lost in results:
            cell = table[(c.transform, site["family"])]
            where = c.where(site["file"], site["line"])
            if site["touched"] is None and site["exempt"]:
                cell["exempt"] += 1
                exempt.append((c, site, modes_lost))
                continue
            if site["touched"] is None:
                cell["total"] += 1
                if modes_lost:
                    lost.append((c, site, modes_lost))
                else:
                    cell["kept"] += 1
            else:
                cell["na"] += 1
                if modes_lost:
                    cell["collateral"] += 1
                    collateral.append((c, site, modes_lost))
            for m in modes_lost:
                entries.add(("lost", c.fixture_key, c.transform, where, site["rule"], m))
        fam = c.family
        extra = sorted({(rel, line, rule) for m in MODES for rel, line, rule in new[m]})
        if extra:
            table[(c.transform, fam)]["new"] += len(extra)
            new_findings.append((c, extra, new))
            for m in MODES:
                for rel, line, rule in new[m]:
                    entries.add(("new", c.fixture_key, c.transform, c.original_where(rel, line), rule, m))
        if c.found["default"] != c.found["full"]:
            table[(c.transform, fam)]["disagree"] += 1
            disagreements.append(c)
            for (rel, line, rule), m in one_mode:
                entries.add(("disagree", c.fixture_key, c.transform, c.original_where(rel, line), rule, m))

    # ---- print ----
    fams = sorted({f for _, f in table})
    n_rule = len(cases)
    print(f"metamorphic harness: {len(fixtures)} rule fixtures and {len(projects)} value projects × {len(names)} "
          f"transforms -> {n_rule} + {len(v_cases)} variants ({len(skipped)} fixture×transform pairs not applicable), "
          f"{len(futures)} cudnnlint runs (the value projects in {len(rounds)} rounds of {n_groups} groups)")
    print(f"variants in {root}" + ("" if opts.keep else " (removed at the end; --keep DIR keeps them)"))
    print()
    header = f"{'transform':<27} {'kept/total':>10} {'%':>5} {'n/a':>4} {'exmp':>4} {'coll':>4} {'disagr':>6} {'new':>4}  " + \
        "  ".join(f"{f:>11}" for f in fams)
    print(header)
    print("-" * len(header))

    def row(label, cells):
        c = sum(cells, collections.Counter())
        pct = f"{100 * c['kept'] / c['total']:.0f}" if c["total"] else "-"
        return (f"{label:<27} {c['kept']:>4}/{c['total']:<5} {pct:>5} {c['na']:>4} {c['exempt']:>4} {c['collateral']:>4} "
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
    print(f"{'family':<27} {'kept/total':>10} {'%':>5} {'n/a':>4} {'exmp':>4} {'coll':>4} {'disagr':>6} {'new':>4}   (all but identity)")
    for f in fams:
        print(row(f, [table[(n, f)] for n in names if n != "identity"]))

    def at(c):
        return f"  [{c.folder}]" if opts.keep else ""

    print()
    print(f"lost ({len(lost)}): fixture, transform, expected place (original), rule, modes that miss it")
    for c, site, modes in lost:
        print(f"  {c.fixture_key}:{c.where(site['file'], site['line'])} × {c.transform}: {site['rule']} "
              f"[{'/'.join(modes)}]{at(c)}")
    if collateral:
        print(f"\ncollateral ({len(collateral)}): sites the transform did not touch, lost anyway")
        for c, site, modes in collateral:
            print(f"  {c.fixture_key}:{c.where(site['file'], site['line'])} × {c.transform}: {site['rule']} "
                  f"[{'/'.join(modes)}] (untouched: {site['touched']}){at(c)}")
    if new_findings:
        print(f"\nnew findings ({sum(len(e) for _, e, _ in new_findings)}): reported in a variant, at no expected "
              "place (shown at the original line they map back to, or +the inserted line)")
        for c, extra, new in new_findings:
            print(f"  {c.fixture_key} × {c.transform}: " + ", ".join(
                f"{c.original_where(rel, line)} {rule} [{'/'.join(m for m in MODES if (rel, line, rule) in new[m])}]"
                for rel, line, rule in extra) + at(c))
    if disagreements:
        print(f"\ndefault and --full-parse disagree ({len(disagreements)} variants)")
        for c in disagreements:
            only_d = sorted((c.original_where(r, l), rule) for r, l, rule in c.found["default"] - c.found["full"])
            only_f = sorted((c.original_where(r, l), rule) for r, l, rule in c.found["full"] - c.found["default"])
            print(f"  {c.fixture_key} × {c.transform}: default only {only_d}, full only {only_f}{at(c)}")
    if opts.verbose:
        if exempt:
            print(f"\nexempt ({len(exempt)}): the transform made the value a run-time choice, and the rule's "
                  "documentation says it does not read such values")
            for c, site, modes in exempt:
                print(f"  {c.fixture_key}:{c.where(site['file'], site['line'])} × {c.transform}: {site['rule']}: "
                      f"{site['runtime']}; {site['exempt']} ({'lost' if modes else 'found anyway'})")
        print("\nnot applicable:")
        for key, name, reason, expected in skipped:
            print(f"  {key} × {name}: {reason}")
        for c in all_cases:
            for site in c.sites:
                if site["touched"] is not None:
                    print(f"  {c.fixture_key}:{c.where(site['file'], site['line'])} × {c.transform}: {site['touched']}")
    if diagnostics:
        counts = collections.Counter(d.get("message", "")[:100] for d in diagnostics)
        print(f"\ncudnnlint diagnostics ({len(diagnostics)}" + ("" if opts.verbose else "; --verbose lists them") + "):")
        for message, n in counts.most_common(None if opts.verbose else 5):
            print(f"  {n} × {message}")
    if harness_errors:
        print(f"\nharness errors ({len(harness_errors)}): variants not analysed")
        for e in harness_errors:
            print("  " + e)

    lines = sorted("\t".join(map(str, e)) for e in entries)
    if opts.write_known_losses:
        pathlib.Path(opts.write_known_losses).write_text(KNOWN_HEADER + "".join(l + "\n" for l in lines), encoding="utf-8")
        print(f"\nwrote {len(lines)} known losses to {opts.write_known_losses}")
    if opts.check:
        ran = {"transforms": set(names),
               "fixtures": {fixture_key(f) for f in fixtures} | {f"values/{p.name}" for p in projects}}
        return check(opts.check, set(lines), harness_errors, ran)
    return 0


def fixture_key(path):
    """How the known-losses file names a rule fixture: rules/<name> for tests/fixtures/rules, else the
    path from the repository."""
    path = pathlib.Path(path)
    return "rules/" + path.name if path.parent == FIXTURES / "rules" else os.path.relpath(path, REPO)


def key_exists(key):
    if key.startswith(("rules/", "values/")):
        return (FIXTURES / key).exists()
    return (REPO / key).exists()


KNOWN_HEADER = """\
# Known losses of the metamorphic harness (tests/metamorphic/README.md): what `run.py --check` (the
# ctest `metamorphic`) lets pass. One per line, tab-separated: kind (lost: an expected finding not
# reported; new: a finding at no expected place; disagree: reported in one mode only), fixture,
# transform, where (the original line, or file:line, or +the inserted line), rule, mode.
# The list can only shrink: an entry that no longer happens fails the check too. Regenerate with
#   python3 tests/metamorphic/run.py --write-known-losses tests/metamorphic/known_losses.txt
"""


def read_known(path):
    known = set()
    for line in pathlib.Path(path).read_text(encoding="utf-8").split("\n"):
        if line.strip() and not line.startswith("#"):
            known.add("\t".join(line.rstrip("\n").split("\t")))
    return known


def check(path, current, harness_errors, ran):
    """Compares this run's losses with the file's. An entry of a transform or fixture this run left out
    (--only, --fixtures, --values) is not compared; one whose transform or fixture no longer exists is
    gone."""
    known = read_known(path) if pathlib.Path(path).exists() else None
    if known is None:
        print(f"\ncheck: FAILED: {path} does not exist (--write-known-losses {path} writes it)")
        return 1
    every_transform = set(T.TRANSFORMS) | set(C.TRANSFORMS)
    compared = set()
    for e in known:
        fields = e.split("\t")
        if len(fields) != 6:
            compared.add(e)     # malformed: reported as gone
            continue
        fixture, transform = fields[1:3]
        stale = transform not in every_transform or not key_exists(fixture)
        if stale or (transform in ran["transforms"] and fixture in ran["fixtures"]):
            compared.add(e)
    unexpected = sorted(current - known)
    gone = sorted(compared - current)
    print()
    if unexpected:
        print(f"check: {len(unexpected)} not in {pathlib.Path(path).name} (a regression, or a new transform's "
              f"loss: fix it, or list it with --write-known-losses):")
        for e in unexpected:
            print("  " + e.replace("\t", "  "))
    if gone:
        print(f"check: {len(gone)} now found, remove from known_losses.txt:")
        for e in gone:
            print("  " + e.replace("\t", "  "))
    if harness_errors:
        print(f"check: {len(harness_errors)} harness errors (above)")
    if unexpected or gone or harness_errors:
        print("check: FAILED")
        return 1
    print(f"check: passed ({len(current)} known losses, all still happening, nothing else)")
    return 0


# ------------------------------------------------------------------------------------------------


SELF_TEST_FIXTURE = """\
import torch.nn as nn

found = nn.BatchNorm2d(8, eps=0.0)  # expect: bn-eps-zero
not_a_bug = nn.BatchNorm2d(8, eps=1e-3)  # expect: bn-eps-zero
unmarked_bug = nn.BatchNorm2d(8, eps=-1.0)
"""


def self_test(binary):
    """--check against a fixture with a deliberately wrong expectation (line 4 marks a finding that does
    not exist) and an unmarked bug (line 5): it must fail without their entries, pass with them, and
    fail again when the list also names the finding of line 3 as lost ("now found")."""
    failures = []
    with tempfile.TemporaryDirectory(prefix="cudnnlint-metamorphic-selftest-") as tmp:
        tmp = pathlib.Path(tmp)
        fixture = tmp / "selftest.py"
        fixture.write_text(SELF_TEST_FIXTURE, encoding="utf-8")
        known = tmp / "known.txt"

        def check_with(lines):
            known.write_text("".join(l + "\n" for l in lines), encoding="utf-8")
            r = subprocess.run([sys.executable, __file__, "--cudnnlint", binary, "--fixtures", str(fixture),
                                "--values", "--only", "into_function", "--check", str(known)],
                               capture_output=True, text=True, timeout=600)
            return r.returncode, r.stdout + r.stderr

        key = os.path.relpath(fixture, REPO)
        wanted = [f"lost\t{key}\t{t}\t4\tbn-eps-zero\t{m}" for t in ("identity", "into_function") for m in MODES] + \
                 [f"new\t{key}\t{t}\t5\tbn-eps-negative\t{m}" for t in ("identity", "into_function") for m in MODES]
        rc, out = check_with([])
        if rc != 1 or "not in known.txt" not in out or "bn-eps-negative" not in out:
            failures.append(f"an empty list must fail on the lost line 4 and the new line 5 (rc {rc}):\n{out}")
        rc, out = check_with(wanted)
        if rc != 0:
            failures.append(f"the full list must pass (rc {rc}):\n{out}")
        rc, out = check_with(wanted + [f"lost\t{key}\tinto_function\t3\tbn-eps-zero\tdefault"])
        if rc != 1 or "now found, remove from known_losses.txt" not in out:
            failures.append(f"a listed loss that is found must fail (rc {rc}):\n{out}")
    for f in failures:
        print("self-test: " + f)
    print("self-test: " + ("FAILED" if failures else "passed (--check fails on an unlisted loss, an unlisted new "
                                                    "finding and a listed loss now found; passes on the exact list)"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
