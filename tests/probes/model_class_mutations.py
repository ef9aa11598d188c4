"""conv-input-smaller-than-kernel on real model classes, against real PyTorch.

Takes source trees (fetched repositories), finds their module-level `nn.Module` classes that can be
built without arguments and whose `__init__` builds an `nn.Conv1d/2d/3d` with a literal input
channel count, and for each class and each input side in SIZES writes a copy of its file with

    def _cudnnlint_probe():
        _m = <Class>()
        return _m(torch.randn(1, <C>, S, S))

appended. Each copy is linted (the rule alone), and each class is run on every side with the given
Python's torch (one process per class). One JSON
line per copy: the class, the side, cudnnlint's finding lines and what torch did. Then a summary:
findings where torch raised a size error (agreements), findings where it did not (false
positives), and size errors without a finding (misses; expected where layers come from helper
functions or loops). Copies that cannot be imported (missing dependencies) are counted apart.

    python3 tests/probes/model_class_mutations.py --cudnnlint build/cudnnlint --python /path/to/torch/python TREE...

Writes next to each source file and removes the copy afterwards. Not part of CI.
"""
import argparse
import ast
import json
import os
import pathlib
import subprocess
import sys

SIZES = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32]
SIZE_ERRORS = ("Kernel size can't be greater than actual input size", "Output size is too small")


def candidates(roots):
    for root in roots:
        for path in sorted(pathlib.Path(root).rglob("*.py")):
            try:
                tree = ast.parse(path.read_text(encoding="utf-8"))
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            for node in tree.body:
                if not isinstance(node, ast.ClassDef):
                    continue
                if not any(ast.unparse(b) in ("nn.Module", "torch.nn.Module", "Module") for b in node.bases):
                    continue
                members = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef)}
                init, forward = members.get("__init__"), members.get("forward")
                if init is None or forward is None:
                    continue
                a = init.args
                if len(a.args) - 1 > len(a.defaults) or any(d is None for d in a.kw_defaults):
                    continue
                for n in ast.walk(init):
                    if (isinstance(n, ast.Call) and ast.unparse(n.func).split(".")[-1] in ("Conv1d", "Conv2d", "Conv3d")
                            and n.args and isinstance(n.args[0], ast.Constant) and isinstance(n.args[0].value, int)):
                        yield path, node.name, int(ast.unparse(n.func)[-2]), n.args[0].value
                        break


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cudnnlint", required=True)
    parser.add_argument("--python", default=sys.executable, help="a Python with torch")
    parser.add_argument("trees", nargs="+")
    args = parser.parse_args()
    totals = {"copies": 0, "agree": 0, "false_positive": 0, "miss": 0, "clean": 0, "not_runnable": 0}
    for path, cls, dims, channels in candidates(args.trees):
        source = path.read_text(encoding="utf-8")
        header = "" if "\nimport torch\n" in "\n" + source else "import torch\n"
        # Linted with literal sizes, one copy per side; run once per class, every side in one process.
        findings = {}
        for side in SIZES:
            shape = ", ".join(["1", str(channels)] + [str(side)] * dims)
            copy = path.with_name(f"_cudnnlint_probe_{cls}_{side}.py")
            copy.write_text(header + source + f"\n\n\ndef _cudnnlint_probe():\n    _m = {cls}()\n"
                            f"    return _m(torch.randn({shape}))\n", encoding="utf-8")
            try:
                lint = subprocess.run([args.cudnnlint, "-f", "json", "--select", "conv-input-smaller-than-kernel",
                                       str(copy)], capture_output=True, text=True)
                findings[side] = [f["line"] for f in json.loads(lint.stdout)["findings"]]
            finally:
                copy.unlink()
        copy = path.with_name(f"_cudnnlint_probe_{cls}.py")
        spatial = ", ".join(["side"] * dims)
        copy.write_text(header + source + f"\n\n\ndef _cudnnlint_probe(side):\n    _m = {cls}()\n"
                        f"    return _m(torch.randn(1, {channels}, {spatial}))\n", encoding="utf-8")
        # A module of a package runs as one (its relative imports need it); others by path. Only the
        # package root goes on the path: a package's own folder may shadow the standard library
        # (timm/layers/typing.py).
        package_root = copy.parent
        while (package_root / "__init__.py").exists():
            package_root = package_root.parent
        if package_root != copy.parent:
            module = ".".join(copy.relative_to(package_root).with_suffix("").parts)
            load = f"g = runpy.run_module({module!r}, run_name='_probe')\n"
        else:
            load = f"g = runpy.run_path({str(copy)!r}, run_name='_probe')\n"
        code = ("import json, runpy, sys\nsys.argv = ['probe']\n" + load +
                f"for side in {SIZES!r}:\n"
                "    try:\n        g['_cudnnlint_probe'](side)\n        said = 'OK'\n"
                "    except Exception as e:\n        said = 'RAISE ' + type(e).__name__ + ' ' + str(e).splitlines()[0]\n"
                "    print(json.dumps([side, said]), flush=True)\n")
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(package_root), *args.trees, os.environ.get("PYTHONPATH", "")]))
        said = {}
        try:
            run = subprocess.run([args.python, "-c", code], capture_output=True, text=True, timeout=600,
                                 cwd=str(package_root), env=env)
            for line in run.stdout.splitlines():
                if line.startswith("["):
                    side, text = json.loads(line)
                    said[side] = text
            failure = "NOT RUNNABLE " + (run.stderr.strip().splitlines() or [""])[-1]
        except subprocess.TimeoutExpired:
            failure = "NOT RUNNABLE timeout"
        finally:
            copy.unlink()
        for side in SIZES:
            torch_said = said.get(side, failure)
            size_error = torch_said.startswith("RAISE") and any(m in torch_said for m in SIZE_ERRORS)
            totals["copies"] += 1
            if torch_said.startswith("NOT RUNNABLE"):
                verdict = "not_runnable"
            elif findings[side]:
                verdict = "agree" if size_error else "false_positive"
            else:
                verdict = "miss" if size_error else "clean"
            totals[verdict] += 1
            print(json.dumps({"file": str(path), "class": cls, "side": side, "findings": findings[side],
                              "torch": torch_said[:200], "verdict": verdict}), flush=True)
    print(json.dumps(totals))


if __name__ == "__main__":
    main()
