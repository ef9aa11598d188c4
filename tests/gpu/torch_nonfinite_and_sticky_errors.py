"""Run on a GPU machine with PyTorch: python3 tests/gpu/torch_nonfinite_and_sticky_errors.py [OUT.jsonl]

Measures the two claims behind seed 004's chain (results: kb/cuda/cudnn-execution-failed-nonfinite-input.json
and kb/cuda/cuda-sticky-error-aftermath.json):

1. Non-finite data: does a cuDNN convolution or batch norm fed NaN/Inf fail (CUDNN_STATUS_EXECUTION_FAILED),
   or return normally with NaN/Inf in its output? Forward and backward, fp32/fp16/bf16, with the profiler
   showing that cuDNN's kernels ran.
2. The aftermath of a kernel fault: after a device-side assert, an illegal memory access or an illegal
   instruction (a trap), what do the next cuDNN convolution and the next tensor copy raise, with which
   exception type and text? Each fault runs in its own process, since it poisons the CUDA context.

Each line printed (and written to OUT.jsonl) is one JSON record."""
import json
import subprocess
import sys
import textwrap

FAULTS = {
    # An out-of-range index: PyTorch's own device-side assert.
    "device_assert": "x = torch.zeros(4, device=dev); i = torch.tensor([100], device=dev); y = x[i]; torch.cuda.synchronize()",
    # A write through a wild pointer.
    "illegal_address": textwrap.dedent("""
        import cupy
        k = cupy.RawKernel(r'extern "C" __global__ void k(float* p){ p[1ull << 40] = 1.0f; }', 'k')
        k((1,), (1,), (cupy.zeros(1, dtype=cupy.float32),)); cupy.cuda.runtime.deviceSynchronize()"""),
    # A trap instruction.
    "trap": textwrap.dedent("""
        import cupy
        k = cupy.RawKernel(r'extern "C" __global__ void k(){ __trap(); }', 'k')
        k((1,), (1,), ()); cupy.cuda.runtime.deviceSynchronize()"""),
    # A breakpoint instruction with no debugger attached.
    "brkpt": textwrap.dedent("""
        import cupy
        k = cupy.RawKernel(r'extern "C" __global__ void k(){ asm volatile("brkpt;"); }', 'k')
        k((1,), (1,), ()); cupy.cuda.runtime.deviceSynchronize()"""),
}

AFTERMATH = textwrap.dedent("""
    import json, torch, traceback
    dev = torch.device("cuda")
    conv = torch.nn.Conv2d(3, 8, 3, padding=1).to(dev)
    x = torch.randn(2, 3, 8, 8, device=dev)
    conv(x); torch.cuda.synchronize()          # cuDNN loaded and working before the fault
    def attempt(step, fn):
        try:
            fn(); torch.cuda.synchronize()
            print(json.dumps({"fault": FAULT, "step": step, "raised": None}))
        except BaseException as exc:
            text = str(exc)
            print(json.dumps({"fault": FAULT, "step": step, "raised": type(exc).__module__ + "." + type(exc).__qualname__,
                              "first_line": text.splitlines()[0] if text else "", "text": text[:600]}))
    attempt("fault", lambda: exec(FAULT_CODE, {"torch": torch, "dev": dev}))
    attempt("next cuDNN conv2d", lambda: conv(x))
    attempt("next cuDNN conv2d backward", lambda: conv(x.requires_grad_()).sum().backward())
    attempt("tensor.to(device)", lambda: torch.ones(3).to(dev))
    attempt("torch.cuda.synchronize", lambda: torch.cuda.synchronize())
""")


def nonfinite_records():
    import torch
    from torch.profiler import ProfilerActivity, profile

    dev = torch.device("cuda")
    yield {"versions": {"torch": torch.__version__, "cuda": torch.version.cuda,
                        "cudnn": torch.backends.cudnn.version(), "device": torch.cuda.get_device_name(0)}}

    def kernels_of(fn):
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            fn(); torch.cuda.synchronize()
        return sorted({e.key.split("(")[0][:80] for e in prof.key_averages() if "CUDA" in str(e.device_type)})

    def nonfinite(t):
        return int((~torch.isfinite(t.float())).sum().item())

    for op in ("conv2d", "batch_norm"):
        for dtype in (torch.float32, torch.float16, torch.bfloat16):
            for where, value in (("input", float("nan")), ("input", float("inf")), ("weight", float("nan"))):
                if op == "batch_norm" and where == "weight":
                    continue
                for benchmark in (False, True):
                    torch.backends.cudnn.benchmark = benchmark
                    row = {"op": op, "dtype": str(dtype)[6:], "nonfinite_in": where, "value": str(value),
                           "cudnn.benchmark": benchmark}
                    x = torch.randn(4, 8, 16, 16, device=dev, dtype=dtype)
                    if op == "conv2d":
                        layer = torch.nn.Conv2d(8, 16, 3, padding=1).to(dev, dtype)
                    else:
                        layer = torch.nn.BatchNorm2d(8).to(dev, dtype if dtype != torch.bfloat16 else torch.float32)
                        if dtype == torch.bfloat16:
                            layer = layer.to(dtype)
                    with torch.no_grad():
                        if where == "input":
                            x[0, 0, 0, 0] = value
                        else:
                            layer.weight[0, 0, 0, 0] = value
                    x.requires_grad_()
                    try:
                        y = layer(x); torch.cuda.synchronize()
                        row["forward"] = "returned"
                        row["forward_nonfinite"] = nonfinite(y)
                        y.float().sum().backward(); torch.cuda.synchronize()
                        row["backward"] = "returned"
                        row["grad_input_nonfinite"] = nonfinite(x.grad)
                        row["kernels"] = kernels_of(lambda: layer(x.detach()))
                        row["cudnn_kernel"] = any("cudnn" in k.lower() or "xmma" in k.lower() or "sm90" in k.lower()
                                                  for k in row["kernels"])
                    except BaseException as exc:
                        row["raised"] = type(exc).__qualname__
                        row["text"] = str(exc)[:400]
                    yield row
    torch.backends.cudnn.benchmark = False


def aftermath_records():
    for fault, code in FAULTS.items():
        script = f"FAULT = {fault!r}\nFAULT_CODE = {code!r}\n" + AFTERMATH
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        for line in lines:
            yield json.loads(line)
        yield {"fault": fault, "exit_code": done.returncode, "stderr_tail": done.stderr[-800:]}


def main():
    out = open(sys.argv[1], "w") if len(sys.argv) > 1 else None
    for source in (nonfinite_records, aftermath_records):
        try:
            for record in source():
                line = json.dumps(record)
                print(line, flush=True)
                if out:
                    out.write(line + "\n"); out.flush()
        except BaseException as exc:  # keep the other half's results
            print(json.dumps({"probe_failed": source.__name__, "error": repr(exc)}), flush=True)


if __name__ == "__main__":
    main()
