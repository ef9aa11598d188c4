"""Output formats on real runs: SARIF that GitHub accepts with reference fingerprints, text,
GitHub annotations, and `explain`."""
import json
import re

from conftest import REPO

FIXTURES = REPO / "tests" / "fixtures" / "python"


def test_sarif_of_examples_and_fixtures_passes_github_checker(cli, sarif_check, tmp_path):
    for name, tree in (("examples", REPO / "examples"), ("fixtures", FIXTURES)):
        out = tmp_path / f"{name}.sarif"
        result = cli.run("--format", "sarif", "--output", out, tree, cwd=REPO)
        assert result.returncode == 1, result.stderr
        sarif_check(out)
        log = json.loads(out.read_text())
        run = log["runs"][0]
        assert run["results"], name
        for res in run["results"]:
            loc = res["locations"][0]["physicalLocation"]
            assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
            assert not loc["artifactLocation"]["uri"].startswith("/")
            assert res["partialFingerprints"]["primaryLocationLineHash"]
            rule = run["tool"]["driver"]["rules"][res["ruleIndex"]]
            assert rule["id"] == res["ruleId"]
            assert rule["help"]["markdown"].startswith("# ")


def test_sarif_of_an_empty_run_and_of_bad_input_passes(cli, sarif_check, tmp_path):
    (tmp_path / "clean.py").write_text("import torch.nn as nn\nbn = nn.BatchNorm2d(3)\n")
    (tmp_path / "binary.py").write_bytes(b"\x00\x01")
    out = tmp_path / "out.sarif"
    result = cli.run("--format", "sarif", "--output", out, tmp_path)
    assert result.returncode == 0
    sarif_check(out)
    notes = json.loads(out.read_text())["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert any("binary" in n["message"]["text"] for n in notes)


def test_fingerprints_match_the_reference_on_crlf_and_non_ascii(cli, reference_line_hashes, sarif_check, tmp_path):
    sources = {
        "crlf.py": "import torch.nn as nn\r\n\r\n# comment\r\nbn = nn.BatchNorm2d(3, eps=0)\r\nx = 1\r\n",
        "unicode.py": "import torch.nn as nn\n# 日本語のコメント 😀\ns = 'é'; bn = nn.BatchNorm2d(3, eps=-1)\n"
                      "bn2 = nn.BatchNorm2d(3, eps=-1)\n\tbn3 = 1\n",
        "repeated.py": "import torch.nn as nn\n" + "bn = nn.BatchNorm2d(3, eps=0)\n" * 3,
        "bom.py": "\ufeffimport torch.nn as nn\nbn = nn.BatchNorm2d(3, eps=0)\n",
    }
    for name, text in sources.items():
        (tmp_path / name).write_bytes(text.encode("utf-8"))
    out = tmp_path / "out.sarif"
    cli.run("--format", "sarif", "--output", out, "--source-root", tmp_path, tmp_path, check_code=1)
    sarif_check(out)
    results = json.loads(out.read_text())["runs"][0]["results"]
    assert len(results) == 7
    for res in results:
        loc = res["locations"][0]["physicalLocation"]
        uri = loc["artifactLocation"]["uri"]
        line = loc["region"]["startLine"]
        text = (tmp_path / uri).read_bytes().decode("utf-8")
        assert res["partialFingerprints"]["primaryLocationLineHash"] == reference_line_hashes(text)[line], (uri, line)


def test_sarif_columns_are_utf16_and_text_columns_are_code_points(cli, tmp_path):
    (tmp_path / "u.py").write_text("import torch.nn as nn\ns = '😀'; bn = nn.BatchNorm2d(3, eps=-1)\n", encoding="utf-8")
    sarif = json.loads(cli.run("--format", "sarif", tmp_path / "u.py", check_code=1).stdout)
    region = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]
    text = cli.run("--color", "never", tmp_path / "u.py", check_code=1).stdout
    column = int(re.search(r"u\.py:2:(\d+):", text).group(1))
    assert region["startColumn"] == column + 1  # the emoji is two UTF-16 units, one code point


def test_text_output_is_compiler_style_with_excerpt_and_no_colour_when_piped(cli):
    result = cli.run(FIXTURES / "keras3.py", "--framework", "keras=3", check_code=1)
    lines = result.stdout.splitlines()
    assert re.match(r".*keras3\.py:7:45: warning: .* \[bn-eps-zero\] \(cuda/cudnn-bn-epsilon-zero\)$", lines[0]), lines[0]
    assert lines[1].startswith(" 7 | b = keras.layers.BatchNormalization(epsilon=0)")
    assert lines[2].endswith("^")
    assert "\x1b[" not in result.stdout
    assert "2 findings (1 error, 1 warning, 0 notes) in 1 file." in result.stdout
    coloured = cli.run("--color", "always", FIXTURES / "keras3.py", "--framework", "keras=3")
    assert "\x1b[" in coloured.stdout


def test_github_annotations(cli):
    result = cli.run("--format", "github", FIXTURES / "keras3.py", "--framework", "keras=3", check_code=1)
    lines = result.stdout.splitlines()
    assert lines[0].startswith("::warning file=") and ",line=7,col=45," in lines[0]
    assert lines[1].startswith("::error file=")
    assert all("::" in line for line in lines)


def test_json_carries_provenance_and_replay(cli):
    doc, _ = cli.json(REPO / "examples" / "mxnet_gluon_block.py")
    finding = doc["findings"][0]
    assert finding["related"][0]["line"] == 8
    assert "EPS = 1 / 1e6" in finding["related"][0]["message"]
    replay = finding["replay"]
    assert replay["op"] == "batchnorm" and replay["epsilon"] == 1e-6
    assert replay["expect"] == "CUDNN_STATUS_BAD_PARAM"
    assert "notReplayable" not in replay  # epsilon's effect does not depend on the shape it must assume
    assert any("2x4x2x2" in a for a in replay["assumed"]) and any("float32" in a for a in replay["assumed"])


def test_explain_renders_entries_in_both_languages(cli):
    en = cli.run("explain", "cuda/cudnn-bn-epsilon-too-small", check_code=0).stdout
    assert en.startswith("# ")
    assert "7.5" in en and "## Root Cause" in en
    zh = cli.run("explain", "cuda/cudnn-bn-epsilon-too-small", "--lang", "zh", check_code=0).stdout
    assert re.search(r"[\u4e00-\u9fff]", zh)
    by_rule = cli.run("explain", "bn-eps-zero", check_code=0).stdout
    assert "cuda/cudnn-bn-epsilon-zero" in by_rule
    missing = cli.run("explain", "no/such-entry", check_code=2)
    assert "cuda/cudnn-bn-epsilon-negative" in missing.stderr
    cli.run("explain", "bn-eps-zero", "--lang", "fr", check_code=2)


def test_rules_listing_names_every_rule_with_its_kb_entry(cli):
    out = cli.run("rules", check_code=0).stdout.splitlines()
    ids = [line.split("\t")[0] for line in out]
    assert ids == ["bn-eps-negative", "bn-eps-zero", "bn-eps-below-cudnn-min", "bn-eps-silently-clamped",
                   "cudnn-desc-bad-dim", "cudnn-conv-output-empty", "torch-integer-input",
                   "torch-conv-dtype-mismatch", "loader-batch-size-nonpositive", "loader-batch-size-divides-to-zero",
                   "loader-drop-last-no-batches", "zero-size-batch-into-layer", "loader-last-batch-single-sample",
                   "eps-vanishes-in-half", "optimizer-eps-vanishes-in-half", "tf-integer-input",
                   "cudnn-desc-bad-data-type", "conv-input-smaller-than-kernel", "bn-eps-not-finite",
                   "keras-optimizer-eps-vanishes-in-half", "flax-bn-eps-vanishes-in-half",
                   "single-sample-batch-in-training"]
    for line in out:
        kb_id = line.split("\t")[2]
        assert cli.run("explain", kb_id).returncode == 0


def test_sarif_past_githubs_result_limit_keeps_the_most_severe_and_says_so(cli, sarif_check, tmp_path):
    # 25,000 results per run is GitHub's hard limit: 25,010 errors and 20 warnings (eps=0) here.
    (tmp_path / ".git").mkdir()
    for i in range(25):
        (tmp_path / f"m{i}.py").write_text("import torch.nn as nn\n" + "".join(
            f"b{j} = nn.BatchNorm2d(8, eps=-1e-5)\n" for j in range(1000)))
    (tmp_path / "zeros.py").write_text("import torch.nn as nn\n" + "".join(
        f"z{j} = nn.BatchNorm2d(8, eps={'-1e-5' if j < 10 else '0'})\n" for j in range(30)))
    out = tmp_path / "out.sarif"
    result = cli.run("--format", "sarif", "--output", out, "--category", "cudnnlint-py", tmp_path, cwd=tmp_path,
                     check_code=1)
    assert "30 of 25030 results left out of the SARIF file" in result.stderr
    sarif_check(out)
    run = json.loads(out.read_text())["runs"][0]
    assert len(run["results"]) == 25000
    assert {r["level"] for r in run["results"]} == {"error"}  # the 20 warnings and 10 errors went
    notes = [n["message"]["text"] for n in run["invocations"][0]["toolExecutionNotifications"]]
    assert any("30 of 25030 results not written" in n and "10 errors, 20 warnings, 0 notes" in n for n in notes)
    assert run["automationDetails"] == {"id": "cudnnlint-py/"}
    # JSON keeps them all.
    doc, _ = cli.json(tmp_path, cwd=tmp_path)
    assert len(doc["findings"]) == 25030


def test_sarif_category_with_a_run_id_is_kept_as_given(cli, tmp_path):
    (tmp_path / "m.py").write_text("import torch.nn as nn\nb = nn.BatchNorm2d(8, eps=-1e-5)\n")
    result = cli.run("--format", "sarif", "--category", "lint/python/2026-11-25", tmp_path, check_code=1)
    run = json.loads(result.stdout)["runs"][0]
    assert run["automationDetails"] == {"id": "lint/python/2026-11-25"}
    assert "automationDetails" not in json.loads(cli.run("--format", "sarif", tmp_path).stdout)["runs"][0]


def test_headlines_are_short_and_the_detail_follows(cli):
    # A headline (rule, value, consequence) fits a 120-column terminal; the why, the measured
    # versions and the framework's words are the detail: a `why:` line in text, "detail" in JSON,
    # after the headline in SARIF's message.
    paths = [REPO / "examples", REPO / "tests" / "fixtures"]
    report = json.loads(cli.run("--no-cache", "-f", "json", "--fail-level", "none", *paths).stdout)
    assert len(report["findings"]) >= 300
    too_long = [(f["rule"], len(f["message"]), f["message"]) for f in report["findings"] if len(f["message"]) > 120]
    assert not too_long, too_long
    assert all(f["detail"] for f in report["findings"]), [f["rule"] for f in report["findings"] if not f["detail"]]
    text = cli.run("--no-cache", REPO / "examples").stdout
    examples = json.loads(cli.run("--no-cache", "-f", "json", REPO / "examples").stdout)["findings"]
    for f in examples:
        assert f"  why: {f['detail']}\n" in text
    sarif = json.loads(cli.run("--no-cache", "-f", "sarif", REPO / "examples").stdout)
    texts = [r["message"]["text"] for r in sarif["runs"][0]["results"]]
    # A notebook's finding names its cell in SARIF's message (its region is the .ipynb file's line).
    assert sorted(texts) == sorted(f"{f['message']}. {f['detail']} (KB: {f['kb']})" +
                                   (f" (cell {f['cell']}, line {f['line']}, column {f['column']})" if "cell" in f else "")
                                   for f in examples)
