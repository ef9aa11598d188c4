"""gpu_check end to end: --gpu-check, `gpu-check report.sarif`, `doctor`, on the bundled examples,
against the real libcudnn (descriptor tier; the execution tier only where a GPU is present)."""
import json
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


@pytest.fixture(scope="module")
def environment(cli):
    doctor = cli.run("doctor", check_code=0).stdout
    if "descriptor    available" not in doctor:
        pytest.skip("no libcudnn on this machine, so gpu_check's tiers cannot run:\n" + doctor)
    return {"doctor": doctor, "gpu": "execution     available" in doctor,
            "cudnn": re.search(r"cuDNN:\s+(\d+\.\d+\.\d+)", doctor).group(1)}


def test_doctor_names_versions_and_tiers(cli):
    out = cli.run("doctor", check_code=0).stdout
    assert out.startswith("cudnnlint ")
    for label in ("cuDNN:", "CUDA runtime:", "CUDA driver:", "GPU:", "descriptor", "execution"):
        assert label in out
    # Each tier is either available or says why not.
    assert re.search(r"descriptor\s+(available|unavailable: .+)", out)
    assert re.search(r"execution\s+(available|unavailable: .+)", out)


def test_text_shows_a_verdict_under_every_finding_and_a_summary(cli, environment):
    out = cli.run("--gpu-check", EXAMPLES, check_code=1).stdout
    findings = re.findall(r"^\S+:(?:cell \d+:)?\d+:\d+: (?:error|warning|note): ", out, re.M)
    verdicts = re.findall(r"^  gpu_check: (confirmed|not reproduced|skipped): ", out, re.M)
    assert len(findings) == len(verdicts) == 16  # two of them in examples/notebook_training.ipynb
    cudnn = environment["cudnn"]
    assert f"gpu_check: confirmed: CUDNN_STATUS_BAD_PARAM (cuDNN {cudnn}, descriptor tier)" in out
    assert "skipped: not replayable: TensorFlow raises epsilon" in out
    summary = out.strip().splitlines()[-1]
    assert summary.startswith("gpu_check: ") and "descriptor tier ran (cuDNN " + cudnn in summary
    if not environment["gpu"]:
        assert "execution tier not run: " in summary
        assert "cuDNN checks epsilon only when batch norm runs, on a GPU, and the execution tier did not run" in out


def test_sarif_carries_replay_and_verdicts_and_passes_the_checker(cli, environment, sarif_check, tmp_path):
    out = tmp_path / "gpu.sarif"
    cli.run("--gpu-check", "-f", "sarif", "-o", out, EXAMPLES, check_code=1)
    sarif_check(out)
    run = json.loads(out.read_text())["runs"][0]
    summary = run["properties"]["gpuCheck"]
    assert summary["cudnnVersion"] == environment["cudnn"] and summary["descriptorTier"] == "ran"
    outcomes = {}
    for result in run["results"]:
        check = result["properties"]["gpuCheck"]
        assert check["outcome"] in ("confirmed", "not reproduced", "skipped")
        assert "replay" in result["properties"]
        outcomes.setdefault(result["ruleId"], []).append(check)
    conv = outcomes["cudnn-conv-output-empty"][0]
    assert conv == {**conv, "outcome": "confirmed", "status": "CUDNN_STATUS_BAD_PARAM", "tier": "descriptor",
                    "cudnnVersion": environment["cudnn"], "device": None}
    assert "cudnnGetConvolution2dForwardOutputDim -> CUDNN_STATUS_BAD_PARAM" in conv["detail"]


def test_gpu_check_on_an_earlier_sarif_gives_the_same_verdicts(cli, environment, tmp_path):
    plain = tmp_path / "plain.sarif"
    cli.run("-f", "sarif", "-o", plain, EXAMPLES, check_code=1)
    assert "gpuCheck" not in plain.read_text()
    text = cli.run("gpu-check", plain, check_code=0).stdout
    assert "16 results in" in text
    assert f"cudnn-conv-output-empty: confirmed: CUDNN_STATUS_BAD_PARAM (cuDNN {environment['cudnn']}, descriptor tier)" in text
    annotated = tmp_path / "annotated.sarif"
    cli.run("gpu-check", plain, "-f", "sarif", "-o", annotated, check_code=0)
    direct = tmp_path / "direct.sarif"
    cli.run("--gpu-check", "-f", "sarif", "-o", direct, EXAMPLES, check_code=1)

    def verdicts(path):
        run = json.loads(path.read_text())["runs"][0]
        return [(r["ruleId"], r["properties"]["gpuCheck"]["outcome"], r["properties"]["gpuCheck"].get("status"))
                for r in run["results"]]
    assert verdicts(annotated) == verdicts(direct)


def test_descriptor_only_tier_never_touches_the_gpu(cli, environment):
    out = cli.run("--gpu-check", "--gpu-check-tier", "descriptor", EXAMPLES, check_code=1).stdout
    assert "execution tier not run: not requested" in out


def test_without_cudnn_static_analysis_still_works_and_says_why(cli):
    out = cli.run("--gpu-check", "--cudnn-library", "/nonexistent/libcudnn.so.9", "--python", "/nonexistent/python3",
                  EXAMPLES, check_code=1).stdout
    assert "16 findings" in out
    # Two are not replayable at all: Keras's clamp and Flax (no cuDNN batch norm, no framework case).
    # Six are the framework's own behaviour (PyTorch's negative eps, never handed to cuDNN;
    # tf_input_pipeline.py's two loader findings; fp16_finetune.py's three dtype findings): the
    # framework tier would replay them, and says why it could not.
    assert out.count("gpu_check: skipped: cuDNN not loaded") == 6
    assert out.count("gpu_check: skipped: not replayable: ") == 2
    assert out.count("gpu_check: skipped: torch is not importable by /nonexistent/python3") == 6  # 2 in the notebook
    assert out.count("gpu_check: skipped: tensorflow is not importable by /nonexistent/python3") == 2
    assert "descriptor tier not run: cannot use /nonexistent/libcudnn.so.9" in out
    doctor = cli.run("doctor", "--cudnn-library", "/nonexistent/libcudnn.so.9", check_code=0).stdout
    assert "cuDNN:          not found" in doctor and "tried /nonexistent/libcudnn.so.9 (--cudnn-library)" in doctor


def test_bad_sarif_input_is_a_clear_error(cli, tmp_path):
    not_json = tmp_path / "broken.sarif"
    not_json.write_text("{ not json")
    result = cli.run("gpu-check", not_json, check_code=2)
    assert str(not_json) in result.stderr and "not valid JSON" in result.stderr
    not_sarif = tmp_path / "other.json"
    not_sarif.write_text('{"version": "2.1.0"}')
    result = cli.run("gpu-check", not_sarif, check_code=2)
    assert "not a SARIF log" in result.stderr
    missing = cli.run("gpu-check", tmp_path / "missing.sarif", check_code=2)
    assert "cannot open" in missing.stderr


def test_results_from_another_tool_are_skipped_not_fatal(cli, tmp_path):
    foreign = tmp_path / "foreign.sarif"
    foreign.write_text(json.dumps({"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "x"}}, "results": [
        {"ruleId": "X1", "message": {"text": "m"}, "locations": [{"physicalLocation": {
            "artifactLocation": {"uri": "a.py"}, "region": {"startLine": 3, "startColumn": 1}}}]}]}]}))
    out = cli.run("gpu-check", foreign, check_code=0).stdout
    assert "a.py:3:1: X1: skipped: not replayable: the result carries no properties.replay" in out


def test_a_zero_batch_from_python_is_confirmed_bad_param_by_the_real_libcudnn(cli, environment, sarif_check, tmp_path):
    """The zero-size batch built in Python (`tf.zeros([0, 8, 8, 3])` into tf.nn.conv2d) is replayed as the
    tensor descriptor TensorFlow would hand cuDNN; the real libcudnn refuses n = 0. The Keras predict
    finding fails before any layer, so it has nothing to replay and says so."""
    fixture = REPO / "tests" / "fixtures" / "rules" / "zero-size-batch-into-layer.py"
    out = tmp_path / "zero.sarif"
    cli.run("--gpu-check", "--gpu-check-tier", "descriptor", "-f", "sarif", "-o", out, fixture, check_code=1)
    sarif_check(out)
    results = json.loads(out.read_text())["runs"][0]["results"]
    by_line = {r["locations"][0]["physicalLocation"]["region"]["startLine"]: r["properties"]["gpuCheck"] for r in results}
    lines = fixture.read_text().splitlines()

    def line_of(text):
        return next(n for n, line in enumerate(lines, start=1) if text in line)

    conv = by_line[line_of("y = tf.nn.conv2d(tf.zeros([0, 8, 8, 3])")]
    assert conv["outcome"] == "confirmed" and conv["status"] == "CUDNN_STATUS_BAD_PARAM", conv
    assert conv["tier"] == "descriptor" and conv["cudnnVersion"] == environment["cudnn"]
    assert "cudnnSetTensor4dDescriptor(NHWC, float32, n=0, c=3, h=8, w=8) -> CUDNN_STATUS_BAD_PARAM" in conv["detail"]
    predict = by_line[line_of("return model.predict(np.zeros((0, 8, 8, 3)))")]
    assert predict["outcome"] == "skipped" and "no cuDNN call is made" in predict["reason"]


def shape_results_replayed(cli, sarif_check, fixture, tmp_path):
    """The shape rule's SARIF results for `fixture`, each replayed by gpu_check's descriptor tier."""
    out = tmp_path / "shapes.sarif"
    cli.run("--gpu-check", "--gpu-check-tier", "descriptor", "--select", "conv-input-smaller-than-kernel",
            "-f", "sarif", "-o", out, fixture, check_code=1)
    sarif_check(out)
    return json.loads(out.read_text())["runs"][0]["results"]


def test_a_python_shape_chain_is_confirmed_bad_param_by_the_real_libcudnn(cli, environment, sarif_check, tmp_path):
    """Each convolution a layer stack reaches with an input smaller than its kernel is replayed as the
    convolution cuDNN would get (input N, C, H, W from the chain, the layer's filter, padding, stride
    and dilation; a 1-D one with height 1); the real libcudnn's output-size query refuses every one.
    The pooling findings (PyTorch's, and Keras' in a built graph) are no cuDNN convolution: skipped,
    saying why."""
    fixture = REPO / "tests" / "fixtures" / "rules" / "conv-input-smaller-than-kernel.py"
    results = shape_results_replayed(cli, sarif_check, fixture, tmp_path)
    outcomes = [r["properties"]["gpuCheck"] for r in results]
    confirmed = [o for o in outcomes if o["outcome"] == "confirmed"]
    assert len(results) == 28 and len(confirmed) == 25, outcomes
    # The 1-D convolutions (PyTorch's Conv1d, Keras's Conv1D after an Embedding) are replayed as cuDNN
    # gets them: height 1.
    one_d = [o for o in confirmed if "height 1" in o["detail"]]
    assert len(one_d) == 2, confirmed
    for o in confirmed:
        assert o["status"] == "CUDNN_STATUS_BAD_PARAM" and o["tier"] == "descriptor", o
        assert o["cudnnVersion"] == environment["cudnn"]
    skipped = [o for o in outcomes if o["outcome"] != "confirmed"]
    assert len(skipped) == 3 and all(o["outcome"] == "skipped" and "not replayable" in o["reason"] for o in skipped), skipped


def test_a_libtorch_shape_finding_is_confirmed_bad_param_by_the_real_libcudnn(cli, environment, sarif_check, tmp_path):
    """The libtorch convolutions run on a literal-sized tensor smaller than their kernel (2-D, and a
    1-D one replayed with height 1) are refused by the real libcudnn's output-size query."""
    fixture = REPO / "tests" / "fixtures" / "cpp" / "libtorch_shapes.cpp"
    results = shape_results_replayed(cli, sarif_check, fixture, tmp_path)
    outcomes = [r["properties"]["gpuCheck"] for r in results]
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results] == [11, 16, 22]
    for o in outcomes:
        assert o["outcome"] == "confirmed" and o["status"] == "CUDNN_STATUS_BAD_PARAM", o
        assert o["cudnnVersion"] == environment["cudnn"]
