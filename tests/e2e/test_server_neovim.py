"""`cudnnlint server` with a second real client: Neovim (Debian's package) headless, its built-in LSP
client driven by tests/e2e/nvim_client.lua. Skipped, saying so, where nvim is not installed
(./setup.sh installs it)."""
import os
import pathlib
import shutil
import subprocess

import pytest

HERE = pathlib.Path(__file__).resolve().parent
BINARY = os.environ.get("CUDNNLINT_UNDER_TEST", "build/cudnnlint")
MODEL = "import torch.nn as nn\n\nbn = nn.BatchNorm2d(8, eps=0)  # 零\n"


@pytest.mark.skipif(shutil.which("nvim") is None, reason="nvim is not installed (./setup.sh installs Debian's neovim)")
def test_neovim_attaches_the_server_reads_diagnostics_hovers_and_sees_them_clear(tmp_path):
    (tmp_path / "model.py").write_text(MODEL, encoding="utf-8")
    out = tmp_path / "seen.txt"
    env = dict(os.environ, CUDNNLINT_BINARY=str(pathlib.Path(BINARY).resolve()), CUDNNLINT_ROOT=str(tmp_path),
               CUDNNLINT_OUT=str(out), HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "state"))
    result = subprocess.run(["nvim", "--headless", "-u", "NONE", "-i", "NONE", "-n",
                             "-c", f"luafile {HERE / 'nvim_client.lua'}", "model.py"],
                            cwd=tmp_path, env=env, capture_output=True, timeout=300)
    seen = out.read_text(encoding="utf-8").splitlines() if out.exists() else []
    assert result.returncode == 0, (seen, result.stderr.decode(errors="replace")[-2000:])
    # Neovim's diagnostic: line 2 (0-based), column 27 (UTF-16, Neovim's default), the rule as code.
    diagnostics = [line for line in seen if line.startswith("diagnostic ")]
    assert diagnostics == ["diagnostic 2:27 bn-eps-zero " + diagnostics[0].split(" ", 3)[3]], seen
    assert "batch-norm eps=0 in nn.BatchNorm2d" in diagnostics[0]
    # The diagnostic's message is the headline, then (after a line break, which the client's log shows
    # as NUL) the detail; the hover's first line is the headline.
    headline, detail = diagnostics[0].split(" ", 3)[3].split("\x00", 1)
    assert "zero-variance channels" in headline and "CUDNN_BN_MIN_EPSILON" in detail
    assert [line for line in seen if line.startswith("hover ")] == ["hover **bn-eps-zero** (warning): " + headline], seen
    assert seen[-2:] == ["cleared", "stopped"], seen
    assert (tmp_path / "model.py").read_text(encoding="utf-8") == MODEL  # the buffer was edited, not the file


@pytest.mark.skipif(shutil.which("nvim") is None, reason="nvim is not installed (./setup.sh installs Debian's neovim)")
def test_the_readme_snippet_for_neovim_attaches_the_server(tmp_path):
    """The README's Neovim 0.7-0.10 snippet, as written there (the binary's path put in), is a
    working configuration: opening a Python file shows its diagnostics."""
    readme = (HERE.parents[1] / "README.md").read_text(encoding="utf-8")
    at = readme.index("Neovim 0.7 to 0.10")
    start = readme.index("```lua\n", at) + len("```lua\n")
    snippet = readme[start:readme.index("```", start)]
    assert "'cudnnlint', 'server'" in snippet
    (tmp_path / "init.lua").write_text(
        snippet.replace("'cudnnlint', 'server'", f"'{pathlib.Path(BINARY).resolve()}', 'server'"), encoding="utf-8")
    (tmp_path / "model.py").write_text(MODEL, encoding="utf-8")
    (tmp_path / "check.lua").write_text(
        "local ok = vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 20)\n"
        "local lines = {}\n"
        "for _, d in ipairs(vim.diagnostic.get(0)) do table.insert(lines, d.user_data.lsp.code) end\n"
        "vim.fn.writefile(lines, 'seen.txt')\n"
        "vim.cmd(ok and 'qall!' or 'cquit! 1')\n", encoding="utf-8")
    env = dict(os.environ, HOME=str(tmp_path), XDG_STATE_HOME=str(tmp_path / "state"))
    result = subprocess.run(["nvim", "--headless", "-u", str(tmp_path / "init.lua"), "-i", "NONE", "-n",
                             "-c", "filetype on", "-c", "edit model.py", "-c", "luafile check.lua"],
                            cwd=tmp_path, env=env, capture_output=True, timeout=300)
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-2000:]
    assert (tmp_path / "seen.txt").read_text().split() == ["bn-eps-zero"]
