"""Run on a GPU machine with PyTorch: python3 tests/gpu/torch_open_claims.py [OUT.jsonl]

The claims the KB still marked "not measured on a GPU", measured with PyTorch on CUDA:

- bn_eps_nonfinite: batch norm with eps NaN, +inf, -inf (fp32 and fp16 input, train and eval), which
  kernels ran (cuDNN or PyTorch's native one), and whether the output is NaN or all equal to the bias
  (kb/numerics/batch-norm-epsilon-not-finite.json);
- conv_dtype_mismatch: the CUDA messages for an input whose dtype differs from a conv's weights
  (kb/pytorch/conv-input-weight-dtype-mismatch.json, kb/pytorch/integer-input-to-conv-or-batchnorm.json);
- optimizer_half_zero_grad: Adam/AdamW/... on .half() CUDA parameters with a zero gradient, fused,
  foreach and single-tensor (kb/pytorch/optimizer-eps-underflows-on-half-parameters.json);
- bn_single_sample: batch norm in training on one value per channel, on CUDA
  (kb/pytorch/batchnorm-single-sample-batch-in-training.json);
- autocast_eps: a small eps added to a float16 reduction inside torch.autocast("cuda")
  (kb/numerics/epsilon-rounds-to-zero-in-float16.json);
- class_target_out_of_range: cross_entropy with a target past the class count, on the CPU and on CUDA
  (each CUDA case in its own process: the device assert poisons the context)
  (kb/pytorch/class-target-out-of-range.json).

Each line printed (and written to OUT.jsonl) is one JSON record."""
import json
import math
import subprocess
import sys
import textwrap

import torch
from torch.profiler import ProfilerActivity, profile

dev = torch.device("cuda")
records = []


def emit(record):
    records.append(record)
    print(json.dumps(record), flush=True)


def kernels_of(fn):
    try:
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        return sorted({e.key for e in prof.key_averages() if e.device_type.name == "CUDA"})[:6]
    except Exception as exc:  # the profiler is a nicety; the measurement stands without it
        return [f"profiler failed: {exc}"]


def attempt(fn):
    try:
        out = fn()
        torch.cuda.synchronize()
        return out, None
    except Exception as exc:
        return None, f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"


def bn_eps_nonfinite():
    for eps in (math.nan, math.inf, -math.inf):
        for dtype in (torch.float32, torch.float16):
            for mode in ("train", "eval"):
                torch.manual_seed(0)
                x = torch.randn(2, 4, 2, 2, device=dev).to(dtype)
                bn = torch.nn.BatchNorm2d(4, eps=eps).to(dev)
                with torch.no_grad():
                    bn.bias.fill_(0.5)
                if mode == "eval":
                    bn.eval()
                y, error = attempt(lambda: bn(x))
                record = {"case": "bn_eps_nonfinite", "eps": repr(eps), "dtype": str(dtype), "mode": mode,
                          "error": error}
                if y is not None:
                    yf = y.float()
                    record["any_nan"] = bool(torch.isnan(yf).any())
                    record["all_nan"] = bool(torch.isnan(yf).all())
                    record["all_equal_bias"] = bool(torch.allclose(yf, torch.full_like(yf, 0.5)))
                    record["kernels"] = kernels_of(lambda: bn(x))
                emit(record)


def conv_dtype_mismatch():
    cases = {
        "half input, float conv": (torch.float16, torch.float32, True),
        "half input, float conv, no bias": (torch.float16, torch.float32, False),
        "float input, half conv": (torch.float32, torch.float16, True),
        "bf16 input, float conv": (torch.bfloat16, torch.float32, True),
        "double input, float conv": (torch.float64, torch.float32, True),
        "int64 input, float conv": (torch.int64, torch.float32, True),
        "uint8 input, float conv": (torch.uint8, torch.float32, True),
        "uint8 input, float conv, no bias": (torch.uint8, torch.float32, False),
        "half input, half conv": (torch.float16, torch.float16, True),
    }
    for what, (x_type, w_type, bias) in cases.items():
        conv = torch.nn.Conv2d(3, 8, 3, bias=bias).to(dev, w_type)
        x = torch.ones(2, 3, 8, 8, device=dev).to(x_type)
        y, error = attempt(lambda: conv(x))
        emit({"case": "conv_dtype_mismatch", "what": what, "error": error,
              "output_dtype": None if y is None else str(y.dtype)})
    # batch norm: float module on half input (cuDNN's mixed mode), half module on float input, int input
    for what, (x_type, m_type) in {"half input, float bn": (torch.float16, torch.float32),
                                   "float input, half bn": (torch.float32, torch.float16),
                                   "int64 input, float bn": (torch.int64, torch.float32)}.items():
        bn = torch.nn.BatchNorm2d(3).to(dev, m_type)
        x = torch.ones(2, 3, 4, 4, device=dev).to(x_type)
        y, error = attempt(lambda: bn(x))
        emit({"case": "bn_dtype_mismatch", "what": what, "error": error,
              "output_dtype": None if y is None else str(y.dtype)})


def optimizer_half_zero_grad():
    variants = [("Adam", {}), ("Adam", {"fused": True}), ("Adam", {"foreach": True}), ("Adam", {"foreach": False}),
                ("AdamW", {"fused": True}), ("AdamW", {}), ("Adagrad", {"fused": True}) if hasattr(torch.optim, "Adagrad") else None,
                ("RMSprop", {}), ("NAdam", {}), ("Adamax", {}), ("SGD", {"fused": True}), ("Adadelta", {})]
    for variant in filter(None, variants):
        name, kwargs = variant
        torch.manual_seed(0)
        model = torch.nn.Linear(4, 4).to(dev).half()
        record = {"case": "optimizer_half_zero_grad", "optimizer": name, "kwargs": kwargs}
        try:
            opt = getattr(torch.optim, name)(model.parameters(), lr=1e-3, **kwargs)
            for p in model.parameters():
                p.grad = torch.zeros_like(p)
            opt.step()
            torch.cuda.synchronize()
            record["params_nonfinite"] = any(bool((~torch.isfinite(p)).any()) for p in model.parameters())
            record["error"] = None
        except Exception as exc:
            record["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"
        emit(record)


def bn_single_sample():
    for shape in ([1, 4], [1, 4, 1, 1], [1, 4, 2, 2], [2, 4, 1, 1]):
        for dtype in (torch.float32, torch.float16):
            bn = (torch.nn.BatchNorm1d(4) if len(shape) == 2 else torch.nn.BatchNorm2d(4)).to(dev)
            x = torch.randn(*shape, device=dev).to(dtype)
            y, error = attempt(lambda: bn(x))
            emit({"case": "bn_single_sample", "shape": shape, "dtype": str(dtype), "error": error,
                  "output_nonfinite": None if y is None else bool((~torch.isfinite(y.float())).any()),
                  "kernels": None if y is None else kernels_of(lambda: bn(x))})


def autocast_eps():
    z = torch.zeros(4, 8, device=dev, dtype=torch.float16)
    exprs = {
        "z / (z.norm() + 1e-8)": lambda: z / (z.norm() + 1e-8),
        "F.normalize(z)": lambda: torch.nn.functional.normalize(z, dim=-1),
        "torch.rsqrt(z.pow(2).mean() + 1e-12)": lambda: torch.rsqrt(z.pow(2).mean() + 1e-12),
        "z / (z.sum() + 1e-8)": lambda: z / (z.sum() + 1e-8),
        "(z - z.mean()) / torch.sqrt(z.var() + 1e-8)": lambda: (z - z.mean()) / torch.sqrt(z.var() + 1e-8),
        "z + 1e-8 (elementwise, then 1 / it)": lambda: 1 / (z + 1e-8),
    }
    for where in ("autocast cuda fp16", "no autocast"):
        for what, fn in exprs.items():
            if where == "no autocast":
                y, error = attempt(fn)
            else:
                with torch.autocast("cuda", dtype=torch.float16):
                    y, error = attempt(fn)
            emit({"case": "autocast_eps", "where": where, "expr": what, "error": error,
                  "dtype": None if y is None else str(y.dtype),
                  "nan": None if y is None else bool(torch.isnan(y.float()).any()),
                  "inf": None if y is None else bool(torch.isinf(y.float()).any())})


CE_CHILD = textwrap.dedent("""
    import json, sys, torch
    device, reduction = sys.argv[1], sys.argv[2]
    logits = torch.randn(4, 3, device=device)
    target = torch.tensor([0, 1, 2, 3], device=device)   # 3 is past 3 classes
    try:
        loss = torch.nn.functional.cross_entropy(logits, target, reduction=reduction)
        if device == "cuda": torch.cuda.synchronize()
        print(json.dumps({"raised": None}))
    except BaseException as exc:
        print(json.dumps({"raised": type(exc).__name__ + ": " + str(exc).splitlines()[0][:300]}))
""")


def class_target_out_of_range():
    for device in ("cpu", "cuda"):
        for reduction in ("mean", "none"):
            proc = subprocess.run([sys.executable, "-c", CE_CHILD, device, reduction], capture_output=True, text=True,
                                  timeout=120)
            stderr_assert = [line[:300] for line in proc.stderr.splitlines() if "Assertion" in line][:2]
            try:
                child = json.loads(proc.stdout.strip().splitlines()[-1])
            except (IndexError, json.JSONDecodeError):
                child = {"stdout": proc.stdout[-300:]}
            emit({"case": "class_target_out_of_range", "device": device, "reduction": reduction,
                  "returncode": proc.returncode, **child, "stderr_assertions": stderr_assert})


def main():
    emit({"case": "environment", "torch": torch.__version__, "cudnn": torch.backends.cudnn.version(),
          "device": torch.cuda.get_device_name(0), "python": sys.version.split()[0]})
    for step in (bn_eps_nonfinite, conv_dtype_mismatch, optimizer_half_zero_grad, bn_single_sample, autocast_eps,
                 class_target_out_of_range):
        try:
            step()
        except Exception as exc:  # one family's failure must not lose the others' results
            emit({"case": step.__name__, "harness_error": f"{type(exc).__name__}: {exc}"})
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as out:
            out.writelines(json.dumps(r) + "\n" for r in records)


if __name__ == "__main__":
    main()
