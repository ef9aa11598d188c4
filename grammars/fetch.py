#!/usr/bin/env python3
"""Fetch the pinned tree-sitter-python grammar from PyPI, verify it by hash, and lay it out as
grammars/vendor/tree-sitter-python/{src/parser.c, src/scanner.c, src/tree_sitter/*.h}.

Reads grammars/grammars.lock. Idempotent: a vendor tree whose stamp matches the lock is kept.
Exit status 0 on success; 1 with a message naming the package and the problem otherwise."""
import hashlib
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LOCK = os.path.join(HERE, "grammars.lock")
VENDOR = os.path.join(HERE, "vendor", "tree-sitter-python")
STAMP = os.path.join(VENDOR, ".lock-stamp")


def read_lock():
    entries = []
    with open(LOCK, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            name, version, sha, *files = line.split()
            entries.append((name, version, sha, files))
    return entries


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def sdist_from_find_links(name, version):
    # An offline wheelhouse named by PIP_FIND_LINKS (folders, separated by spaces), as pip reads it.
    for folder in os.environ.get("PIP_FIND_LINKS", "").split():
        for candidate in (f"{name}-{version}.tar.gz", f"{name.replace('-', '_')}-{version}.tar.gz"):
            path = os.path.join(folder, candidate)
            if os.path.isfile(path):
                return path
    return None


def sdist_from_pypi(name, version, workdir):
    # No pip to call: inside pip's isolated build environment (`pip install <checkout>`) pip is not
    # importable. The JSON API names the sdist's URL; the hash is checked by the caller.
    import json
    import urllib.request
    try:
        with urllib.request.urlopen(f"https://pypi.org/pypi/{name}/{version}/json", timeout=60) as reply:
            release = json.load(reply)
        url = next(u["url"] for u in release["urls"] if u["packagetype"] == "sdist")
        path = os.path.join(workdir, url.rsplit("/", 1)[-1])
        with urllib.request.urlopen(url, timeout=120) as reply, open(path, "wb") as out:
            shutil.copyfileobj(reply, out)
        return path
    except Exception as error:  # noqa: BLE001 - any failure is reported the same way
        sys.exit(f"grammars/fetch.py: could not download {name}=={version} from PyPI: {error}\n"
                 "  offline, put its sdist in a folder named by PIP_FIND_LINKS")


def fetch_sdist(name, version, workdir):
    local = sdist_from_find_links(name, version)
    if local:
        return local
    try:
        import pip  # noqa: F401
    except ImportError:
        return sdist_from_pypi(name, version, workdir)
    # pip reads the sdist's metadata in an isolated environment but builds nothing; the hash
    # below is checked before a single file of the archive is used.
    cmd = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
           f"{name}=={version}", "-d", workdir]
    result = subprocess.run(cmd, capture_output=True, text=True)
    archives = [f for f in os.listdir(workdir) if f.endswith(".tar.gz")]
    if result.returncode != 0 or not archives:
        sys.exit(f"grammars/fetch.py: could not download {name}=={version} from PyPI:\n{result.stderr.strip()}")
    return os.path.join(workdir, archives[0])


def main():
    lock_text = open(LOCK, "rb").read()
    lock_digest = hashlib.sha256(lock_text).hexdigest()
    if os.path.exists(STAMP) and open(STAMP).read().strip() == lock_digest:
        print(f"grammar: up to date ({os.path.relpath(VENDOR)})")
        return 0
    staging = VENDOR + ".partial"
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(os.path.join(staging, "src", "tree_sitter"))
    for name, version, expected, files in read_lock():
        with tempfile.TemporaryDirectory() as tmp:
            archive = fetch_sdist(name, version, tmp)
            actual = sha256_of(archive)
            if actual != expected:
                sys.exit(f"grammars/fetch.py: {name}=={version}: SHA-256 mismatch\n  expected {expected}\n  got      {actual}")
            with tarfile.open(archive) as tar:
                root = tar.getnames()[0].split("/")[0]
                for rel in files:
                    member = tar.extractfile(f"{root}/{rel}")
                    if member is None:
                        sys.exit(f"grammars/fetch.py: {name}=={version}: {rel} missing from the sdist")
                    base = os.path.basename(rel)
                    dest = os.path.join(staging, "src", base if base.endswith(".c") else os.path.join("tree_sitter", base))
                    with open(dest, "wb") as out:
                        out.write(member.read())
            print(f"grammar: {name}=={version} verified (sha256 {actual[:16]}...)")
    with open(os.path.join(staging, "src", "parser.c"), encoding="utf-8") as f:
        head = f.read(4096)
    if "#define LANGUAGE_VERSION 14" not in head:
        sys.exit("grammars/fetch.py: parser.c is not ABI 14; Debian's libtree-sitter 0.20 cannot load it")
    with open(os.path.join(staging, ".lock-stamp"), "w") as f:
        f.write(lock_digest + "\n")
    shutil.rmtree(VENDOR, ignore_errors=True)
    os.replace(staging, VENDOR)
    print(f"grammar: installed in {os.path.relpath(VENDOR)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
