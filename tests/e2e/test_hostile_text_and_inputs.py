"""A hostile tree or log changes nothing outside it (issue 33): control characters from file names,
config keys and source lines reach neither the terminal nor a CI log raw (no line of the output
starts a GitHub workflow command, no ESC sequence but cudnnlint's own colours), `--diff` quotes such
names as git does and still applies, triage's regexes run in time linear in a 5.7 MB hostile log,
a config file over --max-file-size is reported like a Python file, environment.yml nested
past the config reader's bound is refused in bounded memory, and a module of 60,000 aliases chained
backwards (`A59999 = A59998` above `A59998 = ...`) settles in linear time.

Output is read as bytes: text mode would turn a lone CR, which the runner takes as a line break,
into a newline."""
import json
import os
import re
import subprocess
import sys

from conftest import SANITIZER_ALLOWANCE_MIB

EPS_ZERO = b"import torch.nn as nn\nbn = nn.BatchNorm2d(8, eps=0.0)\n"
HOSTILE_NAME = "a\n::warning file=name.py::FROM-A-FILE-NAME\nb.py"


def run(cli, *args, cwd, timeout=120):
    return subprocess.run([cli.binary, *map(str, args)], capture_output=True, cwd=cwd, timeout=timeout)


def lines_starting_a_command(output):
    """Lines the GitHub runner would read as a workflow command: it breaks lines at LF and CR."""
    return [line for line in re.split(rb"\r\n|\r|\n", output) if line.startswith(b"::")]


def hostile_tree(root):
    """The tree of the reproducer: a config key, a comment and a file name holding controls."""
    (root / "m.py").write_bytes(
        b'import torch.nn as nn\nimport yaml\ncfg = yaml.safe_load(open("c.yaml"))\n'
        b'bn = nn.BatchNorm2d(8, eps=cfg["""model\n::error file=pwn.py,line=1::INJECTED\n"""]["bn_eps"])\n')
    (root / "c.yaml").write_bytes(b'"model\\n::error file=pwn.py,line=1::INJECTED\\n":\n  bn_eps: 0.0\n')
    (root / "esc.py").write_bytes(
        b"import torch.nn as nn\nbn = nn.BatchNorm2d(8, eps=0.0)  # \x1b]0;PWNED\x07\x1b[2J\n")
    (root / HOSTILE_NAME).write_bytes(EPS_ZERO)


def test_text_output_escapes_control_characters(cli, tmp_path):
    hostile_tree(tmp_path)
    for color in ("never", "always"):
        result = run(cli, "--no-cache", "--color", color, ".", cwd=tmp_path)
        assert result.returncode == 1, result.stderr[-2000:]
        output = result.stdout + result.stderr
        assert lines_starting_a_command(output) == [], output
        # The only ESC sequences left are cudnnlint's own colours.
        assert b"\x1b" not in re.sub(rb"\x1b\[[0-9;]*m", b"", output), output
        assert b"\x07" not in output
        plain = re.sub(rb"\x1b\[[0-9;]*m", b"", output)
        assert b"a\\n::warning file=name.py::FROM-A-FILE-NAME\\nb.py:2:" in plain, plain
        assert b"model\\n::error file=pwn.py,line=1::INJECTED\\n" in plain, plain
        assert b"# \\x1b]0;PWNED\\x07\\x1b[2J\n" in plain, plain


def test_github_output_stays_escaped(cli, tmp_path):
    hostile_tree(tmp_path)
    result = run(cli, "--no-cache", "-f", "github", ".", cwd=tmp_path)
    assert result.returncode == 1
    commands = lines_starting_a_command(result.stdout)
    assert all(line.startswith((b"::error file=", b"::warning file=", b"::notice file=")) for line in commands)
    assert b"file=a%0A%3A%3Awarning file=name.py%3A%3AFROM-A-FILE-NAME%0Ab.py," in result.stdout, result.stdout


def test_diff_quotes_hostile_names_and_applies(cli, tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / HOSTILE_NAME).write_bytes(EPS_ZERO)
    (tmp_path / "crlf.py").write_bytes(EPS_ZERO.replace(b"\n", b"\r\n"))
    result = run(cli, "--no-cache", "--diff", "--unsafe-fixes", ".", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert lines_starting_a_command(result.stdout + result.stderr) == [], result.stdout
    assert b'--- "a/a\\n::warning file=name.py::FROM-A-FILE-NAME\\nb.py"\n' in result.stdout, result.stdout
    assert b"+bn = nn.BatchNorm2d(8, eps=1e-5)\r\n" in result.stdout  # CRLF files keep their line ends
    (tmp_path / "fixes.patch").write_bytes(result.stdout)
    applied = subprocess.run(["git", "apply", "fixes.patch"], cwd=tmp_path, capture_output=True)
    assert applied.returncode == 0, applied.stderr
    assert b"eps=1e-5" in (tmp_path / HOSTILE_NAME).read_bytes()
    assert (tmp_path / "crlf.py").read_bytes() == EPS_ZERO.replace(b"\n", b"\r\n").replace(b"0.0", b"1e-5")


def test_triage_of_a_hostile_log_is_linear_and_escaped(cli, tmp_path):
    # 200 failures whose message and 6 context lines repeat "BatchNorm " (5.7 MB): the KB regexes
    # run over 28 KB joined lines. A backtracking engine took minutes; the time is measured in
    # tests/bench/bench_triage.py, the timeout here only guards against a hang.
    unit = "BatchNorm "
    context = (unit * 2000)[:4090]
    block = "RuntimeError: cuDNN error: " + (unit * 2000)[:4000] + "\n" + "".join(context + "\n" for _ in range(6))
    last = ("RuntimeError: cuDNN error: " + (unit * 2000)[:4000] + "\n" + "".join(context + "\n" for _ in range(5))
            + context[:4000] + " CUDNN_STATUS_BAD_PARAM\n")
    (tmp_path / "tree").mkdir()
    (tmp_path / "log").write_text(block * 199 + last + "ValueError: \x1b[2J\r::error::FROM-THE-LOG\n")
    assert (tmp_path / "log").stat().st_size > 5_700_000
    result = run(cli, "triage", "log", "tree", "-f", "json", cwd=tmp_path, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    text = json.dumps(report)
    assert "cuda/cudnn-bn-epsilon" in text, text[:2000]  # the last failure still matches its regex
    result = run(cli, "triage", "log", "tree", cwd=tmp_path, timeout=60)
    assert result.returncode == 0
    assert lines_starting_a_command(result.stdout + result.stderr) == []
    assert b"\x1b" not in result.stdout
    assert b"then, log line 1401: ValueError: \\x1b[2J\\r::error::FROM-THE-LOG\n" in result.stdout, result.stdout[-3000:]


def test_config_over_the_size_limit_is_reported(cli, tmp_path):
    (tmp_path / "m.py").write_bytes(
        b'import torch.nn as nn\nimport yaml\ncfg = yaml.safe_load(open("c.yaml"))\n'
        b'bn = nn.BatchNorm2d(8, eps=cfg["model"]["bn_eps"])\n')
    (tmp_path / "c.yaml").write_bytes(b"model:\n  bn_eps: 0.0\n#" + b"x" * 5_000_000 + b"\n")
    (tmp_path / "big.py").write_bytes(b"#" + b"x" * 5_000_000 + b"\n")
    result = run(cli, "--no-cache", ".", cwd=tmp_path)
    lines = result.stderr.decode().splitlines()
    python_line = next(line for line in lines if line.startswith("big.py:"))
    config_line = next((line for line in lines if line.startswith("c.yaml:")), None)
    assert config_line is not None, result.stderr
    # The same diagnostic as the Python file's, but for the size.
    assert re.sub(r"\d+ bytes, above", "N bytes, above", config_line[len("c.yaml"):]) == \
        re.sub(r"\d+ bytes, above", "N bytes, above", python_line[len("big.py"):])
    assert "--max-file-size" in config_line
    report = json.loads(run(cli, "--no-cache", "-f", "json", ".", cwd=tmp_path).stdout)
    assert any(d["path"] == "c.yaml" and "limit" in d["message"] for d in report["diagnostics"]), report["diagnostics"]


def test_deeply_nested_environment_yml_is_refused_in_bounded_memory(cli, tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "m.py").write_bytes(EPS_ZERO)
    n = 4_190_000  # just under the 8 MiB limit of pin files
    (tmp_path / "environment.yml").write_text("dependencies:\n  - x: " + "[" * n + "]" * n + "\n")
    # The peak RSS of this child alone: a fresh interpreter waits for it and for nothing else.
    measure = ("import resource, subprocess, sys\n"
               "r = subprocess.run(sys.argv[1:], capture_output=True, timeout=60)\n"
               "sys.stdout.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) + '\\n')\n"
               "sys.stdout.write(r.stderr.decode(errors='replace'))\n")
    result = subprocess.run([sys.executable, "-c", measure, cli.binary, "--no-cache", "."], cwd=tmp_path,
                            capture_output=True, text=True, timeout=90, env={**os.environ})
    assert result.returncode == 0, result.stderr
    peak_kib, stderr = result.stdout.split("\n", 1)
    assert "environment.yml" in stderr and "nested more than 256 levels deep" in stderr, stderr
    assert int(peak_kib) < (100 + SANITIZER_ALLOWANCE_MIB) * 1024, f"peak RSS {int(peak_kib) // 1024} MiB"


def test_a_long_alias_chain_written_backwards_settles_in_linear_time(cli, tmp_path):
    # `A{n} = A{n-1}` listed from the last to the first, `A0 = 2` at the end: the project step learns
    # one more number per sweep of a fixpoint over every alias (60,000 sweeps of 60,000: a hang); its
    # worklist hands each number to the aliases waiting for it. The time is not measured here; the
    # timeout only guards against a hang. The size the code reads is two aliases deep (values are
    # folded to a bounded depth), and gives the shape finding.
    n = 60_000
    package = tmp_path / "chain_pkg"
    package.mkdir()
    lines = [f"A{k} = A{k - 1}" for k in range(n - 1, 0, -1)] + ["A0 = 2", "SIZE = A1"]
    (package / "__init__.py").write_text("\n".join(lines) + "\n")
    (package / "net.py").write_text(
        "import torch\nimport torch.nn as nn\n\nfrom . import SIZE\n\n"
        "net = nn.Sequential(nn.Conv2d(3, 8, kernel_size=3), nn.ReLU())\n"
        "out = net(torch.randn(1, 3, SIZE, SIZE))\n")
    result = run(cli, "--format", "json", "--no-cache", ".", cwd=tmp_path, timeout=60)
    assert result.returncode == 1, result.stderr[-2000:]
    findings = json.loads(result.stdout)["findings"]
    assert [(f["path"], f["line"], f["rule"]) for f in findings] == [
        ("chain_pkg/net.py", 6, "conv-input-smaller-than-kernel")], findings
