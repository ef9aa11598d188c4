#!/usr/bin/env bash
# Runs each libFuzzer harness of BUILD_DIR for SECONDS (./test.sh: 30), seeded from the
# repository's fixtures and tests/fuzz/corpus/, with new inputs kept in a scratch directory.
# Exits non-zero on the first harness that finds a crash, a sanitizer report or a timeout; the
# reproducer is left in $OUT (default: a temporary directory) and named in the output.
#   tests/fuzz/run.sh build-fuzz 30
#   tests/fuzz/run.sh build-fuzz 0 -runs=1000000     # a long run: a number of executions instead
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:?usage: run.sh BUILD_DIR SECONDS [libFuzzer flags...]}
seconds=${2:?usage: run.sh BUILD_DIR SECONDS [libFuzzer flags...]}
shift 2
out=${OUT:-$(mktemp -d)}
declare -A seeds=(
  [python]="tests/fixtures/python tests/fixtures/rules tests/fixtures/regions tests/fixtures/values tests/fuzz/corpus/python"
  [config]="tests/fixtures/pins tests/fixtures/values"
  [sarif]="tests/fuzz/corpus/sarif"
  [gitignore]="tests/fuzz/corpus/gitignore"
  [triage]="tests/fixtures/triage/real tests/fixtures/triage/seed004"
  [server]="tests/fuzz/corpus/server"
  [cache]="tests/fuzz/corpus/cache"
)
status=0
failed=0
for harness in python config sarif gitignore triage server cache; do
  corpus="$out/corpus-$harness"
  mkdir -p "$corpus"
  limit=()
  [ "$seconds" != 0 ] && limit=(-max_total_time="$seconds")
  # shellcheck disable=SC2086
  if ! "$build/fuzz_$harness" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
       -artifact_prefix="$out/$harness-" "$@" "$corpus" ${seeds[$harness]} > "$out/$harness.log" 2>&1; then
    echo "fuzz_$harness: FAILED (log: $out/$harness.log)"; tail -30 "$out/$harness.log"; status=1
    failed=$((failed + 1))
  else
    echo "fuzz_$harness: $(grep -E '^stat::number_of_executed_units' "$out/$harness.log" | awk '{print $2}') executions, no crash"
  fi
done
echo "fuzz: $((${#seeds[@]} - failed)) passed, $failed failed"  # one seeds entry per harness
exit $status
