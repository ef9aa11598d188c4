"""`cudnnlint server` with a third real client: Emacs's eglot (Debian's emacs-nox and elpa-eglot),
configured by the README's snippet as written there, driven in batch by tests/e2e/eglot_client.el.
Skipped, saying so, where Emacs or eglot is not installed (./setup.sh installs both)."""
import os
import pathlib
import shutil
import subprocess

import pytest

HERE = pathlib.Path(__file__).resolve().parent
BINARY = os.environ.get("CUDNNLINT_UNDER_TEST", "build/cudnnlint")
MODEL = "import torch.nn as nn\n\nbn = nn.BatchNorm2d(8, eps=0)  # 零\n"
EGLOT = pathlib.Path("/usr/share/emacs/site-lisp/elpa")


def eglot_installed():
    return shutil.which("emacs") is not None and any(EGLOT.glob("eglot-*"))


def readme_snippet():
    readme = (HERE.parents[1] / "README.md").read_text(encoding="utf-8")
    at = readme.index("Emacs (eglot):")
    start = readme.index("```elisp\n", at) + len("```elisp\n")
    return readme[start:readme.index("```", start)]


@pytest.mark.skipif(not eglot_installed(), reason="Emacs with eglot is not installed "
                    "(./setup.sh installs Debian's emacs-nox and elpa-eglot)")
def test_the_readme_snippet_for_eglot_shows_diagnostics_hovers_and_clears_them(tmp_path):
    snippet = readme_snippet()
    assert '("cudnnlint" "server")' in snippet
    (tmp_path / "snippet.el").write_text(
        snippet.replace('("cudnnlint" "server")', f'("{pathlib.Path(BINARY).resolve()}" "server")'), encoding="utf-8")
    (tmp_path / "model.py").write_text(MODEL, encoding="utf-8")
    out = tmp_path / "seen.txt"
    env = dict(os.environ, HOME=str(tmp_path), CUDNNLINT_OUT=str(out))
    result = subprocess.run(["emacs", "--batch", "-q", "-l", str(tmp_path / "snippet.el"),
                             "-l", str(HERE / "eglot_client.el")],
                            cwd=tmp_path, env=env, capture_output=True, timeout=300)
    seen = out.read_text(encoding="utf-8").splitlines() if out.exists() else []
    assert result.returncode == 0, (seen, result.stderr.decode(errors="replace")[-2000:])
    # Line 2 (0-based); column 27 in Emacs's characters (the line is ASCII up to there), the rule as code.
    diagnostics = [line for line in seen if line.startswith("diagnostic ")]
    assert len(diagnostics) == 1, seen
    assert diagnostics[0].startswith("diagnostic 2:27 bn-eps-zero batch-norm eps=0 in nn.BatchNorm2d"), seen
    message = diagnostics[0].split(" ", 3)[3]
    assert [line for line in seen if line.startswith("hover ")] == ["hover **bn-eps-zero** (warning): " + message], seen
    assert seen[-2:] == ["cleared", "stopped"], seen
    assert (tmp_path / "model.py").read_text(encoding="utf-8") == MODEL  # the buffer was edited, not the file
