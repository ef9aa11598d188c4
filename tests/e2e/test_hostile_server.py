"""`cudnnlint server` against hostile or broken input (issue 33, item 6): JSON nested past a fixed
bound is refused without a crash, a bad Content-Length or an over-long header line is reported and
the framing recovers for the next message (in bounded memory), and a document that exists only in
the editor (not saved yet) is analysed from its buffer."""
import json
import subprocess

import pytest

from conftest import SANITIZER_ALLOWANCE_MIB

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
EPS_ZERO = "import torch.nn as nn\nbn = nn.BatchNorm2d(8, eps=0.0)\n"


def frame(message):
    data = message if isinstance(message, bytes) else json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(data) + data


def request(id_, method, params=None):
    message = {"jsonrpc": "2.0", "id": id_, "method": method}
    if params is not None:
        message["params"] = params
    return frame(message)


EXIT = frame({"jsonrpc": "2.0", "method": "exit"})


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


def serve(binary, stdin, cwd=None):
    result = subprocess.run([binary, "server"], input=stdin, capture_output=True, timeout=120, cwd=cwd)
    return result, read_all(result.stdout)


def test_json_nested_past_the_bound_is_refused_and_the_server_goes_on(cli):
    # 100,000 arrays as the id, 1,000,000 in the params: the server died of a stack overflow.
    stdin = (frame(INIT)
             + frame(b'{"jsonrpc":"2.0","id":%s,"method":"foo"}' % (b"[" * 100000 + b"]" * 100000))
             + frame(b'{"jsonrpc":"2.0","method":"foo","params":%s}' % (b"[" * 1000000 + b"]" * 1000000))
             + frame(b'{"jsonrpc":"2.0","id":2,"method":"x","params":%s}' % (b"[" * 511 + b"]" * 511))
             + request(3, "shutdown") + EXIT)
    result, messages = serve(cli.binary, stdin)
    assert result.returncode == 0, (result.returncode, result.stderr.decode()[-2000:])
    refused = [m["error"] for m in messages if "id" in m and m["id"] is None]
    assert [e["code"] for e in refused] == [-32700, -32700]
    assert all("nested deeper than 512 levels" in e["message"] for e in refused)
    by_id = {m["id"]: m for m in messages if m.get("id") is not None}
    assert by_id[2]["error"]["code"] == -32601  # 512 levels, the bound: parsed (an unknown method)
    assert by_id[3]["result"] is None


def test_requests_after_a_bad_content_length_are_answered(cli):
    # A bad length leaves its body (of unknown length) glued to the next header: every request
    # after it went unanswered.
    bad = [b"Content-Length: -5\r\n\r\n{}", b"Content-Length: banana\r\n\r\n[1,\n2]",
           b"Content-Length: 99999999999999999999999\r\n\r\n{\"a\": 1}", b"Content-Length: 300000000\r\n\r\n"]
    stdin = frame(INIT) + b"".join(header + request(10 + n, "cudnnlint/ping") for n, header in enumerate(bad))
    result, messages = serve(cli.binary, stdin + request(2, "shutdown") + EXIT)
    assert result.returncode == 0, result.stderr.decode()[-2000:]
    by_id = {m["id"]: m for m in messages if m.get("id") is not None}
    assert [by_id[10 + n]["error"]["code"] for n in range(len(bad))] == [-32601] * len(bad)
    assert by_id[2]["result"] is None
    logged = [m["params"]["message"] for m in messages if m.get("method") == "window/logMessage"
              and m["params"]["type"] == 1]
    assert logged == ["cudnnlint: a message was skipped: bad Content-Length '-5'",
                      "cudnnlint: a message was skipped: bad Content-Length 'banana'",
                      "cudnnlint: a message was skipped: Content-Length 99999999999999999999999 is above the 256 MiB limit",
                      "cudnnlint: a message was skipped: Content-Length 300000000 is above the 256 MiB limit"]


def test_a_header_line_past_the_bound_is_not_held(cli):
    # 300 MB without a newline: the line was read whole (over 300 MiB of memory).
    server = subprocess.Popen([cli.binary, "server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    try:
        server.stdin.write(frame(INIT) + b"X-Junk: ")
        chunk = b"a" * (1 << 20)
        for _ in range(300):
            server.stdin.write(chunk)
        server.stdin.flush()
        with open(f"/proc/{server.pid}/status") as status:
            peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM")) // 1024
        out, _ = server.communicate(b"\r\n\r\n" + request(2, "shutdown") + EXIT, timeout=60)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    assert peak < 100 + SANITIZER_ALLOWANCE_MIB, f"peak RSS {peak} MiB after a 300 MB header line"
    assert server.returncode == 0
    messages = read_all(out)
    by_id = {m["id"]: m for m in messages if m.get("id") is not None}
    assert by_id[2]["result"] is None
    assert any("a header line longer than 8192 bytes" in m["params"]["message"]
               for m in messages if m.get("method") == "window/logMessage")


@pytest.mark.parametrize("pull", [False, True])
def test_an_unsaved_document_is_analysed_from_its_buffer(cli, tmp_path, pull):
    # new.py is open in the editor but not on disk: its findings, not "no such file or directory".
    uri = (tmp_path / "new.py").as_uri()
    capabilities = {"textDocument": {"diagnostic": {}}} if pull else {}
    stdin = (request(1, "initialize", {"rootUri": tmp_path.as_uri(), "capabilities": capabilities})
             + frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
             + frame({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
                 "uri": uri, "languageId": "python", "version": 1, "text": EPS_ZERO}}})
             + request(2, "textDocument/diagnostic", {"textDocument": {"uri": uri}})
             + request(3, "shutdown") + EXIT)
    result, messages = serve(cli.binary, stdin, cwd=tmp_path)
    assert result.returncode == 0, result.stderr.decode()[-2000:]
    assert not (tmp_path / "new.py").exists()  # nothing is written
    if pull:
        diagnostics = next(m for m in messages if m.get("id") == 2)["result"]["items"]
    else:
        diagnostics = [m for m in messages if m.get("method") == "textDocument/publishDiagnostics"][-1]["params"]["diagnostics"]
    assert [(d.get("code"), d["range"]["start"]["line"]) for d in diagnostics] == [("bn-eps-zero", 1)], diagnostics
