"""Every fixture yields exactly the findings its `# expect:` markers name, and the shortcuts
(prefilter, region parsing) find exactly what a full parse of every file finds."""
import json
import pathlib

import pytest

from conftest import REPO, expect_markers, fixture_args

FIXTURES = REPO / "tests" / "fixtures" / "python"
CPP_FIXTURES = REPO / "tests" / "fixtures" / "cpp"
CPP_SUFFIXES = {".c", ".cc", ".cpp", ".cu", ".cuh", ".h", ".hpp"}


expected_findings = expect_markers


ALL_FIXTURES = sorted(FIXTURES.glob("*.py")) + sorted(p for p in CPP_FIXTURES.glob("*") if p.suffix in CPP_SUFFIXES)


@pytest.mark.parametrize("fixture", ALL_FIXTURES, ids=lambda p: p.name)
def test_fixture_findings_are_exactly_the_marked_ones(cli, fixture):
    doc, result = cli.json(*fixture_args(fixture), fixture)
    got = {(f["line"], f["rule"]) for f in doc["findings"]}
    assert got == expected_findings(fixture), "\n".join(f"{f['line']}: {f['rule']}: {f['message']}" for f in doc["findings"])
    for f in doc["findings"]:
        assert f["kb"], f
        assert f["path"] == str(fixture)
    blocking = any(f["level"] in ("warning", "error") for f in doc["findings"])
    assert result.returncode == (1 if blocking else 0)


def test_every_fixture_marks_something_or_is_a_negative_case():
    names = {p.name for p in ALL_FIXTURES if not expected_findings(p)}
    assert names == {"frameworks_unresolved.py", "clean.c"}


@pytest.mark.parametrize("tree", ["tests/fixtures", "examples"])
def test_shortcuts_find_exactly_what_a_full_parse_finds(cli, tree):
    fast, _ = cli.json(REPO / tree)
    full, _ = cli.json("--full-parse", REPO / tree)
    assert fast["findings"] == full["findings"]
    assert fast["summary"]["findings"] > 0
    facts_fast = cli.run("--format", "facts", REPO / tree, check_code=1).stdout
    facts_full = cli.run("--format", "facts", "--full-parse", REPO / tree, check_code=1).stdout
    import json

    kinds = ("normalizations", "loaders", "tensor_inputs", "low_precision_constants", "shape_chains", "convolutions", "forwardings")
    by_path = lambda doc: {(f["path"], kind): f[kind] for f in json.loads(doc)["files"] for kind in kinds if f[kind]}
    assert by_path(facts_fast) == by_path(facts_full)
    assert any(kind == "loaders" for _, kind in by_path(facts_fast)) or tree == "examples"


REGION_CASES = {
    # A def's annotations name types, not calls: left out of what keeps a definition; its defaults
    # (a lambda's colon included) and its body are code.
    "annotations.py": "import torch.nn as nn\nfrom torch.utils.data import DataLoader\n\n"
                      "def typed(loader: DataLoader, bn: nn.BatchNorm2d) -> nn.BatchNorm2d:\n    return bn\n\n"
                      "def default(m=lambda c: nn.BatchNorm2d(c, eps=0.0), *, n: int = 3) -> None:\n    return m(n)\n\n"
                      "def body(ds: 'DataLoader') -> DataLoader:\n    return DataLoader(ds, batch_size=0)\n",
    # What a top-level statement binds must reach the definitions that use it, however it binds it.
    "alias_import.py": "from torch.nn import BatchNorm2d as BN\n\ndef other():\n    return 1\n\n"
                       "def f():\n    return BN(3, eps=0.0)\n",
    "try_import.py": "try:\n    from apex.parallel import SyncBatchNorm as BN\nexcept ImportError:\n"
                     "    from torch.nn import SyncBatchNorm as BN\n\ndef other():\n    return 1\n\n"
                     "def f():\n    return BN(64, eps=0.0)\n",
    "alias_chain.py": "import torch.nn as nn\nNorm = nn.BatchNorm2d\nNorm2 = Norm\n\ndef other():\n    return 1\n\n"
                      "def f():\n    return Norm2(3, eps=0.0)\n",
    "if_partial.py": "import functools, sys\nimport torch.nn as nn\nif sys.version_info > (3,):\n"
                     "    BN = functools.partial(nn.BatchNorm2d, momentum=0.1)\n\ndef other():\n    return 1\n\n"
                     "def f():\n    return BN(3, eps=0.0)\n",
    "attribute.py": "import torch.nn as nn\nclass M(nn.Module):\n    def __init__(self):\n"
                    "        self.bn = nn.BatchNorm2d(3)\n\ndef other():\n    return 1\n\n"
                    "def loosen(self):\n    self.bn.eps = 0.0\n",
    "formfeed.py": "import torch.nn as nn\nEPS = 0.0\n\x0cdef EPS():\n    return 1\n\n"
                   "def f():\n    return nn.BatchNorm2d(3, eps=EPS)\n",
    "continued_def.py": "import torch.nn as nn\nEPS = 0.0\ndef \\\n  EPS():\n    return 1\n\n"
                        "def f():\n    return nn.BatchNorm2d(3, eps=EPS)\n",
    # A function too large to parse whole (over 768 bytes), made relevant by a word pair: the
    # statements holding the pair's halves, and those using what they bind, are parsed.
    "large_function_pairs.py": "import torch\nimport torch.nn as nn\n\n\ndef integer_input():\n"
                               + "".join(f"    v{i} = {i} * 2  # filler statement number {i}\n" for i in range(40))
                               + "    conv = nn.Conv2d(3, 8, 3)\n    x = torch.randint(0, 255, (1, 3, 32, 32))\n"
                               "    return conv(x)\n\n\ndef shapes():\n"
                               + "".join(f"    w{i} = {i} * 2  # filler statement number {i}\n" for i in range(40))
                               + "    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.MaxPool2d(2), nn.Conv2d(8, 8, 3))\n"
                               "    x = torch.randn(1, 3, 4, 4)\n    return model(x)\n",
    # A model class longer than the planner parses whole by default, whose forward names no API: it
    # is read whole where the module runs it on a literal-shaped tensor.
    "large_model_class.py": "import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n"
                            "    def __init__(self):\n        super().__init__()\n"
                            "        self.conv1 = nn.Conv2d(3, 8, 3)\n        self.conv2 = nn.Conv2d(8, 8, 7)\n\n"
                            + "".join(f"    def helper_{i}(self):\n        return {i} * 2  # filler method number {i}\n\n"
                                      for i in range(30))
                            + "    def forward(self, x):\n        x = self.conv1(x)\n        return self.conv2(x)\n\n\n"
                            "if __name__ == \"__main__\":\n    net = Net()\n    print(net(torch.randn(1, 3, 6, 6)))\n",
    # The same class built by one module statement and run by another.
    "model_class_script.py": "import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n"
                             "    def __init__(self):\n        super().__init__()\n"
                             "        self.conv1 = nn.Conv2d(3, 8, 3)\n        self.conv2 = nn.Conv2d(8, 8, 7)\n\n"
                             + "".join(f"    def helper_{i}(self):\n        return {i} * 2  # filler method number {i}\n\n"
                                       for i in range(30))
                             + "    def forward(self, x):\n        x = self.conv1(x)\n        return self.conv2(x)\n\n\n"
                             "net = Net()\nunrelated = 3\ny = net(torch.randn(1, 3, 6, 6))\n",
}


@pytest.mark.parametrize("name", sorted(REGION_CASES))
def test_region_parsing_matches_full_parse_on_tricky_bindings(cli, tmp_path, name):
    source = tmp_path / name
    source.write_text(REGION_CASES[name], encoding="utf-8")
    fast, _ = cli.json(source)
    full, _ = cli.json("--full-parse", source)
    assert fast["findings"] == full["findings"]
    if name == "large_function_pairs.py":
        assert sorted(f["rule"] for f in fast["findings"]) == ["conv-input-smaller-than-kernel", "torch-integer-input"]
    if name in ("large_model_class.py", "model_class_script.py"):
        assert [(f["rule"], f["line"]) for f in fast["findings"]] == [("conv-input-smaller-than-kernel", 103)]
    facts = lambda extra: [(f["normalizations"], f["loaders"]) for f in json.loads(
        cli.run("--format", "facts", *extra, source).stdout)["files"]]
    assert facts([]) == facts(["--full-parse"])


def test_region_parsing_keeps_far_away_constants_and_subclasses(cli, tmp_path):
    # The batch norm sits in one class; the constant, a partial and a subclass chain are spread
    # over other top-level statements that region parsing must still include.
    source = tmp_path / "spread.py"
    source.write_text(
        "import functools\nimport torch.nn as nn\n\n"
        "def unrelated():\n    return 1\n\n"
        "EPS = -1e-4\n"
        "Norm = functools.partial(nn.BatchNorm2d, momentum=0.1)\n\n"
        "class A(nn.BatchNorm2d):\n    pass\n\n"
        "def other():\n    return 2\n\n"
        "class B(A):\n    def __init__(self):\n        super().__init__(3, eps=0)\n\n"
        "def make():\n    return Norm(3, eps=EPS)\n\n"
        "def checks(m):\n    if isinstance(m, B):\n        m.eps = -1\n\n"
        "@decorator\ndef decorated():\n    return 3\n",
        encoding="utf-8")
    fast, _ = cli.json(source)
    full, _ = cli.json("--full-parse", source)
    assert fast["findings"] == full["findings"]
    assert [(f["line"], f["rule"]) for f in fast["findings"]] == [
        (18, "bn-eps-zero"), (21, "bn-eps-negative"), (25, "bn-eps-negative")]
    facts = __import__("json").loads(cli.run("--format", "facts", source, check_code=1).stdout)
    assert facts["summary"]["bytes_parsed"] < facts["summary"]["bytes_read"]


REGION_FIXTURES = sorted((REPO / "tests" / "fixtures" / "regions").glob("*.py"))


@pytest.mark.parametrize("fixture", REGION_FIXTURES, ids=lambda p: p.name)
def test_region_fixture_gives_its_marked_findings_planned_and_parsed_whole(cli, fixture):
    # Each file is large enough that its definitions are planned member by member or statement by
    # statement; both ways must give exactly the marked findings.
    expected = expect_markers(fixture)
    assert expected, f"{fixture.name} marks no finding"
    for extra in ([], ["--full-parse"]):
        doc, _ = cli.json(*extra, fixture)
        got = {(f["line"], f["rule"]) for f in doc["findings"]}
        assert got == expected, (extra, "\n".join(f"{f['line']}: {f['message']}" for f in doc["findings"]))
    facts = json.loads(cli.run("--format", "facts", fixture, check_code=1).stdout)
    assert facts["summary"]["bytes_parsed"] < facts["summary"]["bytes_read"], "the file was not planned in parts"


def test_suppressions_hold_where_the_first_pass_parsed_nothing(cli, tmp_path):
    # The add_argument line is in a function the first pass leaves out (argparse defaults are read
    # by the project step), and conv_bn's call site names no API: both comments still count.
    (tmp_path / "train.py").write_text(
        "import argparse\nimport torch.nn as nn\n\n\ndef parse():\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument(\"--bn-eps\", type=float, default=0.0)  # cudnnlint: ignore[bn-eps-zero]\n"
        "    return p.parse_args()\n\n\ndef build(args):\n    return nn.BatchNorm2d(4, eps=args.bn_eps)\n",
        encoding="utf-8")
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("", encoding="utf-8")
    (pkg / "blocks.py").write_text(
        "import torch.nn as nn\n\n\ndef conv_bn(c, eps=1e-5):\n    return nn.BatchNorm2d(c, eps=eps)\n", encoding="utf-8")
    (pkg / "model.py").write_text(
        "import torch.nn as nn\nfrom .blocks import conv_bn\n\n\ndef head(c):\n    return nn.BatchNorm2d(c)\n\n\n"
        "def body(c):\n    return conv_bn(c, eps=0.0)  # cudnnlint: ignore[bn-eps-zero]\n\n\n"
        "def tail(c):\n    return conv_bn(c, eps=0.0)  # noqa: bn-eps-negative\n", encoding="utf-8")
    doc, _ = cli.json(tmp_path)
    assert [(pathlib.Path(f["path"]).name, f["line"]) for f in doc["findings"]] == [("model.py", 14)]
    assert doc["summary"]["suppressed"] == 2



def test_constants_imported_from_the_tree_fold_in_every_family_and_mode(cli, tmp_path):
    # Issue 34: a dataset's size, an epsilon and a shape behind `from consts import N` or
    # `import consts; consts.N` are folded as the file's own constants are, in both modes.
    (tmp_path / "consts.py").write_text("N_SAMPLES = 10\nBATCH = 16\nEPS = 1e-9\nSIDE = 4\n", encoding="utf-8")
    (tmp_path / "train.py").write_text(
        "import torch\nimport torch.nn as nn\nfrom torch.utils.data import DataLoader\n"
        "import consts\nfrom consts import EPS, N_SAMPLES\n\n"
        "loader = DataLoader(range(N_SAMPLES), batch_size=consts.BATCH, drop_last=True)\n\n\n"
        "def score(a, b):\n    with torch.autocast(device_type=\"cuda\", dtype=torch.float16):\n"
        "        return a / (torch.matmul(a, b) + EPS)\n\n\n"
        "def chain():\n    model = nn.Sequential(nn.Conv2d(3, 8, 3), nn.Conv2d(8, 8, 3))\n"
        "    return model(torch.randn(1, 3, consts.SIDE, consts.SIDE))\n", encoding="utf-8")
    expected = {(7, "loader-drop-last-no-batches"), (12, "eps-vanishes-in-half"), (16, "conv-input-smaller-than-kernel")}
    for extra in ([], ["--full-parse"]):
        doc, _ = cli.json(*extra, tmp_path)
        assert {(f["line"], f["rule"]) for f in doc["findings"]} == expected, extra
    # A constant the other module binds twice is no constant: nothing is reported for it.
    (tmp_path / "consts.py").write_text("N_SAMPLES = 10\nN_SAMPLES = 1000\nBATCH = 16\nEPS = 1e-3\nSIDE = 64\n",
                                        encoding="utf-8")
    doc, _ = cli.json(tmp_path)
    assert doc["findings"] == []
