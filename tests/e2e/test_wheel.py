"""The wheel (pyproject.toml, scikit-build-core), built offline from the wheelhouse ./setup.sh fills
and installed into a clean virtual environment, gives a `cudnnlint` that analyses the
examples as the build under test does, and that needs nothing from the build machine but glibc."""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import time
import zipfile

import pytest

from conftest import REPO

WHEELHOUSE = REPO / "build" / "wheelhouse"
VENV_PYTHON = pathlib.Path(sys.executable)
# What a portable binary may load: glibc's own libraries.
GLIBC = {"linux-vdso.so.1", "libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1",
         "ld-linux-x86-64.so.2"}


def test_the_package_version_is_the_cmake_project_version():
    cmake = re.search(r"project\(cudnnlint VERSION ([0-9.]+)", (REPO / "CMakeLists.txt").read_text()).group(1)
    pyproject = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(), re.M).group(1)
    assert cmake == pyproject


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    """The wheel `pip wheel <checkout>` builds (with build isolation, offline from the wheelhouse:
    what `pip install <checkout>` does before it installs; the pre-commit hook's test runs that)."""
    if not any(WHEELHOUSE.glob(".complete-*")):
        pytest.skip(f"{WHEELHOUSE} is not filled: ./setup.sh downloads the build backend and the grammar there")
    out = tmp_path_factory.mktemp("wheel")
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_FIND_LINKS=str(WHEELHOUSE), PIP_DISABLE_PIP_VERSION_CHECK="1")
    result = subprocess.run([str(VENV_PYTHON), "-m", "pip", "wheel", "--no-deps", "-w", str(out), str(REPO)],
                            env=env, capture_output=True, text=True, timeout=1500)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    built = next(out.glob("cudnnlint-*.whl"))
    print(f"wheel: {built.name}, {built.stat().st_size / 1e6:.1f} MB")
    return built


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    """A clean venv (no site packages) with the wheel installed offline; returns its bin/cudnnlint."""
    venv = tmp_path_factory.mktemp("clean") / "venv"
    subprocess.run(["python3", "-m", "venv", str(venv)], check=True)
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("VIRTUAL_ENV", None)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)], env=env, check=True,
                   timeout=600)
    return venv / "bin" / "cudnnlint"


def findings(binary, *args):
    result = subprocess.run([str(binary), "--format", "json", "--no-progress", *args], capture_output=True,
                            text=True, cwd=REPO, timeout=300)
    assert result.returncode in (0, 1), result.stderr
    return [(f["path"], f["line"], f["rule"], f["message"]) for f in json.loads(result.stdout)["findings"]]


@pytest.mark.packaging
def test_the_installed_cudnnlint_analyses_the_examples_like_the_build(installed, cli):
    from_wheel = findings(installed, "examples")
    assert from_wheel == findings(cli.binary, "examples")
    # The C++ example is among them: clang ran on the headers the wheel carries.
    assert any(path.endswith(".cpp") for path, *_ in from_wheel), from_wheel


@pytest.mark.packaging
def test_version_names_the_cudnn_headers_the_grammar_pin_and_the_bundled_clang_headers(installed):
    text = subprocess.run([str(installed), "--version"], capture_output=True, text=True, check=True).stdout
    lock = (REPO / "grammars" / "grammars.lock").read_text()
    version, sha = re.search(r"^tree-sitter-python +(\S+) +([0-9a-f]+)", lock, re.M).groups()
    assert text.splitlines()[0] == "cudnnlint 0.1.0"
    assert re.search(r"^cuDNN headers: (\d+\.\d+\.\d+ \(|none found)", text, re.M), text
    assert f"grammar: tree-sitter-python {version} (sdist sha256 {sha[:16]}...)" in text
    bundled = installed.parent.parent / "share" / "cudnnlint" / "clang"
    assert f"(built-in headers: {bundled})" in text, text
    assert (bundled / "include" / "stddef.h").is_file()


# The oldest glibc the wheel runs on: Ubuntu 22.04's (analyzer/main/glibc_compat.cpp).
GLIBC_FLOOR = (2, 35)


@pytest.mark.packaging
def test_the_binary_needs_nothing_but_glibc(installed):
    loaded = subprocess.run(["ldd", str(installed)], capture_output=True, text=True, check=True).stdout
    names = {line.split()[0].rsplit("/", 1)[-1] for line in loaded.splitlines() if line.strip()}
    assert names <= GLIBC, loaded
    if not shutil.which("objdump"):
        pytest.skip("objdump (binutils) not found: the symbol versions are not checked")
    symbols = subprocess.run(["objdump", "-T", str(installed)], capture_output=True, text=True, check=True).stdout
    versions = {tuple(map(int, v.split("."))): line.split()[-1]
                for line in symbols.splitlines() for v in re.findall(r"\(GLIBC_([0-9.]+)\)", line)}
    newest = max(versions)
    assert newest <= GLIBC_FLOOR, f"needs glibc {'.'.join(map(str, newest))} for {versions[newest]}"


@pytest.mark.packaging
def test_auditwheel_finds_no_external_library_in_the_wheel(wheel):
    auditwheel = VENV_PYTHON.with_name("auditwheel")
    if not auditwheel.exists():
        pytest.skip(f"{auditwheel} not found: ./setup.sh installs it from requirements.txt")
    names = zipfile.ZipFile(wheel).namelist()
    assert "cudnnlint-0.1.0.data/scripts/cudnnlint" in names
    assert "cudnnlint-0.1.0.data/data/share/cudnnlint/clang/include/stddef.h" in names
    shown = subprocess.run([str(auditwheel), "show", str(wheel)], capture_output=True, text=True)
    text = " ".join(shown.stdout.split())
    tag = re.search(r'consistent with the following platform tag: "manylinux_2_(\d+)_x86_64"', text)
    assert shown.returncode == 0 and tag, shown.stdout + shown.stderr
    assert (2, int(tag.group(1))) <= GLIBC_FLOOR, text
    assert "external shared libraries" not in text and "libstdc++" not in text, text


def action_install_step():
    import yaml
    steps = yaml.safe_load((REPO / "action.yml").read_text())["runs"]["steps"]
    return next(s for s in steps if s.get("id") == "wheel")


def run_action_install(tmp_path, find_links):
    """The action's wheel step as the runner runs it, pip offline from `find_links` (the package
    index stands there: the released wheel of this version, or nothing)."""
    runner_temp, outputs, path_file = tmp_path / "runner", tmp_path / "output", tmp_path / "path"
    runner_temp.mkdir(parents=True)
    outputs.write_text("")
    path_file.write_text("")
    env = dict(os.environ, RUNNER_TEMP=str(runner_temp), GITHUB_ACTION_PATH=str(REPO), GITHUB_OUTPUT=str(outputs),
               GITHUB_PATH=str(path_file), PIP_NO_INDEX="1", PIP_FIND_LINKS=str(find_links))
    env.pop("VIRTUAL_ENV", None)
    result = subprocess.run(["bash", "-e", "-c", action_install_step()["run"]], env=env, capture_output=True,
                            text=True, timeout=600)
    return result, outputs.read_text(), path_file.read_text(), runner_temp


@pytest.mark.packaging
def test_the_action_installs_the_released_wheel_and_else_builds_from_source(wheel, tmp_path):
    index = tmp_path / "index"
    index.mkdir()
    shutil.copy(wheel, index)
    result, outputs, path, runner_temp = run_action_install(tmp_path / "with", index)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "installed=wheel" in outputs
    assert path.strip() == str(runner_temp / "cudnnlint-venv" / "bin")
    version = subprocess.run([str(runner_temp / "cudnnlint-venv" / "bin" / "cudnnlint"), "--version"],
                             capture_output=True, text=True, check=True).stdout
    assert version.startswith("cudnnlint 0.1.0")
    # No wheel of this version on the index: the step passes, says so, and leaves the source build to
    # the next steps (their `if`).
    empty = tmp_path / "empty"
    empty.mkdir()
    result, outputs, path, _ = run_action_install(tmp_path / "without", empty)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "installed=wheel" not in outputs and path == ""
    assert "no released wheel of 0.1.0" in result.stdout
    steps = __import__("yaml").safe_load((REPO / "action.yml").read_text())["runs"]["steps"]
    fallback = [s for s in steps if s.get("if") == "${{ steps.wheel.outputs.installed != 'wheel' }}"]
    assert [s["name"] for s in fallback] == ["Install the build's Debian packages",
                                             "Install cudnnlint (pip install of this action's checkout)"]


def write_mirror(out):
    """The pre-commit mirror of this version, as the release workflow writes and tags it."""
    subprocess.run([sys.executable, str(REPO / "packaging" / "make_pre_commit_mirror.py"), str(out)], check=True,
                   capture_output=True, text=True)
    git_env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                   GIT_COMMITTER_EMAIL="t@t")
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "mirror"]):
        subprocess.run(["git", *args], cwd=out, check=True, env=git_env)
    return out


def offline_index(folder, *files):
    """A package index standing in for PyPI: `files` and the build backend of the wheelhouse."""
    folder.mkdir()
    for f in [*files, *WHEELHOUSE.glob("*.whl")]:
        shutil.copy(f, folder)
    return folder


def test_the_mirror_holds_the_hook_of_this_repository_and_depends_on_this_version(tmp_path):
    out = tmp_path / "mirror"
    subprocess.run([sys.executable, str(REPO / "packaging" / "make_pre_commit_mirror.py"), str(out)], check=True,
                   capture_output=True)
    import tomllib
    import yaml
    project = tomllib.loads((out / "pyproject.toml").read_text())
    version = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
    assert project["project"]["dependencies"] == [f"cudnnlint=={version}"]
    assert project["tool"]["scikit-build"]["wheel"]["cmake"] is False
    ours = next(h for h in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text()) if h["id"] == "cudnnlint")
    assert yaml.safe_load((out / ".pre-commit-hooks.yaml").read_text()) == [ours]
    assert f"rev: v{version}" in (out / "README.md").read_text()


@pytest.mark.packaging
def test_the_pre_commit_mirror_installs_the_released_wheel(wheel, tmp_path):
    """pre-commit installs the mirror (the hook users name for released versions) from an index holding
    the released wheel and no sdist: the hook runs the wheel's cudnnlint, nothing is built."""
    mirror = write_mirror(tmp_path / "mirror")
    index = offline_index(tmp_path / "index", wheel)
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / "bad.py").write_text("import torch.nn as nn\nbn = nn.BatchNorm2d(8, eps=0.0)\n")
    subprocess.run(["git", "add", "bad.py"], cwd=project, check=True)
    env = dict(os.environ, PRE_COMMIT_HOME=str(tmp_path / "home"), PIP_NO_INDEX="1", PIP_FIND_LINKS=str(index),
               PIP_DISABLE_PIP_VERSION_CHECK="1")
    env["PATH"] = os.pathsep.join(d for d in env.get("PATH", "").split(os.pathsep)
                                  if not (pathlib.Path(d) / "cudnnlint").exists())
    env.pop("VIRTUAL_ENV", None)
    # As a user's .pre-commit-config.yaml names it (try-repo would install into a store it deletes).
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=mirror, capture_output=True, text=True,
                         check=True).stdout.strip()
    config = tmp_path / "pre-commit-config.yaml"
    config.write_text(f"repos:\n- repo: {mirror}\n  rev: {rev}\n  hooks:\n  - id: cudnnlint\n")
    started = time.monotonic()
    result = subprocess.run([str(VENV_PYTHON.with_name("pre-commit")), "run", "-c", str(config), "cudnnlint",
                             "--files", "bad.py"], cwd=project, env=env, capture_output=True, text=True, timeout=600)
    print(f"pre-commit with the mirror, wheel installed and hook run: {time.monotonic() - started:.1f} s")
    assert result.returncode == 1 and "[bn-eps-zero]" in result.stdout, result.stdout + result.stderr
    installed = list((tmp_path / "home").glob("repo*/py_env-*/bin/cudnnlint"))
    assert len(installed) == 1
    record = next((tmp_path / "home").glob("repo*/py_env-*/lib/python3*/site-packages/cudnnlint-*.dist-info/WHEEL"))
    assert "Root-Is-Purelib: false" in record.read_text()  # the platform wheel, not a pure stand-in


@pytest.mark.packaging
def test_the_mirror_takes_the_wheel_and_falls_back_to_the_sdist_where_none_fits(wheel, tmp_path):
    """What pip resolves the mirror's dependency to (a dry run: no build): the wheel where the index has
    one for this platform, else the sdist, which pip then builds."""
    mirror = write_mirror(tmp_path / "mirror")
    sdist_dir = tmp_path / "sdist"
    built = subprocess.run([str(VENV_PYTHON), "-c", "import sys; from scikit_build_core.build import build_sdist;"
                            " print(build_sdist(sys.argv[1]))", str(sdist_dir)], cwd=REPO, capture_output=True,
                           text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    sdist = sdist_dir / built.stdout.split()[-1]
    venv = tmp_path / "venv"
    subprocess.run(["python3", "-m", "venv", str(venv)], check=True)

    def resolved(index):
        report = tmp_path / f"{index.name}.json"
        env = dict(os.environ, PIP_NO_INDEX="1", PIP_FIND_LINKS=str(index), PIP_DISABLE_PIP_VERSION_CHECK="1")
        env.pop("VIRTUAL_ENV", None)
        run = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--dry-run", "-q", "--report",
                              str(report), str(mirror)], env=env, capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stdout + run.stderr
        items = json.loads(report.read_text())["install"]
        return next(pathlib.Path(i["download_info"]["url"]).name for i in items if i["metadata"]["name"] == "cudnnlint")

    assert resolved(offline_index(tmp_path / "both", wheel, sdist)) == wheel.name
    assert resolved(offline_index(tmp_path / "sdist-only", sdist)) == sdist.name
