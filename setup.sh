#!/usr/bin/env bash
# The first command of README.md: installs what cudnnlint needs (Debian packages, then the
# pinned PyPI packages into build/venv), fetches and hash-checks the tree-sitter-python
# grammar, builds, and runs cudnnlint on the bundled example models.
#   ./setup.sh            everything, then `cudnnlint examples/`
#   ./setup.sh --no-run   everything but the example run (used by ./test.sh)
# Idempotent: installed packages, the fetched grammar and the build are reused.
set -euo pipefail
cd "$(dirname "$0")"

run_examples=1
[ "${1:-}" = "--no-run" ] && run_examples=0

apt_packages=(cmake g++ make pkg-config git python3 python3-venv
              libtree-sitter-dev nlohmann-json3-dev libcli11-dev libtomlplusplus-dev libgtest-dev libgmock-dev
              libclang-cpp14-dev libclang-14-dev llvm-14-dev libyaml-cpp-dev libmimalloc-dev libxxhash-dev libssl-dev libre2-dev
              clang-14 libfuzzer-14-dev
              neovim                  # real LSP clients for the language server's tests: Neovim
              emacs-nox elpa-eglot)   # (tests/e2e/nvim_client.lua) and Emacs's eglot (eglot_client.el)
missing=()
for package in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -ne 0 ] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Pinned Python packages live in a virtual environment so the system Python stays untouched.
venv=build/venv
if [ ! -x "$venv/bin/python" ]; then
  mkdir -p build
  python3 -m venv "$venv"
fi
if ! cmp -s requirements.txt "$venv/requirements.installed"; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r requirements.txt
  cp requirements.txt "$venv/requirements.installed"
fi

"$venv/bin/python" grammars/fetch.py

# An offline wheelhouse for the packaging tests: what `pip install <checkout>` needs from PyPI (the
# build backend, the grammar's sdists; fetch.py checks their hashes), so that the tests of the
# wheel and of pre-commit's `language: python` hook run with PIP_NO_INDEX.
wheelhouse=build/wheelhouse
wheelhouse_stamp="$wheelhouse/.complete-$(cat pyproject.toml grammars/grammars.lock | sha256sum | cut -c1-16)"
if [ ! -e "$wheelhouse_stamp" ]; then
  rm -rf "$wheelhouse"
  build_backend=$(sed -n 's/^requires = \["\(.*\)"\]$/\1/p' pyproject.toml)
  "$venv/bin/python" -m pip download -q --disable-pip-version-check -d "$wheelhouse" "$build_backend"
  grammar_sdists=$(awk '!/^#/ && NF >= 3 {print $1 "==" $2}' grammars/grammars.lock)
  # shellcheck disable=SC2086
  "$venv/bin/python" -m pip download -q --disable-pip-version-check --no-deps --no-binary :all: -d "$wheelhouse" $grammar_sdists
  touch "$wheelhouse_stamp"
fi

jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE="$PWD/$venv/bin/python" >/dev/null
cmake --build build -j"$jobs"
echo "setup: built build/cudnnlint"

if [ "$run_examples" = 1 ]; then
  echo "setup: running \`build/cudnnlint examples/\` (the examples contain deliberate mistakes)"
  status=0
  build/cudnnlint examples/ || status=$?
  # Exit 1 means "findings", which is what the examples are for; anything else is a failure.
  [ "$status" -le 1 ] || exit "$status"
fi
