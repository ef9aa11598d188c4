"""Message snapshots, as Ruff keeps them: every rule has a fixture (tests/fixtures/rules/<rule-id>.*)
whose text report must equal its snapshot (tests/snapshots/rules/<rule-id>.txt), and every value
source (tests/fixtures/values/<source>/, a small project) likewise (tests/snapshots/values/<source>.txt).
Fixtures mark each finding with `# expect: RULE` on its line (a file that cannot hold comments
lists `path:line rule` in an expected.txt beside it).

To accept new output after a deliberate change: UPDATE_SNAPSHOTS=1 ./test.sh (then read the diff)."""
import json
import os
import pathlib
import re

import pytest

from conftest import REPO, expect_markers, fixture_args

RULE_FIXTURES = REPO / "tests" / "fixtures" / "rules"
VALUE_FIXTURES = REPO / "tests" / "fixtures" / "values"
SNAPSHOTS = REPO / "tests" / "snapshots"
ROW = re.compile(r'CUDNNLINT_RULE\(\s*(\w+),\s*"([a-z0-9-]+)",\s*(\w+),')
UPDATE = os.environ.get("UPDATE_SNAPSHOTS") == "1"


def registry():
    """(rule id, family) for every row of rules/rules.def."""
    code = "\n".join(line for line in (REPO / "rules" / "rules.def").read_text().splitlines()
                     if not line.lstrip().startswith("//"))
    return [(m.group(2), m.group(3)) for m in ROW.finditer(code)]


def rule_fixture(rule_id):
    found = [p for p in RULE_FIXTURES.glob(rule_id + ".*")]
    return found[0] if len(found) == 1 else None


def markers(path, root):
    return {(str(path.relative_to(root)), line, rule) for line, rule in expect_markers(path)}


def compare_snapshot(snapshot, actual):
    if UPDATE or not snapshot.exists():
        snapshot.parent.mkdir(parents=True, exist_ok=True)
        snapshot.write_text(actual, encoding="utf-8")
        if not UPDATE:
            pytest.fail(f"{snapshot.relative_to(REPO)} did not exist: written now, read it and commit it")
    assert actual == snapshot.read_text(encoding="utf-8"), (
        f"the report differs from {snapshot.relative_to(REPO)} (UPDATE_SNAPSHOTS=1 to accept)")


def test_every_rule_has_its_file_fixture_and_snapshot_under_one_name():
    rows = registry()
    assert rows, "rules/rules.def has no rows"
    for rule_id, family in rows:
        assert (REPO / "rules" / family / f"{rule_id}.cpp").exists(), f"rules/{family}/{rule_id}.cpp"
        assert rule_fixture(rule_id) is not None, f"tests/fixtures/rules/{rule_id}.* (exactly one)"
        assert (SNAPSHOTS / "rules" / f"{rule_id}.txt").exists() or UPDATE, f"tests/snapshots/rules/{rule_id}.txt"
    # No stray rule files, fixtures or snapshots: names agree both ways.
    ids = {rule_id for rule_id, _ in rows}
    for path in (REPO / "rules").glob("*/*.cpp"):
        if "-" in path.stem:
            assert path.stem in ids, f"{path.relative_to(REPO)} names no rule of rules/rules.def"
    for path in RULE_FIXTURES.iterdir():
        assert path.stem in ids, f"{path.relative_to(REPO)} names no rule"
    for path in (SNAPSHOTS / "rules").glob("*.txt"):
        assert path.stem in ids, f"{path.relative_to(REPO)} names no rule"


def test_the_binary_lists_exactly_the_registry(cli):
    listed = [line.split("\t")[0] for line in cli.run("rules", check_code=0).stdout.splitlines()]
    assert listed == [rule_id for rule_id, _ in registry()]


@pytest.mark.parametrize("rule_id", [rule_id for rule_id, _ in registry()])
def test_rule_fixture_gives_exactly_its_marked_findings_and_the_snapshot(cli, rule_id):
    fixture = rule_fixture(rule_id)
    assert fixture is not None
    relative = fixture.relative_to(REPO)
    doc, _ = cli.json("--select", rule_id, *fixture_args(fixture), relative, cwd=REPO)
    found = {(f["path"], f["line"], f["rule"]) for f in doc["findings"]}
    expected = {(str(relative), line, rule) for _, line, rule in markers(fixture, fixture.parent)}
    assert found == expected
    assert expected, f"{relative} marks no finding of {rule_id}"
    text = cli.run("--no-color", "--select", rule_id, *fixture_args(fixture), relative, cwd=REPO)
    assert text.returncode == 1, text.stderr
    compare_snapshot(SNAPSHOTS / "rules" / f"{rule_id}.txt", text.stdout)


VALUE_SOURCES = sorted(p.name for p in VALUE_FIXTURES.iterdir() if p.is_dir())


def expected_in(directory):
    found = set()
    for path in sorted(directory.rglob("*")):
        if path.suffix in (".py", ".yaml", ".yml"):
            found |= markers(path, REPO)
    sidecar = directory / "expected.txt"
    if sidecar.exists():
        for line in sidecar.read_text(encoding="utf-8").split("\n"):
            if line.strip():
                where, rule = line.split()
                path, number = where.rsplit(":", 1)
                found.add((str((directory / path).relative_to(REPO)), int(number), rule))
    return found


@pytest.mark.parametrize("source", VALUE_SOURCES)
def test_value_source_gives_exactly_its_marked_findings_and_the_snapshot(cli, source):
    directory = VALUE_FIXTURES / source
    relative = directory.relative_to(REPO)
    doc, _ = cli.json(relative, cwd=REPO)
    found = {(f["path"], f["line"], f["rule"]) for f in doc["findings"]}
    assert found == expected_in(directory)
    assert not doc["diagnostics"], doc["diagnostics"]
    # The shortcuts (prefilter, regions, later passes around new names) change nothing.
    full, _ = cli.json("--full-parse", relative, cwd=REPO)
    assert full["findings"] == doc["findings"]
    text = cli.run("--no-color", relative, cwd=REPO)
    compare_snapshot(SNAPSHOTS / "values" / f"{source}.txt", text.stdout)
    # Run inside the project as `cudnnlint .` (paths spelled from there: "train.py"): the same findings.
    inside, _ = cli.json("--no-cache", ".", cwd=directory)
    assert {(str(relative / f["path"]), f["line"], f["rule"]) for f in inside["findings"]} == found


def test_value_sources_keep_their_provenance_in_sarif(cli, tmp_path, sarif_check):
    """A value from another file is a relatedLocation in that file (SARIF consumers show both)."""
    out = tmp_path / "values.sarif"
    cli.run("--format", "sarif", "-o", out, "tests/fixtures/values", cwd=REPO)
    sarif_check(out)
    results = json.loads(out.read_text())["runs"][0]["results"]
    yaml_result = [r for r in results
                   if r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].endswith("yacs/configs/r50.yaml")]
    assert len(yaml_result) == 1
    related = [loc["physicalLocation"]["artifactLocation"]["uri"] for loc in yaml_result[0]["relatedLocations"]]
    assert any(uri.endswith("yacs/model.py") for uri in related), related


def test_a_malformed_config_is_a_diagnostic_and_the_run_goes_on(cli, tmp_path):
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "broken.yaml").write_text("model:\n  bn_eps: [1, 2\n  other: {\n", encoding="utf-8")
    (tmp_path / "configs" / "good.yaml").write_text("model:\n  head_bn_eps: -1.0\n", encoding="utf-8")
    (tmp_path / "config.json").write_text('{"batch_norm_eps": -1.0,', encoding="utf-8")
    (tmp_path / "model.py").write_text(
        "import torch.nn as nn\n"
        "a = nn.BatchNorm2d(8, eps=cfg.model.bn_eps)\n"
        "b = nn.BatchNorm2d(8, eps=cfg.model.head_bn_eps)\n"
        "c = nn.BatchNorm2d(8, eps=config.batch_norm_eps)\n"
        "d = nn.BatchNorm2d(8, eps=-2.0)\n", encoding="utf-8")
    doc, result = cli.json(tmp_path)
    assert result.returncode == 1
    messages = {d["path"]: d["message"] for d in doc["diagnostics"]}
    assert "malformed YAML" in messages[str(tmp_path / "configs" / "broken.yaml")]
    assert "malformed JSON" in messages[str(tmp_path / "config.json")]
    found = {(pathlib.Path(f["path"]).name, f["line"]) for f in doc["findings"]}
    assert found == {("good.yaml", 2), ("model.py", 5)}


def test_a_deeply_nested_config_is_refused_not_recursed(cli, tmp_path):
    (tmp_path / "deep.yaml").write_text("bn_eps: " + "[" * 5000 + "]" * 5000 + "\n", encoding="utf-8")
    (tmp_path / "model.py").write_text("import torch.nn as nn\na = nn.BatchNorm2d(8, eps=cfg.bn_eps)\n")
    doc, result = cli.json(tmp_path)
    assert result.returncode == 0, result.stderr
    assert any("nested" in d["message"] for d in doc["diagnostics"]), doc["diagnostics"]
