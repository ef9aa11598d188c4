"""The conventions Ruff users reach for: --exit-zero, --statistics, the concise format, standard
input with --stdin-filename, --show-files, --show-settings, extend-select / extend-ignore /
per-file-ignores, and "did you mean" for configuration keys."""
import json
import subprocess

from conftest import REPO

EXAMPLES = REPO / "examples"
ZERO_AND_NEGATIVE = "import torch.nn as nn\nbn = nn.BatchNorm2d(3, eps=0)\nbn2 = nn.BatchNorm2d(3, eps=-1)\n"


def stdin_run(cli, text, *args, cwd=None):
    return subprocess.run([cli.binary, "--no-cache", *map(str, args)], input=text, capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def test_exit_zero_keeps_the_report_and_exits_0(cli):
    failing = cli.run("--no-cache", EXAMPLES, check_code=1)
    passing = cli.run("--no-cache", "--exit-zero", EXAMPLES, check_code=0)
    assert passing.stdout == failing.stdout and "16 findings" in passing.stdout
    # A usage error is still one.
    cli.run("--exit-zero", EXAMPLES / "nosuch.py", check_code=2)


def test_statistics_counts_per_rule(cli):
    report = cli.json("--no-cache", EXAMPLES)[0]
    expected = {}
    for finding in report["findings"]:
        expected[finding["rule"]] = expected.get(finding["rule"], 0) + 1
    text = cli.run("--no-cache", "--statistics", EXAMPLES, check_code=1).stdout.splitlines()
    rows = [line.split() for line in text[:-1]]
    assert {row[1]: int(row[0]) for row in rows} == expected
    counts = [int(row[0]) for row in rows]
    assert counts == sorted(counts, reverse=True)  # most frequent first
    assert text[-1].startswith("16 findings")
    data = json.loads(cli.run("--no-cache", "--statistics", "-f", "json", EXAMPLES, check_code=1).stdout)
    assert {row["rule"]: row["count"] for row in data} == expected
    assert all(row["summary"] and row["level"] in ("note", "warning", "error") for row in data)
    result = cli.run("--statistics", "-f", "sarif", EXAMPLES, check_code=2)
    assert "--statistics prints text or JSON" in result.stderr


def test_concise_is_one_line_per_finding(cli):
    report = cli.json("--no-cache", EXAMPLES)[0]
    lines = cli.run("--no-cache", "--output-format", "concise", EXAMPLES, check_code=1).stdout.splitlines()
    assert len(lines) == len(report["findings"]) + 1
    for line, finding in zip(lines, report["findings"]):
        cell = f'cell {finding["cell"]}:' if "cell" in finding else ""  # a notebook's findings name their cell
        prefix = f'{finding["path"]}:{cell}{finding["line"]}:{finding["column"]}: {finding["level"]}: {finding["rule"]} '
        assert line.startswith(prefix), (line, prefix)
        assert line.endswith(finding["message"])
    assert lines[-1].startswith("16 findings")


def test_standard_input_is_analysed_as_the_named_file(cli, tmp_path):
    result = stdin_run(cli, ZERO_AND_NEGATIVE, "-", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "stdin.py:2:28: warning:" in result.stdout and "stdin.py:3:29: error:" in result.stdout
    # The name decides the configuration's per-file-ignores, and the text is the input's, not the
    # file's on disk.
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "a.py").write_text("x = 1\n")
    (tmp_path / "pyproject.toml").write_text('[tool.cudnnlint.per-file-ignores]\n"models/*.py" = ["bn-eps-zero"]\n')
    result = stdin_run(cli, ZERO_AND_NEGATIVE, "--format", "concise", "--stdin-filename", "models/a.py", "-", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert result.stdout.splitlines()[0].startswith("models/a.py:3:29: error: bn-eps-negative ")
    assert "bn-eps-zero" not in result.stdout
    # Mistakes say what to do.
    assert "give it alone" in stdin_run(cli, "", "-", EXAMPLES, cwd=tmp_path).stderr
    assert "give - as the path" in stdin_run(cli, "", "--stdin-filename", "a.py", EXAMPLES, cwd=tmp_path).stderr
    assert "read as Python" in stdin_run(cli, "", "--stdin-filename", "a.cu", "-", cwd=tmp_path).stderr
    big = stdin_run(cli, "x = 1\n" * 100, "--max-file-size", "64", "-", cwd=tmp_path)
    assert big.returncode == 2 and "larger than the file-size limit" in big.stderr


def test_show_files_and_show_settings(cli, tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("x = 1\n")
    (tmp_path / "b.cu").write_text("int x;\n")
    (tmp_path / "notes.txt").write_text("x\n")
    (tmp_path / "pyproject.toml").write_text('[tool.cudnnlint]\nignore = ["bn-eps-zero"]\nfail-level = "error"\n')
    files = cli.run("--show-files", ".", cwd=tmp_path, check_code=0).stdout.splitlines()
    assert files == ["b.cu", "pkg/a.py"]
    settings = cli.run("--show-settings", "--extend-ignore", "bn-eps-negative", ".", cwd=tmp_path, check_code=0).stdout
    assert f"configuration = {tmp_path / 'pyproject.toml'}" in settings
    assert 'ignore = ["bn-eps-zero", "bn-eps-negative"]' in settings
    assert "fail-level = error" in settings and "select = all rules" in settings
    isolated = cli.run("--show-settings", "--isolated", ".", cwd=tmp_path, check_code=0).stdout
    assert "configuration = none (--isolated)" in isolated and "ignore = []" in isolated


def test_extend_select_extend_ignore_and_per_file_ignores(cli, tmp_path):
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "a.py").write_text(ZERO_AND_NEGATIVE)
    (tmp_path / "b.py").write_text(ZERO_AND_NEGATIVE)

    def rules_found(*args, cwd=tmp_path):
        report = json.loads(cli.run("--no-cache", "-f", "json", *args, cwd=cwd).stdout)
        return sorted((f["path"], f["rule"]) for f in report["findings"])

    assert len(rules_found(".")) == 4
    config = tmp_path / "pyproject.toml"
    config.write_text('[tool.cudnnlint]\nselect = ["bn-eps-zero"]\nextend-select = ["bn-eps-negative"]\n'
                      'extend-ignore = ["bn-eps-zero"]\n')
    assert rules_found(".") == [("b.py", "bn-eps-negative"), ("models/a.py", "bn-eps-negative")]
    config.write_text('[tool.cudnnlint.per-file-ignores]\n"models/*.py" = ["bn-eps-zero"]\n"b.py" = ["bn-eps-negative"]\n')
    expected = [("b.py", "bn-eps-zero"), ("models/a.py", "bn-eps-negative")]
    assert rules_found(".") == expected
    # Patterns are relative to the configuration's folder, wherever the run starts.
    outside = rules_found("--config", config, tmp_path.name, cwd=tmp_path.parent)
    assert outside == [(f"{tmp_path.name}/{path}", rule) for path, rule in expected]
    # --extend-select and --extend-ignore on the command line.
    config.write_text("")
    assert rules_found("--select", "bn-eps-zero", "--extend-select", "bn-eps-negative", "--extend-ignore",
                       "bn-eps-zero", ".") == [("b.py", "bn-eps-negative"), ("models/a.py", "bn-eps-negative")]


def test_configuration_mistakes_name_the_file_the_key_and_the_likely_one(cli, tmp_path):
    config = tmp_path / "pyproject.toml"
    (tmp_path / "a.py").write_text("x = 1\n")
    config.write_text('[tool.cudnnlint]\nselec = ["bn-eps-zero"]\n')
    result = cli.run(".", cwd=tmp_path, check_code=2)
    assert f"{config}: unknown key 'selec'; did you mean 'select'?" in result.stderr
    assert "extend-select" in result.stderr  # the keys it knows
    config.write_text('[tool.cudnnlint]\nextend-ignore = ["bn-eps-zer"]\n')
    result = cli.run(".", cwd=tmp_path, check_code=2)
    assert f"{config}: extend-ignore: unknown rule 'bn-eps-zer'; did you mean 'bn-eps-zero'?" in result.stderr
    config.write_text('[tool.cudnnlint.per-file-ignores]\n"a.py" = "bn-eps-zero"\n')
    result = cli.run(".", cwd=tmp_path, check_code=2)
    assert "per-file-ignores.\"a.py\"' must be an array of strings" in result.stderr
    config.write_text('[tool.cudnnlint]\nper-file-ignores = ["a.py"]\n')
    assert "must be a table" in cli.run(".", cwd=tmp_path, check_code=2).stderr


def test_add_noqa_suppresses_each_finding_on_its_line_once(cli, tmp_path):
    import shutil
    tree = tmp_path / "tree"
    shutil.copytree(EXAMPLES, tree)
    before_doc = json.loads(cli.run("--no-cache", "-f", "json", tree).stdout)
    before = before_doc["findings"]
    python_lines = {(f["path"], f["line"]) for f in before if f["path"].endswith(".py")}
    result = cli.run("--no-cache", "--add-noqa", tree, check_code=0)
    assert f"added {len(python_lines)} suppression comments" in result.stderr
    # C++ lines are listed for a comment by hand (the result could not be re-parsed to check it).
    assert "cudnn_conv_block.cpp:24: comments are added to Python files only" in result.stderr
    # A notebook's cells are not rewritten: its lines are listed, by cell, for a comment by hand.
    assert "notebook_training.ipynb:cell 8:3: comments are not added to notebooks" in result.stderr
    after = json.loads(cli.run("--no-cache", "-f", "json", tree).stdout)
    assert all(f["path"].endswith((".cpp", ".ipynb")) for f in after["findings"])
    assert after["summary"]["suppressed"] - before_doc["summary"]["suppressed"] == len(before) - len(after["findings"])
    text = (tree / "fp16_finetune.py").read_text(encoding="utf-8")
    assert "lr=1e-4)  # cudnnlint: ignore[optimizer-eps-vanishes-in-half]\n" in text
    # Idempotent: nothing left to add.
    assert "added 0 suppression comments in 0 files" in cli.run("--no-cache", "--add-noqa", tree, check_code=0).stderr

    # A line that already silences another rule gets this one added to its list; a line continued
    # by a backslash is left alone.
    model = tmp_path / "m.py"
    model.write_text("import torch.nn as nn\n"
                     "bn = nn.BatchNorm2d(3, eps=0)  # cudnnlint: ignore[bn-eps-negative]\n"
                     "bn2 = nn.BatchNorm2d(3, eps=0); total = 1 + \\\n    2\n")
    result = cli.run("--no-cache", "--add-noqa", model, check_code=0)
    assert model.read_text().splitlines()[1] == "bn = nn.BatchNorm2d(3, eps=0)  # cudnnlint: ignore[bn-eps-negative,bn-eps-zero]"
    assert "added 1 suppression comment in 1 file" in result.stderr
    assert "m.py:3: the line continues on the next (a backslash)" in result.stderr
    assert model.read_text().splitlines()[2] == "bn2 = nn.BatchNorm2d(3, eps=0); total = 1 + \\"
    assert cli.run("--add-noqa", "--diff", model, check_code=2).returncode == 2


def test_grouped_lists_the_findings_under_their_file(cli):
    report = cli.json("--no-cache", EXAMPLES)[0]
    text = cli.run("--no-cache", "-f", "grouped", EXAMPLES, check_code=1).stdout
    blocks = text.strip().split("\n\n")
    assert blocks[-1].startswith("16 findings")
    files = {}
    for block in blocks[:-1]:
        header, *rows = block.splitlines()
        assert header.endswith(":") and header[:-1] not in files
        files[header[:-1]] = rows
    expected = {}
    for f in report["findings"]:
        cell = f'cell {f["cell"]}:' if "cell" in f else ""
        expected.setdefault(f["path"], []).append(f'  {cell}{f["line"]}:{f["column"]} {f["level"]} {f["rule"]} {f["message"]}')
    assert files == expected
