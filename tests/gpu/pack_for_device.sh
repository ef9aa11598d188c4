#!/usr/bin/env bash
# Packs what tests/gpu/device_run.sh needs on a lent GPU machine into .gpu/ (ignored: add "/.gpu/" to
# .git/info/exclude): the stripped, xz-compressed cudnnlint and cudnnlint_tests of build/, the Debian
# shared libraries they load that the machine's image lacks, Clang's built-in headers, and ../shared/tools, ../shared/sarif and
# jsonschema for the e2e tests' SARIF checker. About 27 MiB. Then, with the device tool: carry [".gpu"], command
# "bash tests/gpu/device_run.sh", timeout about 420 s.
set -euo pipefail
cd "$(dirname "$0")/../.."
rm -rf .gpu && mkdir -p .gpu/lib .gpu/shared
strip -o .gpu/cudnnlint_tests build/tests/cudnnlint_tests
strip -o .gpu/cudnnlint build/cudnnlint
g++ -std=c++17 -O1 -s tests/gpu/cudnn_integer_conv_gpu.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64 \
  -lcudnn -lcudart -o .gpu/cudnn_integer_conv_gpu
xz -T2 -6 .gpu/cudnnlint_tests .gpu/cudnnlint
for lib in libcrypto.so.3 libmimalloc.so.2 libre2.so.9 libtinfo.so.6 libtree-sitter.so.0 libyaml-cpp.so.0.7; do
  cp -L "/lib/x86_64-linux-gnu/$lib" .gpu/lib/
done
cp -r ../shared/tools ../shared/sarif .gpu/shared/
# The SARIF checker's jsonschema, which the machine's image lacks (Python 3.12 there)
python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
  --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 -d .gpu/whl \
  jsonschema==4.23.0 jsonschema-specifications==2024.10.1 referencing==0.35.1 rpds-py==0.22.3
# Clang's built-in headers (limits.h, stddef.h), found beside an installed binary at ../share/cudnnlint/clang
tar -C "$(dirname "$(find /usr/lib/llvm-14/lib/clang -maxdepth 2 -name include | head -1)")" -cJf .gpu/clang-include.tar.xz include
du -sh .gpu
