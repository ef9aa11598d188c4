"""Run on a GPU machine with PyTorch: python3 tests/gpu/torch_bn_eps_aten.py (results: kb/cuda/cudnn-bn-epsilon-*.json).

The paths below torch.nn.functional.batch_norm's eps check (PyTorch >= 2.10): the aten op that
libtorch's at::batch_norm and torch.batch_norm call, and instance_norm, on a real GPU."""
import json
import torch
from torch.profiler import ProfilerActivity, profile

dev = torch.device("cuda")
print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, {torch.cuda.get_device_name(0)}")

def kernels_of(fn):
    try:
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn(); torch.cuda.synchronize()
        return sorted({e.key.split("(")[0][:90] for e in prof.key_averages() if "CUDA" in str(e.device_type)})
    except Exception as exc:
        return [f"profiler failed: {exc}"]

for op in ("torch.batch_norm", "F.instance_norm"):
    for eps in (1e-6, 0.0, -1e-5):
        for dtype in (torch.float32, torch.float16):
            for training in (True, False):
                if op == "F.instance_norm" and not training:
                    continue
                x = torch.randn(2, 4, 2, 2, device=dev); x[:, 0] = 0.5; x = x.to(dtype)
                w = torch.ones(4, device=dev); b = torch.zeros(4, device=dev)
                rm = torch.zeros(4, device=dev); rm[0] = 0.5
                rv = torch.ones(4, device=dev); rv[0] = 0.0 if eps >= 0 else 5e-6
                if op == "torch.batch_norm":
                    fn = lambda: torch.batch_norm(x, w, b, rm.clone(), rv.clone(), training, 0.1, eps, True)
                else:
                    fn = lambda: torch.nn.functional.instance_norm(x, None, None, w, b, True, 0.1, eps)
                row = {"op": op, "eps": eps, "dtype": str(dtype)[6:], "training": training}
                try:
                    y = fn(); torch.cuda.synchronize()
                    row["nonfinite"] = int((~torch.isfinite(y.float())).sum().item())
                    row["nonfinite_channel0"] = int((~torch.isfinite(y[:, 0].float())).sum().item())
                    k = kernels_of(fn)
                    row["cudnn"] = any("cudnn" in s.lower() for s in k)
                    row["kernels"] = k
                except Exception as exc:
                    row["error"] = f"{type(exc).__name__}: {str(exc)[:200]}"
                print(json.dumps(row))
