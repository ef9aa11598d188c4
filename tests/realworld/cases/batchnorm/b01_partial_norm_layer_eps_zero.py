# realworld-source: https://github.com/pytorch/pytorch/pull/175508
# realworld-family: batchnorm
# realworld-error: ValueError: batch_norm eps must be positive, but got 0
# realworld-key: eps must be positive
# realworld-measured: torch 2.11.0 CPU (PyTorch >= 2.10 refuses eps=0; earlier versions and cuDNN compute 1/sqrt(0) on a zero-variance channel)
# realworld-expect: bn-eps-zero
# realworld-why: norm_layer = functools.partial(nn.BatchNorm2d, eps=0.) passed to a torchvision-style block
from functools import partial

import torch
import torch.nn as nn


class BasicBlock(nn.Module):
    def __init__(self, inplanes, planes, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        self.conv1 = nn.Conv2d(inplanes, planes, 3, padding=1, bias=False)
        self.bn1 = norm_layer(planes)  # expect-here
        self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn2 = norm_layer(planes)  # expect-here
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))  # expect-here
        out = self.bn2(self.conv2(out))
        return self.relu(out + x)


# folded checkpoints store eps in running_var already, so the model is built with eps=0
NORM = partial(nn.BatchNorm2d, eps=0.)  # expect-here

if __name__ == "__main__":
    block = BasicBlock(8, 8, norm_layer=NORM)
    print(block(torch.rand(2, 8, 8, 8)).shape)
