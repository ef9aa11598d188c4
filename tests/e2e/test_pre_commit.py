"""The pre-commit hook of .pre-commit-hooks.yaml, run by the real pre-commit (pinned in
requirements.txt) with `pre-commit try-repo` against this checkout: it blocks a commit on a finding,
passes a clean one, sees only staged files, honours the repository's configuration and skips files
it does not analyse."""
import os
import pathlib
import subprocess
import sys

import pytest

from conftest import REPO

PRE_COMMIT = pathlib.Path(sys.executable).with_name("pre-commit")


class Project:
    def __init__(self, root, env):
        self.root = root
        self.env = env

    def stage(self):
        subprocess.run(["git", "add", "-A"], cwd=self.root, check=True, env=self.env)

    def hook(self, *files):
        """Runs the hook on FILES, or on the staged files when none are named."""
        args = [str(PRE_COMMIT), "try-repo", str(REPO), "cudnnlint-system"] + (["--files", *files] if files else [])
        return subprocess.run(args, cwd=self.root, capture_output=True, text=True, env=self.env, timeout=300)


@pytest.fixture
def project(tmp_path, cli):
    if not PRE_COMMIT.exists():
        pytest.skip(f"{PRE_COMMIT} not found: ./setup.sh installs pre-commit from requirements.txt")
    # cudnnlint-system runs the cudnnlint on PATH: the one under test.
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "cache"), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t",
               PATH=str(pathlib.Path(cli.binary).parent) + os.pathsep + os.environ.get("PATH", ""))
    root = tmp_path / "project"
    root.mkdir()
    subprocess.run(["git", "init", "-q", str(root)], check=True, env=env)
    return Project(root, env)


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
