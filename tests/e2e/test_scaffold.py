"""rules/scaffold.py writes a rule that compiles against its registry row, a KB stub that passes
the KB's own validation, and a fixture; it refuses to overwrite anything."""
import shutil
import subprocess
import sys

import pytest

from conftest import REPO


@pytest.fixture
def repo_copy(tmp_path):
    for relative in ("rules/rules.def", "rules/rule.h", "kb/schema.json", "kb/validate.py"):
        target = tmp_path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / relative, target)
    return tmp_path


def scaffold(root, *args):
    return subprocess.run([sys.executable, str(REPO / "rules" / "scaffold.py"), *args, "--root", str(root)],
                          capture_output=True, text=True)


def test_scaffold_writes_a_rule_that_compiles_a_valid_kb_stub_and_a_fixture(repo_copy):
    result = scaffold(repo_copy, "loader-batch-size-zero", "loader", "pytorch/dataloader-batch-size-zero", "Error",
                      "DataLoader batch_size 0: no batch at all")
    assert result.returncode == 0, result.stderr
    code = repo_copy / "rules" / "loader" / "loader-batch-size-zero.cpp"
    assert "void check_LoaderBatchSizeZero(const RuleInput& input" in code.read_text()
    row = repo_copy / "rules" / "rules.def"
    assert 'CUDNNLINT_RULE(LoaderBatchSizeZero, "loader-batch-size-zero", loader,' in row.read_text()
    assert (repo_copy / "tests" / "fixtures" / "rules" / "loader-batch-size-zero.py").exists()
    # The KB stub passes the same validation as every entry (schema and cross-checks).
    validate = subprocess.run([sys.executable, str(repo_copy / "kb" / "validate.py"), str(repo_copy / "kb")],
                              capture_output=True, text=True)
    assert validate.returncode == 0, validate.stdout + validate.stderr
    # The rule compiles against the registry with its row (the X-macro declares check_<Name>).
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.skip("g++ not found: cannot compile the scaffolded rule")
    compiled = subprocess.run([gxx, "-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
                               f"-I{repo_copy}", f"-I{REPO / 'analyzer'}", str(code)], capture_output=True, text=True)
    assert compiled.returncode == 0, compiled.stderr


def test_scaffold_refuses_to_overwrite_and_rejects_malformed_ids(repo_copy):
    assert scaffold(repo_copy, "dtype-half-eps", "dtype", "cuda/half-eps", "Warning", "x").returncode == 0
    again = scaffold(repo_copy, "dtype-half-eps", "dtype", "cuda/half-eps", "Warning", "x")
    assert again.returncode == 1 and "already in rules/rules.def" in again.stderr
    bad = scaffold(repo_copy, "NotKebab", "dtype", "cuda/x", "Loud", "x")
    assert bad.returncode == 1
    assert "kebab-case" in bad.stderr and "level 'Loud'" in bad.stderr
    assert scaffold(repo_copy, "only-two").returncode == 2
