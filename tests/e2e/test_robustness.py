"""Issue 13: one bad file never takes the run down, never hangs it, and never loses the report.
Every case runs next to a good file and asserts that the good file's finding survives."""
import json
import os

import pytest

from conftest import REPO

REPO_FIXTURE_BAD_DIM = REPO / "tests" / "fixtures" / "rules" / "cudnn-desc-bad-dim.cpp"
GOOD = "import torch\nbn = torch.nn.BatchNorm2d(8, eps=-1e-5)\n"


def project(tmp_path, name, content, mode="w"):
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / "good.py").write_text(GOOD)
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


def good_survives(doc):
    return [f["rule"] for f in doc["findings"] if f["path"].endswith("good.py")] == ["bn-eps-negative"]


@pytest.mark.parametrize("full_parse", [False, True])
def test_unclosed_brackets_deeper_than_python_allows_are_skipped_not_fatal(cli, tmp_path, full_parse):
    # tree-sitter 0.20 corrupted its heap past 65,531 unclosed brackets (the run aborted).
    bad = project(tmp_path, "deep.py", "import torch\nx = torch.nn.BatchNorm2d(8, eps=" + "(" * 70000 + "0\n")
    doc, result = cli.json(*(["--full-parse"] if full_parse else []), tmp_path)
    assert good_survives(doc), result.stderr
    [note] = [d for d in doc["diagnostics"] if d["path"].endswith("deep.py")]
    assert "70001 nested brackets" in note["message"] and "not parsed" in note["message"]
    assert bad.exists()


def test_a_stack_overflow_in_clang_becomes_a_per_file_diagnostic(cli, tmp_path):
    # 200,000 nested `!` overflow clang's parser stack (clang alone crashes on 5,000).
    project(tmp_path, "unary.cpp", "int cudnnSetTensor4dDescriptor(...);\nint x = " + "!" * 200000 + "0;\n")
    doc, result = cli.json(tmp_path)
    assert good_survives(doc), result.stderr
    [note] = [d for d in doc["diagnostics"] if d["path"].endswith("unary.cpp")]
    assert note["severity"] == "error" and "clang crashed on this file (SIGSEGV" in note["message"]


def test_deep_nesting_and_template_recursion_within_clang_limits_parse(cli, tmp_path):
    # 5,000 nested `!` and r<10000>() crashed the worker threads, which lacked clang's stack handling.
    project(tmp_path, "unary.cpp", "int cudnnSetTensor4dDescriptor(...);\nint x = " + "!" * 5000 + "0;\n")
    (tmp_path / "templates.cpp").write_text(
        "template<int N> constexpr int r(){ if constexpr (N==0) return 0; else return r<N-1>()+1; }\n"
        "int cudnnSetTensor4dDescriptor(...);\nint x = r<10000>();\n")
    doc, result = cli.json(tmp_path)
    assert good_survives(doc), result.stderr
    messages = {d["path"].rsplit("/", 1)[-1]: d["message"] for d in doc["diagnostics"]}
    assert "unary.cpp" not in messages
    assert "exceeded maximum depth" in messages["templates.cpp"]


def test_an_include_of_a_fifo_does_not_hang(cli, tmp_path):
    project(tmp_path, "reads_fifo.cpp", '#include "pipe.h"\nint cudnnSetTensor4dDescriptor(...);\n')
    os.mkfifo(tmp_path / "pipe.h")
    doc, result = cli.json(tmp_path / "reads_fifo.cpp", tmp_path / "good.py")  # cli.run has a 120 s timeout
    assert good_survives(doc), result.stderr
    [note] = [d["message"] for d in doc["diagnostics"] if d["path"].endswith("reads_fifo.cpp")]
    assert "pipe.h' is not a regular file (a FIFO, device or socket): not read" in note
    # Not summarised as a missing header: no -I would help.
    assert "not found for" not in result.stderr


def test_a_translation_unit_past_its_time_limit_is_skipped_with_a_diagnostic(cli, tmp_path):
    project(tmp_path, "slow.cpp", "#include <cudnn.h>\nvoid f(cudnnTensorDescriptor_t d) {\n"
            "  cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, 3, 8, 8);\n}\n")
    doc, result = cli.json("--cpp-timeout", "0.001", tmp_path)
    assert good_survives(doc), result.stderr
    assert not any(f["path"].endswith("slow.cpp") for f in doc["findings"])
    [note] = [d for d in doc["diagnostics"] if d["path"].endswith("slow.cpp")]
    assert "still parsing this file after 0.001 s (--cpp-timeout)" in note["message"]
    doc, _ = cli.json(tmp_path)  # the default limit (60 s) leaves it alone
    assert any(f["path"].endswith("slow.cpp") for f in doc["findings"])


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_bytes_that_are_not_utf8_never_lose_the_report(cli, tmp_path, fmt):
    # A file name that is not UTF-8, and a Latin-1 header name clang repeats in its message.
    project(tmp_path, "placeholder.py", "x = 1\n")
    raw = os.path.join(os.fsencode(tmp_path), b"raw\xff\xfe.py")
    with open(raw, "wb") as f:
        f.write(GOOD.encode())
    (tmp_path / "latin.cpp").write_bytes(
        b'#include <cudnn.h>\n#include "caf\xe9.h"\nvoid f(cudnnTensorDescriptor_t d) {\n'
        b"  cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, 3, 8, 8); /* caf\xe9 */\n}\n")
    result = cli.run("-f", fmt, tmp_path)
    assert result.returncode == 1, result.stderr
    doc = json.loads(result.stdout)
    if fmt == "json":
        paths = sorted(f["path"].rsplit("/", 1)[-1] for f in doc["findings"])
        assert paths == ["good.py", "latin.cpp", "raw\ufffd\ufffd.py"]
    else:
        uris = sorted(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in doc["runs"][0]["results"])
        assert [u.rsplit("/", 1)[-1] for u in uris] == ["good.py", "latin.cpp", "raw%FF%FE.py"]


def test_gpu_check_reads_only_regular_files(cli):
    result = cli.run("gpu-check", "/dev/zero", check_code=2)
    assert "/dev/zero: cannot open the SARIF file: not a regular file" in result.stderr


@pytest.mark.parametrize("input_value, reason", [
    ([2 ** 63, 3, 8, 8], "not an int cuDNN takes"),
    ([2 ** 64 + 5, 3, 8, 8], "not an int cuDNN takes"),
    ([1e300, 3, 8, 8], "not an int cuDNN takes"),
    ([1.5, 3, 8, 8], "not an int cuDNN takes"),
    ([], "input is empty"),
])
def test_gpu_check_never_replays_a_value_cudnn_cannot_take(cli, tmp_path, input_value, reason):
    # Saturated to n = -2147483648 (or 1.5 truncated to 1), these were "confirmed: BAD_PARAM".
    sarif = tmp_path / "report.sarif"
    sarif.write_text(cli.run("-f", "sarif", REPO_FIXTURE_BAD_DIM).stdout)
    log = json.loads(sarif.read_text())
    replay = log["runs"][0]["results"][0]["properties"]["replay"]
    replay["input"] = input_value
    sarif.write_text(json.dumps(log))
    result = cli.run("gpu-check", sarif, check_code=0)
    first = result.stdout.splitlines()[0]
    assert ": skipped: " in first and reason in first, result.stdout
    assert "confirmed" not in first


def test_lone_cr_line_endings_are_line_breaks(cli, tmp_path):
    # Python reads a lone CR as a line break; tree-sitter's grammar gave a syntax error at 1:1.
    project(tmp_path, "mac.py", b"import torch\rbn = torch.nn.BatchNorm2d(8, eps=-1e-3)\r")
    doc, result = cli.json(tmp_path)
    assert good_survives(doc), result.stderr
    [mac] = [f for f in doc["findings"] if f["path"].endswith("mac.py")]
    assert (mac["rule"], mac["line"]) == ("bn-eps-negative", 2)
    assert not [d for d in doc["diagnostics"] if d["path"].endswith("mac.py")]


@pytest.mark.parametrize("value", ["-5", "0"])
def test_max_file_size_must_be_positive_as_in_the_config(cli, tmp_path, value):
    project(tmp_path, "x.py", "x = 1\n")
    result = cli.run("--max-file-size", value, tmp_path, check_code=2)
    assert "--max-file-size" in result.stderr


def test_flags_of_a_missing_file_is_an_error(cli):
    result = cli.run("flags", "/nonexistent/file.cpp", check_code=2)
    assert "/nonexistent/file.cpp: no such file" in result.stderr and result.stdout == ""


def test_a_compilation_database_that_cannot_be_read_is_named(cli, tmp_path):
    project(tmp_path, "a.cpp", "#include <cudnn.h>\nvoid f(cudnnTensorDescriptor_t d) {\n"
            "  cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, 3, 8, 8);\n}\n")
    (tmp_path / "compile_commands.json").write_text("{ not json")
    doc, result = cli.json(tmp_path)
    assert good_survives(doc) and any(f["path"].endswith("a.cpp") for f in doc["findings"])
    assert any("compile_commands.json is not a valid compilation database" in d["message"] for d in doc["diagnostics"])
    doc, _ = cli.json("-p", tmp_path / "missing", tmp_path)
    assert any("-p " in d["message"] and "no such directory" in d["message"] for d in doc["diagnostics"])


def test_a_sarif_number_beyond_double_is_a_clear_error(cli, tmp_path):
    # Found by tests/fuzz/fuzz_sarif.cpp: nlohmann's out_of_range escaped the reader (an abort).
    sarif = tmp_path / "report.sarif"
    sarif.write_text('{"runs": [{"results": [{"ruleId": "x", "properties": {"replay": {"epsilon": 1e400}}}]}]}')
    result = cli.run("gpu-check", sarif, check_code=2)
    assert "report.sarif: not valid JSON" in result.stderr


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_non_finite_epsilons_are_one_finding_each_and_the_output_stays_json(cli, tmp_path, fmt):
    # NaN was reported as negative and below 1e-5 in C++ and not at all in Python; inf nowhere.
    project(tmp_path, "nf.py", "import math\nimport torch.nn as nn\n"
                               "a = nn.BatchNorm2d(8, eps=float('nan'))\nb = nn.BatchNorm2d(8, eps=math.inf)\n"
                               "c = nn.BatchNorm2d(8, eps=1e99999)\n")
    (tmp_path / "nf.cpp").write_text(
        "#include <cmath>\n#include <limits>\nint cudnnBatchNormalizationForwardInference(void*, int, const void*, "
        "const void*, void*, const void*, void*, void*, void*, const void*, const void*, const void*, const void*, "
        "double);\nvoid f(void* p) {\n"
        "  cudnnBatchNormalizationForwardInference(p, 1, p, p, p, p, p, p, p, p, p, p, p, NAN);\n"
        "  cudnnBatchNormalizationForwardInference(p, 1, p, p, p, p, p, p, p, p, p, p, p, "
        "std::numeric_limits<double>::infinity());\n}\n")
    result = cli.run("--format", fmt, tmp_path, check_code=1)

    def no_constants(name):
        raise AssertionError(f"{name} in the {fmt} output")
    doc = json.loads(result.stdout, parse_constant=no_constants)
    if fmt == "sarif":
        found = sorted((r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].rsplit("/", 1)[-1],
                        r["locations"][0]["physicalLocation"]["region"]["startLine"], r["ruleId"])
                       for r in doc["runs"][0]["results"])
    else:
        assert good_survives(doc), result.stderr
        found = sorted((f["path"].rsplit("/", 1)[-1], f["line"], f["rule"]) for f in doc["findings"])
    assert found == [("good.py", 2, "bn-eps-negative"), ("nf.cpp", 5, "bn-eps-not-finite"),
                     ("nf.cpp", 6, "bn-eps-not-finite"), ("nf.py", 3, "bn-eps-not-finite"),
                     ("nf.py", 4, "bn-eps-not-finite"), ("nf.py", 5, "bn-eps-not-finite")]
