"""The C++/CUDA front-end through the built binary: flags from compile_commands.json or the
fallback, notes for broken translation units, and one report for a mixed tree."""
import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, full_message

CPP = REPO / "tests" / "fixtures" / "cpp"

SOURCE = """#include <cudnn.h>
void f(cudnnTensorDescriptor_t t) {
  cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, BATCH, 3, 8, 8);
}
"""


def test_missing_header_is_a_note_and_the_recovered_ast_still_reports(cli):
    doc, result = cli.json(CPP / "missing_header.cpp")
    assert result.returncode == 1
    assert [f["rule"] for f in doc["findings"]] == ["cudnn-desc-bad-dim"]
    [note] = doc["diagnostics"]
    assert "this_header_does_not_exist.h" in note["message"] and "recovered AST" in note["message"]


def test_missing_headers_are_summed_up_once_with_the_flag_that_finds_them(cli, tmp_path):
    # Three files miss a header their own tree holds in a sibling folder, two miss a library's: the
    # text report says so in two lines (with the -I for the tree's folder), the JSON keeps each file.
    project = tmp_path / "ops"
    (project / "common").mkdir(parents=True)
    (project / "kernels").mkdir()
    (project / "common" / "helper.hpp").write_text("#pragma once\nint helper();\n")
    call = "cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 8, 8)"
    for name in ("a", "b", "c"):
        (project / "kernels" / f"{name}.cpp").write_text(
            f'#include "helper.hpp"\n#include <cudnn.h>\nint {name}(cudnnTensorDescriptor_t d) {{ {call}; return helper(); }}\n')
    for name in ("d", "e"):
        (project / "kernels" / f"{name}.cpp").write_text(
            f"#include <pybind11/pybind11.h>\n#include <cudnn.h>\nvoid {name}(cudnnTensorDescriptor_t d) {{ {call}; }}\n")
    result = cli.run(project, check_code=0)
    lines = [line for line in result.stderr.splitlines() if "[input]" in line]
    assert len(lines) == 2, result.stderr
    [library] = [line for line in lines if "pybind11/pybind11.h" in line]
    assert "not found for 2 files" in library and "-p <build dir>" in library
    [tree] = [line for line in lines if "helper.hpp" in line]
    common = str(project / "common")
    assert "not found for 3 files" in tree and f"--extra-arg=-I{common}" in tree
    doc, _ = cli.json(project)
    assert len([d for d in doc["diagnostics"] if "not found" in d["message"]]) == 5
    # The flag it names finds the header: those three files parse cleanly.
    fixed = cli.run(f"--extra-arg=-I{common}", project, check_code=0)
    assert "helper.hpp" not in fixed.stderr and "pybind11/pybind11.h" in fixed.stderr


def test_files_naming_no_api_a_rule_reads_are_not_handed_to_clang(cli, tmp_path):
    # "cudnn" alone (a handle, cudnnCreate, a header that wraps the library) is no reason to run
    # clang: only the names of the APIs the rules read are (issue 12: cudnn-frontend's headers).
    project = tmp_path / "wrappers"
    project.mkdir()
    (project / "handle.cpp").write_text("#include <cudnn.h>\nvoid f() { cudnnHandle_t h; cudnnCreate(&h); }\n")
    (project / "desc.cpp").write_text(
        "#include <cudnn.h>\nvoid g(cudnnTensorDescriptor_t d) {\n"
        "  cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, 3, 8, 8);\n}\n")
    (project / "mshadow_like.cc").write_text("enum TypeFlag { kFloat32, kInt32 };\nint convolution(int kInt32);\n")
    result = cli.run("--timings", project, check_code=1)
    assert "parsed" in result.stderr
    facts = json.loads(cli.run("-f", "facts", project, check_code=1).stdout)
    assert sorted(f["path"] for f in facts["files"]) == [str(project / "desc.cpp")]


def test_cuda_file_parses_kernels_and_launches_without_errors(cli):
    doc, _ = cli.json(CPP / "kernel.cu")
    assert doc["diagnostics"] == []
    assert [(f["line"], f["rule"]) for f in doc["findings"]] == [(12, "cudnn-desc-bad-dim")]


def test_flags_come_from_compile_commands_json_when_there_is_one(cli, tmp_path):
    project = tmp_path / "proj"
    (project / "src").mkdir(parents=True)
    (project / "src" / "layer.cpp").write_text(SOURCE)
    # Without a database the macro is undefined: a note, and no value to judge.
    doc, _ = cli.json(project)
    assert doc["findings"] == []
    assert "BATCH" in doc["diagnostics"][0]["message"] and "fallback flags" in doc["diagnostics"][0]["message"]
    # With one (found upward from the file), its -D makes the batch 0.
    build = project / "build"
    build.mkdir()
    (build / "compile_commands.json").write_text(json.dumps([{
        "directory": str(build),
        "command": f"/usr/bin/c++ -DBATCH=0 -std=c++17 -I/usr/local/cuda/include -o layer.o -c {project}/src/layer.cpp",
        "file": str(project / "src" / "layer.cpp")}]))
    doc, _ = cli.json("-p", build, project)
    assert [(f["line"], f["rule"]) for f in doc["findings"]] == [(3, "cudnn-desc-bad-dim")]
    assert doc["diagnostics"] == []
    shutil.move(str(build / "compile_commands.json"), str(project / "compile_commands.json"))
    doc, _ = cli.json(project)
    assert [(f["line"], f["rule"]) for f in doc["findings"]] == [(3, "cudnn-desc-bad-dim")]
    # --extra-arg reaches clang too.
    (project / "compile_commands.json").unlink()
    doc, _ = cli.json("--extra-arg", "-DBATCH=-1", project)
    assert [f["rule"] for f in doc["findings"]] == ["cudnn-desc-bad-dim"]
    assert "= -1" in full_message(doc["findings"][0]) or "BATCH" in full_message(doc["findings"][0])


def test_parallel_workers_with_a_database_do_not_race(cli, tmp_path):
    # Each ClangTool works in its database entry's directory; with several workers that must not
    # move the process's working directory under the others.
    project = tmp_path / "p"
    (project / "src").mkdir(parents=True)
    (project / "build").mkdir()
    entries = []
    for i in range(8):
        (project / "src" / f"f{i}.cpp").write_text(SOURCE.replace("BATCH", "0"))
        entries.append({"directory": str(project / "build"), "file": f"../src/f{i}.cpp",
                        "command": f"c++ -std=c++17 -I/usr/local/cuda/include -c ../src/f{i}.cpp -o f{i}.o"})
    (project / "build" / "compile_commands.json").write_text(json.dumps(entries))
    for _ in range(3):
        doc, _ = cli.json("-j", "2", "-p", project / "build", project / "src")
        assert len(doc["findings"]) == 8, doc["diagnostics"]
    # A database naming a directory that does not exist: a note and the fallback, not an abort.
    entries[0]["directory"] = "/nonexistent/dir"
    (project / "build" / "compile_commands.json").write_text(json.dumps(entries[:1]))
    doc, result = cli.json("-p", project / "build", project / "src" / "f0.cpp")
    assert result.returncode == 1
    assert "does not exist" in doc["diagnostics"][0]["message"]


def test_local_classes_templates_and_non_utf8_cpp(cli, tmp_path):
    (tmp_path / "local.cpp").write_text(
        "#include <cudnn.h>\nvoid f(cudnnHandle_t h, cudnnTensorDescriptor_t x, void* p) {\n"
        "  struct Local { static void g(cudnnHandle_t h, cudnnTensorDescriptor_t x, void* p) {\n"
        "    cudnnBatchNormalizationForwardInference(h, CUDNN_BATCHNORM_SPATIAL, p, p, x, p, x, p, x, p, p, p, p, -2e-5);\n"
        "  } };\n}\n"
        "template <class T> void t(cudnnHandle_t h, cudnnTensorDescriptor_t x, T* p) {\n"
        "  cudnnBatchNormalizationForwardInference(h, CUDNN_BATCHNORM_SPATIAL, p, p, x, p, x, p, x, p, p, p, p, -3e-5);\n"
        "}\n")
    (tmp_path / "latin1.cpp").write_bytes(
        b"// caf\xe9\n#include <cudnn.h>\nvoid f(cudnnTensorDescriptor_t t) {\n"
        b"  cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, 3, 8, 8);\n}\n")
    doc, _ = cli.json(tmp_path)
    got = sorted((f["path"].rsplit("/", 1)[1], f["line"], f["rule"]) for f in doc["findings"])
    assert got == [("latin1.cpp", 4, "cudnn-desc-bad-dim"), ("local.cpp", 4, "bn-eps-negative"),
                   ("local.cpp", 8, "bn-eps-negative")]


def test_mixed_tree_gives_one_sarif_run_with_both_languages(cli, sarif_check, tmp_path):
    out = tmp_path / "mixed.sarif"
    cli.run("--format", "sarif", "--output", out, "--cudnn-version", "7.4", REPO / "tests" / "fixtures",
            cwd=REPO, check_code=1)
    sarif_check(out)
    log = json.loads(out.read_text())
    assert len(log["runs"]) == 1
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    assert any(u.endswith(".py") for u in uris) and any(u.endswith(".cpp") for u in uris)
    assert any(u.endswith(".cu") for u in uris)
    rules = {r["ruleId"] for r in log["runs"][0]["results"]}
    assert {"bn-eps-negative", "cudnn-desc-bad-dim", "cudnn-conv-output-empty"} <= rules


def test_provenance_of_cpp_values(cli):
    doc, _ = cli.json("--cudnn-version", "7.4", CPP / "cudnn_api.cpp")
    by_line = {f["line"]: f for f in doc["findings"]}
    header = by_line[18]["related"]
    assert any(r["path"].endswith("include/model_config.h") and r["line"] == 3 for r in header), header
    macro = by_line[14]["related"]
    assert any("BN_EPS" in r["message"] and r["line"] == 7 for r in macro), macro
    conv = [f for f in doc["findings"] if f["rule"] == "cudnn-conv-output-empty"][0]
    assert "1 + (1 + 2*0 - ((3-1)*1 + 1)) / 1 = -1 (rounding down)" in full_message(conv)
    assert len(conv["related"]) >= 2


def test_integer_convolution_data_types_are_facts_not_findings(cli):
    fixture = REPO / "tests" / "fixtures" / "cpp" / "cudnn_api.cpp"
    doc = json.loads(cli.run("--format", "facts", fixture).stdout)
    convolutions = [c for c in doc["files"][0]["convolutions"] if c.get("dtype") == "int8"]
    assert len(convolutions) == 1
    conv = convolutions[0]
    assert conv["layout"] == "NHWC"
    assert conv["filter_dtype"] == "int8"
    assert conv["compute_type"] == "int32"
    int8_inputs = [d for d in doc["files"][0]["descriptors"] if d["data_type"] == "CUDNN_DATA_INT8"]
    assert int8_inputs and int8_inputs[0]["format"] == "CUDNN_TENSOR_NHWC"
    findings, _ = cli.json(fixture)
    lines = {f["line"] for f in findings["findings"]}
    assert conv["call"]["line"] not in lines


def test_convolution_findings_carry_a_full_replay_configuration(cli):
    doc, _ = cli.json(REPO / "tests" / "fixtures" / "cpp" / "cudnn_api.cpp", "--select", "cudnn-conv-output-empty")
    replay = doc["findings"][0]["replay"]
    assert replay["op"] == "convolution" and replay["expect"] == "CUDNN_STATUS_BAD_PARAM"
    assert replay["dtype"] == "float32" and replay["layout"] == "NCHW" and replay["computeType"] == "float32"
    assert len(replay["input"]) == len(replay["filter"]) == 4
    assert replay["padding"] and replay["stride"] and replay["dilation"]
    assert "notReplayable" not in replay


LIBTORCH_FIXTURES = [CPP / "libtorch_model.cpp", CPP / "libtorch_shapes.cpp", CPP / "libtorch_loader.cpp",
                     REPO / "tests" / "fixtures" / "rules" / "torch-integer-input.cpp",
                     REPO / "tests" / "fixtures" / "rules" / "torch-conv-dtype-mismatch.cpp"]


def test_libtorch_rules_fire_without_libtorch_headers(cli):
    # No libtorch on the include path (as on most CI machines): `#include <torch/torch.h>` is
    # stood in for by cudnnlint's declarations of the API its rules read, and the report says so
    # once for all the files, not once per file.
    result = cli.run("--no-color", *LIBTORCH_FIXTURES[:3], check_code=1)
    rules = set(re.findall(r"\[([a-z0-9-]+)\] \(", result.stdout))
    assert {"bn-eps-negative", "bn-eps-zero", "torch-integer-input", "torch-conv-dtype-mismatch",
            "conv-input-smaller-than-kernel", "loader-batch-size-nonpositive"} <= rules, result.stdout
    notes = [line for line in result.stderr.splitlines() if "[input]" in line]
    assert len(notes) == 1, result.stderr
    assert "'torch/torch.h' not found for 3 files: parsed with cudnnlint's declarations of the libtorch API" in notes[0]
    assert "--extra-arg=-I<libtorch>/include" in notes[0]
    doc, _ = cli.json(*LIBTORCH_FIXTURES[:3])
    assert len(doc["diagnostics"]) == 3
    assert all(d["message"].startswith("'torch/torch.h'") and "not found: parsed with cudnnlint's declarations" in
               d["message"] for d in doc["diagnostics"]), doc["diagnostics"]


def test_real_libtorch_headers_win_over_the_stand_in(cli, tmp_path):
    # A torch/torch.h on the include path is the one clang reads: here one that declares nothing,
    # so the libtorch rules have nothing to see and no stand-in is reported.
    for header in ("torch/torch.h", "ATen/autocast_mode.h"):
        (tmp_path / "include" / header).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "include" / header).write_text("#pragma once\n")
    doc, _ = cli.json(f"--extra-arg=-I{tmp_path / 'include'}", CPP / "libtorch_model.cpp")
    assert doc["findings"] == []
    assert not any("cudnnlint's declarations" in d["message"] for d in doc["diagnostics"])


def test_libtorch_stand_in_gives_the_facts_of_the_real_headers(cli):
    # The torch PyPI wheel ships libtorch's headers (torch/include): set CUDNNLINT_LIBTORCH_INCLUDE
    # to that folder to compare. Each file takes clang ~10 s with the real headers.
    include = os.environ.get("CUDNNLINT_LIBTORCH_INCLUDE")
    if not include or not Path(include, "torch", "csrc", "api", "include", "torch", "torch.h").is_file():
        pytest.skip("set CUDNNLINT_LIBTORCH_INCLUDE to a libtorch include folder (the torch wheel's torch/include)")
    real_flags = [f"--extra-arg=-I{include}", f"--extra-arg=-I{Path(include, 'torch', 'csrc', 'api', 'include')}"]

    def facts(*args):
        doc = json.loads(cli.run("-f", "facts", *args, *LIBTORCH_FIXTURES).stdout)
        return {f["path"]: {k: v for k, v in f.items() if k != "diagnostics"} for f in doc["files"]}

    stood_in, real = facts(), facts(*real_flags)
    assert stood_in == real
    assert sum(len(f.get("normalizations", [])) + len(f.get("tensor_inputs", [])) for f in real.values()) > 0


def test_test_bodies_are_analysed_without_catch2(cli, tmp_path):
    # cudnn-frontend's samples are Catch2 test cases: without Catch2 on the include path,
    # `TEST_CASE(...) { ... }` is no function to clang and its body would go unread.
    sample = tmp_path / "bn_sample.cpp"
    sample.write_text(
        "#include <catch2/catch_test_macros.hpp>\n#include <cudnn.h>\n"
        'TEST_CASE("descriptor", "[legacy]") {\n  cudnnTensorDescriptor_t x;\n  SECTION("set") {\n'
        "    REQUIRE(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, 3, 8, 8) == 0);\n"
        "  }\n}\n")
    doc, _ = cli.json(sample)
    assert [(f["line"], f["rule"], f["related"]) for f in doc["findings"]] == [(6, "cudnn-desc-bad-dim", [])]
    [note] = doc["diagnostics"]
    assert note["message"].startswith("'catch2/catch_test_macros.hpp' not found: parsed with cudnnlint's declarations")
    assert "clang reported" not in note["message"]


def test_googletest_bodies_are_analysed_with_or_without_googletest(cli, tmp_path):
    sample = tmp_path / "bn_test.cc"
    sample.write_text(
        "#include <gtest/gtest.h>\n#include <cudnn.h>\n"
        "TEST(Descriptor, Zero) {\n  cudnnTensorDescriptor_t x;\n"
        "  EXPECT_EQ(cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 2, -3, 8, 8), 0) << \"bad\";\n}\n")
    doc, _ = cli.json(sample)
    assert [(f["line"], f["rule"]) for f in doc["findings"]] == [(5, "cudnn-desc-bad-dim")]


def test_headers_reached_through_includes_are_parsed_only_when_named(cli, tmp_path):
    # A header that a file of the run includes is read by clang within that file's translation
    # unit; on its own it is parsed only when the command line names it (cudnn-frontend's headers
    # cost minutes and gave only errors). A header nothing includes is parsed as before.
    project = tmp_path / "lib"
    (project / "include" / "lib").mkdir(parents=True)
    body = ("#pragma once\n#include <cudnn.h>\ninline void set(cudnnTensorDescriptor_t d) {\n"
            "  cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 0, 3, 8, 8);\n}\n")
    (project / "include" / "lib" / "included.h").write_text(body)
    (project / "include" / "lib" / "alone.hpp").write_text(body)
    (project / "main.cpp").write_text('#include "lib/included.h"\nint main() { return 0; }\n')
    doc, _ = cli.json(project)
    assert [f["path"].rsplit("/", 1)[-1] for f in doc["findings"]] == ["alone.hpp"]
    named, _ = cli.json(project / "include" / "lib" / "included.h", project / "main.cpp")
    assert [f["path"].rsplit("/", 1)[-1] for f in named["findings"]] == ["included.h"]


TOOLKIT = [p for p in ("/usr/local/cuda", "/usr/local/cuda-13.0") if os.path.isdir(p)]


def run_without_toolkit(cli, out, *args, env=None):
    """cudnnlint ARGS with the CUDA toolkit hidden (a tmpfs over it in a mount namespace), its JSON
    report written to OUT; skips where the namespace cannot be made."""
    if not TOOLKIT or not shutil.which("unshare"):
        pytest.skip("needs the CUDA toolkit under /usr/local/cuda and unshare(1) to hide it")
    hide = " && ".join(f"mount -t tmpfs none {p}" for p in TOOLKIT)
    quoted = " ".join(shlex.quote(str(a)) for a in args)
    script = f"{hide} && exec {cli.binary} {quoted} > {shlex.quote(str(out))}"
    hidden = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=300,
                            env=env)
    if hidden.returncode not in (0, 1) and "unshare" in hidden.stderr:
        pytest.skip(f"cannot make a mount namespace here: {hidden.stderr.strip()[:200]}")
    return hidden


def finding_keys(report):
    return sorted((f["path"], f["line"], f["column"], f["rule"], f["message"], f["detail"]) for f in report["findings"])


def test_examples_find_the_same_without_the_cuda_toolkit(cli, tmp_path):
    # A machine without the CUDA toolkit (GitHub's runners): cudnn.h is not found, cudnnlint parses
    # with its own declarations of the cuDNN API, says so, and finds the same as with the real headers.
    with_toolkit = json.loads(cli.run("--no-cache", "-f", "json", REPO / "examples").stdout)
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX")}
    hidden = run_without_toolkit(cli, tmp_path / "out.json", "--no-cache", "-f", "json", REPO / "examples", env=env)
    assert hidden.returncode == 1, hidden.stderr
    without = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    cpp = [f for f in with_toolkit["findings"] if f["path"].endswith(".cpp")]
    assert cpp and finding_keys(without) == finding_keys(with_toolkit)
    notes = [d["message"] for d in without["diagnostics"] if d["path"].endswith("cudnn_conv_block.cpp")]
    assert any(n.startswith("'cudnn.h' not found: parsed with cudnnlint's declarations") for n in notes), notes
    assert not any("cudnn.h" in d["message"] for d in with_toolkit["diagnostics"])


def test_an_nvidia_cudnn_wheel_in_the_active_environment_is_found_without_the_toolkit(cli, tmp_path):
    # pip's nvidia-cudnn wheel puts cudnn.h in site-packages/nvidia/cudnn/include, and CUDA 13's runtime
    # wheel cuda_runtime_api.h in nvidia/cu13/include: with $VIRTUAL_ENV naming such an environment
    # (here laid out from the toolkit's own headers) the real headers are read, no stand-in.
    include = Path(TOOLKIT[0] if TOOLKIT else "/usr/local/cuda") / "include"
    if not (include / "cudnn.h").is_file():
        pytest.skip(f"needs cuDNN's headers in {include} to lay out a wheel from")
    nvidia = tmp_path / "venv" / "lib" / "python3.11" / "site-packages" / "nvidia"
    shutil.copytree(include, nvidia / "cu13" / "include", ignore=shutil.ignore_patterns("cudnn*.h"))
    (nvidia / "cudnn" / "include").mkdir(parents=True)
    for header in include.glob("cudnn*.h"):
        shutil.copy2(header, nvidia / "cudnn" / "include" / header.name)
    with_toolkit = json.loads(cli.run("--no-cache", "-f", "json", REPO / "examples").stdout)
    env = dict(os.environ, VIRTUAL_ENV=str(tmp_path / "venv"))
    env.pop("CONDA_PREFIX", None)
    hidden = run_without_toolkit(cli, tmp_path / "out.json", "--no-cache", "-f", "json", REPO / "examples", env=env)
    assert hidden.returncode == 1, hidden.stderr
    from_wheel = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert finding_keys(from_wheel) == finding_keys(with_toolkit)
    assert not any("cudnn.h" in d["message"] for d in from_wheel["diagnostics"]), from_wheel["diagnostics"]
    flags = run_without_toolkit(cli, tmp_path / "flags.txt", "flags", REPO / "examples" / "cudnn_conv_block.cpp",
                                env=env)
    assert flags.returncode == 0, flags.stderr
    arguments = json.loads((tmp_path / "flags.txt").read_text(encoding="utf-8").splitlines()[0])["arguments"]
    after = [arguments[i + 1] for i, a in enumerate(arguments[:-1]) if a == "-idirafter"]
    wheel = [str((nvidia / "cudnn" / "include").resolve()), str((nvidia / "cu13" / "include").resolve())]
    assert after == wheel + ["/cudnnlint-virtual/stand-in"], arguments


SKIPPED_CALL = "cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 0, 8, 8);"


def test_cudnn_calls_all_in_skipped_branches_get_a_note_naming_the_flags_that_enable_them(cli, tmp_path):
    # darknet keeps its cuDNN code under `#ifdef CUDNN`, often inside `#ifdef GPU`: a default run analyses
    # none of it (issue 36). One note per such file names the directive and every flag the calls need.
    (tmp_path / "conv.c").write_text(
        '#include "cudnn.h"\n#ifdef GPU\nvoid gpu_only(void);\n#ifdef CUDNN\n'
        f"void setup(cudnnTensorDescriptor_t d) {{ {SKIPPED_CALL} }}\n#endif\n#endif\nint cpu(int n) {{ return n; }}\n")
    (tmp_path / "other.c").write_text(
        '#include "cudnn.h"\n#ifndef CPU_ONLY\nint x;\n#else\n'
        f"void setup(cudnnTensorDescriptor_t d) {{ {SKIPPED_CALL} }}\n#endif\n")
    (tmp_path / "active.c").write_text(  # an active call: nothing to say, though another branch is skipped
        '#include "cudnn.h"\nvoid on(cudnnTensorDescriptor_t d) { cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, '
        f'CUDNN_DATA_FLOAT, 1, 3, 8, 8); }}\n#ifdef NOPE\nvoid off(cudnnTensorDescriptor_t d) {{ {SKIPPED_CALL} }}\n#endif\n')
    doc, result = cli.json("--no-cache", ".", cwd=tmp_path)
    assert (doc["findings"], result.returncode) == ([], 0)
    notes = {d["path"]: d for d in doc["diagnostics"] if "preprocessor branch" in d["message"]}
    assert sorted(notes) == ["conv.c", "other.c"], doc["diagnostics"]
    assert notes["conv.c"]["line"] == 2
    assert ("its cuDNN call is in a preprocessor branch this build skips (`#ifdef GPU` at line 2): it was not "
            "analysed; --extra-arg=-DGPU --extra-arg=-DCUDNN analyses it") in notes["conv.c"]["message"]
    assert "(`#else` at line 4)" in notes["other.c"]["message"]
    assert "define what that condition needs with --extra-arg=-D..." in notes["other.c"]["message"]
    # The flags it names enable the code: the note goes, the finding in it comes.
    doc, _ = cli.json("--no-cache", "--extra-arg=-DGPU", "--extra-arg=-DCUDNN", "conv.c", cwd=tmp_path)
    assert [f["rule"] for f in doc["findings"]] == ["cudnn-desc-bad-dim"]
    assert not [d for d in doc["diagnostics"] if "preprocessor branch" in d["message"]]
    # The cache keeps the note with the unit's result.
    cached = [cli.json(".", cwd=tmp_path)[0] for _ in range(2)]
    assert [sorted(d["path"] for d in c["diagnostics"] if "preprocessor branch" in d["message"]) for c in cached] == \
        [["conv.c", "other.c"]] * 2
