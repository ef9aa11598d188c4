#!/usr/bin/env python3
"""Writes the pre-commit mirror repository of this checkout's cudnnlint version into OUT.

pre-commit installs a `language: python` hook by `pip install .` of the hook's repository, so a hook
in this repository always builds cudnnlint from source (minutes, and the build's Debian packages). The
mirror, like ruff-pre-commit, is a repository holding only:
  - pyproject.toml: an empty package depending on `cudnnlint==<version>`: pip installs the released
    wheel, and builds the sdist only where no wheel fits the platform;
  - .pre-commit-hooks.yaml: this repository's `cudnnlint` hook, as it is here;
  - README.md.
The release workflow (.github/workflows/release.yml) runs this for each tag and pushes the result to
the mirror repository with the tag v<version>; tests/e2e/test_wheel.py runs a mirror written here
with the real pre-commit against a package index holding the built wheel.

Usage: make_pre_commit_mirror.py OUT [--homepage URL] [--mirror URL]
Python 3 standard library only.
"""
import argparse
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
REPO = HERE.parent
TEMPLATES = HERE / "pre-commit-mirror"


def project_version(pyproject_text):
    match = re.search(r'^version = "([^"]+)"', pyproject_text, re.M)
    if not match:
        sys.exit("make_pre_commit_mirror.py: pyproject.toml has no version")
    return match.group(1)


def build_backend_version(pyproject_text):
    match = re.search(r'^requires = \["scikit-build-core==([^"]+)"\]', pyproject_text, re.M)
    if not match:
        sys.exit("make_pre_commit_mirror.py: pyproject.toml's build backend is not a pinned scikit-build-core")
    return match.group(1)


def hook_entry(hooks_text, hook_id):
    """The text of the hook `hook_id` in .pre-commit-hooks.yaml: from its `- id:` line to the next."""
    lines = hooks_text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip() == f"- id: {hook_id}"), None)
    if start is None:
        sys.exit(f"make_pre_commit_mirror.py: .pre-commit-hooks.yaml has no hook {hook_id}")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("- id:")), len(lines))
    entry = "".join(lines[start:end]).rstrip() + "\n"
    if "language: python" not in entry:
        sys.exit(f"make_pre_commit_mirror.py: the {hook_id} hook is not `language: python`")
    return entry


def fill(template, values):
    text = template
    for key, value in values.items():
        text = text.replace(f"@{key}@", value)
    if re.search(r"@[A-Z_]+@", text):
        sys.exit("make_pre_commit_mirror.py: a template placeholder is left unfilled")
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=pathlib.Path, help="the folder to write (created; files in it are replaced)")
    parser.add_argument("--homepage", default="https://github.com/OWNER/cudnnlint")
    parser.add_argument("--mirror", default="https://github.com/OWNER/cudnnlint-pre-commit")
    args = parser.parse_args()
    pyproject = (REPO / "pyproject.toml").read_text()
    values = {"VERSION": project_version(pyproject), "BACKEND_VERSION": build_backend_version(pyproject),
              "HOMEPAGE": args.homepage, "MIRROR": args.mirror}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "pyproject.toml").write_text(fill((TEMPLATES / "pyproject.toml.in").read_text(), values))
    (args.out / "README.md").write_text(fill((TEMPLATES / "README.md.in").read_text(), values))
    header = (f"# The pre-commit hook of cudnnlint {values['VERSION']}, installing its released wheel\n"
              "# (packaging/make_pre_commit_mirror.py copies it from cudnnlint's .pre-commit-hooks.yaml).\n")
    (args.out / ".pre-commit-hooks.yaml").write_text(header + hook_entry((REPO / ".pre-commit-hooks.yaml").read_text(), "cudnnlint"))
    print(f"make_pre_commit_mirror.py: wrote the mirror of cudnnlint {values['VERSION']} to {args.out}")


if __name__ == "__main__":
    main()
