"""What PyTorch does with the data-loader settings and zero-size batches of issue 9's rule family.

Run with any torch (CPU wheel is enough; on a GPU machine the CUDA cases run too):
    python3 tests/probes/torch_loader_and_zero_batch.py
Prints one JSON line per case: the call, the exception (type and message) or the result, and on
CUDA the kernels that ran (profiler), so a rule's claim ("raises at construction", "yields no
batch", "never calls cuDNN") is a measurement. Not part of CI.
"""
import json
import sys

import torch
from probe_case import case
from torch.utils.data import BatchSampler, DataLoader, SequentialSampler, Subset, TensorDataset


def cuda_kernels(fn):
    from torch.profiler import ProfilerActivity, profile
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        out = fn()
        torch.cuda.synchronize()
    names = sorted({e.key.split("(")[0][:80] for e in prof.key_averages() if "CUDA" in str(e.device_type)})
    return out, names


print(json.dumps({"torch": torch.__version__, "cuda": torch.cuda.is_available(),
                  "cudnn": torch.backends.cudnn.version() if torch.cuda.is_available() else None}), flush=True)
data = TensorDataset(torch.randn(10, 3))

# Batch size <= 0 and None.
for bs in (0, -1, None, 1):
    case(f"DataLoader(batch_size={bs}) constructed", lambda bs=bs: type(DataLoader(data, batch_size=bs)).__name__)
    case(f"DataLoader(batch_size={bs}) first batch",
         lambda bs=bs: [list(b[0].shape) for b in DataLoader(data, batch_size=bs)][:1])
for bs in (0, -2):
    case(f"BatchSampler(batch_size={bs})", lambda bs=bs: list(BatchSampler(SequentialSampler(range(4)), bs, False)))

# Dataset smaller than one batch with drop_last=True: zero batches.
for n, bs, drop in ((10, 16, True), (10, 16, False), (32, 16, True), (10, 0, True)):
    ds = Subset(data, range(min(n, 10))) if n <= 10 else TensorDataset(torch.randn(n, 3))
    case(f"len(DataLoader(N={n}, batch_size={bs}, drop_last={drop}))",
         lambda ds=ds, bs=bs, drop=drop: len(DataLoader(ds, batch_size=bs, drop_last=drop)))
case("1 / len(DataLoader(N=10, batch_size=16, drop_last=True))",
     lambda: 1 / len(DataLoader(data, batch_size=16, drop_last=True)))
case("OneCycleLR(steps_per_epoch=len(empty loader))",
     lambda: type(torch.optim.lr_scheduler.OneCycleLR(torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1),
                                                     max_lr=0.1, epochs=1, steps_per_epoch=len(
                                                         DataLoader(data, batch_size=16, drop_last=True)))).__name__)

# A final batch of one sample into batch norm in training mode.
for dev in ["cpu"] + (["cuda"] if torch.cuda.is_available() else []):
    bn1 = torch.nn.BatchNorm1d(3).to(dev)
    case(f"BatchNorm1d train on [1, 3] ({dev})", lambda: list(bn1(torch.randn(1, 3, device=dev)).shape))
    bn1.eval()
    case(f"BatchNorm1d eval on [1, 3] ({dev})", lambda: list(bn1(torch.randn(1, 3, device=dev)).shape))
    bn2 = torch.nn.BatchNorm2d(3).to(dev)
    case(f"BatchNorm2d train on [1, 3, 1, 1] (after global pooling, {dev})",
         lambda: list(bn2(torch.randn(1, 3, 1, 1, device=dev)).shape))
    case(f"BatchNorm2d train on [1, 3, 2, 2] ({dev})", lambda: list(bn2(torch.randn(1, 3, 2, 2, device=dev)).shape))
    loader = DataLoader(TensorDataset(torch.randn(9, 3)), batch_size=4)
    case(f"last batch sizes, N=9, batch_size=4 ({dev})", lambda: [len(b[0]) for b in loader])

# Zero-size tensors into convolution and batch norm.
for dev in ["cpu"] + (["cuda"] if torch.cuda.is_available() else []):
    conv = torch.nn.Conv2d(3, 8, 3).to(dev)
    bn = torch.nn.BatchNorm2d(3).to(dev)
    x0 = torch.empty(0, 3, 8, 8, device=dev)
    if dev == "cuda":
        case("Conv2d on empty(0,3,8,8) (cuda): output and kernels", lambda: (lambda o: [list(o[0].shape), o[1]])(
            cuda_kernels(lambda: conv(x0))))
        case("BatchNorm2d train on empty(0,3,8,8) (cuda): output and kernels", lambda: (lambda o: [list(o[0].shape), o[1]])(
            cuda_kernels(lambda: bn(x0))))
        bn.eval()
        case("BatchNorm2d eval on empty(0,3,8,8) (cuda): output and kernels", lambda: (lambda o: [list(o[0].shape), o[1]])(
            cuda_kernels(lambda: bn(x0))))
    else:
        case("Conv2d on empty(0,3,8,8) (cpu)", lambda: list(conv(x0).shape))
        case("BatchNorm2d train on empty(0,3,8,8) (cpu)", lambda: list(bn(x0).shape))
        bn.eval()
        case("BatchNorm2d eval on empty(0,3,8,8) (cpu)", lambda: list(bn(x0).shape))
    case(f"Conv2d on zeros(2,3,2,2) with a 3x3 kernel ({dev})", lambda: list(conv(torch.zeros(2, 3, 2, 2, device=dev)).shape))
    case(f"Conv2d on zeros(2,3,0,8) ({dev})", lambda: list(conv(torch.zeros(2, 3, 0, 8, device=dev)).shape))
sys.exit(0)
