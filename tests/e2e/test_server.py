"""`cudnnlint server` (issue 15, first part) driven by a real LSP client: pytest-lsp's (pygls).
Open, diagnostics, an incremental change that clears them, pull diagnostics, UTF-8 and UTF-16
positions, errors for unknown requests, malformed input that leaves the server alive, shutdown."""
import asyncio
import json
import os
import pathlib
import subprocess
import sys
import time

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

BINARY = os.environ.get("CUDNNLINT_UNDER_TEST", "build/cudnnlint")
MODEL = "import torch.nn as nn\n\nbn = nn.BatchNorm2d(8, eps=0)  # 零\n"


def open_model(client, path, text=MODEL, version=1):
    uri = path.as_uri()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)))
    return uri


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[BINARY, "server"]))
async def client(lsp_client: LanguageClient, tmp_path_factory):
    root = tmp_path_factory.mktemp("workspace")
    lsp_client.diagnostics = Recorded()
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=root.as_uri()))
    lsp_client.root = root
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_open_publishes_the_findings_and_a_change_clears_them(client: LanguageClient):
    path = client.root / "model.py"
    path.write_text(MODEL)
    uri = open_model(client, path)
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    [diagnostic] = client.diagnostics[uri]
    assert diagnostic.code == "bn-eps-zero"
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    assert diagnostic.source == "cudnnlint"
    assert diagnostic.range == types.Range(start=types.Position(line=2, character=27),
                                           end=types.Position(line=2, character=28))
    assert diagnostic.message.startswith("batch-norm eps=0 in nn.BatchNorm2d")
    # The buffer, not the file: an unsaved edit that makes eps 1e-5 clears the diagnostic.
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=2, character=27), end=types.Position(line=2, character=28)),
            text="1e-5")]))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[uri]) == []
    assert path.read_text() == MODEL  # nothing written
    # And back, through a whole-text change.
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=MODEL.replace("eps=0", "eps=-1.0"))]))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert [d.code for d in client.diagnostics[uri]] == ["bn-eps-negative"]
    assert client.diagnostics[uri][0].severity == types.DiagnosticSeverity.Error


@pytest.mark.asyncio
async def test_provenance_becomes_related_information(client: LanguageClient):
    path = client.root / "provenance.py"
    text = "import torch.nn as nn\n\nEPS = 0.0\nbn = nn.BatchNorm2d(8, eps=EPS)\n"
    path.write_text(text)
    uri = open_model(client, path, text)
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    [diagnostic] = client.diagnostics[uri]
    related = diagnostic.related_information
    assert related and related[0].location.uri == uri and related[0].location.range.start.line == 2


@pytest.mark.asyncio
async def test_hover_explains_from_the_kb_and_code_actions_fix_or_suppress(client: LanguageClient):
    path = client.root / "actions.py"
    path.write_text(MODEL)
    uri = open_model(client, path)
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    [diagnostic] = client.diagnostics[uri]
    document = types.TextDocumentIdentifier(uri=uri)
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=document, position=types.Position(line=2, character=27)))
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert hover.contents.value.startswith("**bn-eps-zero** (warning): batch-norm eps=0")
    assert "cudnnlint explain cuda/cudnn-bn-epsilon-zero" in hover.contents.value
    nothing = await client.text_document_hover_async(types.HoverParams(
        text_document=document, position=types.Position(line=0, character=0)))
    assert nothing is None
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=document, range=diagnostic.range,
        context=types.CodeActionContext(diagnostics=[diagnostic])))
    titles = [a.title for a in actions]
    assert titles == ["cudnnlint: set eps=1e-5 (unsafe: changes numerics or behaviour)",
                      "cudnnlint: ignore bn-eps-zero on this line"]
    # Applied as the client would, each through didChange: the fix clears the diagnostic.
    [fix_edit] = actions[0].edit.changes[uri]
    assert fix_edit.new_text == "1e-5" and fix_edit.range == diagnostic.range
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(range=fix_edit.range, text=fix_edit.new_text)]))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[uri]) == []
    # The suppression, on the original text: a comment at the end of the line, after the one there.
    [suppress] = actions[1].edit.changes[uri]
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=3),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=MODEL)]))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert len(client.diagnostics[uri]) == 1
    assert suppress.range.start == types.Position(line=2, character=34)  # after '# 零' (UTF-16)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=4),
        content_changes=[types.TextDocumentContentChangePartial(range=suppress.range, text=suppress.new_text)]))
    await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    assert list(client.diagnostics[uri]) == []


@pytest.mark.asyncio
async def test_unknown_requests_get_method_not_found(client: LanguageClient):
    with pytest.raises(Exception) as raised:
        await client.protocol.send_request_async("cudnnlint/unknown", {})
    assert "-32601" in str(raised.value) or "unknown method" in str(raised.value)


def frame(body):
    data = body.encode() if isinstance(body, str) else body
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def read_all(stream):
    """Every message in a server's stdout."""
    messages = []
    while stream:
        head, sep, rest = stream.partition(b"\r\n\r\n")
        if not sep:
            break
        length = int(head.split(b":")[1])
        messages.append(json.loads(rest[:length]))
        stream = rest[length:]
    return messages


def request(id_, method, params=None):
    return frame(json.dumps({"jsonrpc": "2.0", "id": id_, "method": method, "params": params or {}}))


def notify(method, params):
    return frame(json.dumps({"jsonrpc": "2.0", "method": method, "params": params}))


def test_malformed_input_and_a_burst_of_changes_leave_the_server_alive(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MODEL)
    uri = path.as_uri()
    changes = b"".join(
        notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": v},
                                          "contentChanges": [{"text": MODEL if v % 2 else MODEL.replace("eps=0", "eps=1e-5")}]})
        for v in range(2, 1002))
    stdin = (request(1, "initialize", {"capabilities": {"general": {"positionEncodings": ["utf-8", "utf-16"]}},
                                       "rootUri": tmp_path.as_uri()})
             + notify("initialized", {})
             + b"Content-Length: banana\r\n\r\n"          # a bad header: skipped
             + b"X-Nothing: 1\r\n\r\n"                     # no length at all
             + frame("{not json")                          # parse error, id null
             + frame(json.dumps([1, 2]))                   # not a request
             + notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                                "text": MODEL}})
             + changes
             + request(2, "textDocument/diagnostic", {"textDocument": {"uri": uri}})
             + request(3, "shutdown")
             + request(4, "textDocument/diagnostic", {"textDocument": {"uri": uri}})
             + notify("exit", {}))
    result = subprocess.run([BINARY, "server"], input=stdin, capture_output=True, timeout=600)
    assert result.returncode == 0, result.stderr.decode()[-2000:]
    messages = read_all(result.stdout)
    by_id = {m["id"]: m for m in messages if m.get("id") is not None}
    assert by_id[1]["result"]["capabilities"]["positionEncoding"] == "utf-8"
    # Not JSON: a parse error; JSON that is not a request: an invalid request (both with id null).
    assert [m["error"]["code"] for m in messages if "id" in m and m["id"] is None] == [-32700, -32600]
    published = [m for m in messages if m.get("method") == "textDocument/publishDiagnostics"]
    assert len(published) == 1001  # didOpen and each change, in order
    assert [p["params"]["version"] for p in published][-3:] == [999, 1000, 1001]
    last = published[-1]["params"]["diagnostics"]  # version 1001: odd, eps=0
    # UTF-8 positions count bytes: the comment's 零 comes after the range, so both encodings agree here.
    assert [(d["code"], d["range"]["start"]) for d in last] == [("bn-eps-zero", {"line": 2, "character": 27})]
    assert by_id[2]["result"]["kind"] == "full" and [d["code"] for d in by_id[2]["result"]["items"]] == ["bn-eps-zero"]
    assert by_id[3]["result"] is None
    assert by_id[4]["error"]["code"] == -32600  # after shutdown
    stderr = result.stderr.decode()
    assert "bad Content-Length 'banana'" in stderr and "missing Content-Length" in stderr


def test_positions_follow_the_negotiated_encoding(tmp_path):
    # A non-BMP character before the finding: 4 UTF-8 bytes, 2 UTF-16 units.
    text = "import torch.nn as nn\nbn = nn.BatchNorm2d(8, eps=0) if '𝔼' else None\nx = '𝔼'; bn2 = nn.BatchNorm2d(8, eps=0)\n"
    path = tmp_path / "wide.py"
    path.write_text(text, encoding="utf-8")
    uri = path.as_uri()
    starts = {}
    for encodings in (["utf-16"], ["utf-8"]):
        stdin = (request(1, "initialize", {"capabilities": {"general": {"positionEncodings": encodings}}})
                 + notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                                    "text": text}})
                 + request(2, "shutdown") + notify("exit", {}))
        result = subprocess.run([BINARY, "server"], input=stdin, capture_output=True, timeout=120)
        [published] = [m for m in read_all(result.stdout) if m.get("method") == "textDocument/publishDiagnostics"]
        starts[encodings[0]] = sorted((d["range"]["start"]["line"], d["range"]["start"]["character"])
                                      for d in published["params"]["diagnostics"])
    # `x = '𝔼'; bn2 = nn.BatchNorm2d(8, eps=` is 37 code points: 38 UTF-16 units, 40 UTF-8 bytes.
    assert starts["utf-16"] == [(1, 27), (2, 38)]
    assert starts["utf-8"] == [(1, 27), (2, 40)]


def test_exit_without_shutdown_is_exit_code_1():
    result = subprocess.run([BINARY, "server"], input=request(1, "initialize", {"capabilities": {}}) + notify("exit", {}),
                            capture_output=True, timeout=60)
    assert result.returncode == 1
    result = subprocess.run([BINARY, "server"], input=request(1, "textDocument/diagnostic", {}), capture_output=True,
                            timeout=60)
    assert read_all(result.stdout)[0]["error"]["code"] == -32002  # not initialized


class Reader:
    """The server's messages as they come (a thread reads its stdout)."""

    def __init__(self, proc):
        import queue
        import threading
        self.messages = queue.Queue()

        def read():
            while True:
                length = None
                while True:
                    line = proc.stdout.readline()
                    if line in (b"\r\n", b""):
                        break
                    name, _, value = line.decode().partition(":")
                    if name.lower() == "content-length":
                        length = int(value)
                if length is None:
                    self.messages.put(None)
                    return
                self.messages.put(json.loads(proc.stdout.read(length)))

        threading.Thread(target=read, daemon=True).start()

    def next(self, method, timeout=120):
        while True:
            message = self.messages.get(timeout=timeout)
            assert message is not None, "the server closed its output"
            if message.get("method") == method:
                return message["params"]


CPP_SOURCE = ("#include <cudnn.h>\nvoid f(cudnnTensorDescriptor_t d) {\n"
              "  cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, BATCH, 3, 8, 8);\n}\n")


def start_server():
    proc = subprocess.Popen([BINARY, "server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return proc, Reader(proc)


def send(proc, data):
    proc.stdin.write(data)
    proc.stdin.flush()


def test_cpp_files_are_analysed_from_the_saved_file_on_open_and_save(tmp_path):
    path = tmp_path / "desc.cpp"
    path.write_text(CPP_SOURCE.replace("BATCH", "0"))
    uri = path.as_uri()
    proc, reader = start_server()
    send(proc, request(1, "initialize", {"capabilities": {}})
         + notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cpp", "version": 1,
                                                            "text": CPP_SOURCE.replace("BATCH", "0")}})
         + notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2},
                                             "contentChanges": [{"text": CPP_SOURCE.replace("BATCH", "1")}]}))
    first = reader.next("textDocument/publishDiagnostics")
    assert [d["code"] for d in first["diagnostics"]] == ["cudnn-desc-bad-dim"]  # the file on disk, not the buffer
    # The change is saved before didSave arrives, as editors do.
    path.write_text(CPP_SOURCE.replace("BATCH", "1"))
    send(proc, notify("textDocument/didSave", {"textDocument": {"uri": uri}}))
    second = reader.next("textDocument/publishDiagnostics")
    assert second["diagnostics"] == [] and second["version"] == 2
    send(proc, request(2, "shutdown") + notify("exit", {}))
    assert proc.wait(timeout=120) == 0, proc.stderr.read().decode()[-2000:]


def test_a_pull_for_a_cpp_file_is_answered_at_once_and_the_background_result_asks_for_another(tmp_path):
    """Pull mode: clang never runs on the request's thread. The first pull gets what is known (nothing
    yet), the background analysis then asks the client to pull again (workspace/diagnostic/refresh),
    and the next pull gets its result; a save starts another."""
    path = tmp_path / "desc.cpp"
    path.write_text(CPP_SOURCE.replace("BATCH", "0"))
    uri = path.as_uri()
    proc, reader = start_server()
    capabilities = {"textDocument": {"diagnostic": {}}, "workspace": {"diagnostics": {"refreshSupport": True}}}
    send(proc, request(1, "initialize", {"capabilities": capabilities})
         + notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "cpp", "version": 1,
                                                            "text": path.read_text()}})
         + request(2, "textDocument/diagnostic", {"textDocument": {"uri": uri}}))

    def until(predicate):
        while True:
            message = reader.messages.get(timeout=120)
            assert message is not None, "the server closed its output"
            assert message.get("method") != "textDocument/publishDiagnostics", message  # pull mode: nothing pushed
            if predicate(message):
                return message

    first = until(lambda m: m.get("id") == 2)
    assert first["result"] == {"kind": "full", "items": []}  # answered before clang is done
    refresh = until(lambda m: m.get("method") == "workspace/diagnostic/refresh")
    send(proc, frame(json.dumps({"jsonrpc": "2.0", "id": refresh["id"], "result": None}))
         + request(3, "textDocument/diagnostic", {"textDocument": {"uri": uri}}))
    second = until(lambda m: m.get("id") == 3)
    assert [d["code"] for d in second["result"]["items"]] == ["cudnn-desc-bad-dim"]
    # Fixed and saved: another background analysis, another refresh, and the next pull is clean.
    path.write_text(CPP_SOURCE.replace("BATCH", "1"))
    send(proc, notify("textDocument/didSave", {"textDocument": {"uri": uri}}))
    until(lambda m: m.get("method") == "workspace/diagnostic/refresh")
    send(proc, request(4, "textDocument/diagnostic", {"textDocument": {"uri": uri}}))
    assert until(lambda m: m.get("id") == 4)["result"]["items"] == []
    send(proc, request(5, "shutdown") + notify("exit", {}))
    assert proc.wait(timeout=120) == 0, proc.stderr.read().decode()[-2000:]


def test_cpp_analysis_runs_in_the_background_debounced_and_a_newer_save_supersedes_it(tmp_path):
    path = tmp_path / "desc.cpp"
    path.write_text(CPP_SOURCE.replace("BATCH", "0"))
    cpp_uri = path.as_uri()
    model = tmp_path / "model.py"
    model.write_text(MODEL)
    proc, reader = start_server()
    # Opened, then saved three times in quick succession: one analysis, of the last saved text.
    send(proc, request(1, "initialize", {"capabilities": {}, "rootUri": tmp_path.as_uri()})
         + notify("textDocument/didOpen", {"textDocument": {"uri": cpp_uri, "languageId": "cpp", "version": 1,
                                                            "text": path.read_text()}}))
    for version, batch in ((2, "1"), (3, "0"), (4, "2")):
        path.write_text(CPP_SOURCE.replace("BATCH", batch))
        send(proc, notify("textDocument/didChange", {"textDocument": {"uri": cpp_uri, "version": version},
                                                     "contentChanges": [{"text": path.read_text()}]})
             + notify("textDocument/didSave", {"textDocument": {"uri": cpp_uri}}))
    # Meanwhile a Python document is answered at once, before clang is done.
    send(proc, notify("textDocument/didOpen", {"textDocument": {"uri": model.as_uri(), "languageId": "python",
                                                                "version": 1, "text": MODEL}}))
    published = reader.next("textDocument/publishDiagnostics")
    assert published["uri"] == model.as_uri() and [d["code"] for d in published["diagnostics"]] == ["bn-eps-zero"]
    published = reader.next("textDocument/publishDiagnostics")
    assert published["uri"] == cpp_uri and published["version"] == 4 and published["diagnostics"] == []
    # A save superseding a running analysis: the first one's result is dropped, the second's published.
    # The first text takes clang a second or more (12,000 top-level templates and calls), and holds a
    # finding: had its result been published, the next diagnostics would hold it.
    slow = CPP_SOURCE.replace("BATCH", "0") + "".join(
        f"template <int N> struct S{i} {{ static int g(int x) {{ return x * N + {i}; }} }};\n"
        f"int h{i}(int x) {{ return S{i}<{i}>::g(x); }}\n" for i in range(12000))
    path.write_text(slow)
    send(proc, notify("textDocument/didSave", {"textDocument": {"uri": cpp_uri}}))
    time.sleep(0.6)  # past the debounce: clang is parsing
    path.write_text(CPP_SOURCE.replace("BATCH", "3"))
    send(proc, notify("textDocument/didSave", {"textDocument": {"uri": cpp_uri}}))
    published = reader.next("textDocument/publishDiagnostics")
    assert published["uri"] == cpp_uri and published["diagnostics"] == [], published
    send(proc, request(2, "shutdown") + notify("exit", {}))
    assert proc.wait(timeout=120) == 0, proc.stderr.read().decode()[-2000:]
    # Nothing else was published: no stale result after the newer one.
    rest = []
    while not reader.messages.empty():
        message = reader.messages.get()
        if message and message.get("method") == "textDocument/publishDiagnostics":
            rest.append(message["params"])
    assert rest == []


# ---- project awareness: values across modules, dependents, watched files, configuration -------------

CONSTANTS = "EPS = 0.0\n"
USES_CONSTANTS = "import torch.nn as nn\nfrom .constants import EPS\n\nbn = nn.BatchNorm2d(8, eps=EPS)\n"


def make_package(root):
    package = root / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "constants.py").write_text(CONSTANTS)
    (package / "model.py").write_text(USES_CONSTANTS)
    return package


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[BINARY, "server"]))
async def watching_client(lsp_client: LanguageClient, tmp_path_factory):
    """A client that offers dynamic registration of file watchers, as VS Code and Neovim do."""
    root = tmp_path_factory.mktemp("project")
    registrations = []

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams):
        registrations.extend(params.registrations)

    capabilities = types.ClientCapabilities(workspace=types.WorkspaceClientCapabilities(
        did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=True)))
    lsp_client.diagnostics = Recorded()
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities, root_uri=root.as_uri()))
    lsp_client.root = root
    lsp_client.registrations = registrations
    yield
    await lsp_client.shutdown_session()


class Recorded(dict):
    """client.diagnostics that also keeps every publish in order (pytest-lsp's handler assigns to it):
    waiting for the next publish of one document cannot miss it when several come at once."""

    def __init__(self):
        super().__init__()
        self.log = []
        self.read = 0

    def __setitem__(self, uri, diagnostics):
        super().__setitem__(uri, diagnostics)
        self.log.append((uri, diagnostics))


class Published:
    def __init__(self, diagnostics):
        self.diagnostics = diagnostics


async def next_diagnostics(client, uri, timeout=60):
    """The codes and diagnostics of the next publish for `uri` (publishes for others are passed over)."""
    recorded = client.diagnostics
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        while recorded.read < len(recorded.log):
            published_uri, diagnostics = recorded.log[recorded.read]
            recorded.read += 1
            if published_uri == uri:
                return [d.code for d in diagnostics], Published(diagnostics)
        await asyncio.sleep(0.01)
    raise AssertionError(f"no diagnostics for {uri} within {timeout} s")


@pytest.mark.asyncio
async def test_values_cross_modules_and_an_edit_of_the_module_analyses_its_dependents(client: LanguageClient):
    package = make_package(client.root)
    model_uri = open_model(client, package / "model.py", USES_CONSTANTS)
    codes, message = await next_diagnostics(client, model_uri)
    assert codes == ["bn-eps-zero"]
    # The chain reaches into constants.py, as on the command line.
    related = message.diagnostics[0].related_information
    assert any(r.location.uri == (package / "constants.py").as_uri() and r.location.range.start.line == 0
               for r in related), related
    # constants.py opened and edited, unsaved: model.py is analysed again against the buffer.
    constants_uri = open_model(client, package / "constants.py", CONSTANTS)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=constants_uri, version=2),
        content_changes=[types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=0, character=6), end=types.Position(line=0, character=9)),
            text="1e-5")]))
    codes, _ = await next_diagnostics(client, model_uri)
    assert codes == []
    # Closed without saving: model.py reads constants.py from disk again.
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=constants_uri)))
    codes, _ = await next_diagnostics(client, model_uri)
    assert codes == ["bn-eps-zero"]


@pytest.mark.asyncio
async def test_watched_files_and_the_configuration_analyse_open_documents_again(watching_client: LanguageClient):
    client = watching_client
    package = make_package(client.root)
    model_uri = open_model(client, package / "model.py", USES_CONSTANTS)
    assert (await next_diagnostics(client, model_uri))[0] == ["bn-eps-zero"]
    # The server asked to watch the files findings depend on.
    [registration] = client.registrations
    assert registration.method == "workspace/didChangeWatchedFiles"
    globs = [w["globPattern"] for w in registration.register_options["watchers"]]
    assert "**/*.{py,pyi}" in globs and "**/{pyproject.toml,.cudnnlint.toml,setup.cfg,setup.py}" in globs
    # An imported module changed on disk (a checkout, another editor).
    (package / "constants.py").write_text("EPS = 1e-5\n")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=(package / "constants.py").as_uri(), type=types.FileChangeType.Changed)]))
    assert (await next_diagnostics(client, model_uri))[0] == []
    (package / "constants.py").write_text(CONSTANTS)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=(package / "constants.py").as_uri(), type=types.FileChangeType.Changed)]))
    assert (await next_diagnostics(client, model_uri))[0] == ["bn-eps-zero"]
    # The project's configuration: a rule ignored there is gone from the editor too.
    (client.root / ".cudnnlint.toml").write_text('ignore = ["bn-eps-zero"]\n')
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=(client.root / ".cudnnlint.toml").as_uri(), type=types.FileChangeType.Created)]))
    assert (await next_diagnostics(client, model_uri))[0] == []
    # A module that is not imported changes: nothing to analyse again. (Had it been, the diagnostics
    # published would be [], the configuration still ignoring the rule: the hover's answer says the
    # server has handled the change before the configuration goes.)
    (package / "unrelated.py").write_text("X = 1\n")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=(package / "unrelated.py").as_uri(), type=types.FileChangeType.Changed)]))
    await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=model_uri), position=types.Position(line=0, character=0)))
    (client.root / ".cudnnlint.toml").unlink()
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=(client.root / ".cudnnlint.toml").as_uri(), type=types.FileChangeType.Deleted)]))
    assert (await next_diagnostics(client, model_uri))[0] == ["bn-eps-zero"]


def test_lang_zh_gives_the_kb_in_chinese_in_hovers_and_a_bad_lang_is_an_error(tmp_path):
    path = tmp_path / "model.py"
    path.write_text(MODEL)
    uri = path.as_uri()
    stdin = (request(1, "initialize", {"capabilities": {}, "rootUri": tmp_path.as_uri(), "locale": "en-US"})
             + notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1,
                                                                "text": MODEL}})
             + request(2, "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 2, "character": 27}})
             + request(3, "shutdown") + notify("exit", {}))
    hovers = {}
    for args in ([], ["--lang", "zh"]):
        result = subprocess.run([BINARY, "server", *args], input=stdin, capture_output=True, timeout=120)
        assert result.returncode == 0, result.stderr.decode()[-2000:]
        [hover] = [m for m in read_all(result.stdout) if m.get("id") == 2]
        hovers[tuple(args)] = hover["result"]["contents"]["value"]
    assert "- **ID:** `cuda/cudnn-bn-epsilon-zero`" in hovers[()]
    assert "- **ID：** `cuda/cudnn-bn-epsilon-zero`" in hovers[("--lang", "zh")]  # --lang wins over the locale
    bad = subprocess.run([BINARY, "server", "--lang", "fr"], input=b"", capture_output=True, timeout=60)
    assert bad.returncode == 2 and b"--lang must be 'en' or 'zh', not 'fr'" in bad.stderr


@pytest.mark.asyncio
async def test_a_callee_is_analysed_with_its_callers(client: LanguageClient):
    """blocks.py's defaults are findings only through model.py's calls that leave eps out: the server
    analyses a document with the files that import it, as `cudnnlint .` does."""
    import shutil
    fixture = pathlib.Path(__file__).resolve().parents[1] / "fixtures" / "values" / "function_default"
    for name in ("blocks.py", "model.py"):
        shutil.copy(fixture / name, client.root / name)
    uri = open_model(client, client.root / "blocks.py", (client.root / "blocks.py").read_text())
    codes, message = await next_diagnostics(client, uri)
    assert sorted((d.range.start.line + 1, d.code) for d in message.diagnostics) == [
        (6, "bn-eps-zero"), (15, "bn-eps-negative"), (22, "bn-eps-zero"), (32, "bn-eps-negative")]


@pytest.mark.parametrize("tree", ["examples", "tests/fixtures/values"])
def test_the_editor_shows_what_the_command_line_finds(tree):
    """No separate analysis path: for every Python, YAML and JSON file of a tree, opened in the server
    with the tree as the workspace, the diagnostics are the findings `cudnnlint .` reports in that
    file. A config file's findings come from the code that reads it (`eps=cfg.model.bn_eps`)."""
    repo = pathlib.Path(__file__).resolve().parents[2]
    roots = [repo / tree] if tree == "examples" else sorted(p for p in (repo / tree).iterdir() if p.is_dir())
    opened = found = in_configs = 0
    languages = {".py": "python", ".yaml": "yaml", ".yml": "yaml", ".json": "json"}
    for root in roots:
        cli = json.loads(subprocess.run([BINARY, "--no-cache", "-f", "json", "."], cwd=root, capture_output=True).stdout)
        expected = {}
        for f in cli["findings"]:
            expected.setdefault(str((root / f["path"]).resolve()), set()).add((f["rule"], f["line"]))
        proc, reader = start_server()
        send(proc, request(1, "initialize", {"capabilities": {}, "rootUri": root.as_uri()}))
        for path in sorted(p for p in root.rglob("*") if p.suffix in languages):
            uri = path.as_uri()
            send(proc, notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": languages[path.suffix],
                                                                        "version": 1,
                                                                        "text": path.read_text(encoding="utf-8")}}))
            published = reader.next("textDocument/publishDiagnostics")
            assert published["uri"] == uri
            got = {(d["code"], d["range"]["start"]["line"] + 1) for d in published["diagnostics"] if "code" in d}
            assert got == expected.get(str(path.resolve()), set()), path
            opened += 1
            found += len(got)
            in_configs += len(got) if path.suffix != ".py" else 0
            send(proc, notify("textDocument/didClose", {"textDocument": {"uri": uri}}))
            reader.next("textDocument/publishDiagnostics")
        send(proc, request(2, "shutdown") + notify("exit", {}))
        assert proc.wait(timeout=120) == 0
    assert opened >= 7 and found >= 10, (opened, found)
    assert tree == "examples" or in_configs >= 10, in_configs


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[BINARY, "server"]))
async def pulling_client(lsp_client: LanguageClient, tmp_path_factory):
    """A client that pulls diagnostics (textDocument/diagnostic) and takes refresh requests."""
    root = tmp_path_factory.mktemp("pull")
    capabilities = types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(diagnostic=types.DiagnosticClientCapabilities()),
        workspace=types.WorkspaceClientCapabilities(diagnostics=types.DiagnosticWorkspaceClientCapabilities(
            refresh_support=True)))
    lsp_client.diagnostics = Recorded()
    await lsp_client.initialize_session(types.InitializeParams(capabilities=capabilities, root_uri=root.as_uri()))
    lsp_client.root = root
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio
async def test_pull_diagnostics_and_a_refresh_when_an_imported_module_changes(pulling_client: LanguageClient):
    client = pulling_client
    package = make_package(client.root)
    model_uri = open_model(client, package / "model.py", USES_CONSTANTS)
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=model_uri)))
    assert report.kind == "full" and [d.code for d in report.items] == ["bn-eps-zero"]
    assert client.diagnostics.log == []  # nothing pushed to a pulling client
    # The imported module edited: the server asks the client to pull again, and the pull sees the edit.
    constants_uri = open_model(client, package / "constants.py", CONSTANTS)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=constants_uri, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text="EPS = 1e-5\n")]))
    for _ in range(600):
        if client.diagnostic_refresh_count > 0:
            break
        await asyncio.sleep(0.01)
    assert client.diagnostic_refresh_count == 1
    report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=model_uri)))
    assert list(report.items) == []


PARTS_MODEL = "import torch.nn as nn\n" + "".join(
    f"\n\nclass Block{n}(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    f"        self.bn = nn.BatchNorm2d(8, eps={'0.0' if n == 1 else '1e-5'})\n\n"
    f"    def forward(self, x):\n        return self.bn(x)\n" for n in range(4))


@pytest.mark.asyncio
async def test_edits_by_parts_keep_the_other_parts_findings_and_their_lines(client: LanguageClient):
    """A module of independent classes is analysed by parts (python/module_parts.h): an edit to one
    class keeps the others' findings, moved when lines come above them; a syntax error in a part
    sends the module to the whole analysis, which says where the error is; fixing it clears it."""
    path = client.root / "blocks.py"
    path.write_text(PARTS_MODEL)  # the buffer is what is analysed; the file must exist
    uri = open_model(client, path, PARTS_MODEL)
    line_of = lambda text: text.split("\n").index("        self.bn = nn.BatchNorm2d(8, eps=0.0)")
    _, message = await next_diagnostics(client, uri)
    assert [(d.code, d.range.start.line) for d in message.diagnostics] == [("bn-eps-zero", line_of(PARTS_MODEL))], message.diagnostics
    text = PARTS_MODEL
    version = 1

    async def change(start, end, new_text):
        nonlocal text, version
        version += 1
        lines = text.split("\n")
        offset = lambda p: sum(len(line) + 1 for line in lines[:p[0]]) + p[1]
        text = text[:offset(start)] + new_text + text[offset(end):]
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(line=start[0], character=start[1]),
                                  end=types.Position(line=end[0], character=end[1])), text=new_text)]))
        _, message = await next_diagnostics(client, uri)
        return [(d.code, d.range.start.line, d.message) for d in message.diagnostics]

    # Two lines into Block0 (above the finding): the finding moves down two lines.
    assert [(c, l) for c, l, _ in await change((5, 0), (5, 0), "        # one\n        # two\n")] == [
        ("bn-eps-zero", line_of(PARTS_MODEL) + 2)]
    # A syntax error in Block3: said, with its line; Block1's finding stays.
    block3 = text.split("\n").index("class Block3(nn.Module):")
    found = await change((block3 + 5, 20), (block3 + 5, 21), " ")  # `def forward(self  x):`
    assert ("bn-eps-zero", line_of(PARTS_MODEL) + 2) in [(c, l) for c, l, _ in found], found
    assert any(c is None and "syntax error" in m and l == block3 + 5 for c, l, m in found), found
    found = await change((block3 + 5, 20), (block3 + 5, 21), ",")
    assert [(c, l) for c, l, _ in found] == [("bn-eps-zero", line_of(PARTS_MODEL) + 2)]
    # Block1's eps fixed: nothing left.
    line = line_of(text)
    column = text.split("\n")[line].index("eps=") + 4
    assert await change((line, column), (line, column + 3), "1e-5") == []
