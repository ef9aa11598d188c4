"""`cudnnlint triage LOG [PATH...]`: from a crash log to the code.

Seeds 002-004's own text against fixture trees that reproduce their layout, the real logs of
tests/fixtures/triage/real (each with its source), and bad input."""
import json
import pathlib
import subprocess

import pytest

from conftest import REPO

TRIAGE = REPO / "tests" / "fixtures" / "triage"
REAL = TRIAGE / "real"
MANIFEST = json.loads((REAL / "MANIFEST.json").read_text(encoding="utf-8"))


def triage_json(cli, *args, cwd=None):
    result = cli.run("triage", *args, "-f", "json", "--no-cache", cwd=cwd)
    assert result.returncode == 0, (result.returncode, result.stderr[-2000:])
    return json.loads(result.stdout)


def failing_frame(report):
    mapped = [f for f in report["frames"] if f["file"]]
    return mapped[-1] if mapped else None


# ---- The seeds' logs


def test_seed_002_bad_param_points_at_the_integer_input(cli):
    seed = TRIAGE / "seed002"
    report = triage_json(cli, seed / "seed002.log", seed / "tree")
    assert report["candidates"][0]["id"] == "cuda/cudnn-status-bad-param"
    frame = failing_frame(report)
    assert frame["file"].endswith("models/int_input.py") and frame["line"] == 10
    # The keras frame lies in dist-packages: a library, not mapped.
    library = [f for f in report["frames"] if "dist-packages" in f["path"]]
    assert library and library[0]["library"] and library[0]["file"] is None
    assert report["explained"]
    top = report["findings"][0]
    assert top["rule"] == "tf-integer-input-to-conv" or top["kb"] == "tensorflow/integer-input-to-conv", top
    assert any("failing frame's file" in r for r in top["triage"]["reasons"]), top["triage"]


def test_seed_003_zero_batch_ranks_its_entry_first_through_the_finding(cli):
    seed = TRIAGE / "seed003"
    report = triage_json(cli, seed / "seed003.log", seed / "tree")
    first = report["candidates"][0]
    assert first["id"] == "tensorflow/zero-size-batch-into-cudnn-op", report["candidates"][:3]
    assert first["raised_by"], first  # the log alone says only BAD_PARAM: the finding decided
    frame = failing_frame(report)
    # A Windows path from another machine, matched by its last two components.
    assert frame["path"].startswith("C:\\") and frame["file"].endswith("segmentation/zero_batch.py")
    assert frame["components_matched"] == 2 and frame["line"] == 10
    assert report["explained"]
    assert report["findings"][0]["kb"] == "tensorflow/zero-size-batch-into-cudnn-op"


def test_seed_004_follows_the_chain_to_the_decoder_conv_not_the_teardown(cli):
    seed = TRIAGE / "seed004"
    report = triage_json(cli, seed / "seed004.log", seed / "tree")
    assert report["candidates"][0]["id"] == "cuda/cudnn-execution-failed-nonfinite-input"
    primary = report["failures"][report["primary_failure"]]
    assert "CUDNN_STATUS_EXECUTION_FAILED" in primary["text"]
    assert any("aftermath" in note for note in report["notes"]), report["notes"]
    assert any(c["id"] == "cuda/cuda-sticky-error-aftermath" for c in report["candidates"])
    frame = failing_frame(report)
    assert frame["file"].endswith("ocr/models/decoder/fpn_decoder.py") and frame["line"] == 68
    assert frame["code"] == "return self.fusion(fused)"
    assert all("optimizer.py" not in f["path"] for f in report["frames"])
    # Nothing in the tree explains it: the run-time checks come instead.
    assert not report["explained"]
    assert report["workarounds_kind"] == "run-time checks and workarounds"
    hows = "\n".join(w["how"] + w["action"] for w in report["workarounds"])
    for check in ("CUDA_LAUNCH_BLOCKING=1", "detect_anomaly", "isfinite"):
        assert check in hows, check


def test_seed_004_text_report(cli):
    seed = TRIAGE / "seed004"
    result = cli.run("triage", seed / "seed004.log", seed / "tree", "--no-cache", check_code=0)
    out = result.stdout
    assert "Failure (log line 1): RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED" in out
    assert "  > .../ocr/models/decoder/fpn_decoder.py:68 in forward  ->  " in out
    assert "(a library: not in the tree)" not in out or ".../lightning" not in out
    assert "Nothing the analysis found in the code explains this failure." in out
    assert "CUDA_LAUNCH_BLOCKING=1" in out


def test_seed_003_sarif_has_the_log_as_an_artifact_with_the_matched_region(cli, sarif_check, tmp_path):
    seed = TRIAGE / "seed003"
    out = tmp_path / "triage.sarif"
    cli.run("triage", seed / "seed003.log", seed / "tree", "-f", "sarif", "-o", out, "--no-cache", check_code=0)
    sarif_check(out)
    run = json.loads(out.read_text())["runs"][0]
    artifact = run["artifacts"][-1]
    assert artifact["location"]["uri"].endswith("seed003/seed003.log")
    assert artifact["length"] == (seed / "seed003.log").stat().st_size
    assert run["results"], "the finding that explains the failure"
    log_locations = [r for r in run["results"][0]["relatedLocations"]
                     if r["physicalLocation"]["artifactLocation"].get("index") == len(run["artifacts"]) - 1]
    assert log_locations and log_locations[0]["physicalLocation"]["region"]["startLine"] == 6
    assert run["properties"]["triage"]["candidates"][0]["id"] == "tensorflow/zero-size-batch-into-cudnn-op"


def test_log_from_standard_input(cli):
    seed = TRIAGE / "seed004"
    result = subprocess.run([cli.binary, "triage", "-", str(seed / "tree"), "-f", "json", "--no-cache"],
                            input=(seed / "seed004.log").read_text(), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["log"]["name"] == "<stdin>"
    assert report["candidates"][0]["id"] == "cuda/cudnn-execution-failed-nonfinite-input"


# ---- Real logs recorded on a GPU (tests/fixtures/triage/h200: NVIDIA H200, torch 2.11.0+cu130)


@pytest.mark.parametrize("log, line, code", [
    ("async.log", 34, "loss.backward()"),  # the assert surfaced at the next call that checked
    ("blocking.log", 32, "loss = F.cross_entropy(logits, labels)"),  # CUDA_LAUNCH_BLOCKING=1: at the loss
])
def test_device_side_assert_is_the_first_failure_and_the_cuda_error_its_aftermath(cli, log, line, code):
    h200 = TRIAGE / "h200"
    report = triage_json(cli, h200 / log, h200 / "tree")
    assert report["candidates"][0]["id"] == "pytorch/class-target-out-of-range"
    primary = report["failures"][report["primary_failure"]]
    assert "Assertion `t >= 0 && t < n_classes` failed." in primary["text"] and primary["repeats"] == 2
    assert any("aftermath" in n for n in report["notes"]) and any("where it surfaced" in n for n in report["notes"])
    frame = failing_frame(report)
    assert frame["file"].endswith("h200/tree/train.py") and frame["line"] == line and frame["code"] == code
    assert frame["drift"] == ""
    hows = "\n".join(w["how"] for w in report["workarounds"])
    assert "CUDA_LAUNCH_BLOCKING=1" in hows


def test_the_unreduced_loss_kernels_assert_names_the_class_target_entry(cli):
    # reduction='none' asserts `cur_target >= 0 && cur_target < n_classes` (measured, H200), not `t >= 0 ...`.
    h200 = TRIAGE / "h200"
    report = triage_json(cli, h200 / "no-reduce.log", h200 / "tree")
    assert report["candidates"][0]["id"] == "pytorch/class-target-out-of-range"


# ---- Real logs from public issues


@pytest.mark.parametrize("case", MANIFEST["cases"], ids=lambda c: c["log"][:2])
def test_real_log_gets_its_expected_entry(cli, case, tmp_path):
    report = triage_json(cli, REAL / case["log"], tmp_path)  # no tree: the log alone decides
    top = report["candidates"][0]["id"] if report["candidates"] else None
    if case.get("known_miss"):
        assert top != case["expected"], f"{case['log']} now ranks {top} first: take known_miss out of MANIFEST.json"
    else:
        assert top == case["expected"], (case["log"], case["source"], [c["id"] for c in report["candidates"][:3]])


def test_real_log_hit_rate(cli, tmp_path, capsys):
    hits = 0
    for case in MANIFEST["cases"]:
        report = triage_json(cli, REAL / case["log"], tmp_path)
        top = report["candidates"][0]["id"] if report["candidates"] else None
        hits += top is not None and top == case["expected"]
    total = len(MANIFEST["cases"])
    with capsys.disabled():
        print(f"\n[triage] real logs: {hits} of {total} rank the expected KB entry first ({100 * hits / total:.0f}%)")
    assert hits == sum(1 for c in MANIFEST["cases"] if c["expected"] and not c.get("known_miss"))


# ---- Bad input


def test_empty_log_says_so(cli, tmp_path):
    log = tmp_path / "empty.log"
    log.write_bytes(b"")
    result = cli.run("triage", log, tmp_path, "--no-cache", check_code=0)
    assert "The log is empty" in result.stdout


def test_binary_log_says_so(cli, tmp_path):
    log = tmp_path / "core.bin"
    log.write_bytes(bytes(range(256)) * 64)
    result = cli.run("triage", log, tmp_path, "--no-cache", check_code=0)
    assert "not a text log (a NUL byte at offset 0" in result.stdout


def test_log_with_no_match_says_so(cli, tmp_path):
    log = tmp_path / "fine.log"
    log.write_text("epoch 1/10 loss=0.93\nepoch 2/10 loss=0.71\nValueError: could not parse the config\n")
    result = cli.run("triage", log, tmp_path, "--no-cache", check_code=0)
    assert "No failure in the log matches a knowledge-base entry." in result.stdout
    assert "log line 3: ValueError: could not parse the config" in result.stdout


def test_100_mb_log_is_streamed_in_bounded_memory(cli, tmp_path):
    log = tmp_path / "big.log"
    line = b"step 123456 | loss 0.4321 | lr 1.0e-04 | grad_norm 3.21 | throughput 812.5 img/s\n"
    block = line * 4096
    with log.open("wb") as out:
        written = 0
        while written < 100 * 1024 * 1024:
            out.write(block)
            written += len(block)
        out.write(b"x" * (8 << 20) + b"\n")  # one 8 MiB line: cut, not held
        out.write(b"RuntimeError: cuDNN error: CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a "
                  b"non-contiguous input.\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    out = tmp_path / "report.json"
    # A wrapper process of its own, so that its children's peak RSS is cudnnlint's alone.
    measure = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:]); "
               "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    result = subprocess.run(["python3", "-c", measure, str(cli.binary), "triage", str(log), str(tree), "-f", "json",
                             "--no-cache", "-o", str(out)], capture_output=True, text=True, timeout=300)
    code, peak_kib = map(int, result.stdout.split())
    assert code == 0, result.stderr
    report = json.loads(out.read_text())
    assert report["log"]["bytes"] > 100 * 1024 * 1024
    assert report["log"]["lines_cut"] == 1
    assert report["candidates"][0]["id"] == "cuda/cudnn-status-not-supported"
    # The log is 108 MiB; the process never holds it.
    assert peak_kib < 150 * 1024, f"peak RSS {peak_kib} KiB"


def test_unreadable_log_and_usage_errors_exit_2(cli, tmp_path):
    missing = cli.run("triage", tmp_path / "nope.log", tmp_path)
    assert missing.returncode == 2 and "nope.log: cannot read the log" in missing.stderr
    directory = cli.run("triage", tmp_path, tmp_path)
    assert directory.returncode == 2 and "is a directory, not a log" in directory.stderr
    assert cli.run("triage").returncode == 2
    log = tmp_path / "x.log"
    log.write_text("RuntimeError: CUDNN_STATUS_BAD_PARAM\n")
    wrong = cli.run("triage", log, tmp_path, "-f", "github")
    assert wrong.returncode == 2 and "triage writes text, json or sarif" in wrong.stderr


BN_TRACEBACK = """Traceback (most recent call last):
  File "/home/u/proj/train.py", line 42, in <module>
    out = model(x)
  File "/usr/lib/python3/dist-packages/torch/nn/modules/module.py", line 1736, in _call_impl
    return forward_call(*args, **kwargs)
  File "/home/u/proj/model.py", line 17, in forward
    x = self.bn(x)
  File "/usr/lib/python3/dist-packages/torch/nn/modules/batchnorm.py", line 193, in forward
    return F.batch_norm(
  File "/usr/lib/python3/dist-packages/torch/nn/functional.py", line 2817, in batch_norm
    return torch.batch_norm(
RuntimeError: cuDNN error: CUDNN_STATUS_BAD_PARAM
"""


def test_library_frames_are_evidence_for_the_entries_they_name(cli, tmp_path):
    # A bare BAD_PARAM matches many entries alike by its status; the library frames (batchnorm.py,
    # F.batch_norm) say it came from batch norm: the batch-norm entries rank above the convolution one.
    log = tmp_path / "job.log"
    log.write_text(BN_TRACEBACK)
    report = triage_json(cli, log, tmp_path)
    ids = [c["id"] for c in report["candidates"]]
    conv = ids.index("cuda/cudnn-conv-output-size-nonpositive")
    for bn in ("cuda/cudnn-bn-epsilon-negative", "cuda/cudnn-bn-epsilon-too-small"):
        assert ids.index(bn) < conv, ids
        entry = report["candidates"][ids.index(bn)]
        assert entry["raised_by"] == ["a batch-norm library frame (functional.py:2817 in batch_norm)"], entry
    assert report["candidates"][conv]["raised_by"] == []
    # A frame of the user's own code is no such evidence.
    log.write_text(BN_TRACEBACK.replace("/usr/lib/python3/dist-packages/torch/nn/", "/home/u/proj/vendored/"))
    report = triage_json(cli, log, tmp_path)
    assert all(c["raised_by"] == [] for c in report["candidates"]), report["candidates"]
