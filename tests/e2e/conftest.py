"""Shared fixtures for the end-to-end tests: they run the built cudnnlint binary."""
import json
import os
import pathlib
import re
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
EXPECT = re.compile(r"(?:#|//)[^\n]*?\bexpect:\s*([A-Za-z0-9_, -]+)")
ARGS = re.compile(r"^(?:#|//)\s*cudnnlint-args:\s*(.*)$")


def expect_markers(path):
    """(line, rule) for every `# expect: RULE[, RULE]` (or `// expect:`) comment of a fixture."""
    found = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            for rule in match.group(1).split(","):
                if rule.strip():
                    found.add((number, rule.strip()))
    return found


def fixture_args(path):
    """The arguments of a fixture's first-line `# cudnnlint-args: ...` comment."""
    first = path.read_text(encoding="utf-8").splitlines()[0]
    match = ARGS.match(first)
    return match.group(1).split() if match else []
SHARED = pathlib.Path(os.environ.get("CUDNNLINT_SHARED", REPO.parent / "shared"))
# What a memory bound of a test allows beyond its own figure on the sanitizer pass (tests/CMakeLists.txt
# sets CUDNNLINT_SANITIZED): ASan's shadow and quarantine took 117-141 MiB where the release binary
# took 17-31 MiB. Unbounded growth (a 300 MB header line held, a 7 MiB YAML expanded) still exceeds it.
SANITIZER_ALLOWANCE_MIB = 300 if os.environ.get("CUDNNLINT_SANITIZED") else 0


def pytest_configure(config):
    config.addinivalue_line("markers", "packaging: builds cudnnlint from this checkout (a wheel, a pre-commit "
                            "environment); run once, on the build/ pass of ./test.sh")
    # The language server's tests start the binary from a fixture made when their module is
    # imported (pytest-lsp's ClientServerConfig): they read it from here.
    os.environ["CUDNNLINT_UNDER_TEST"] = str(pathlib.Path(config.getoption("--cudnnlint")).resolve())


def pytest_addoption(parser):
    parser.addoption("--cudnnlint", default=str(REPO / "build" / "cudnnlint"), help="the binary under test")


def full_message(finding):
    """A JSON finding's headline and detail as one text (what SARIF's message carries)."""
    return finding["message"] + (". " + finding["detail"] if finding.get("detail") else "")


class Cli:
    def __init__(self, binary):
        self.binary = binary

    def run(self, *args, cwd=None, check_code=None):
        result = subprocess.run([self.binary, *map(str, args)], capture_output=True, text=True, cwd=cwd,
                                timeout=120)
        if check_code is not None:
            assert result.returncode == check_code, (result.returncode, result.stdout[-2000:], result.stderr[-2000:])
        return result

    def json(self, *args, cwd=None):
        result = self.run("--format", "json", *args, cwd=cwd)
        assert result.returncode in (0, 1), result.stderr
        return json.loads(result.stdout), result


@pytest.fixture(scope="session")
def cli(request):
    binary = pathlib.Path(request.config.getoption("--cudnnlint")).resolve()
    if not binary.exists():
        pytest.fail(f"{binary} does not exist: build first (./setup.sh)")
    return Cli(str(binary))


@pytest.fixture(scope="session")
def sarif_check():
    """Runs ../shared/tools/sarif_check.py (schema + GitHub's rules) on a SARIF file."""
    checker = SHARED / "tools" / "sarif_check.py"
    if not checker.exists():
        pytest.skip(f"{checker} not found: set CUDNNLINT_SHARED to the folder holding tools/sarif_check.py")

    def check(path):
        result = subprocess.run(["python3" if not os.environ.get("VIRTUAL_ENV") else "python", str(checker), str(path)],
                                capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr
        assert result.stdout.strip().splitlines()[-1].startswith("0 error(s)"), result.stdout
        return result.stdout

    return check


@pytest.fixture(scope="session")
def reference_line_hashes():
    """The reference implementation of primaryLocationLineHash, imported from shared/tools."""
    script = SHARED / "tools" / "primary_location_line_hash.py"
    if not script.exists():
        pytest.skip(f"{script} not found: set CUDNNLINT_SHARED")
    import importlib.util

    spec = importlib.util.spec_from_file_location("primary_location_line_hash", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.line_hashes
