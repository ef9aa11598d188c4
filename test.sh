#!/usr/bin/env bash
# The second command of README.md: the whole test suite (GoogleTest units, the KB schema
# check and the end-to-end tests of the built binary), through ctest. Builds first if needed,
# so it also works on a fresh clone; .ci/run runs exactly this.
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh --no-run
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build --output-on-failure -j"$jobs"
