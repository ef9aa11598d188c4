"""What PyTorch does with a batch-norm epsilon that is NaN or infinite (bn-eps-not-finite).

For eps in {nan, inf, -inf}, in training and in eval mode, it runs nn.BatchNorm2d, F.batch_norm,
nn.SyncBatchNorm's single-process fallback (eval), nn.InstanceNorm2d, nn.GroupNorm and nn.LayerNorm on
an NCHW [4, 3, 5, 5] input with weight 1 and bias 0.5, and records whether the call raised, whether
the output holds NaN, and whether every output equals the bias (the normalized part is 0: the layer
is dead, its gradient to the input and weight is 0). On the CPU; the cuDNN path needs a GPU.

    python3 tests/probes/bn_eps_nonfinite_torch.py
First line: the versions; then one JSON line per case. Not part of CI.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from probe_case import case  # noqa: E402

print(json.dumps({"torch": torch.__version__, "cuda": torch.cuda.is_available()}), flush=True)
torch.manual_seed(0)
x = torch.randn(4, 3, 5, 5)


def summary(y, bias=0.5):
    return {"nan": bool(torch.isnan(y).any()), "inf": bool(torch.isinf(y).any()),
            "all_equal_bias": bool(torch.all(y == bias))}


def module(make, mode, inp=x):
    def run():
        m = make()
        with torch.no_grad():
            if getattr(m, "weight", None) is not None:
                m.weight.fill_(1.0)
                m.bias.fill_(0.5)
        m.train(mode == "train")
        return summary(m(inp))
    return run


for eps in (float("nan"), float("inf"), float("-inf")):
    for mode in ("train", "eval"):
        case(f"nn.BatchNorm2d(3, eps={eps}) {mode}", module(lambda: nn.BatchNorm2d(3, eps=eps), mode))
        case(f"F.batch_norm(eps={eps}, training={mode == 'train'})",
             lambda: summary(F.batch_norm(x, torch.zeros(3), torch.ones(3), torch.ones(3), torch.full((3,), 0.5),
                                          training=mode == "train", eps=eps)))
        case(f"nn.InstanceNorm2d(3, eps={eps}, affine=True) {mode}",
             module(lambda: nn.InstanceNorm2d(3, eps=eps, affine=True), mode))
        case(f"nn.GroupNorm(1, 3, eps={eps}) {mode}", module(lambda: nn.GroupNorm(1, 3, eps=eps), mode))
        case(f"nn.LayerNorm(5, eps={eps}) {mode}", module(lambda: nn.LayerNorm(5, eps=eps), mode))
    case(f"nn.SyncBatchNorm(3, eps={eps}) eval", module(lambda: nn.SyncBatchNorm(3, eps=eps), "eval"))
