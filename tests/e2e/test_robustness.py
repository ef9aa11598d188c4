"""Issue 13: one bad file never takes the run down, never hangs it, and never loses the report.
Every case runs next to a good file and asserts that the good file's finding survives."""
import json
import os

import pytest

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
    assert any("pipe.h" in d["message"] for d in doc["diagnostics"])


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
