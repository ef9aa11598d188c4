"""--write-baseline / --baseline (issue 14, part 4): a baselined finding survives line shifts,
re-indentation and edits elsewhere in the file; a new one, or a changed line, is reported; the file
is sorted JSON that diffs well; a bad baseline is a clear error before the run."""
import json

import pytest

MODEL = "import torch.nn as nn\na = nn.BatchNorm2d(8, eps=0)\nb = nn.BatchNorm2d(8, eps=-1e-5)\n"


def tree(tmp_path, text=MODEL):
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / "pkg").mkdir(exist_ok=True)
    (tmp_path / "pkg" / "model.py").write_text(text)
    return tmp_path


def findings(cli, root, *args):
    doc, result = cli.json(*args, root, cwd=root)
    return sorted((f["line"], f["rule"]) for f in doc["findings"]), doc, result


def test_written_baseline_is_sorted_json_of_the_findings_and_a_rerun_is_clean(cli, tmp_path):
    root = tree(tmp_path)
    written = cli.run("--write-baseline", "base.json", ".", cwd=root, check_code=0)
    assert "wrote 2 findings to base.json" in written.stderr
    doc = json.loads((root / "base.json").read_text())
    assert doc == {"tool": "cudnnlint", "version": 1, "findings": [
        {"path": "pkg/model.py", "rule": "bn-eps-negative", "code": "b=nn.BatchNorm2d(8,eps=-1e-5)", "count": 1},
        {"path": "pkg/model.py", "rule": "bn-eps-zero", "code": "a=nn.BatchNorm2d(8,eps=0)", "count": 1}]}
    assert [p.name for p in root.iterdir() if p.name.startswith("base.json")] == ["base.json"]  # no temporary left
    found, doc, result = findings(cli, root, "--baseline", "base.json")
    assert (found, doc["summary"]["baselined"], result.returncode) == ([], 2, 0)
    text = cli.run("--baseline", "base.json", ".", cwd=root, check_code=0)
    assert "2 in the baseline" in text.stdout


def test_baselined_findings_survive_shifts_and_edits_and_new_ones_are_reported(cli, tmp_path):
    root = tree(tmp_path)
    cli.run("--write-baseline", "base.json", ".", cwd=root, check_code=0)
    # Lines moved down, re-indented in a class, spacing changed, another line edited.
    tree(root, "# header\nimport torch.nn as nn  # edited\n\n\nclass M:\n    a = nn.BatchNorm2d(8,  eps=0)\n"
               "    b = nn.BatchNorm2d(8, eps=-1e-5)\n")
    found, doc, result = findings(cli, root, "--baseline", "base.json")
    assert (found, doc["summary"]["baselined"]) == ([], 2)
    # A second identical line is a new finding; so is a changed value on a baselined line.
    tree(root, "import torch.nn as nn\na = nn.BatchNorm2d(8, eps=0)\nb = nn.BatchNorm2d(8, eps=-1e-5)\n"
               "c = nn.BatchNorm2d(8, eps=-1e-5)\nb = nn.BatchNorm2d(8, eps=-1e-5)\n")
    found, doc, result = findings(cli, root, "--baseline", "base.json")
    assert found == [(4, "bn-eps-negative"), (5, "bn-eps-negative")] and result.returncode == 1
    tree(root, "import torch.nn as nn\na = nn.BatchNorm2d(8, eps=0.0)\nb = nn.BatchNorm2d(8, eps=-1e-5)\n")
    found, _, _ = findings(cli, root, "--baseline", "base.json")
    assert found == [(2, "bn-eps-zero")]


def test_sarif_says_how_many_the_baseline_dropped(cli, tmp_path):
    root = tree(tmp_path)
    cli.run("--write-baseline", "base.json", ".", cwd=root, check_code=0)
    result = cli.run("--format", "sarif", "--baseline", "base.json", ".", cwd=root, check_code=0)
    run = json.loads(result.stdout)["runs"][0]
    assert (run["results"], run["properties"]["baselined"]) == ([], 2)


@pytest.mark.parametrize("content, problem", [
    (None, "no such file"),
    ("{not json", "invalid JSON"),
    ('{"tool": "ruff", "version": 1, "findings": []}', 'no "tool": "cudnnlint"'),
    ('{"tool": "cudnnlint", "version": 2, "findings": []}', "version 1 expected"),
    ('{"tool": "cudnnlint", "version": 1, "findings": [{"path": "a.py", "rule": "x"}]}', 'without "code"'),
    ('{"tool": "cudnnlint", "version": 1, "findings": [{"path": "a", "rule": "x", "code": "", "count": -1}]}',
     "count is not a positive integer"),
])
def test_a_bad_baseline_is_an_error_naming_the_file(cli, tmp_path, content, problem):
    root = tree(tmp_path)
    if content is not None:
        (root / "base.json").write_text(content)
    result = cli.run("--baseline", "base.json", ".", cwd=root, check_code=2)
    assert "base.json" in result.stderr and problem in result.stderr, result.stderr
    assert result.stdout == ""


def test_baseline_options_and_write_failures_are_usage_errors(cli, tmp_path):
    root = tree(tmp_path)
    both = cli.run("--baseline", "a.json", "--write-baseline", "b.json", ".", cwd=root, check_code=2)
    assert "give one" in both.stderr
    unwritable = cli.run("--write-baseline", "no/such/dir/base.json", ".", cwd=root, check_code=2)
    assert "no/such/dir/base.json" in unwritable.stderr
