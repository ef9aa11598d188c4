"""A PyTorch detection head with three batch-norm epsilon mistakes.

Expected: bn-eps-negative (NEG_EPS via a module constant), bn-eps-zero (functools.partial),
and bn-eps-zero again where the epsilon is overwritten in a modules() loop.
"""
import functools

import torch
import torch.nn as nn

NEG_EPS = -1e-5  # a sign slip: this was meant to be 1e-5

ZeroEpsBN = functools.partial(nn.BatchNorm2d, eps=0.0)


class DetectorHead(nn.Module):
    def __init__(self, channels: int, num_classes: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, kernel_size=3, padding=1)
        self.bn = nn.BatchNorm2d(channels, eps=NEG_EPS)
        self.cls_bn = ZeroEpsBN(channels)
        self.cls = nn.Conv2d(channels, num_classes, kernel_size=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.bn(self.conv(x)))
        return self.cls(self.cls_bn(x))


def tighten_batchnorm(model: nn.Module) -> None:
    # "Match the reference implementation" -- which ran without normalisation noise.
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm2d, nn.SyncBatchNorm)):
            m.eps = 0
