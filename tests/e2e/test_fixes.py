"""Fixes from the KB's workarounds (README: "Fixes"): --diff shows them and writes nothing, --fix
applies only safe ones (none today), --fix --unsafe-fixes applies the others, and a second run
changes nothing. They appear in JSON and, as SARIF `fixes` that GitHub accepts, in SARIF."""
import json
import os
import subprocess

import pytest

MODEL = """import torch.nn as nn
import tensorflow as tf

EPS = 0.0  # a named constant: other layers may share it, so it is not rewritten
bn = nn.BatchNorm2d(8, eps=0)
bn2 = nn.BatchNorm2d(8, eps=-1e-5)
shared = nn.BatchNorm2d(8, eps=EPS)
k = tf.keras.layers.BatchNormalization(epsilon=1e-6)
"""
FIXED_MODEL = MODEL.replace("eps=0)", "eps=1e-5)").replace("eps=-1e-5)", "eps=1e-5)").replace(
    "epsilon=1e-6)", "epsilon=1.001e-5)")

LOADER = """import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def train():
    model = nn.Sequential(nn.Linear(16, 8), nn.BatchNorm1d(8))
    ds = TensorDataset(torch.randn(65, 16))
    loader = DataLoader(ds, batch_size=32{args})
    for (x,) in loader:
        model(x)
"""


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "model.py").write_text(MODEL)
    (tmp_path / "loader.py").write_text(LOADER.format(args=""))
    os.chmod(tmp_path / "model.py", 0o640)
    return tmp_path


def snapshot(folder):
    # The cache folder the runs make in their working directory is theirs, not the project's.
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.name != ".cudnnlint_cache"}


def test_diff_shows_the_unsafe_fixes_and_writes_nothing(cli, tree):
    before = snapshot(tree)
    quiet = cli.run("--diff", ".", cwd=tree)
    assert quiet.returncode == 0 and quiet.stdout == "", quiet.stdout
    assert "4 unsafe fixes not applied: --unsafe-fixes" in quiet.stderr, quiet.stderr
    shown = cli.run("--diff", "--unsafe-fixes", ".", cwd=tree)
    assert shown.returncode == 1, shown.stderr
    assert snapshot(tree) == before
    assert "--- a/model.py\n+++ b/model.py\n" in shown.stdout
    assert ("-bn = nn.BatchNorm2d(8, eps=0)\n-bn2 = nn.BatchNorm2d(8, eps=-1e-5)\n"
            "+bn = nn.BatchNorm2d(8, eps=1e-5)\n+bn2 = nn.BatchNorm2d(8, eps=1e-5)\n") in shown.stdout
    assert "+k = tf.keras.layers.BatchNormalization(epsilon=1.001e-5)\n" in shown.stdout
    assert "+    loader = DataLoader(ds, batch_size=32, drop_last=True)\n" in shown.stdout
    assert "\n EPS = 0.0" in shown.stdout and "\n-EPS" not in shown.stdout  # context only, never changed
    # The diff applies as it is printed.
    subprocess.run(["git", "init", "-q"], cwd=tree, check=True)
    applied = subprocess.run(["git", "apply", "-"], input=shown.stdout, text=True, cwd=tree, capture_output=True)
    assert applied.returncode == 0, applied.stderr
    assert (tree / "model.py").read_text() == FIXED_MODEL


def test_fix_applies_only_safe_fixes_and_unsafe_fixes_all_then_nothing_is_left(cli, tree):
    before = snapshot(tree)
    safe_only = cli.run("--fix", ".", cwd=tree)
    assert safe_only.returncode == 1 and snapshot(tree) == before
    assert "0 fixes applied in 0 files" in safe_only.stderr, safe_only.stderr
    fixed = cli.run("--fix", "--unsafe-fixes", ".", cwd=tree)
    assert "cudnnlint: fixed model.py:5:28 bn-eps-zero: set eps=1e-5" in fixed.stderr, fixed.stderr
    assert "4 fixes applied in 2 files" in fixed.stderr
    assert (tree / "model.py").read_text() == FIXED_MODEL
    assert "DataLoader(ds, batch_size=32, drop_last=True)" in (tree / "loader.py").read_text()
    # What remains is reported: the named constant, which no fix rewrites.
    assert fixed.returncode == 1 and "model.py:7:" in fixed.stdout and "model.py:5:" not in fixed.stdout, fixed.stdout
    assert os.stat(tree / "model.py").st_mode & 0o777 == 0o640
    assert sorted(snapshot(tree)) == ["loader.py", "model.py"], "a temporary file was left behind"
    # Idempotent: a second run changes nothing.
    after = snapshot(tree)
    again = cli.run("--fix", "--unsafe-fixes", ".", cwd=tree)
    assert "0 fixes applied in 0 files" in again.stderr and snapshot(tree) == after


@pytest.mark.parametrize("args, expected", [
    (",\n                        shuffle=True,\n                        ",
     "shuffle=True, drop_last=True,\n"),
    (", drop_last=False", "batch_size=32, drop_last=True)"),
])
def test_drop_last_is_added_after_the_last_argument_or_set(cli, tmp_path, args, expected):
    (tmp_path / "loader.py").write_text(LOADER.format(args=args))
    result = cli.run("--fix", "--unsafe-fixes", "loader.py", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert expected in (tmp_path / "loader.py").read_text()


def test_no_fix_where_a_comment_precedes_the_parenthesis(cli, tmp_path):
    (tmp_path / "loader.py").write_text(LOADER.format(args="  # the batch\n                        "))
    data, _ = cli.json("loader.py", cwd=tmp_path)
    assert [f["rule"] for f in data["findings"]] == ["loader-last-batch-single-sample"]
    assert "fix" not in data["findings"][0]


def test_fixes_in_json_and_sarif(cli, tree, sarif_check):
    data, _ = cli.json("model.py", cwd=tree)
    by_line = {f["line"]: f for f in data["findings"]}
    assert by_line[5]["fix"] == {"message": "set eps=1e-5", "applicability": "unsafe",
                                 "edits": [{"line": 5, "column": 28, "end_line": 5, "end_column": 29, "content": "1e-5"}]}
    assert "fix" not in by_line[7]
    sarif_path = tree / "out.sarif"
    cli.run("--format", "sarif", "--output", sarif_path, "model.py", cwd=tree)
    sarif_check(sarif_path)
    results = json.loads(sarif_path.read_text())["runs"][0]["results"]
    fixes = [r["fixes"] for r in results if "fixes" in r]
    assert len(fixes) == 3
    change = fixes[0][0]["artifactChanges"][0]
    assert change["artifactLocation"]["uri"] == "model.py"
    assert change["replacements"][0] == {"deletedRegion": {"startLine": 5, "startColumn": 28, "endLine": 5,
                                                           "endColumn": 29},
                                         "insertedContent": {"text": "1e-5"}}


def test_unsafe_fixes_alone_and_fix_with_diff_are_usage_errors(cli, tree):
    alone = cli.run("--unsafe-fixes", ".", cwd=tree)
    assert alone.returncode == 2 and "--unsafe-fixes goes with --fix" in alone.stderr
    both = cli.run("--fix", "--diff", ".", cwd=tree)
    assert both.returncode == 2 and "excludes" in both.stderr, both.stderr


PIPELINE = """import torch
import torchvision
from torchvision import transforms
import torchvision.transforms as T
from PIL import Image
from torchvision.transforms import Compose, PILToTensor


def predict(path):
    model = torchvision.models.resnet18()
    pipeline = transforms.Compose([transforms.Resize(256), transforms.PILToTensor()])
    short = T.Compose([T.PILToTensor(), T.CenterCrop(224)])
    bare = Compose([PILToTensor()])  # no module name to spell ConvertImageDtype with: no fix
    img = Image.open(path)
    model(pipeline(img).unsqueeze(0))
    model(short(img).unsqueeze(0))
    model(bare(img).unsqueeze(0))
    return model(transforms.PILToTensor()(img).unsqueeze(0))  # not in a pipeline: no fix
"""


def test_pil_to_tensor_in_a_pipeline_gets_convert_image_dtype_after_it(cli, tmp_path):
    (tmp_path / "predict.py").write_text(PIPELINE)
    before = json.loads(cli.run("-f", "json", "--no-cache", ".", cwd=tmp_path).stdout)
    assert [f["rule"] for f in before["findings"]] == ["torch-integer-input"] * 4
    assert [bool(f.get("fix")) for f in before["findings"]] == [True, True, False, False]
    fixed = cli.run("--fix", "--unsafe-fixes", "--no-cache", ".", cwd=tmp_path)
    assert "2 fixes applied in 1 file" in fixed.stderr, fixed.stderr
    text = (tmp_path / "predict.py").read_text()
    assert ("transforms.Compose([transforms.Resize(256), transforms.PILToTensor(), "
            "transforms.ConvertImageDtype(torch.float)])") in text
    assert "T.Compose([T.PILToTensor(), T.ConvertImageDtype(torch.float), T.CenterCrop(224)])" in text
    after = json.loads(cli.run("-f", "json", "--no-cache", ".", cwd=tmp_path).stdout)
    assert [f["line"] for f in after["findings"]] == [17, 18]
    # The edit needs the name `torch`: `import torch as th` gives no fix.
    (tmp_path / "predict.py").write_text(PIPELINE.replace("import torch\n", "import torch as th\n"))
    aliased = json.loads(cli.run("-f", "json", "--no-cache", ".", cwd=tmp_path).stdout)
    assert len(aliased["findings"]) == 4 and not any(f.get("fix") for f in aliased["findings"])
