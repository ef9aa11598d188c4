"""Exit codes, targets, configuration, discovery and bad input, as a user meets them."""
import json
import os
import re
import subprocess

import pytest

from conftest import REPO, full_message

FIXTURES = REPO / "tests" / "fixtures" / "python"


def test_exit_codes(cli, tmp_path):
    clean = tmp_path / "clean.py"
    clean.write_text("import torch.nn as nn\nbn = nn.BatchNorm2d(3)\n")
    cli.run(clean, check_code=0)
    cli.run(FIXTURES / "torch_routes.py", check_code=1)
    # Only warnings: --fail-level error passes, none never fails.
    warn_only = tmp_path / "warn.py"
    warn_only.write_text("import torch.nn as nn\nbn = nn.BatchNorm2d(3, eps=0)\n")
    cli.run(warn_only, check_code=1)
    cli.run("--fail-level", "error", warn_only, check_code=0)
    cli.run("--fail-level", "none", FIXTURES / "torch_routes.py", check_code=0)
    # Notes do not fail the default level.
    note_only = tmp_path / "note.py"
    note_only.write_text("import torch.nn as nn\nbn = nn.BatchNorm2d(3, eps=1e-6)\n")
    result = cli.run("--cudnn-version", "7.4", note_only, check_code=0)
    assert "note:" in result.stdout
    cli.run("--cudnn-version", "7.4", "--fail-level", "note", note_only, check_code=1)


def test_usage_errors_exit_2(cli):
    cli.run("--format", "xml", FIXTURES, check_code=2)
    cli.run("--cudnn-version", "seven", FIXTURES, check_code=2)
    cli.run("--framework", "torch=abc", FIXTURES, check_code=2)
    cli.run("--select", "no-such-rule", FIXTURES, check_code=2)
    cli.run(check_code=2)
    cli.run("--help", check_code=0)
    assert cli.run("--version", check_code=0).stdout.startswith("cudnnlint ")


def test_mistakes_get_a_did_you_mean(cli):
    # A mistyped option or rule id names the one meant (exit 2, one line, the cudnnlint: prefix).
    result = cli.run("--formt", "json", FIXTURES, check_code=2)
    assert result.stderr.strip() == "cudnnlint: error: unknown option '--formt'; did you mean '--format'? (see --help)"
    result = cli.run("--selct=bn-eps-zero", FIXTURES, check_code=2)
    assert "unknown option '--selct'; did you mean '--select'?" in result.stderr
    result = cli.run("--select", "bn-eps-zeroo", FIXTURES, check_code=2)
    assert "--select: unknown rule 'bn-eps-zeroo'; did you mean 'bn-eps-zero'?" in result.stderr
    result = cli.run("--ignore", "bn-eps-negativ", FIXTURES, check_code=2)
    assert "did you mean 'bn-eps-negative'?" in result.stderr
    # Nothing close: no guess.
    result = cli.run("--select", "completely-unrelated-name", FIXTURES, check_code=2)
    assert "did you mean" not in result.stderr and "unknown rule 'completely-unrelated-name'" in result.stderr


def test_a_missing_path_alone_reads_as_an_error_not_a_clean_run(cli, tmp_path):
    result = cli.run(tmp_path / "nosuch", check_code=2)
    assert "no such file or directory" in result.stderr
    assert "No findings" not in result.stdout


def test_missing_path_is_reported_and_the_rest_still_analysed(cli, tmp_path):
    result = cli.run(tmp_path / "nope.py", FIXTURES / "keras3.py", "--framework", "keras=3")
    assert result.returncode == 2
    assert "nope.py" in result.stderr and "no such file or directory" in result.stderr
    assert "[bn-eps-zero]" in result.stdout


def test_select_and_ignore(cli):
    doc, _ = cli.json("--select", "bn-eps-zero", FIXTURES / "torch_routes.py")
    assert {f["rule"] for f in doc["findings"]} == {"bn-eps-zero"}
    doc, _ = cli.json("--ignore", "bn-eps-zero,bn-eps-negative", FIXTURES / "torch_routes.py")
    assert doc["findings"] == []


def test_target_changes_the_verdict_and_is_named(cli, tmp_path):
    f = tmp_path / "m.py"
    f.write_text("from mxnet.gluon import nn\nbn = nn.BatchNorm(epsilon=1e-6)\n")
    unknown, _ = cli.json(f)
    assert unknown["findings"][0]["level"] == "warning"
    assert "cuDNN version unknown" in full_message(unknown["findings"][0])
    old, _ = cli.json("--cudnn-version", "7.4", f)
    assert old["findings"][0]["level"] == "error"
    assert old["findings"][0]["target"] == "cuDNN 7.4 (--cudnn-version)"
    new, _ = cli.json("--cudnn-version", "9.1", f)
    assert new["findings"] == []


def test_configuration_from_pyproject_and_dedicated_file(cli, tmp_path):
    (tmp_path / "m.py").write_text("from mxnet.gluon import nn\nbn = nn.BatchNorm(epsilon=1e-6)\n")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.cudnnlint]\ncudnn-version = "7.4"\n')
    doc, _ = cli.json("m.py", cwd=tmp_path)
    assert doc["findings"][0]["target"] == "cuDNN 7.4 (pyproject.toml)"
    # The command line wins over the file; --isolated ignores it.
    doc, _ = cli.json("--cudnn-version", "9.0", "m.py", cwd=tmp_path)
    assert doc["findings"] == []
    doc, _ = cli.json("--isolated", "m.py", cwd=tmp_path)
    assert "unknown" in full_message(doc["findings"][0])
    (tmp_path / ".cudnnlint.toml").write_text('ignore = ["bn-eps-below-cudnn-min"]\n')
    doc, _ = cli.json("m.py", cwd=tmp_path)
    assert doc["findings"] == []
    (tmp_path / ".cudnnlint.toml").write_text('cudnn-versio = "7.4"\n')
    bad = cli.run("m.py", cwd=tmp_path, check_code=2)
    assert ".cudnnlint.toml" in bad.stderr and "unknown key" in bad.stderr
    (tmp_path / ".cudnnlint.toml").write_text('cudnn-version = \n')
    bad = cli.run("m.py", cwd=tmp_path, check_code=2)
    assert "invalid TOML" in bad.stderr


def test_framework_targets_merge_per_framework_and_name_their_source(cli, tmp_path):
    (tmp_path / "m.py").write_text("import torch.nn as nn\nbn = nn.BatchNorm2d(3, eps=0.0)\n")
    (tmp_path / "pyproject.toml").write_text('[tool.cudnnlint]\nframeworks = ["torch=2.11"]\n')
    # --framework for another framework keeps the file's torch pin, and the finding says where it came from.
    doc, _ = cli.json("--framework", "keras=3", "m.py", cwd=tmp_path)
    assert doc["findings"][0]["target"].endswith("PyTorch 2.11 (pyproject.toml)")
    assert doc["findings"][0]["level"] == "error"
    # The version torch.__version__ prints, a pre-release and the PyPI name are understood.
    for spec in ("torch=2.11.0+cu130", "torch=2.11.0rc1", "PyTorch==2.11"):
        doc, _ = cli.json("--isolated", "--framework", spec, "m.py", cwd=tmp_path)
        assert doc["findings"][0]["target"].endswith("PyTorch 2.11 (--framework)"), spec
    # An unknown framework, or one given twice, is a usage error naming it.
    bad = cli.run("--isolated", "--framework", "pytorch-lightning=2", "m.py", cwd=tmp_path, check_code=2)
    assert "unknown framework 'pytorch-lightning'" in bad.stderr
    bad = cli.run("--isolated", "--framework", "torch=2.9", "--framework", "torch=2.12", "m.py", cwd=tmp_path,
                  check_code=2)
    assert "'torch' given twice" in bad.stderr


def test_discovery_honours_gitignore_and_skips_virtualenvs(cli, tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    bad = "import torch.nn as nn\nbn = nn.BatchNorm2d(3, eps=0)\n"
    for rel in ("src/model.py", "generated/model.py", ".venv/lib/model.py", "env2/lib/model.py",
                "build/model.py", "src/notes.txt"):
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(bad)
    (tmp_path / "env2" / "pyvenv.cfg").write_text("home = /usr\n")
    (tmp_path / ".gitignore").write_text("generated/\n")
    doc, _ = cli.json(tmp_path)
    assert sorted(f["path"] for f in doc["findings"]) == [str(tmp_path / "src/model.py")]
    # A file named on the command line is taken as it is.
    doc, _ = cli.json(tmp_path / "generated" / "model.py")
    assert len(doc["findings"]) == 1
    doc, _ = cli.json("--no-gitignore", tmp_path)
    assert len(doc["findings"]) == 2


def test_bad_input_gives_per_file_diagnostics_and_the_run_goes_on(cli, tmp_path):
    good = "import torch.nn as nn\nbn = nn.BatchNorm2d(3, eps=0)\n"
    (tmp_path / "a_good.py").write_text(good)
    (tmp_path / "binary.py").write_bytes(b"import torch\x00\x01\x02")
    (tmp_path / "latin1.py").write_bytes("x = 'caf\xe9'\n".encode("latin-1"))
    (tmp_path / "huge.py").write_text("x = 1\n" * (5 * 1024 * 1024 // 6 + 1))
    (tmp_path / "syntax.py").write_text("import torch.nn as nn\ndef broken(:\n    pass\nbn = nn.BatchNorm2d(3, eps=0)\n")
    (tmp_path / "dir.py").mkdir()
    result = cli.run("--format", "json", tmp_path, tmp_path / "dir.py")
    assert result.returncode == 1
    doc = json.loads(result.stdout)
    messages = {os.path.basename(d["path"]): d["message"] for d in doc["diagnostics"]}
    assert "binary file" in messages["binary.py"]
    assert "invalid UTF-8 at line 1" in messages["latin1.py"]
    assert "above the 4194304-byte limit" in messages["huge.py"]
    assert "syntax error" in messages["syntax.py"]
    # Both analysable files were analysed, including the recovered part of the broken one.
    assert sorted(os.path.basename(f["path"]) for f in doc["findings"]) == ["a_good.py", "syntax.py"]
    text = cli.run("--color", "never", tmp_path)
    assert "latin1.py: error: invalid UTF-8" in text.stderr
    assert "syntax.py:2:" in text.stderr
    # A dangling link named on the command line is a missing path: a usage error, said plainly.
    (tmp_path / "dangling.py").symlink_to(tmp_path / "missing-target.py")
    dangling = cli.run(tmp_path / "dangling.py", tmp_path / "a_good.py", check_code=2)
    assert "dangling.py" in dangling.stderr
    assert "[bn-eps-zero]" in dangling.stdout


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode: unreadable files cannot be made")
def test_unreadable_file_is_a_diagnostic(cli, tmp_path):
    f = tmp_path / "secret.py"
    f.write_text("import torch\n")
    f.chmod(0)
    result = cli.run("--format", "json", tmp_path)
    doc = json.loads(result.stdout)
    assert "cannot open" in doc["diagnostics"][0]["message"]


def test_parallel_runs_are_deterministic(cli):
    one, _ = cli.json("--jobs", "1", REPO / "tests" / "fixtures", REPO / "examples")
    many, _ = cli.json("--jobs", "4", REPO / "tests" / "fixtures", REPO / "examples")
    assert one == many


def test_select_of_a_c_api_rule_reads_no_python(cli, tmp_path):
    """No selected rule reads Python facts: no Python file is read or parsed (an empty family list
    used to mean every family, so `--select cudnn-desc-bad-dim` parsed all Python code)."""
    (tmp_path / "model.py").write_text("import torch.nn as nn\nbn = nn.BatchNorm2d(8, eps=-1e-5)\n")
    (tmp_path / "desc.cpp").write_text(
        "int cudnnSetTensor4dDescriptor(void*, int, int, int, int, int, int);\n"
        "void f(void* d) { cudnnSetTensor4dDescriptor(d, 0, 0, 0, 3, 8, 8); }\n")
    report, result = cli.json("--timings", "--select", "cudnn-desc-bad-dim", tmp_path)
    assert [f["rule"] for f in report["findings"]] == ["cudnn-desc-bad-dim"], report["findings"]
    timings = [line for line in result.stderr.splitlines() if line.startswith("timings:")]
    assert timings, result.stderr
    read = int(re.search(r"parsed \d+ of (\d+) bytes read", timings[0]).group(1))
    assert read == len((tmp_path / "desc.cpp").read_bytes()), timings[0]
    # The same tree without --select reads the Python file too, and finds its epsilon.
    report, _ = cli.json(tmp_path)
    assert "bn-eps-negative" in {f["rule"] for f in report["findings"]}


def test_fused_false_advice_is_scoped_to_keras_2(cli, tmp_path):
    """`fused=False` is Keras 2 only: Keras 3.15.1 raises "Unrecognized keyword arguments passed to
    BatchNormalization: {'fused': False}". Unknown Keras: scoped advice; Keras 2: plain advice;
    Keras 3: no clamp, no finding."""
    (tmp_path / "m.py").write_text("import tensorflow as tf\nbn = tf.keras.layers.BatchNormalization(epsilon=1e-6)\n")
    args = ("--select", "bn-eps-silently-clamped")
    report, _ = cli.json(*args, tmp_path)
    [unknown] = report["findings"]
    assert "with Keras 2, pass fused=False to keep it (Keras 3 has no `fused` argument" in full_message(unknown)
    report, _ = cli.json(*args, "--framework", "keras=2", tmp_path)
    [keras2] = report["findings"]
    assert "; pass fused=False to keep it." in full_message(keras2) and "Keras 3" not in full_message(keras2)
    report, _ = cli.json(*args, "--framework", "keras=3", tmp_path)
    assert report["findings"] == []
