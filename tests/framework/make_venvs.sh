#!/usr/bin/env bash
# Builds the framework tier's test environments under build/framework/ (gitignored):
#   build/framework/torch/             torch 2.11.0            (requirements-torch.txt)
#   build/framework/tensorflow/        tensorflow-cpu 2.21.0   (requirements-tensorflow.txt)
#   build/framework/tensorflow-2.11/   tensorflow-cpu 2.11.1   (requirements-tensorflow-2.11.txt; Python 3.10:
#                                      $PYTHON310, else python3.10 on PATH; skipped when neither exists)
# Usage: bash tests/framework/make_venvs.sh [torch] [tensorflow] [tensorflow-2.11]   (default: all three)
# tests/e2e/test_gpu_check_framework.py uses them (or $CUDNNLINT_TORCH_PYTHON, $CUDNNLINT_TF_PYTHON,
# $CUDNNLINT_TF211_PYTHON) and skips, saying why, where one is missing.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
want=("$@")
[ ${#want[@]} -eq 0 ] && want=(torch tensorflow tensorflow-2.11)
for name in "${want[@]}"; do
  python=python3
  if [ "$name" = tensorflow-2.11 ]; then
    python="${PYTHON310:-$(command -v python3.10 || true)}"
    if [ -z "$python" ]; then echo "make_venvs: no Python 3.10 (set PYTHON310): $name skipped" >&2; continue; fi
  fi
  dir="$root/build/framework/$name"
  echo "make_venvs: $dir" >&2
  "$python" -m venv "$dir"
  "$dir/bin/pip" install --quiet -r "$here/requirements-$name.txt"
done
