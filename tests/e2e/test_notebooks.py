"""Jupyter notebooks (issue 36): a .ipynb file's code cells, in order, are analysed as one module, as
Ruff does. Findings name the cell (counted as Jupyter shows them, Markdown included) and the line in
it in text and JSON; SARIF and GitHub's workflow commands point at the .ipynb file's own line with the
cell in the message. Magics and shell lines are skipped, suppressions work in cells, findings survive
--baseline and the cache, and the same code in a .py file gives the same findings at the same lines."""
import json
import re
import shutil

import pytest

from conftest import REPO

EXAMPLE = REPO / "examples" / "notebook_training.ipynb"


def code_cells(path):
    """(cell number counting every cell, its source lines) for each code cell."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    out = []
    for number, cell in enumerate(cells, start=1):
        if cell["cell_type"] == "code":
            source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            out.append((number, source.splitlines()))
    return out


def python_twin(path):
    """The notebook as a .py file, written independently of cudnnlint: each line of each code cell,
    IPython's lines (`%...`, `!...`) made `pass`, a `%%time` line blank; and for each line of the twin,
    (cell, line in cell)."""
    lines, places = [], []
    for cell, source in code_cells(path):
        for number, line in enumerate(source, start=1):
            stripped = line.lstrip()
            if stripped.startswith("%%"):
                line = ""
            elif stripped.startswith(("%", "!")):
                line = line[: len(line) - len(stripped)] + "pass"
            lines.append(line)
            places.append((cell, number))
    return "\n".join(lines) + "\n", places


def test_the_example_notebooks_findings_name_their_cells_and_a_suppression_in_a_cell_holds(cli):
    doc, result = cli.json("--no-cache", EXAMPLE)
    found = sorted((f["cell"], f["line"], f["rule"]) for f in doc["findings"])
    assert found == [(5, 5, "loader-last-batch-single-sample"), (8, 3, "optimizer-eps-vanishes-in-half")], found
    assert doc["summary"]["suppressed"] == 1, doc["summary"]  # `probe = nn.BatchNorm2d(8, eps=0)  # cudnnlint: ignore[...]`
    assert result.returncode == 1
    # The JSON's lines are the cell's; file_line is the .ipynb file's line that holds the code.
    raw = EXAMPLE.read_text(encoding="utf-8").splitlines()
    for f in doc["findings"]:
        assert "DataLoader(" in raw[f["file_line"] - 1] or "torch.optim.Adam(" in raw[f["file_line"] - 1], f
    text = cli.run("--no-cache", EXAMPLE).stdout
    assert re.search(r"notebook_training\.ipynb:cell 5:5:\d+: error: .*\[loader-last-batch-single-sample\]", text), text
    assert re.search(r"notebook_training\.ipynb:cell 8:3:\d+: ", text), text
    assert " 3 | half_optimizer = torch.optim.Adam(" in text, text  # the excerpt numbers the cell's line
    concise = cli.run("--no-cache", "--output-format", "concise", EXAMPLE).stdout
    assert "notebook_training.ipynb:cell 8:3:" in concise, concise


def test_a_notebook_and_its_py_twin_give_the_same_findings_at_the_same_places(cli, tmp_path):
    notebook = tmp_path / "train.ipynb"
    shutil.copy(EXAMPLE, notebook)
    twin, places = python_twin(EXAMPLE)
    (tmp_path / "twin" ).mkdir()
    (tmp_path / "twin" / "train.py").write_text(twin, encoding="utf-8")
    in_notebook, _ = cli.json("--no-cache", notebook)
    in_twin, _ = cli.json("--no-cache", tmp_path / "twin" / "train.py")
    expected = sorted((places[f["line"] - 1], f["column"], f["rule"], f["message"]) for f in in_twin["findings"])
    got = sorted(((f["cell"], f["line"]), f["column"], f["rule"], f["message"]) for f in in_notebook["findings"])
    assert got == expected and got, (got, expected)
    assert in_twin["summary"]["suppressed"] == in_notebook["summary"]["suppressed"] == 1


def test_sarif_and_github_point_at_the_ipynb_line_and_name_the_cell(cli, sarif_check, reference_line_hashes, tmp_path):
    out = tmp_path / "nb.sarif"
    cli.run("--no-cache", "--format", "sarif", "--output", out, EXAMPLE, cwd=REPO)
    sarif_check(out)
    raw = EXAMPLE.read_text(encoding="utf-8")
    hashes = reference_line_hashes(raw)
    results = json.loads(out.read_text())["runs"][0]["results"]
    assert len(results) == 2
    for res in results:
        region = res["locations"][0]["physicalLocation"]["region"]
        line = raw.splitlines()[region["startLine"] - 1]
        assert "DataLoader(" in line or "torch.optim.Adam(" in line, (region, line)
        assert "startColumn" not in region  # the JSON line's columns are not the code's
        cell = res["properties"]["notebook"]
        assert f"(cell {cell['cell']}, line {cell['line']}, column {cell['column']})" in res["message"]["text"]
        assert res["partialFingerprints"]["primaryLocationLineHash"] == hashes[region["startLine"]]
    github = cli.run("--no-cache", "--output-format", "github", "examples/notebook_training.ipynb", cwd=REPO).stdout
    adam_line = next(i for i, l in enumerate(raw.splitlines(), start=1) if "torch.optim.Adam(" in l)
    assert f"file=examples/notebook_training.ipynb,line={adam_line},endLine={adam_line},title=" in github, github
    assert "(cell 8, line 3)" in github


def test_baselined_notebook_findings_survive_a_new_cell_above_them(cli, tmp_path):
    (tmp_path / ".git").mkdir()
    notebook = tmp_path / "train.ipynb"
    shutil.copy(EXAMPLE, notebook)
    cli.run("--write-baseline", "base.json", ".", cwd=tmp_path, check_code=0)
    recorded = json.loads((tmp_path / "base.json").read_text())["findings"]
    assert {r["rule"] for r in recorded} == {"loader-last-batch-single-sample", "optimizer-eps-vanishes-in-half"}
    assert any(r["code"].startswith("half_optimizer=torch.optim.Adam(") for r in recorded), recorded
    doc = json.loads(notebook.read_text())
    doc["cells"].insert(2, {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                            "source": ["import os\n", "SEED = 0\n"]})
    notebook.write_text(json.dumps(doc, indent=1))
    after, result = cli.json("--baseline", "base.json", ".", cwd=tmp_path)
    assert (after["findings"], after["summary"]["baselined"], result.returncode) == ([], 2, 0)


def test_the_cache_answers_a_notebook_as_the_first_run_did_and_sees_an_edit(cli, tmp_path):
    notebook = tmp_path / "train.ipynb"
    shutil.copy(EXAMPLE, notebook)
    cache = ["--cache-dir", tmp_path / "cache"]
    first, _ = cli.json(*cache, notebook)
    second, _ = cli.json(*cache, notebook)
    assert first["findings"] == second["findings"] and len(first["findings"]) == 2
    doc = json.loads(notebook.read_text())
    doc["cells"][7]["source"] = ["half_model = Net()\n"]  # float32 now: Adam's eps is fine
    notebook.write_text(json.dumps(doc, indent=1))
    third, _ = cli.json(*cache, notebook)
    assert [f["rule"] for f in third["findings"]] == ["loader-last-batch-single-sample"]


def test_a_directory_walk_reads_notebooks_but_not_checkpoints_and_a_notebook_takes_no_module_name(cli, tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "train.py").write_text("EPS = 0\n")
    (tmp_path / "main.py").write_text("import torch.nn as nn\nfrom train import EPS\nbn = nn.BatchNorm2d(8, eps=EPS)\n")
    # train.ipynb beside train.py must not make `from train import EPS` ambiguous.
    shutil.copy(EXAMPLE, tmp_path / "train.ipynb")
    (tmp_path / ".ipynb_checkpoints").mkdir()
    shutil.copy(EXAMPLE, tmp_path / ".ipynb_checkpoints" / "train-checkpoint.ipynb")
    shown = cli.run("--show-files", ".", cwd=tmp_path, check_code=0).stdout.split()
    assert shown == ["main.py", "train.ipynb", "train.py"], shown
    doc, _ = cli.json("--no-cache", ".", cwd=tmp_path)
    found = sorted((f["path"], f["rule"]) for f in doc["findings"])
    assert found == [("main.py", "bn-eps-zero"), ("train.ipynb", "loader-last-batch-single-sample"),
                     ("train.ipynb", "optimizer-eps-vanishes-in-half")], found


def test_a_broken_notebook_is_a_clear_error_naming_it_and_the_run_goes_on(cli, tmp_path):
    (tmp_path / "broken.ipynb").write_text('{"cells": [')
    (tmp_path / "old.ipynb").write_text('{"nbformat": 3, "worksheets": []}')
    shutil.copy(EXAMPLE, tmp_path / "good.ipynb")
    result = cli.run("--no-cache", "broken.ipynb", "old.ipynb", "good.ipynb", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert re.search(r"broken\.ipynb.*not a readable notebook: not valid JSON at byte", result.stderr), result.stderr
    assert re.search(r"old\.ipynb.*nbformat 3 notebooks are not read", result.stderr), result.stderr
    assert "good.ipynb:cell 8:3:" in result.stdout


def test_a_syntax_error_in_a_cell_names_the_cell_and_its_line(cli, tmp_path):
    notebook = tmp_path / "exercise.ipynb"
    notebook.write_text(json.dumps({"cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Exercise\n"]},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": ["import torch.nn as nn\n", "bn = nn.BatchNorm2d(8, eps=0)\n"]},
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
         "source": ["def loss():\n", "    loss = \n", "    return loss\n"]}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1))
    doc, _ = cli.json("--no-cache", "--full-parse", notebook)  # the default mode parses no irrelevant function
    assert [(f["cell"], f["line"], f["rule"]) for f in doc["findings"]] == [(2, 2, "bn-eps-zero")]
    [syntax] = [d for d in doc["diagnostics"] if "syntax error" in d["message"]]
    assert re.match(r"cell 3, line [23], column \d+: syntax error", syntax["message"]), syntax
    assert "line" not in syntax, syntax  # the module's line would mislead; the message says the cell's


def test_fixes_never_rewrite_a_notebook(cli, tmp_path):
    notebook = tmp_path / "nb.ipynb"
    notebook.write_text(json.dumps({"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                                               "source": ["import torch.nn as nn\n", "bn = nn.BatchNorm2d(8, eps=0)\n"]}],
                                    "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1))
    before = notebook.read_bytes()
    doc, _ = cli.json("--no-cache", notebook)
    assert [(f["cell"], f["line"], f["rule"]) for f in doc["findings"]] == [(1, 2, "bn-eps-zero")]
    assert "fix" not in doc["findings"][0]
    cli.run("--no-cache", "--fix", "--unsafe-fixes", notebook)
    assert notebook.read_bytes() == before
