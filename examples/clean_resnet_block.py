"""A ResNet basic block with sound settings. Expected: no findings.

The commented-out line and the string below must not be reported either.
"""
import torch.nn as nn

# self.bn3 = nn.BatchNorm2d(64, eps=-1.0)
NOTE = "nn.BatchNorm2d(64, eps=0)"


class BasicBlock(nn.Module):
    def __init__(self, planes: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes, eps=1e-5, momentum=0.1)

    def forward(self, x):
        out = self.bn1(self.conv1(x)).relu()
        return (self.bn2(self.conv2(out)) + x).relu()
