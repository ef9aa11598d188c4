"""Run with PyTorch (a GPU adds the CUDA cases): python3 tests/gpu/torch_direct_batch_norm.py [OUT.jsonl]

kb/pytorch/batchnorm-single-sample-batch-in-training.json said of torch.batch_norm called directly
(at::batch_norm, no _verify_batch_size check in front of it): "what the kernels return for one value
per channel was not measured". This measures it: one value per channel ([1, C] and [1, C, 1, 1]) in
training, float32 and float16, cuDNN on and off, on the CPU and on CUDA. For each case: whether it
raised, whether the output is NaN or equal to the bias everywhere (x - mean is 0 when the batch mean
is the only value), and what the running variance became (the unbiased update divides by n - 1 = 0).
F.batch_norm, which does check, is run beside it as the reference.

Each line printed (and written to OUT.jsonl) is one JSON record."""
import json
import sys

import torch
import torch.nn.functional as F

records = []


def emit(record):
    records.append(record)
    print(json.dumps(record), flush=True)


def kernels_of(fn, device):
    if device != "cuda":
        return None
    from torch.profiler import ProfilerActivity, profile
    try:
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        return sorted({e.key for e in prof.key_averages() if e.device_type.name == "CUDA"})[:6]
    except Exception as exc:  # the profiler is a nicety; the measurement stands without it
        return [f"profiler failed: {exc}"]


def one_case(entry, device, shape, dtype, cudnn):
    channels = shape[1]
    weight = torch.full((channels,), 2.0, device=device)
    bias = torch.full((channels,), 0.5, device=device)
    running_mean = torch.zeros(channels, device=device)
    running_var = torch.ones(channels, device=device)
    x = torch.randn(*shape, device=device).to(dtype)

    def call():
        if entry == "torch.batch_norm":
            return torch.batch_norm(x, weight, bias, running_mean, running_var, True, 0.1, 1e-5, cudnn)
        torch.backends.cudnn.enabled = cudnn
        try:
            return F.batch_norm(x, running_mean, running_var, weight, bias, training=True, momentum=0.1, eps=1e-5)
        finally:
            torch.backends.cudnn.enabled = True

    record = {"case": "direct_batch_norm_one_value_per_channel", "entry": entry, "device": device,
              "shape": shape, "dtype": str(dtype), "cudnn_enabled": cudnn}
    try:
        y = call()
        if device == "cuda":
            torch.cuda.synchronize()
    except Exception as exc:
        record["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"
        emit(record)
        return
    yf = y.float()
    record.update({
        "error": None,
        "output_nan": bool(torch.isnan(yf).any()),
        "output_all_bias": bool(torch.allclose(yf, torch.full_like(yf, 0.5), atol=1e-3)),
        "output_sample": [round(float(v), 4) for v in yf.flatten()[:3]],
        "running_var": [float(v) for v in running_var.flatten()[:channels]],
        "running_mean_finite": bool(torch.isfinite(running_mean).all()),
        "kernels": kernels_of(call, device),
    })
    emit(record)


def main():
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    emit({"case": "environment", "torch": torch.__version__, "cudnn": torch.backends.cudnn.version(),
          "device": torch.cuda.get_device_name(0) if torch.cuda.is_available() else "cpu only",
          "python": sys.version.split()[0]})
    for device in devices:
        for entry in ("torch.batch_norm", "F.batch_norm"):
            for shape in ([1, 4], [1, 4, 1, 1], [2, 4, 1, 1]):
                for dtype in (torch.float32, torch.float16):
                    if device == "cpu" and dtype == torch.float16 and entry == "F.batch_norm":
                        continue  # the CPU reference needs only float32
                    for cudnn in ((True, False) if device == "cuda" else (True,)):
                        one_case(entry, device, shape, dtype, cudnn)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as out:
            out.writelines(json.dumps(r) + "\n" for r in records)


if __name__ == "__main__":
    main()
