"""Run on a GPU machine with PyTorch: python3 tests/gpu/torch_bn_eps_modules.py (results: kb/cuda/cudnn-bn-epsilon-*.json).

What PyTorch on a real GPU does with the batch-norm epsilons cudnnlint reports.

For each eps and dtype: a 2x4x2x2 input whose channel 0 is constant (zero variance), BatchNorm2d in
training and in eval mode (running_var of channel 0 set to 0), and which kernels ran (profiler),
so the rule messages' claims (cuDNN vs PyTorch's native kernel, NaN/Inf) are measured, not assumed.
"""
import json
import math

import torch
from torch.profiler import ProfilerActivity, profile

dev = torch.device("cuda")
print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, "
      f"device {torch.cuda.get_device_name(0)}, cudnn enabled {torch.backends.cudnn.enabled}")

results = []
for eps in (1e-5, 1e-6, 0.0, -1e-5):
    for dtype in (torch.float32, torch.float16):
        for mode in ("train", "eval"):
            torch.manual_seed(0)
            x = torch.randn(2, 4, 2, 2, device=dev)
            x[:, 0] = 0.5  # zero variance in channel 0
            x = x.to(dtype)
            bn = torch.nn.BatchNorm2d(4, eps=eps).to(dev)  # float params: the usual mixed mode for fp16
            if mode == "eval":
                bn.eval()
                with torch.no_grad():
                    bn.running_mean[0] = 0.5
                    bn.running_var[0] = 0.0
            error = None
            kernels = []
            try:
                y = bn(x)
                torch.cuda.synchronize()
                try:
                    with profile(activities=[ProfilerActivity.CUDA]) as prof:
                        bn(x)
                        torch.cuda.synchronize()
                    kernels = sorted({e.key for e in prof.key_averages() if "CUDA" in str(e.device_type)})
                except Exception as exc:
                    kernels = [f"profiler failed: {exc}"]
                nonfinite = (~torch.isfinite(y.float())).sum().item()
                ch0 = y[:, 0].float().flatten().tolist()
                other_nonfinite = (~torch.isfinite(y[:, 1:].float())).sum().item()
            except Exception as exc:  # a refusal is a result too
                error = f"{type(exc).__name__}: {exc}"
                nonfinite = other_nonfinite = None
                ch0 = None
            row = {"eps": eps, "dtype": str(dtype).replace("torch.", ""), "mode": mode, "error": error,
                   "nonfinite": nonfinite, "nonfinite_other_channels": other_nonfinite,
                   "channel0_first": None if ch0 is None else ch0[0],
                   "cudnn_kernel": any("cudnn" in k.lower() or "bn_fw" in k.lower() for k in kernels),
                   "kernels": kernels}
            results.append(row)
            print(json.dumps(row))

# F.batch_norm with a negative eps in eval mode on a low-variance channel (var + eps < 0).
x = torch.full((2, 1, 2, 2), 1.0, device=dev)
rm = torch.zeros(1, device=dev)
rv = torch.full((1,), 5e-6, device=dev)
y = torch.nn.functional.batch_norm(x, rm, rv, training=False, eps=-1e-5)
print(json.dumps({"case": "F.batch_norm eval, running_var 5e-6, eps -1e-5",
                  "output": y.flatten()[0].item(), "isnan": math.isnan(y.flatten()[0].item())}))
