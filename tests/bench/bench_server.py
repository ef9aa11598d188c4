#!/usr/bin/env python3
"""Latency of `cudnnlint server` (issue 15): from a didChange to its publishDiagnostics, on a
5,000-line PyTorch model file, over --edits edits (each one changes one batch norm's eps, so the
diagnostics change every time). Prints p50, p95 and max, and the server's peak RSS (VmHWM).
The goal for Python is p95 <= 10 ms.

Usage: python3 tests/bench/bench_server.py [--cudnnlint build/cudnnlint] [--edits 200] [--lines 5000]
       python3 tests/bench/bench_server.py --project /path/to/repo --file pkg/model.py  (a real workspace)
       python3 tests/bench/bench_server.py --project /path/to/repo --min-lines 2500 --edits 40
           (every file of the workspace of at least that many lines, one line each, then how many
           meet the goal)
Python 3 standard library only.
"""

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

BLOCK = '''

class Block{n}(nn.Module):
    """A residual block, as model files have hundreds of."""

    def __init__(self, channels={c}):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels, eps=1e-5)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels, eps=1e-5)
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        y = self.act(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return self.act(x + y)
'''


def model_text(lines):
    text = "import torch\nimport torch.nn as nn\n"
    n = 0
    while text.count("\n") < lines:
        text += BLOCK.format(n=n, c=16 + n % 48)
        n += 1
    return text


class Client:
    def __init__(self, binary):
        self.proc = subprocess.Popen([binary, "server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)

    def send(self, obj):
        body = json.dumps(obj).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def receive(self):
        length = None
        while True:
            line = self.proc.stdout.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return json.loads(self.proc.stdout.read(length))

    def until(self, method):
        while True:
            message = self.receive()
            if message.get("method") == method:
                return message


def measure(binary, root, path, text, edits, newlines=False, quiet=False):
    """didOpen, then `edits` edits of `text` at `path` in workspace `root`; returns the figures.
    newlines: each edit adds or removes a line break in the middle of the file, so that every line
    below moves (what pressing Enter does), instead of changing an eps."""
    uri = "file://" + path
    lines = text.split("\n")
    targets = [i for i, line in enumerate(lines) if "eps=1e-5" in line]
    client = Client(os.path.abspath(binary))
    client.send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                 "params": {"capabilities": {}, "rootUri": "file://" + root}})
    client.receive()
    client.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    started = time.perf_counter()
    client.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                 "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}})
    client.until("textDocument/publishDiagnostics")
    opened = time.perf_counter() - started
    latencies = []
    current = {}
    for k in range(edits):
        if newlines:
            line = len(lines) // 2
            column = len(lines[line])
            if k % 2 == 0:
                change = {"range": {"start": {"line": line, "character": column},
                                    "end": {"line": line, "character": column}}, "text": "\n"}
            else:
                change = {"range": {"start": {"line": line, "character": column},
                                    "end": {"line": line + 1, "character": 0}}, "text": ""}
            t0 = time.perf_counter()
            client.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                         "params": {"textDocument": {"uri": uri, "version": k + 2}, "contentChanges": [change]}})
            message = client.until("textDocument/publishDiagnostics")
            latencies.append(time.perf_counter() - t0)
            assert message["params"]["version"] == k + 2
            continue
        if targets:  # change one batch norm's eps: the diagnostics change every time
            line = targets[k % len(targets)]
            column = lines[line].index("eps=") + 4
            old = current.get(line, "1e-5")
            new = "0.0" if old == "1e-5" else "1e-5"
            current[line] = new
        else:  # a file with no such line: a comment typed and removed at its end
            line, column = len(lines) - 1, 0
            old = current.get(line, "")
            new = "# edit" if old == "" else ""
            current[line] = new
        t0 = time.perf_counter()
        client.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                     "params": {"textDocument": {"uri": uri, "version": k + 2},
                                "contentChanges": [{"range": {"start": {"line": line, "character": column},
                                                              "end": {"line": line, "character": column + len(old)}},
                                                    "text": new}]}})
        message = client.until("textDocument/publishDiagnostics")
        latencies.append(time.perf_counter() - t0)
        assert message["params"]["version"] == k + 2
    with open(f"/proc/{client.proc.pid}/status") as status:
        hwm = next(line for line in status if line.startswith("VmHWM")).split()[1]
    client.send({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    client.receive()
    client.send({"jsonrpc": "2.0", "method": "exit"})
    client.proc.wait(timeout=30)
    latencies.sort()
    p = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))] * 1000
    if quiet:
        return p(0.50), p(0.95)
    print(f"file: {text.count(chr(10)):,} lines, {len(text) / 1000:.0f} kB; {edits} edits; didOpen {opened * 1000:.1f} ms")
    print(f"didChange -> publishDiagnostics: p50 {p(0.50):.1f} ms, p95 {p(0.95):.1f} ms, "
          f"max {latencies[-1] * 1000:.1f} ms, mean {statistics.mean(latencies) * 1000:.1f} ms (goal: p95 <= 10 ms)")
    print(f"server peak RSS: {int(hwm) / 1024:.1f} MiB")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cudnnlint", default=os.path.join(REPO_ROOT, "build", "cudnnlint"))
    ap.add_argument("--edits", type=int, default=200)
    ap.add_argument("--lines", type=int, default=5000)
    ap.add_argument("--newlines", action="store_true",
                    help="edits that add and remove a line break mid-file (every line below moves)")
    ap.add_argument("--project", help="an existing workspace (a fetched repository) to open FILE in instead")
    ap.add_argument("--file", help="with --project: the file to edit, relative to it")
    ap.add_argument("--min-lines", type=int,
                    help="with --project and no --file: every Python file of at least this many lines, in turn")
    args = ap.parse_args()
    if args.project and not args.file and args.min_lines:
        root = os.path.abspath(args.project)
        files = []
        for folder, _, names in os.walk(root):
            for name in names:
                if name.endswith(".py"):
                    path = os.path.join(folder, name)
                    with open(path, encoding="utf-8", errors="replace") as f:
                        text = f.read()
                    if text.count("\n") >= args.min_lines:
                        files.append((text.count("\n"), path, text))
        files.sort(key=lambda f: (-f[0], f[1]))
        print(f"workspace {root}: {len(files)} files of at least {args.min_lines:,} lines, {args.edits} edits each")
        met = 0
        for lines, path, text in files:
            p50, p95 = measure(args.cudnnlint, root, path, text, args.edits, args.newlines, quiet=True)
            met += p95 <= 10
            print(f"{lines:6,} lines  p50 {p50:5.1f} ms  p95 {p95:5.1f} ms  {os.path.relpath(path, root)}", flush=True)
        print(f"p95 <= 10 ms in {met} of {len(files)} files")
        return
    if args.project:
        root = os.path.abspath(args.project)
        path = os.path.join(root, args.file)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        print(f"workspace {root}, editing {args.file} (its imports are analysed with it)")
        measure(args.cudnnlint, root, path, text, args.edits, args.newlines)
        return
    with tempfile.TemporaryDirectory(prefix="bench-server-") as tmp:
        text = model_text(args.lines)
        path = os.path.join(tmp, "model.py")
        with open(path, "w") as f:
            f.write(text)
        measure(args.cudnnlint, tmp, path, text, args.edits, args.newlines)


if __name__ == "__main__":
    main()
