"""gpu_check's framework tier against the real frameworks, on the CPU: every finding with a framework
case, on the bundled examples and the rule fixtures, is confirmed by the pinned framework with its own
message, and the KB entry quotes that message; two TensorFlow versions side by side give each its own
verdict. The interpreters come from tests/framework/make_venvs.sh (build/framework/<name>/) or
$CUDNNLINT_TORCH_PYTHON, $CUDNNLINT_TF_PYTHON, $CUDNNLINT_TF211_PYTHON; a test skips, saying why,
where its framework is not installed."""
import json
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
RULE_FIXTURES = REPO / "tests" / "fixtures" / "rules"


def interpreter(variable, venv, module, version):
    path = os.environ.get(variable) or str(REPO / "build" / "framework" / venv / "bin" / "python")
    if not Path(path).exists():
        pytest.skip(f"no interpreter with {module} {version}: run `bash tests/framework/make_venvs.sh {venv}` "
                    f"or set ${variable}")
    return path


@pytest.fixture(scope="module")
def torch_python():
    return interpreter("CUDNNLINT_TORCH_PYTHON", "torch", "torch", "2.11.0")


@pytest.fixture(scope="module")
def tf_python():
    return interpreter("CUDNNLINT_TF_PYTHON", "tensorflow", "tensorflow-cpu", "2.21.0")


@pytest.fixture(scope="module")
def tf211_python():
    return interpreter("CUDNNLINT_TF211_PYTHON", "tensorflow-2.11", "tensorflow-cpu", "2.11.1")


def framework_findings(cli, python, framework, *paths):
    out = cli.run("--gpu-check", "--gpu-check-tier", "framework", "--python", python, "--format", "json", "--no-cache",
                  *paths, check_code=1).stdout
    report = json.loads(out)
    return report, [f for f in report["findings"] if f["replay"].get("framework", {}).get("framework") == framework]


def check_confirmed(findings, framework_prefix):
    assert findings
    for f in findings:
        verdict = f["gpu_check"]
        where = f"{f['path']}:{f['line']} {f['rule']}: {verdict}"
        if f["replay"]["framework"].get("gpu") and verdict["outcome"] == "skipped":
            # A claim about the GPU path, and the pinned CPU wheel sees no GPU: skipped, saying so.
            assert "the claim is about the GPU path (cuDNN), and " + framework_prefix in verdict["reason"], where
            assert verdict["reason"].endswith("sees no GPU here"), where
            continue
        assert verdict["outcome"] == "confirmed", where
        assert verdict["tier"] == "framework" and verdict["framework"].startswith(framework_prefix), where
        assert verdict["interpreter"], where
        # A raised message is the framework's own, and the KB entry quotes it.
        if " raises " in verdict["status"]:
            assert "(the message matches KB entry " + f["kb"] + ")" in verdict["detail"], where


def test_every_torch_case_is_confirmed_by_torch_with_the_kb_message(cli, torch_python):
    report, findings = framework_findings(cli, torch_python, "torch", EXAMPLES, RULE_FIXTURES)
    check_confirmed(findings, "torch 2.11.0")
    rules = {f["rule"] for f in findings}
    assert rules >= {"bn-eps-zero", "bn-eps-negative", "bn-eps-not-finite", "conv-input-smaller-than-kernel",
                     "eps-vanishes-in-half", "loader-batch-size-divides-to-zero", "loader-batch-size-nonpositive",
                     "loader-drop-last-no-batches", "loader-last-batch-single-sample",
                     "optimizer-eps-vanishes-in-half", "torch-integer-input"}, rules
    assert "framework tier ran torch 2.11.0" in report["gpu_check"]["frameworkTier"] or \
        "ran torch 2.11.0" in report["gpu_check"]["frameworkTier"]


def test_every_tensorflow_case_is_confirmed_by_tensorflow_with_the_kb_message(cli, tf_python):
    _, findings = framework_findings(cli, tf_python, "tensorflow", EXAMPLES, RULE_FIXTURES)
    check_confirmed(findings, "tensorflow 2.21.0")
    assert {f["rule"] for f in findings} >= {"bn-eps-not-finite", "conv-input-smaller-than-kernel",
                                             "loader-batch-size-nonpositive", "loader-drop-last-no-batches",
                                             "tf-integer-input", "zero-size-batch-into-layer"}
    # Keras predict on zero samples is a CPU claim: confirmed with Keras' own error.
    assert any(f["rule"] == "zero-size-batch-into-layer" and f["gpu_check"]["outcome"] == "confirmed" and
               "UnboundLocalError" in f["gpu_check"]["status"] for f in findings)


def test_two_tensorflow_versions_each_get_their_own_verdict(cli, tf_python, tf211_python, tmp_path):
    # TensorFlow <= 2.11's fused batch norm raises eps 0 to 1.001e-5 (finite output); 2.12 on keep
    # it (NaN in training): bn-eps-zero's claim holds for one and not the other.
    source = tmp_path / "keras_bn.py"
    source.write_text("from tensorflow import keras\n\nnorm = keras.layers.BatchNormalization(epsilon=0.0)\n")
    verdicts = {}
    for python in (tf_python, tf211_python):
        _, findings = framework_findings(cli, python, "tensorflow", source)
        [zero] = [f for f in findings if f["rule"] == "bn-eps-zero"]
        verdicts[zero["gpu_check"]["framework"]] = zero["gpu_check"]
    new = verdicts["tensorflow 2.21.0, Keras 3.15.1"]
    old = verdicts["tensorflow 2.11.1, Keras 2.11.0"]
    assert new["outcome"] == "confirmed" and "output holds NaN/Inf" in new["status"]
    assert old["outcome"] == "not reproduced" and "accepts it: output finite" in old["status"]
    # The news names what the KB measured.
    assert "KB entry cuda/cudnn-bn-epsilon-zero records: " in old["detail"]


def test_the_program_holds_only_the_findings_numbers(cli, torch_python, tmp_path):
    # A tree whose strings try to become code: none of them reaches the program (the tier writes only
    # numbers and table names), and the verdict is the framework's on the numbers alone.
    source = tmp_path / "hostile.py"
    source.write_text("import torch\nfrom torch.utils.data import DataLoader\n\n"
                      "NAME = \"__import__('os').system('touch PWNED')\"\n"
                      "loader = DataLoader(range(10), batch_size=0)  # " + "x" * 200 + "\n")
    _, findings = framework_findings(cli, torch_python, "torch", source)
    [f] = findings
    assert f["gpu_check"]["outcome"] == "confirmed"
    assert "batch_size=0" in f["gpu_check"]["status"]
    assert not (tmp_path / "PWNED").exists() and not Path("PWNED").exists()


def test_doctor_lists_the_interpreter_and_its_framework(cli, torch_python):
    out = cli.run("doctor", "--python", torch_python, check_code=0).stdout
    assert f"Python:         {torch_python} (--python), Python 3." in out
    assert "torch 2.11.0" in out
