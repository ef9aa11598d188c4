"""What PyTorch does with spatial sizes through convolutions and pooling: the output-size formula
(floor division, dilation, ceil_mode), the inputs it refuses, and its exact messages.

Run with any torch (the CPU wheel is enough):
    python3 tests/probes/torch_shapes.py
Prints a header line, then one JSON line per case that disagrees with the formulas below (there
should be none), then a summary line and one line per distinct refusal message. Not part of CI.
"""
import json
import math
import warnings

import torch
import torch.nn as nn
from probe_case import case

warnings.simplefilter("ignore")
print(json.dumps({"torch": torch.__version__}), flush=True)


def conv_out(size, kernel, stride, pad, dilation):
    """cudnnlint's formula (analyzer/core/shape_arith): floor((size + 2p - d(k-1) - 1) / s) + 1."""
    return (size + 2 * pad - dilation * (kernel - 1) - 1) // stride + 1


def pool_out(size, kernel, stride, pad, dilation, ceil_mode):
    numerator = size + 2 * pad - dilation * (kernel - 1) - 1
    out = (-(-numerator // stride) if ceil_mode else numerator // stride) + 1
    # ceil_mode: the last window must start inside the input or the left padding.
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


messages = {}
checked = {"conv": 0, "conv_refused": 0, "maxpool": 0, "maxpool_refused": 0, "avgpool": 0, "avgpool_refused": 0,
           "same": 0, "disagreements": 0}


def note(kind, message):
    messages.setdefault(kind, message)


for size in range(1, 8):
    for kernel in range(1, 6):
        for stride in range(1, 4):
            for pad in range(0, 3):
                for dilation in (1, 2):
                    x = torch.zeros(1, 1, size, size)
                    expected = conv_out(size, kernel, stride, pad, dilation)
                    conv = nn.Conv2d(1, 1, kernel, stride=stride, padding=pad, dilation=dilation)
                    try:
                        got = conv(x).shape[-1]
                    except RuntimeError as exc:
                        got = None
                        note("conv", str(exc).splitlines()[0])
                    checked["conv"] += 1
                    if got is None:
                        checked["conv_refused"] += 1
                    if (got is None) != (expected < 1) or (got is not None and got != expected):
                        checked["disagreements"] += 1
                        case(f"conv size={size} k={kernel} s={stride} p={pad} d={dilation}",
                             lambda: {"expected": expected, "got": got})
                    if pad * 2 > kernel:
                        continue  # pooling refuses pad > kernel/2 before any size check
                    for ceil_mode in (False, True):
                        expected_pool = pool_out(size, kernel, stride, pad, dilation, ceil_mode)
                        pool = nn.MaxPool2d(kernel, stride=stride, padding=pad, dilation=dilation, ceil_mode=ceil_mode)
                        try:
                            got_pool = pool(x).shape[-1]
                        except RuntimeError as exc:
                            got_pool = None
                            note("maxpool", str(exc).splitlines()[0])
                        checked["maxpool"] += 1
                        if got_pool is None:
                            checked["maxpool_refused"] += 1
                        if (got_pool is None) != (expected_pool < 1) or (got_pool is not None and got_pool != expected_pool):
                            checked["disagreements"] += 1
                            case(f"maxpool size={size} k={kernel} s={stride} p={pad} d={dilation} ceil={ceil_mode}",
                                 lambda: {"expected": expected_pool, "got": got_pool})
                        if dilation != 1:
                            continue
                        avg = nn.AvgPool2d(kernel, stride=stride, padding=pad, ceil_mode=ceil_mode)
                        try:
                            got_avg = avg(x).shape[-1]
                        except RuntimeError as exc:
                            got_avg = None
                            note("avgpool", str(exc).splitlines()[0])
                        checked["avgpool"] += 1
                        if got_avg is None:
                            checked["avgpool_refused"] += 1
                        if (got_avg is None) != (expected_pool < 1) or (got_avg is not None and got_avg != expected_pool):
                            checked["disagreements"] += 1
                            case(f"avgpool size={size} k={kernel} s={stride} p={pad} ceil={ceil_mode}",
                                 lambda: {"expected": expected_pool, "got": got_avg})

# padding='same' (stride 1 only in PyTorch) keeps the size whatever the kernel, even on a 1x1 input.
for size in range(1, 5):
    for kernel in range(1, 6):
        for dilation in (1, 2):
            conv = nn.Conv2d(1, 1, kernel, padding="same", dilation=dilation)
            got = conv(torch.zeros(1, 1, size, size)).shape[-1]
            checked["same"] += 1
            if got != size:
                checked["disagreements"] += 1
                case(f"same size={size} k={kernel} d={dilation}", lambda: {"expected": size, "got": got})

case("padding='same' with stride 2", lambda: str(nn.Conv2d(1, 1, 3, stride=2, padding="same")))
case("Conv1d 2 -> kernel 3", lambda: list(nn.Conv1d(1, 1, 3)(torch.zeros(1, 1, 2)).shape))
case("Conv3d 2x8x8 -> kernel 3", lambda: list(nn.Conv3d(1, 1, 3)(torch.zeros(1, 1, 2, 8, 8)).shape))
case("Flatten after 64x1x1", lambda: list(nn.Flatten()(torch.zeros(2, 64, 1, 1)).shape))
case("chain 4x4 conv3 -> maxpool2 -> conv3",
     lambda: list(nn.Sequential(nn.Conv2d(3, 8, 3), nn.MaxPool2d(2), nn.Conv2d(8, 8, 3))(torch.zeros(1, 3, 4, 4)).shape))
print(json.dumps({"summary": checked}), flush=True)
for kind, message in sorted(messages.items()):
    print(json.dumps({"message": kind, "first_line": message}), flush=True)
