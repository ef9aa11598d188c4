#!/usr/bin/env bash
# The second command of README.md: the whole test suite.
#  1. GoogleTest units, the KB schema check and the end-to-end tests of the built binary (build/);
#  2. the same on an AddressSanitizer + UndefinedBehaviorSanitizer build (build-sanitize/);
#  3. each libFuzzer harness for 30 s, on a clang build (build-fuzz/, tests/fuzz/README.md).
# CUDNNLINT_QUICK=1 ./test.sh runs step 1 only (a developer's loop). Builds first where needed, so
# it also works on a fresh clone; .ci/run runs exactly this.
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh --no-run
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build --output-on-failure -j"$jobs"
[ "${CUDNNLINT_QUICK:-0}" = 1 ] && exit 0

python="$PWD/build/venv/bin/python"
echo "test.sh: the suite again on an AddressSanitizer + UndefinedBehaviorSanitizer build (build-sanitize/)"
cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDNNLINT_SANITIZE=ON \
      -DPython3_EXECUTABLE="$python" >/dev/null
cmake --build build-sanitize -j"$jobs" >/dev/null
ctest --test-dir build-sanitize --output-on-failure -j"$jobs"

echo "test.sh: a bounded fuzz run of each harness (build-fuzz/)"
CC=clang-14 CXX=clang++-14 cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDNNLINT_FUZZ=ON \
      -DCUDNNLINT_BUILD_TESTS=OFF -DPython3_EXECUTABLE="$python" >/dev/null
cmake --build build-fuzz -j"$jobs" --target fuzzers >/dev/null
# A fixed seed: each harness replays the same sequence of inputs, so that this step fails for a
# bug, not for a lucky draw; longer runs with other seeds are tests/fuzz/README.md's.
tests/fuzz/run.sh build-fuzz 30 -seed=1
