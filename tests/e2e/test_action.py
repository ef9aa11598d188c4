"""action.yml, the composite action for GitHub code scanning. GitHub's runner is not here: these
tests check its structure and run its cudnnlint step's script, as the runner would, with the binary
under test on PATH: findings become a SARIF report (with the category) and pass by default, and
usage errors fail the step."""
import json
import os
import pathlib
import re
import subprocess

import pytest
import yaml

from conftest import REPO

ACTION = yaml.safe_load((REPO / "action.yml").read_text())
STEPS = ACTION["runs"]["steps"]


def step(name_start):
    return next(s for s in STEPS if s.get("name", "").startswith(name_start))


def test_the_action_is_composite_and_uploads_with_codeql_upload_sarif():
    assert ACTION["runs"]["using"] == "composite"
    upload = step("Upload")
    # Pinned by a full commit hash, not a tag that can be moved (v4.36.2).
    assert re.fullmatch(r"github/codeql-action/upload-sarif@[0-9a-f]{40}", upload["uses"]), upload["uses"]
    assert upload["with"]["sarif_file"] == "${{ inputs.sarif-file }}"
    assert all("shell" in s for s in STEPS if "run" in s), "a composite action's run steps must name their shell"


def test_the_action_installs_every_debian_package_the_build_needs():
    installed = set(step("Install the build's").get("run").split())
    setup = (REPO / "setup.sh").read_text()
    build_packages = {p for p in re.search(r"apt_packages=\(([^)]*)\)", setup).group(1).split()
                      if p.endswith("-dev") and p not in {"libgtest-dev", "libgmock-dev", "libfuzzer-14-dev",
                                                          "libmimalloc-dev"}}
    assert build_packages <= installed, build_packages - installed


def run_step(project, cli, **inputs):
    """The `Run cudnnlint` step's script under bash, its env set from INPUTS (the action's defaults else)."""
    run = step("Run cudnnlint")
    outputs = project / ".github_output"
    outputs.write_text("")
    env = dict(os.environ, PATH=str(pathlib.Path(cli.binary).parent) + os.pathsep + os.environ["PATH"],
               GITHUB_OUTPUT=str(outputs))
    for key, value in run["env"].items():
        name = re.search(r"inputs\.([\w-]+)", value).group(1)
        env[key] = inputs.get(name.replace("-", "_"), ACTION["inputs"][name].get("default", ""))
    return subprocess.run(["bash", "-e", "-c", run["run"]], cwd=project, env=env, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture
def project(tmp_path):
    (tmp_path / "model.py").write_text("import torch.nn as nn\nbn = nn.BatchNorm2d(8, eps=0.0)\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    return tmp_path


def test_findings_become_a_sarif_report_with_the_category_and_the_step_passes(project, cli, sarif_check):
    result = run_step(project, cli, category="models/gpu")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("cudnnlint ")  # --version goes to the log first
    sarif = json.loads((project / "cudnnlint.sarif").read_text())
    run = sarif["runs"][0]
    assert run["automationDetails"]["id"] == "models/gpu"
    assert [r["ruleId"] for r in run["results"]] == ["bn-eps-zero"]
    assert run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "model.py"
    sarif_check(project / "cudnnlint.sarif")


def test_fail_on_findings_fails_the_step_and_args_and_paths_reach_cudnnlint(project, cli):
    (project / "other").mkdir()
    (project / "other" / "clean.py").write_text("x = 1\n")
    assert run_step(project, cli, fail_on_findings="true").returncode == 1
    only_clean = run_step(project, cli, fail_on_findings="true", paths="other", sarif_file="clean.sarif")
    assert only_clean.returncode == 0, only_clean.stderr
    ignored = run_step(project, cli, fail_on_findings="true", args="--ignore bn-eps-zero --cudnn-version 9.1")
    assert ignored.returncode == 0, ignored.stderr


def test_a_usage_error_fails_the_step(project, cli):
    result = run_step(project, cli, args="--cudnn-version not-a-version")
    assert result.returncode == 2, result.stdout + result.stderr


def test_only_a_report_the_run_finished_is_uploaded(project, cli):
    # A pull request can commit a report at the action's path; when the run fails (exit 2), that
    # file is still there and must not reach code scanning.
    upload = step("Upload")
    assert "steps.run.outputs.complete == 'true'" in upload["if"], upload["if"]
    assert "hashFiles" not in upload["if"]
    (project / "cudnnlint.sarif").write_text('{"version": "2.1.0", "runs": []}')
    failed = run_step(project, cli, args="--cudnn-version not-a-version")
    assert failed.returncode == 2
    assert "complete=true" not in (project / ".github_output").read_text()
    finished = run_step(project, cli)
    assert finished.returncode == 0, finished.stderr
    assert (project / ".github_output").read_text().splitlines() == ["complete=true"]
    assert json.loads((project / "cudnnlint.sarif").read_text())["runs"][0]["results"]


def test_the_release_workflow_builds_checks_and_publishes_only_tags():
    # GitHub's runners and PyPI are not reachable here: the workflow's structure is checked; its build
    # and checks are ./setup.sh's and test_wheel.py's, which run here.
    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text())
    jobs = workflow["jobs"]
    uses = [s["uses"] for job in jobs.values() for s in job["steps"] if "uses" in s]
    assert uses and all(re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", u) for u in uses), uses
    assert {m["arch"] for m in jobs["wheel"]["strategy"]["matrix"]["include"]} == {"x86_64", "aarch64"}
    runs = " ".join(s.get("run", "") for s in jobs["wheel"]["steps"])
    assert "auditwheel repair --plat manylinux_2_35_" in runs and "test_wheel.py -m packaging" in runs
    assert "python -m build --sdist" in " ".join(s.get("run", "") for s in jobs["sdist"]["steps"])
    publish = jobs["publish"]
    assert publish["if"].startswith("startsWith(github.ref, 'refs/tags/v')")
    assert publish["permissions"] == {"id-token": "write"} and set(publish["needs"]) == {"wheel", "sdist"}
    assert workflow["permissions"] == {"contents": "read"}
    # The pre-commit mirror is written by the script the packaging test runs, after the publish.
    mirror = jobs["pre-commit-mirror"]
    assert mirror["if"].startswith("startsWith(github.ref, 'refs/tags/v')") and mirror["needs"] == ["publish"]
    mirror_runs = " ".join(s.get("run", "") for s in mirror["steps"])
    assert "packaging/make_pre_commit_mirror.py mirror" in mirror_runs and 'git tag "${GITHUB_REF_NAME}"' in mirror_runs
