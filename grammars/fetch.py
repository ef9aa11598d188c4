#!/usr/bin/env python3
"""Fetch the pinned tree-sitter-python grammar from the package index pip uses, verify it by hash, and lay it out as
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


def pip_index_urls():
    """The package indexes pip itself would read, in pip's order: PIP_INDEX_URL, else index-url of
    the last pip configuration file that sets it (global, user, site: PIP_CONFIG_FILE last), else
    PyPI; then every extra-index-url. Read here because inside pip's isolated build environment
    (`pip install <checkout>`) pip is not importable and passes its configuration on only through
    the environment and those files."""
    import configparser
    files = ["/etc/pip.conf", "/etc/xdg/pip/pip.conf", os.path.expanduser("~/.pip/pip.conf"),
             os.path.join(os.environ.get("XDG_CONFIG_HOME", os.path.expanduser("~/.config")), "pip", "pip.conf")]
    if os.environ.get("VIRTUAL_ENV"):
        files.append(os.path.join(os.environ["VIRTUAL_ENV"], "pip.conf"))
    if os.environ.get("PIP_CONFIG_FILE") and os.environ["PIP_CONFIG_FILE"] != os.devnull:
        files.append(os.environ["PIP_CONFIG_FILE"])
    index, extra = None, []
    for path in files:
        config = configparser.ConfigParser()
        try:
            config.read(path, encoding="utf-8")
        except (configparser.Error, OSError, UnicodeDecodeError):
            continue
        for section in ("global", "download", "install"):
            if config.has_option(section, "index-url"):
                index = config.get(section, "index-url").strip()
            if config.has_option(section, "extra-index-url"):
                extra += config.get(section, "extra-index-url").split()
    index = os.environ.get("PIP_INDEX_URL", index) or "https://pypi.org/simple"
    extra = os.environ.get("PIP_EXTRA_INDEX_URL", "").split() or extra
    return [index] + extra


def sdist_links(page, base):
    """(file name, absolute URL) of every link of a PEP 503 simple-index page."""
    from html.parser import HTMLParser
    from urllib.parse import urljoin, unquote

    links = []

    class Anchors(HTMLParser):
        def handle_starttag(self, tag, attrs):
            href = dict(attrs).get("href") if tag == "a" else None
            if href:
                url = urljoin(base, href)
                links.append((unquote(url.split("#", 1)[0].rsplit("/", 1)[-1]), url.split("#", 1)[0]))

    Anchors().feed(page)
    return links


def sdist_from_index(name, version, workdir):
    # No pip to call (pip's isolated build environment): the sdist is looked up in the simple index
    # (PEP 503) of each index pip is configured with, so a company mirror, devpi or Artifactory
    # works as it does for pip; the hash is checked by the caller.
    import re
    import ssl
    import urllib.request

    context = ssl.create_default_context(cafile=os.environ.get("PIP_CERT") or None)
    timeout = float(os.environ.get("PIP_DEFAULT_TIMEOUT", "60") or 60)
    normalized = re.sub(r"[-_.]+", "-", name).lower()
    wanted = {f"{stem}-{version}.tar.gz" for stem in (name, normalized, normalized.replace("-", "_"))}
    errors = []
    for index in pip_index_urls():
        page_url = index.rstrip("/") + "/" + normalized + "/"
        try:
            with urllib.request.urlopen(page_url, timeout=timeout, context=context) as reply:
                page = reply.read().decode("utf-8", "replace")
            url = next((u for f, u in sdist_links(page, page_url) if f in wanted), None)
            if url is None:
                errors.append(f"{page_url}: no {sorted(wanted)[0]} listed")
                continue
            path = os.path.join(workdir, url.rsplit("/", 1)[-1])
            with urllib.request.urlopen(url, timeout=timeout, context=context) as reply, open(path, "wb") as out:
                shutil.copyfileobj(reply, out)
            return path
        except Exception as error:  # noqa: BLE001 - any failure is reported, then the next index tried
            errors.append(f"{page_url}: {error}")
    sys.exit(f"grammars/fetch.py: could not download {name}=={version}:\n  " + "\n  ".join(errors) +
             "\n  the index comes from PIP_INDEX_URL or pip.conf's index-url; offline, put the sdist in a folder "
             "named by PIP_FIND_LINKS")


def fetch_sdist(name, version, workdir):
    local = sdist_from_find_links(name, version)
    if local:
        return local
    try:
        import pip  # noqa: F401
    except ImportError:
        return sdist_from_index(name, version, workdir)
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
