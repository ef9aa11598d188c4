"""grammars/fetch.py inside pip's isolated build (no pip to import) takes the sdist from the index pip
is configured with (PIP_INDEX_URL, pip.conf's index-url, extra-index-url), as a mirror's users need,
and says which index failed and why."""
import functools
import http.server
import importlib.util
import io
import tarfile
import threading

import pytest

from conftest import REPO


@pytest.fixture()
def fetch(monkeypatch, tmp_path):
    spec = importlib.util.spec_from_file_location("grammar_fetch", REPO / "grammars" / "fetch.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ("PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_CONFIG_FILE", "VIRTUAL_ENV", "PIP_CERT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    return module


@pytest.fixture()
def index(tmp_path):
    """A PEP 503 index on localhost: /simple/tree-sitter-python/ links to a small sdist."""
    root = tmp_path / "www"
    (root / "simple" / "tree-sitter-python").mkdir(parents=True)
    (root / "files").mkdir()
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w:gz") as tar:
        payload = b"int parser;\n"
        info = tarfile.TarInfo("tree_sitter_python-0.23.6/src/parser.c")
        info.size = len(payload)
        tar.addfile(info, io.BytesIO(payload))
    (root / "files" / "tree_sitter_python-0.23.6.tar.gz").write_bytes(data.getvalue())
    (root / "simple" / "tree-sitter-python" / "index.html").write_text(
        '<html><body><a href="../../files/tree_sitter_python-0.23.5.tar.gz">old</a>\n'
        '<a href="../../files/tree_sitter_python-0.23.6.tar.gz#sha256=00">tree_sitter_python-0.23.6.tar.gz</a>'
        "</body></html>")
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *args: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/simple", data.getvalue()
    server.shutdown()


def test_the_index_from_the_environment(fetch, index, monkeypatch, tmp_path):
    url, sdist = index
    monkeypatch.setenv("PIP_INDEX_URL", url)
    assert fetch.pip_index_urls() == [url]
    path = fetch.sdist_from_index("tree-sitter-python", "0.23.6", str(tmp_path))
    assert path.endswith("tree_sitter_python-0.23.6.tar.gz") and open(path, "rb").read() == sdist


def test_the_index_from_pip_conf_and_an_extra_index(fetch, index, monkeypatch, tmp_path):
    url, sdist = index
    config = tmp_path / "pip.conf"
    # The first index lists nothing: the extra index has it.
    config.write_text(f"[global]\nindex-url = {url}/nothing-here\nextra-index-url = {url}\n")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(config))
    assert fetch.pip_index_urls() == [f"{url}/nothing-here", url]
    path = fetch.sdist_from_index("tree_sitter.python", "0.23.6", str(tmp_path))  # a name pip would normalise
    assert open(path, "rb").read() == sdist


def test_a_failure_names_each_index_and_its_cause(fetch, index, monkeypatch, tmp_path, capsys):
    url, _ = index
    monkeypatch.setenv("PIP_INDEX_URL", url)
    with pytest.raises(SystemExit) as stopped:
        fetch.sdist_from_index("tree-sitter-python", "9.9.9", str(tmp_path))
    message = str(stopped.value)
    assert "could not download tree-sitter-python==9.9.9" in message
    assert f"{url}/tree-sitter-python/: no tree-sitter-python-9.9.9.tar.gz listed" in message
    assert "PIP_INDEX_URL or pip.conf" in message
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple")  # nothing listens there
    with pytest.raises(SystemExit) as stopped:
        fetch.sdist_from_index("tree-sitter-python", "0.23.6", str(tmp_path))
    assert "http://127.0.0.1:9/simple/tree-sitter-python/: <urlopen error" in str(stopped.value)
