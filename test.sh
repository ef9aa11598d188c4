#!/usr/bin/env bash
# The second command of README.md: the whole test suite.
#  1. GoogleTest units, the KB schema check and the end-to-end tests of the built binary (build/);
#  2. the same on a clang AddressSanitizer + UndefinedBehaviorSanitizer build (build-sanitize/);
#  3. each libFuzzer harness of that build for 30 s (tests/fuzz/README.md).
# CUDNNLINT_QUICK=1 ./test.sh runs step 1 only (a developer's loop). Builds first where needed, so
# it also works on a fresh clone; .ci/run runs exactly this.
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh --no-run
jobs=$(nproc 2>/dev/null || echo 2)
ctest --test-dir build --output-on-failure -j"$jobs"
[ "${CUDNNLINT_QUICK:-0}" = 1 ] && exit 0

python="$PWD/build/venv/bin/python"
echo "test.sh: the suite again on a clang AddressSanitizer + UndefinedBehaviorSanitizer build (build-sanitize/)"
# One instrumented clang build serves the suite and the fuzzers. A build-sanitize/ configured
# with another compiler (gcc, before) is configured afresh: CMake keeps a cache's compiler.
if [ -f build-sanitize/CMakeCache.txt ] && ! grep -q '^CMAKE_CXX_COMPILER:.*clang++-14' build-sanitize/CMakeCache.txt; then
  rm -rf build-sanitize
fi
CC=clang-14 CXX=clang++-14 cmake -S . -B build-sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDNNLINT_SANITIZE=ON \
      -DCUDNNLINT_FUZZ=ON -DPython3_EXECUTABLE="$python" >/dev/null
cmake --build build-sanitize -j"$jobs" >/dev/null
ctest --test-dir build-sanitize --output-on-failure -j"$jobs"

echo "test.sh: a bounded fuzz run of each harness (build-sanitize/)"
# A fixed seed: each harness replays the same sequence of inputs, so that this step fails for a
# bug, not for a lucky draw; longer runs with other seeds are tests/fuzz/README.md's.
tests/fuzz/run.sh build-sanitize 30 -seed=1
