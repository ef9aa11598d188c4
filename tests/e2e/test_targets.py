"""The target from the project (issue 12): each pin format gives the framework version and the
cuDNN it implies, and the finding names the pin's file and line; a range pin is judged at each
release it holds; flags and configuration still win; a Keras 3 tree or pin gives no clamp."""
import re

import pytest

from conftest import REPO

PINS = REPO / "tests" / "fixtures" / "pins"

# fixture: (pin file, line, torch version as the target names it, cuDNN, level of bn-eps-zero)
CASES = {
    "requirements": ("requirements.txt", 2, "PyTorch 2.11 ", "cuDNN 9.19", "error"),
    "constraints": ("constraints.txt", 2, "PyTorch 2.4.1 ", "cuDNN 9.1", "warning"),
    "requirements_dir": ("requirements/runtime.txt", 1, "PyTorch 2.9.1 ", "cuDNN 9.10.2", "warning"),
    "pyproject_pep621": ("pyproject.toml", 5, "PyTorch 2.7.1 ", "cuDNN 9.5.1", "warning"),
    "pyproject_poetry": ("pyproject.toml", 6, "PyTorch 2.5.1 ", "cuDNN 9.1", "warning"),
    "setup_py": ("setup.py", 7, "PyTorch 2.2.2 ", "cuDNN 8.9.2", "warning"),
    "setup_cfg": ("setup.cfg", 7, "PyTorch 2.3.1 ", "cuDNN 8.9.2", "warning"),
    "environment": ("environment.yml", 8, "PyTorch 2.6 ", "cuDNN 9.1", "warning"),
    "poetry_lock": ("poetry.lock", 7, "PyTorch 2.10 ", "cuDNN 9.10.2", "error"),
    "uv_lock": ("uv.lock", 5, "PyTorch 2.8 ", "cuDNN 9.10.2", "warning"),
    "pipfile_lock": ("Pipfile.lock", 7, "PyTorch 2.1.2 ", "cuDNN 8.9.2", "warning"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_pin_format_sets_the_target_and_names_its_file_and_line(cli, name):
    pin_file, line, torch, cudnn, level = CASES[name]
    doc, _ = cli.json(PINS / name, cwd=REPO)
    [finding] = doc["findings"]
    assert finding["rule"] == "bn-eps-zero" and finding["level"] == level, finding
    where = f"tests/fixtures/pins/{name}/{pin_file}:{line}"
    assert f"{torch}({where})" in finding["target"], finding["target"]
    # The torch release's own cuDNN, from rules/framework_cudnn.json, with where it came from.
    assert finding["target"].startswith(f"{cudnn} (torch "), finding["target"]
    assert "requires nvidia-cudnn-cu" in finding["target"]


def test_a_cudnn_pin_wins_over_the_framework_release(cli):
    doc, _ = cli.json(PINS / "conda_cudnn", cwd=REPO)
    [finding] = doc["findings"]
    assert finding["target"].startswith("cuDNN 8.9.2 (tests/fixtures/pins/conda_cudnn/environment.yml:4)")


def test_a_range_pin_gives_a_range_verdict_naming_both_ends(cli):
    doc, _ = cli.json(PINS / "range", cwd=REPO)
    [finding] = doc["findings"]
    target = finding["target"]
    # torch 2.9 hands eps=0 to cuDNN (NaN: warning); 2.10-2.12 refuse it themselves (error).
    assert finding["level"] == "error"
    assert "the verdict differs across torch >=2.9,<2.13 (tests/fixtures/pins/range/requirements.txt:1)" in target
    assert "at torch 2.9.1: warning; at torch 2.12.1: error" in target
    assert "fires for torch 2.9.1, torch 2.10, torch 2.11, torch 2.12.1" in target


def test_flags_and_configuration_win_over_pins(cli, tmp_path):
    doc, _ = cli.json("--framework", "torch=2.9", PINS / "requirements", cwd=REPO)
    [finding] = doc["findings"]
    assert finding["level"] == "warning" and "PyTorch 2.9 (--framework)" in finding["target"]
    assert "requirements.txt" not in finding["target"]
    doc, _ = cli.json("--cudnn-version", "9.0", PINS / "requirements", cwd=REPO)
    assert doc["findings"][0]["target"].startswith("cuDNN 9.0 (--cudnn-version)")


@pytest.mark.parametrize("name, source", [("keras3_pin", "model.py"), ("keras3_tree", "keras/src/layers/norm_test.py")])
def test_keras_3_by_pin_or_by_its_own_sources_gives_no_clamp_finding(cli, tmp_path, name, source):
    doc, _ = cli.json(PINS / name, cwd=REPO)
    assert doc["findings"] == []
    # The same code in a project that pins nothing: Keras unknown, a note about Keras 2 / TF <= 2.11.
    (tmp_path / ".git").mkdir()
    (tmp_path / "model.py").write_text((PINS / name / source).read_text())
    doc, _ = cli.json(tmp_path)
    assert [(f["rule"], f["level"]) for f in doc["findings"]] == [("bn-eps-silently-clamped", "note")]


def test_a_broken_pin_file_is_named_and_the_run_goes_on(cli, tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "pyproject.toml").write_text("[project\ndependencies = [\n")
    (tmp_path / "model.py").write_text("import torch\nbn = torch.nn.BatchNorm2d(8, eps=0)\n")
    doc, result = cli.json(tmp_path)
    assert [f["rule"] for f in doc["findings"]] == ["bn-eps-zero"]
    assert any(d["path"].endswith("pyproject.toml") and "not valid TOML" in d["message"] for d in doc["diagnostics"])


def test_a_two_framework_range_names_where_it_fires_in_a_few_words(cli, tmp_path):
    # keras >=2.3 and tensorflow >=2.2 stand for dozens of release pairs: the note counts those where
    # the finding fires instead of listing each (TensorFlow's fused batch norm raises 1e-5 to 1.001e-5).
    (tmp_path / "requirements.txt").write_text("keras>=2.3.0\ntensorflow>=2.2\n")
    (tmp_path / "model.py").write_text("from keras.layers import BatchNormalization\n\n"
                                       "bn = BatchNormalization(epsilon=1e-5)\n")
    doc, _ = cli.json(tmp_path, cwd=tmp_path)
    [finding] = doc["findings"]
    assert finding["rule"] == "bn-eps-silently-clamped"
    fires = re.search(r"fires for (\d+) of (\d+) combinations, from keras [\d.]+, tensorflow [\d.]+ to keras [\d.]+, "
                      r"tensorflow [\d.]+\)$", finding["target"])
    assert fires and 4 < int(fires.group(1)) < int(fires.group(2)), finding["target"]
    assert len(finding["target"]) < 600, finding["target"]
