"""The cache (issue 14, part 5) through the binary: a second run is answered from the run's entry
with the same report; a changed file, header, flag or target invalidates what it must and no more;
--no-cache writes nothing; a damaged pack is a warning; concurrent runs and a small size limit stay
correct."""
import json
import os
import re
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import REPO

EXAMPLES = REPO / "examples"
FIXTURES = REPO / "tests" / "fixtures"


def age(folder, seconds=120):
    """Files a test has just written are 'racily clean' for two seconds (their stat could stay the
    same through a second change) and are hashed again on each run; a checkout's are older. Setting
    the times sets the change time to now: the wait lets that age too."""
    stamp = time.time() - seconds
    for path in [folder, *Path(folder).rglob("*")]:
        os.utime(path, (stamp, stamp))
    time.sleep(2.1)


def run(cli, *args, cwd, env=None, code=(0, 1)):
    result = subprocess.run([cli.binary, *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode in code, (result.returncode, result.stderr[-3000:])
    return result


def cache_line(result):
    match = re.search(r"; cache: (.*)$", result.stderr, re.M)
    assert match, result.stderr
    return match.group(1)


def from_cache(python_files, hits, cpp_hits=0):
    """What --timings says of a run that read `hits` Python files' entries."""
    line = f"{hits} of {python_files} Python files from the cache"
    if cpp_hits:
        line += f", {cpp_hits} C/C++ unit" + ("" if cpp_hits == 1 else "s")
    return line


def python_file_count(folder):
    """The files the Python front-end reads: modules and notebooks."""
    return len(list(folder.glob("*.py"))) + len(list(folder.glob("*.ipynb")))


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "proj"
    shutil.copytree(EXAMPLES, folder)
    age(folder)
    return folder


def test_second_run_is_answered_by_the_run_entry_with_the_same_report(cli, project):
    python_files = python_file_count(project)
    first = run(cli, "-f", "json", "--timings", ".", cwd=project)
    assert cache_line(first) == from_cache(python_files, 0)
    assert (project / ".cudnnlint_cache" / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert (project / ".cudnnlint_cache" / ".gitignore").read_text().splitlines()[-1] == "*"
    second = run(cli, "-f", "json", "--timings", ".", cwd=project)
    assert cache_line(second) == "the run's entry, no source file read"
    assert second.stdout == first.stdout
    assert json.loads(second.stdout)["findings"], "the examples have findings"
    assert second.returncode == first.returncode
    # Every format and the exit code come from the same findings.
    for fmt in ("text", "sarif", "github"):
        cold = run(cli, "-f", fmt, "--no-cache", ".", cwd=project)
        warm = run(cli, "-f", fmt, ".", cwd=project)
        assert warm.stdout == cold.stdout and warm.returncode == cold.returncode, fmt


def test_a_changed_file_is_analysed_again_and_the_others_come_from_the_cache(cli, project):
    python_files = python_file_count(project)
    run(cli, "-f", "json", ".", cwd=project)
    target = project / "torch_detector_head.py"
    text = target.read_text()
    assert "eps=" in text
    target.write_text(text + "\nextra = nn.BatchNorm2d(8, eps=0.0)\n")
    age(project)
    changed = run(cli, "-f", "json", "--timings", ".", cwd=project)
    assert cache_line(changed) == from_cache(python_files, python_files - 1, cpp_hits=1)
    fresh = run(cli, "-f", "json", "--no-cache", ".", cwd=project)
    assert changed.stdout == fresh.stdout
    assert any(f["path"].endswith("torch_detector_head.py") and f["rule"] == "bn-eps-zero"
               for f in json.loads(changed.stdout)["findings"])
    # Touched but unchanged: the bytes are hashed again, and the run's entry still answers.
    age(project, seconds=60)
    touched = run(cli, "-f", "json", "--timings", ".", cwd=project)
    assert cache_line(touched) == f"the run's entry, after hashing {python_files + 1} files whose stat changed"
    assert touched.stdout == fresh.stdout


def test_a_changed_flag_or_target_is_a_new_key(cli, project):
    python_files = python_file_count(project)
    run(cli, "-f", "json", ".", cwd=project)
    # The target and the selected rules change the findings, not the files' facts: the run's entry
    # misses, every file's entry hits, and the report is the one a run without the cache gives.
    for flags in (["--cudnn-version", "7.4"], ["--framework", "tensorflow=2.15"], ["--ignore", "bn-eps-zero"]):
        cached = run(cli, "-f", "json", "--timings", *flags, ".", cwd=project)
        assert cache_line(cached) == from_cache(python_files, python_files, cpp_hits=1), flags
        assert cached.stdout == run(cli, "-f", "json", "--no-cache", *flags, ".", cwd=project).stdout, flags
    # Flags that change Python facts miss every Python file's entry (clang's are not theirs).
    for flags in (["--full-parse"], ["--select", "loader-drop-last-no-batches"], ["--max-file-size", "100000"]):
        cached = run(cli, "-f", "json", "--timings", *flags, ".", cwd=project)
        assert cache_line(cached) == from_cache(python_files, 0, cpp_hits=1), flags
        assert cached.stdout == run(cli, "-f", "json", "--no-cache", *flags, ".", cwd=project).stdout, flags


def test_every_fixture_gives_the_same_report_from_the_cache(cli, tmp_path):
    # All fact families, through the codec: the run's entry, then each file's entry (a new target
    # makes the project step and the rules run again over the decoded facts).
    cache = tmp_path / "cache"
    for flags in ([], ["--cudnn-version", "8.9"]):
        fresh = run(cli, "-f", "json", "--no-cache", *flags, FIXTURES, cwd=REPO)
        first = run(cli, "-f", "json", "--cache-dir", cache, *flags, FIXTURES, cwd=REPO)
        second = run(cli, "-f", "json", "--cache-dir", cache, *flags, FIXTURES, cwd=REPO)
        assert len(json.loads(fresh.stdout)["findings"]) > 100
        assert first.stdout == fresh.stdout and second.stdout == fresh.stdout, flags


def test_no_cache_writes_nothing_and_the_folder_can_be_moved(cli, project, tmp_path):
    run(cli, "--no-cache", ".", cwd=project)
    assert not (project / ".cudnnlint_cache").exists()
    elsewhere = tmp_path / "elsewhere"
    env = dict(os.environ, CUDNNLINT_CACHE_DIR=str(elsewhere))
    run(cli, ".", cwd=project, env=env)
    assert (elsewhere / "pack").is_file() and (elsewhere / "index").is_file()
    assert not (project / ".cudnnlint_cache").exists()
    flag = tmp_path / "flag"
    run(cli, "--cache-dir", flag, ".", cwd=project, env=env)
    assert (flag / "pack").is_file()


def test_a_damaged_pack_is_a_warning_and_the_report_is_right(cli, project):
    fresh = run(cli, "-f", "json", "--no-cache", ".", cwd=project)
    run(cli, "-f", "json", ".", cwd=project)
    pack = project / ".cudnnlint_cache" / "pack"
    data = bytearray(pack.read_bytes())
    data[len(data) // 2] ^= 0xFF
    pack.write_bytes(bytes(data))
    for run_entry in (project / ".cudnnlint_cache" / "runs").iterdir():
        run_entry.write_bytes(b"not a run entry")
    damaged = run(cli, "-f", "json", "--timings", ".", cwd=project)
    assert json.loads(damaged.stdout)["findings"] == json.loads(fresh.stdout)["findings"]
    [warning] = json.loads(damaged.stdout)["diagnostics"]
    assert warning["message"] == ("the cache .cudnnlint_cache/pack: damaged, or not written by this user's cudnnlint "
                                  "(its tag does not verify); it is rebuilt")
    assert warning["severity"] == "warning"
    again = run(cli, "-f", "json", "--timings", ".", cwd=project)
    assert cache_line(again) == "the run's entry, no source file read"
    assert "damaged" not in again.stderr


def test_concurrent_runs_share_the_folder_safely(cli, project):
    versions = ["7.4", "8.0", "8.9", "9.1", "7.6", "9.4"]
    expected = {v: run(cli, "-f", "json", "--no-cache", "--cudnn-version", v, ".", cwd=project).stdout for v in versions}
    for _ in range(2):  # cold, then with entries other runs are rewriting
        with ThreadPoolExecutor(max_workers=len(versions)) as pool:
            results = list(pool.map(lambda v: (v, run(cli, "-f", "json", "--cudnn-version", v, ".", cwd=project)),
                                    versions))
        for version, result in results:
            assert result.stdout == expected[version], version
            assert "cache" not in result.stderr, result.stderr
    last = run(cli, "-f", "json", "--timings", "--cudnn-version", versions[0], ".", cwd=project)
    assert cache_line(last).startswith("the run's entry")


def test_the_size_limit_bounds_the_folder(cli, tmp_path):
    tree = tmp_path / "many"
    tree.mkdir()
    body = "".join(f"def helper_{i}(value_{i}):\n    return value_{i} * {i}\n\n" for i in range(300))
    for n in range(1200):
        (tree / f"module_{n}.py").write_text(f"# module {n}\n" + body)
    (tree / "model.py").write_text("import torch.nn as nn\nbn = nn.BatchNorm2d(8, eps=0.0)\n")
    age(tree)
    unbounded = tmp_path / "unbounded"
    bounded = tmp_path / "bounded"
    fresh = run(cli, "-f", "json", "--no-cache", tree, cwd=tmp_path)
    run(cli, "-f", "json", "--cache-dir", unbounded, tree, cwd=tmp_path)
    assert (unbounded / "pack").stat().st_size > 1 << 20  # the tree's entries need more than 1 MiB
    for _ in range(2):
        result = run(cli, "-f", "json", "--cache-dir", bounded, "--cache-size-limit", "1", tree, cwd=tmp_path)
        assert result.stdout == fresh.stdout
        assert (bounded / "pack").stat().st_size <= (1 << 20) * 11 // 16


CONFIG_HEADER = "#pragma once\n#define BATCH {}\n"
LAYER = """#include <cudnn.h>
#include "config.h"
void f(cudnnTensorDescriptor_t t) {
  cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, BATCH, 3, 8, 8);
}
"""
OTHER = """#include <cudnn.h>
void g(cudnnTensorDescriptor_t t) {
  cudnnSetTensor4dDescriptor(t, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 0, 8);
}
"""


def test_a_changed_header_invalidates_the_units_that_read_it(cli, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "config.h").write_text(CONFIG_HEADER.format(0))
    (src / "layer.cpp").write_text(LAYER)
    (src / "other.cpp").write_text(OTHER)
    age(src)

    def rules():
        result = run(cli, "-f", "json", "--timings", "src", cwd=tmp_path)
        return sorted((Path(f["path"]).name, f["rule"]) for f in json.loads(result.stdout)["findings"]), result

    found, first = rules()
    assert found == [("layer.cpp", "cudnn-desc-bad-dim"), ("other.cpp", "cudnn-desc-bad-dim")]
    found, second = rules()
    assert cache_line(second) == "the run's entry, no source file read" and second.stdout == first.stdout
    (src / "config.h").write_text(CONFIG_HEADER.format(4))
    age(src)
    found, third = rules()
    assert found == [("other.cpp", "cudnn-desc-bad-dim")]
    assert cache_line(third) == from_cache(0, 0, cpp_hits=1)
    assert third.stdout == run(cli, "-f", "json", "--no-cache", "src", cwd=tmp_path).stdout


def struct_fields(header_text):
    """{struct: [data members in order]} of a header's plain structs (what the codec must list)."""
    structs = {}
    for match in re.finditer(r"^struct (\w+) \{\n(.*?)^\};", header_text, re.S | re.M):
        fields = []
        body = re.sub(r"enum class \w+ \{.*?\};", "", match.group(2), flags=re.S)
        for line in body.splitlines():
            code = line.split("//")[0].strip()
            if (not code.endswith(";") or code.startswith(("enum", "static", "friend", "using")) or "operator" in code
                    or ")" in code.split("=")[0]):
                continue
            declaration = re.sub(r"<[^<>]*(<[^<>]*>[^<>]*)*>", "", code[:-1])  # template arguments hold commas
            declaration = re.sub(r"\([^()]*\)|\{[^{}]*\}", "", declaration)  # and initializers
            names = [re.sub(r"\s*=.*$", "", part).strip().split()[-1] for part in declaration.split(",")]
            fields.extend(name.lstrip("*&") for name in names)
        structs[match.group(1)] = fields
    return structs


def test_the_codec_lists_every_field_of_the_structs_it_keeps():
    # A field missing from the codec would be dropped from cached facts and findings without a word.
    codec = (REPO / "analyzer" / "cache" / "codec.cpp").read_text()
    listed = {m.group(1): [f.strip() for f in m.group(2).split(",")]
              for m in re.finditer(r"NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE\((\w+),\s*([^)]*)\)", codec)}
    checked = 0
    for header in ("facts.h", "finding.h", "location.h", "target.h"):
        for struct, fields in struct_fields((REPO / "analyzer" / "core" / header).read_text()).items():
            if struct == "GpuCheckSummary":
                continue  # a run's gpu_check summary is made after the cache, never kept
            assert struct in listed, f"{struct} ({header}) has no entry in the codec"
            assert listed[struct] == fields, struct
            checked += 1
    assert checked >= 30
    cache_structs = struct_fields((REPO / "analyzer" / "cache" / "codec.h").read_text())
    for struct in ("RunEntry", "CppEntry"):
        assert listed[struct] == cache_structs[struct], struct
    assert set(cache_structs["PythonEntry"]) == set(re.findall(r'\{"(\w+)", ', codec.split("void to_json(nlohmann::json& j, const PythonEntry& e)")[1].split("}\n")[0]))


def test_a_header_that_appears_where_clang_looked_for_it_invalidates_the_unit(cli, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "layer.cpp").write_text(LAYER)  # includes "config.h", which is not there yet
    age(src)

    def report():
        result = run(cli, "-f", "json", "--timings", "src", cwd=tmp_path)
        return json.loads(result.stdout), result

    doc, first = report()
    assert doc["findings"] == [] and "'config.h' file not found" in doc["diagnostics"][0]["message"]
    doc, second = report()
    assert cache_line(second) == "the run's entry, no source file read" and second.stdout == first.stdout
    # Elsewhere than where clang looks for it: still the cached unit.
    (tmp_path / "config.h").write_text(CONFIG_HEADER.format(0))
    doc, third = report()
    assert cache_line(third) == "the run's entry, no source file read"
    (src / "config.h").write_text(CONFIG_HEADER.format(0))
    doc, fourth = report()
    assert [f["rule"] for f in doc["findings"]] == ["cudnn-desc-bad-dim"] and doc["diagnostics"] == []
    assert cache_line(fourth) == from_cache(0, 0)
    assert fourth.stdout == run(cli, "-f", "json", "--no-cache", "src", cwd=tmp_path).stdout
