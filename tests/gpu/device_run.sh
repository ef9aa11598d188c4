#!/usr/bin/env bash
# Runs on a lent GPU machine (see pack_for_device.sh): gpu_check's unit tests with the system cuDNN
# and with the pip wheel's, the gpu_check e2e tests, cudnnlint --gpu-check on examples/, and the
# probes of tests/gpu (and tests/probes/flax_bn_eps_half.py) whose framework is installed there. Everything lands in $OUT (or /tmp/out).
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
# The layout of an install: bin/ and, beside it, share/cudnnlint/clang/include (Clang's built-in headers).
bin=/tmp/cudnnlint-root/bin; mkdir -p "$bin" /tmp/cudnnlint-root/share/cudnnlint/clang
tar -C /tmp/cudnnlint-root/share/cudnnlint/clang -xJf .gpu/clang-include.tar.xz
xz -dc .gpu/cudnnlint_tests.xz > "$bin/cudnnlint_tests" && xz -dc .gpu/cudnnlint.xz > "$bin/cudnnlint"
chmod +x "$bin"/*
export LD_LIBRARY_PATH=$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} PYTHONUNBUFFERED=1
step() { echo; echo "=== $* ($(date +%T))"; }

if [ -d .gpu/whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .gpu/whl/*.whl \
    && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi
step environment
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python3 -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cudnn", torch.backends.cudnn.version())'
python3 -c 'import tensorflow as tf; print("tensorflow", tf.__version__)' 2>&1 | tail -1
ldconfig -p | grep -m3 libcudnn.so
wheel_cudnn=$(python3 -c 'import nvidia.cudnn as m; print(list(m.__path__)[0])' 2>/dev/null)
echo "pip wheel cuDNN: ${wheel_cudnn:-none}"

filter='HostValues.*:Loading.*:Versions.*:DescriptorTier.*:GpuCheck.*:ExecutionTier.*'
step "unit tests, system cuDNN"
timeout 150 "$bin/cudnnlint_tests" --gtest_filter="$filter" 2>&1 | tee "$out/units_system_cudnn.txt" | grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED|cuDNN|tests ran" | head -30
if [ -n "$wheel_cudnn" ]; then
  step "unit tests, pip wheel cuDNN ($wheel_cudnn)"
  CUDNN_PATH=$wheel_cudnn timeout 150 "$bin/cudnnlint_tests" --gtest_filter='DescriptorTier.*:ExecutionTier.*:GpuCheck.*' 2>&1 \
    | tee "$out/units_wheel_cudnn.txt" | grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED|tests ran" | head -20
fi

step "doctor and --gpu-check on examples/"
"$bin/cudnnlint" doctor 2>&1 | tee "$out/doctor.txt"
timeout 120 "$bin/cudnnlint" --no-cache --gpu-check examples/ > "$out/gpu_check_examples.txt" 2>&1; echo "exit $?"
grep -cE "confirmed|not reproduced|skipped" "$out/gpu_check_examples.txt"; tail -4 "$out/gpu_check_examples.txt"

step "e2e gpu_check tests"
CUDNNLINT_SHARED=$PWD/.gpu/shared timeout 200 python3 -m pytest -q -rs -p no:cacheprovider tests/e2e/test_gpu_check.py \
  --tb=short --cudnnlint="$bin/cudnnlint" > "$out/e2e_gpu_check.txt" 2>&1; echo "exit $?"
grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed" "$out/e2e_gpu_check.txt" | head -20

step "probe: torch.batch_norm on one value per channel"
timeout 120 python3 tests/gpu/torch_direct_batch_norm.py "$out/torch_direct_batch_norm.jsonl" > /dev/null 2>&1; echo "exit $?"
grep -c . "$out/torch_direct_batch_norm.jsonl"

step "probe: libtorch messages on CUDA"
torch_dir=$(python3 -c 'import os, torch; print(os.path.dirname(torch.__file__))')
if command -v g++ > /dev/null; then
  timeout 150 g++ -std=c++17 -O1 tests/gpu/libtorch_cuda_messages.cpp -I"$torch_dir/include" -L"$torch_dir/lib" \
    -Wl,--no-as-needed -ltorch -ltorch_cpu -ltorch_cuda -lc10 -lc10_cuda -Wl,--as-needed -Wl,-rpath,"$torch_dir/lib" \
    -o /tmp/libtorch_probe 2>&1 | tail -5
  timeout 60 /tmp/libtorch_probe > "$out/libtorch_cuda_messages.jsonl" 2>&1; echo "exit $?"
  cat "$out/libtorch_cuda_messages.jsonl"
else
  echo "no g++ here"
fi

step "probe: integer and mixed-type convolutions on the GPU (system cuDNN, then the wheel's)"
cudart_dir=$(dirname "$(ldconfig -p | grep -m1 -o '/.*libcudart.so.13' || find / -name 'libcudart.so.13' -print -quit 2>/dev/null)")
LD_LIBRARY_PATH=$cudart_dir:$LD_LIBRARY_PATH timeout 120 .gpu/cudnn_integer_conv_gpu > "$out/cudnn_integer_conv_gpu.system.jsonl" 2>&1
echo "exit $?"; grep -E "summary|plans finalized|cudnnGetVersion" "$out/cudnn_integer_conv_gpu.system.jsonl" | head -40
if [ -n "$wheel_cudnn" ]; then
  LD_LIBRARY_PATH=$wheel_cudnn/lib:$cudart_dir:$LD_LIBRARY_PATH timeout 120 .gpu/cudnn_integer_conv_gpu \
    > "$out/cudnn_integer_conv_gpu.wheel.jsonl" 2>&1; echo "exit $?"; head -1 "$out/cudnn_integer_conv_gpu.wheel.jsonl"
fi

if python3 -c 'import tensorflow' 2> /dev/null; then
  step "probe: TensorFlow zero batch on the GPU"
  timeout 150 python3 tests/gpu/tf_zero_batch.py "$out/tf_zero_batch.jsonl" 2>&1 | tail -20
fi
if python3 -c 'import jax, flax' 2> /dev/null; then
  step "probe: Flax normalization epsilon in float16, on the GPU"
  timeout 240 python3 tests/probes/flax_bn_eps_half.py "$out/flax_bn_eps_half.jsonl" --gpu-only 2>&1 | tail -5
  head -1 "$out/flax_bn_eps_half.jsonl"; tail -1 "$out/flax_bn_eps_half.jsonl"
fi
step done
