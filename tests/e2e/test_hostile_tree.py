"""A hostile tree (a pull request's) changes nothing outside it: the scenarios of
../shared/repro/hostile-tree/ 01, 02, 03, 07, 10, 12 and 14, run against the built binary. The tree
controls every file in it, its cache folder and compile_commands.json included."""
import json
import os
import pathlib
import shutil
import signal
import subprocess
import time

import pytest

MODEL = "import torch.nn as nn\nbn = nn.BatchNorm2d(8, eps=0.0)\n"


def cudnn_unit(channels):
    """A C++ unit that calls cuDNN (so that clang parses it), with `channels` as its tensor's C."""
    return ("#include <cudnn.h>\nvoid f(cudnnTensorDescriptor_t d) { cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, "
            f"CUDNN_DATA_FLOAT, 1, {channels}, 4, 4); }}\n")


def run(cli, *args, cwd, timeout=120, env=None):
    return subprocess.run([cli.binary, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=env)


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    """The user's cache home (where the cache's key lives), outside every tree of the test."""
    home = tmp_path / "user-cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


def victim_folder(root, count=80):
    victim = root / "victim"
    victim.mkdir()
    for i in range(count):
        (victim / f"doc{i}.txt").write_text(f"doc {i}\n")
        os.utime(victim / f"doc{i}.txt", (1_577_836_800 + 60 * i,) * 2)
    return victim


def test_a_committed_runs_link_is_refused_and_nothing_it_points_at_is_deleted(cli, tmp_path, cache_home):
    victim = victim_folder(tmp_path)
    tree = tmp_path / "tree"
    (tree / ".cudnnlint_cache").mkdir(parents=True)
    (tree / "m.py").write_text(MODEL)
    (tree / ".cudnnlint_cache" / "runs").symlink_to("../../victim")
    result = run(cli, ".", cwd=tree)
    assert result.returncode == 1, result.stderr
    assert "bn-eps-zero" in result.stdout
    assert "symbolic link" in result.stderr and "without the cache" in result.stderr, result.stderr
    assert len(list(victim.iterdir())) == 80
    assert (tree / ".cudnnlint_cache" / "runs").is_symlink()


def test_a_cache_folder_that_is_a_link_to_git_is_refused(cli, tmp_path, cache_home):
    tree = tmp_path / "repo"
    tree.mkdir()
    subprocess.run(["git", "init", "-q", str(tree)], check=True)
    (tree / "m.py").write_text(MODEL)
    (tree / ".cudnnlint_cache").symlink_to(".git")
    before = sorted(p.name for p in (tree / ".git").iterdir())
    result = run(cli, ".", cwd=tree)
    assert result.returncode == 1
    assert sorted(p.name for p in (tree / ".git").iterdir()) == before
    assert subprocess.run(["git", "status", "--short"], cwd=tree, capture_output=True).returncode == 0


def test_an_output_path_that_is_a_link_is_replaced_not_followed(cli, tmp_path, cache_home):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tmp_path / "victim").write_text("PRECIOUS\n")
    (tree / "m.py").write_text(MODEL)
    (tree / "cudnnlint.sarif").symlink_to("../victim")
    (tree / "baseline.json").symlink_to("../victim")
    result = run(cli, "--no-cache", "-f", "sarif", "-o", "cudnnlint.sarif", ".", cwd=tree)
    assert result.returncode == 1, result.stderr
    assert (tmp_path / "victim").read_text() == "PRECIOUS\n"
    assert not (tree / "cudnnlint.sarif").is_symlink()
    assert json.loads((tree / "cudnnlint.sarif").read_text())["runs"][0]["results"]
    assert run(cli, "--no-cache", "--write-baseline", "baseline.json", ".", cwd=tree).returncode == 0
    assert (tmp_path / "victim").read_text() == "PRECIOUS\n"
    assert not (tree / "baseline.json").is_symlink()
    assert not [p.name for p in tree.iterdir() if p.name.startswith(".") and p.name.endswith(".tmp")]


def only_run_entry(tree):
    entries = list((tree / ".cudnnlint_cache" / "runs").iterdir())
    assert len(entries) == 1, entries
    return entries[0]


def test_a_planted_cache_entry_is_a_miss_never_a_crash_a_hang_or_a_finding(cli, tmp_path, cache_home):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "m.py").write_text(MODEL)
    time.sleep(2.1)  # a settled stat, so that the run entry is written
    first = run(cli, "-f", "json", ".", cwd=tree)
    assert first.returncode == 1
    entry = only_run_entry(tree)
    good = entry.read_bytes()
    # (a) a MessagePack value nested two million deep, framed as the old format was
    entry.write_bytes(b"\x91" * 2_000_000 + b"\xc0" + b"\0" * 40)
    deep = run(cli, "-f", "json", ".", cwd=tree)
    assert deep.returncode == 1, deep.stderr
    assert json.loads(deep.stdout)["findings"] == json.loads(first.stdout)["findings"]
    # (b) a FIFO where the entry is: refused without blocking
    entry.unlink()
    os.mkfifo(entry)
    fifo = run(cli, "-f", "json", ".", cwd=tree, timeout=30)
    assert fifo.returncode == 1
    # (c) a well-formed entry whose tag is not this user's: another key (another user's cache home)
    entry.unlink()
    other_home = tmp_path / "attacker-cache"
    run(cli, "-f", "json", ".", cwd=tree, env=dict(os.environ, XDG_CACHE_HOME=str(other_home)))
    forged = only_run_entry(tree).read_bytes()
    assert forged != good  # the same findings, another key's tag
    again = run(cli, "-f", "json", ".", cwd=tree)
    assert json.loads(again.stdout)["findings"] == json.loads(first.stdout)["findings"]
    # Not taken: the run computed its findings and wrote the entry again with the user's key.
    assert only_run_entry(tree).read_bytes() == good


def test_temporaries_a_killed_run_left_are_removed_by_the_next_save(cli, tmp_path, cache_home):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "m.py").write_text(MODEL)
    cache = tmp_path / "cache"
    assert run(cli, "--cache-dir", str(cache), ".", cwd=tree).returncode == 1
    # What a run killed between writing and renaming leaves: unlocked temporaries of the cache's names.
    leftovers = [cache / ".pack.0123456789abcdef.tmp", cache / ".index.fedcba9876543210.tmp",
                 cache / "runs" / (".0123456789abcdef0123456789abcdef.00112233445566aa.tmp")]
    for path in leftovers:
        path.write_bytes(b"x" * 100_000)
    (cache / "unrelated.tmp").write_text("not the cache's\n")
    (tree / "m.py").write_text(MODEL + "# edited\n")
    assert run(cli, "--cache-dir", str(cache), ".", cwd=tree).returncode == 1
    assert [p for p in leftovers if p.exists()] == []
    assert (cache / "unrelated.tmp").exists()


def test_a_killed_run_leaves_no_lasting_temporary(cli, tmp_path, cache_home):
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed: a kill at the rename cannot be placed")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "m.py").write_text(MODEL)
    cache = tmp_path / "cache"
    time.sleep(2.1)
    run(cli, "--cache-dir", str(cache), ".", cwd=tree)
    (tree / "m.py").write_text(MODEL + "# 1\n")
    subprocess.run(["strace", "-f", "-o", "/dev/null", "-e", "trace=rename,renameat,renameat2",
                    "-e", "inject=rename,renameat,renameat2:signal=KILL:when=1",
                    cli.binary, "--cache-dir", str(cache), "."], cwd=tree, capture_output=True, timeout=120)
    (tree / "m.py").write_text(MODEL + "# 2\n")
    run(cli, "--cache-dir", str(cache), ".", cwd=tree)
    left = [p.name for p in cache.rglob(".*.tmp")]
    assert left == []


def test_compile_command_flags_that_read_outside_the_tree_are_dropped_and_never_quoted(cli, tmp_path, cache_home):
    (tmp_path / "secret.txt").write_text("ghp_SECRET_TOKEN_0123 rest-of-line\n-fSECRET_FLAG_abc\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.cpp").write_text(
        cudnn_unit("3"))
    for flags in (["-include", str(tmp_path / "secret.txt")], ["--config", str(tmp_path / "secret.txt")],
                  ["-include" + str(tmp_path / "secret.txt")], ["@" + str(tmp_path / "secret.txt")]):
        (tree / "compile_commands.json").write_text(json.dumps(
            [{"directory": str(tree), "file": str(tree / "a.cpp"),
              "arguments": ["clang++", "-std=c++17", *flags, "-c", "a.cpp"]}]))
        for fmt in ("text", "sarif"):
            result = run(cli, "--no-cache", "-f", fmt, ".", cwd=tree)
            assert "SECRET" not in result.stdout + result.stderr, (flags, result.stdout + result.stderr)
        noted = run(cli, "--no-cache", "-f", "json", ".", cwd=tree)
        notes = [d["message"] for d in json.loads(noted.stdout)["diagnostics"]]
        assert any("outside the analysed paths" in n for n in notes), (flags, notes)


def test_a_header_inside_the_tree_is_still_included(cli, tmp_path, cache_home):
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "prefix.h").write_text("#define CHANNELS 0\n")
    (tree / "a.cpp").write_text(
        cudnn_unit("CHANNELS"))
    (tree / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(tree), "file": str(tree / "a.cpp"),
          "arguments": ["clang++", "-std=c++17", "-include", "prefix.h", "-c", "a.cpp"]}]))
    result = run(cli, "--no-cache", "-f", "json", ".", cwd=tree)
    assert [f["rule"] for f in json.loads(result.stdout)["findings"]] == ["cudnn-desc-bad-dim"], result.stdout


def test_a_report_that_cannot_be_written_whole_leaves_the_old_one(cli, tmp_path, cache_home):
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=100k", "tmpfs", str(mnt)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (not root): a full disk cannot be made")
    try:
        (mnt / "report.sarif").write_text('{"old": "complete"}\n')
        tree = tmp_path / "tree"
        tree.mkdir()
        for i in range(120):
            (tree / f"m{i}.py").write_text(MODEL * 10)
        result = run(cli, "--no-cache", "-f", "sarif", "-o", str(mnt / "report.sarif"), ".", cwd=tree)
        assert result.returncode == 2, result.stderr
        assert "left as it was" in result.stderr, result.stderr
        assert (mnt / "report.sarif").read_text() == '{"old": "complete"}\n'
        assert [p.name for p in mnt.iterdir()] == ["report.sarif"]
    finally:
        subprocess.run(["umount", str(mnt)], check=False)


# ---- Found by an adversarial review after the reproducers passed.

def test_a_link_out_of_the_tree_is_not_read_nor_quoted(cli, tmp_path, cache_home):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "secret.py").write_text(
        "import torch.nn as nn\nbn = nn.BatchNorm2d(8, eps=0.0)  # ghp_SECRET_OUTSIDE\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "evil.py").symlink_to("../out/secret.py")
    (tree / "inner.py").write_text(MODEL)
    (tree / "alias.py").symlink_to("inner.py")  # a link inside the tree is still read
    result = run(cli, "--no-cache", "-f", "json", ".", cwd=tree)
    report = json.loads(result.stdout)
    assert "SECRET" not in result.stdout + result.stderr
    assert sorted(f["path"] for f in report["findings"]) == ["alias.py", "inner.py"]
    assert any(d["path"] == "evil.py" and "outside the analysed tree" in d["message"] for d in report["diagnostics"])


def test_a_named_root_that_links_out_of_the_tree_is_neither_read_nor_fixed(cli, tmp_path, cache_home):
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "m.py").write_text(MODEL)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "src").symlink_to("../outside")
    result = run(cli, "--no-cache", "--fix", "--unsafe-fixes", "src", cwd=tree)
    assert (tmp_path / "outside" / "m.py").read_text() == MODEL
    assert "leads outside the analysed tree" in result.stderr, result.stderr


def test_reports_and_caches_are_not_written_through_a_linked_folder(cli, tmp_path, cache_home):
    (tmp_path / "outside").mkdir()
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "m.py").write_text(MODEL)
    (tree / "reports").symlink_to("../outside")
    written = run(cli, "--no-cache", "-f", "sarif", "-o", "reports/cudnnlint.sarif", ".", cwd=tree)
    assert written.returncode == 2 and "symbolic link" in written.stderr, written.stderr
    cached = run(cli, "--cache-dir", "reports/cache", ".", cwd=tree)
    assert cached.returncode == 1 and "symbolic link" in cached.stderr, cached.stderr
    assert list((tmp_path / "outside").iterdir()) == []


@pytest.mark.parametrize("flags", [
    ["-Xclang", "-include", "-Xclang", "@SECRET@"], ["-Wp,-include,@SECRET@"], ["-include-pch", "@SECRET@"],
    ["-fsanitize-ignorelist=@SECRET@"], ["-fplugin=@SECRET@"], ["-v", "-I/x\n::warning title=INJECTED::y"],
    ["--config=@SECRET@"], ["-imacros@SECRET@"],
])
def test_compile_command_flags_that_load_read_or_print_are_dropped(cli, tmp_path, cache_home, flags):
    secret = tmp_path / "secret.txt"
    secret.write_text("ghp_SECRET_TOKEN_0123\n-fSECRET_FLAG\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.cpp").write_text(
        cudnn_unit("0"))
    arguments = ["clang++", "-std=c++17", *[f.replace("@SECRET@", str(secret)) for f in flags], "-c", "a.cpp"]
    (tree / "compile_commands.json").write_text(
        json.dumps([{"directory": str(tree), "file": str(tree / "a.cpp"), "arguments": arguments}]))
    result = run(cli, "--no-cache", "-f", "json", ".", cwd=tree)
    assert "SECRET" not in result.stdout.replace(str(secret), "") + result.stderr.replace(str(secret), "")
    assert not any(line.startswith("::") for line in result.stderr.splitlines())
    report = json.loads(result.stdout)
    assert [f["rule"] for f in report["findings"]] == ["cudnn-desc-bad-dim"]  # the unit is still analysed
    assert any("compile_commands.json: dropped" in d["message"] for d in report["diagnostics"])


def test_clangs_error_is_not_quoted_when_the_unit_read_a_file_outside(cli, tmp_path, cache_home):
    (tmp_path / "secret.h").write_text("#define SECRET_MACRO 42\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    call = cudnn_unit("3")
    (tree / "a.cpp").write_text(f'{call}#include "{tmp_path / "secret.h"}"\nstatic_assert(SECRET_MACRO == 0, "");\n')
    result = run(cli, "--no-cache", "-f", "json", ".", cwd=tree)
    messages = " ".join(d["message"] for d in json.loads(result.stdout)["diagnostics"])
    assert "42" not in messages and "not quoted" in messages, messages
    (tree / "local.h").write_text("#define LOCAL_MACRO 42\n")
    (tree / "b.cpp").write_text(call + '#include "local.h"\nstatic_assert(LOCAL_MACRO == 0, "");\n')
    inside = run(cli, "--no-cache", "-f", "json", "b.cpp", cwd=tree)
    assert "42 == 0" in " ".join(d["message"] for d in json.loads(inside.stdout)["diagnostics"])


def test_a_response_file_is_not_expanded_with_dash_p_either(cli, tmp_path, cache_home):
    # clang's JSON plugin (what -p used) expands @file when it loads the database.
    (tmp_path / "secret.rsp").write_text("ghp_SECRET_TOKEN\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.cpp").write_text(
        cudnn_unit("0"))
    (tree / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(tree), "file": str(tree / "a.cpp"),
          "arguments": ["clang++", "@" + str(tmp_path / "secret.rsp"), "-c", "a.cpp"]}]))
    result = run(cli, "--no-cache", "-p", ".", "-f", "json", ".", cwd=tree)
    assert "SECRET" not in result.stdout + result.stderr
    assert [f["rule"] for f in json.loads(result.stdout)["findings"]] == ["cudnn-desc-bad-dim"]
