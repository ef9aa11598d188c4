"""The pre-commit hooks of .pre-commit-hooks.yaml, run by the real pre-commit (pinned in
requirements.txt) with `pre-commit try-repo` against this checkout: they block a commit on a
finding, pass a clean one, see only staged files, honour the repository's configuration and skip
files they do not analyse. Each test runs for both hooks:
  - cudnnlint-system, the cudnnlint on PATH (the binary under test);
  - cudnnlint (`language: python`), which pre-commit builds from this checkout with
    `pip install .` into its own environment, offline, from the wheelhouse ./setup.sh fills
    (PIP_NO_INDEX, PIP_FIND_LINKS). That environment is built once per session (minutes)."""
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from conftest import REPO

PRE_COMMIT = pathlib.Path(sys.executable).with_name("pre-commit")
WHEELHOUSE = REPO / "build" / "wheelhouse"


class Project:
    def __init__(self, root, env, hook_id, config=None):
        self.root = root
        self.env = env
        self.hook_id = hook_id
        self.config = config  # a .pre-commit-config.yaml naming a snapshot of this checkout

    def stage(self):
        subprocess.run(["git", "add", "-A"], cwd=self.root, check=True, env=self.env)

    def hook(self, *files):
        """Runs the hook on FILES, or on the staged files when none are named."""
        if self.config:
            args = [str(PRE_COMMIT), "run", "-c", str(self.config), self.hook_id]
        else:
            args = [str(PRE_COMMIT), "try-repo", str(REPO), self.hook_id]
        args += ["--files", *files] if files else []
        return subprocess.run(args, cwd=self.root, capture_output=True, text=True, env=self.env, timeout=1500)


def git(*args, cwd, env=None):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout.strip()


@pytest.fixture(scope="session")
def python_hook(tmp_path_factory):
    """(pre-commit home, config) for the `language: python` hook, shared by its tests: the hook's
    environment, a build of this checkout, is made by the first test and reused by the others.
    `try-repo` would build it again for every call (it keeps no store), so the config names a
    snapshot of this checkout as CI sees it: tracked and untracked files that git does not ignore."""
    if not any(WHEELHOUSE.glob(".complete-*")):
        pytest.skip(f"{WHEELHOUSE} is not filled: ./setup.sh downloads the build backend and the grammar there")
    base = tmp_path_factory.mktemp("pre-commit-python-hook")
    snapshot = base / "cudnnlint"
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=REPO).split("\0")
    for name in filter(None, listed):
        source = REPO / name
        if source.is_file():
            (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snapshot / name)
    env = base_env(base)
    git("init", "-q", cwd=snapshot)
    git("add", "-A", cwd=snapshot, env=env)
    git("commit", "-q", "-m", "snapshot", cwd=snapshot, env=env)
    config = base / "pre-commit-config.yaml"
    config.write_text(f"repos:\n- repo: {snapshot}\n  rev: {git('rev-parse', 'HEAD', cwd=snapshot)}\n"
                      "  hooks:\n  - id: cudnnlint\n")
    return base / "home", config


def base_env(home):
    return dict(os.environ, PRE_COMMIT_HOME=str(home), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
                GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")


def python_hook_env(home):
    # No cudnnlint on PATH: the hook must run the one it built. pip works offline.
    env = base_env(home)
    env.update(PIP_NO_INDEX="1", PIP_FIND_LINKS=str(WHEELHOUSE), PIP_DISABLE_PIP_VERSION_CHECK="1")
    env["PATH"] = os.pathsep.join(d for d in os.environ.get("PATH", "").split(os.pathsep)
                                  if not (pathlib.Path(d) / "cudnnlint").exists())
    return env


def make_project(hook_id, request, tmp_path, cli):
    if not PRE_COMMIT.exists():
        pytest.skip(f"{PRE_COMMIT} not found: ./setup.sh installs pre-commit from requirements.txt")
    config = None
    if hook_id == "cudnnlint-system":
        # The cudnnlint on PATH: the one under test.
        env = base_env(tmp_path / "cache")
        env["PATH"] = str(pathlib.Path(cli.binary).parent) + os.pathsep + os.environ.get("PATH", "")
    else:
        home, config = request.getfixturevalue("python_hook")
        env = python_hook_env(home)
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    return Project(root, env, hook_id, config)


@pytest.fixture(params=["cudnnlint-system", pytest.param("cudnnlint", marks=pytest.mark.packaging)])
def project(request, tmp_path, cli):
    return make_project(request.param, request, tmp_path, cli)


@pytest.mark.packaging
def test_the_python_hook_runs_the_cudnnlint_it_built(request, tmp_path, cli):
    project = make_project("cudnnlint", request, tmp_path, cli)
    (project.root / "bad.py").write_text("import torch.nn as nn\nbn = nn.BatchNorm2d(8, eps=0.0)\n")
    project.stage()
    result = project.hook("bad.py")
    assert result.returncode == 1 and "[bn-eps-zero]" in result.stdout, result.stdout + result.stderr
    home = pathlib.Path(project.env["PRE_COMMIT_HOME"])
    built = list(home.glob("repo*/py_env-*/bin/cudnnlint"))
    assert len(built) == 1, sorted(str(p) for p in home.rglob("cudnnlint"))
    version = subprocess.run([str(built[0]), "--version"], capture_output=True, text=True, check=True).stdout
    assert "share/cudnnlint/clang" in version and "tree-sitter-python" in version, version


def test_the_hook_blocks_a_finding_and_passes_clean_code(project):
    (project.root / "bad.py").write_text("import torch.nn as nn\nbn = nn.BatchNorm2d(8, eps=-1e-5)\n")
    (project.root / "good.py").write_text("import torch.nn as nn\nbn = nn.BatchNorm2d(8)\n")
    project.stage()
    blocked = project.hook("bad.py", "good.py")
    assert blocked.returncode == 1, blocked.stdout + blocked.stderr
    assert "bad.py:2:" in blocked.stdout and "[bn-eps-negative]" in blocked.stdout
    passed = project.hook("good.py")
    assert passed.returncode == 0 and "Passed" in passed.stdout, passed.stdout + passed.stderr


def test_without_files_the_hook_sees_only_the_staged_ones(project):
    (project.root / "staged.py").write_text("import torch.nn as nn\nbn = nn.BatchNorm2d(8, eps=-1e-5)\n")
    project.stage()
    (project.root / "unstaged.py").write_text("import torch.nn as nn\nbn = nn.BatchNorm2d(8, eps=0)\n")
    result = project.hook()
    assert result.returncode == 1, result.stdout + result.stderr
    assert "staged.py:2:" in result.stdout and "unstaged.py" not in result.stdout, result.stdout


def test_the_hook_reads_the_repository_configuration_and_skips_other_files(project):
    (project.root / "bad.py").write_text("import torch.nn as nn\nbn = nn.BatchNorm2d(8, eps=-1e-5)\n")
    (project.root / ".cudnnlint.toml").write_text('ignore = ["bn-eps-negative"]\n')
    (project.root / "notes.md").write_text("eps=-1e-5\n")
    project.stage()
    configured = project.hook("bad.py", "notes.md")
    assert configured.returncode == 0, configured.stdout + configured.stderr
    skipped = project.hook("notes.md")
    assert skipped.returncode == 0 and "no files to check" in skipped.stdout.lower(), skipped.stdout


def test_the_hook_checks_a_staged_notebook_by_its_cells(project):
    import json
    (project.root / "train.ipynb").write_text(json.dumps({"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Train\n"]},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": ["!pip install torch\n", "import torch.nn as nn\n", "bn = nn.BatchNorm2d(8, eps=-1e-5)\n"]}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1))
    project.stage()
    blocked = project.hook()
    assert blocked.returncode == 1, blocked.stdout + blocked.stderr
    assert "train.ipynb:cell 2:3:" in blocked.stdout and "[bn-eps-negative]" in blocked.stdout, blocked.stdout
