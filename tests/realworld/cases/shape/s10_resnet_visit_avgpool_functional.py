# realworld-source: https://github.com/ABadCandy/BaiDuBigData19-URFC/issues/4
# realworld-family: shape
# realworld-error: RuntimeError: Given input size: (2432x4x3). Calculated output size: (2432x1x0). Output size is too small
# realworld-key: Output size is too small
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: conv-input-smaller-than-kernel
# realworld-why: F.avg_pool2d in forward after a _make_layer ResNet; input shape (7, 26, 24) from the data format
import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, in_planes, planes, stride=1):
        super(BasicBlock, self).__init__()
        self.conv1 = nn.Conv2d(in_planes, planes, kernel_size=3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.shortcut = nn.Sequential()
        if stride != 1 or in_planes != planes:
            self.shortcut = nn.Sequential(nn.Conv2d(in_planes, planes, kernel_size=1, stride=stride, bias=False),
                                          nn.BatchNorm2d(planes))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class VisitNet(nn.Module):
    def __init__(self, block, num_blocks, num_classes=9):
        super(VisitNet, self).__init__()
        self.in_planes = 16
        self.conv1 = nn.Conv2d(7, 16, kernel_size=3, stride=1, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.layer1 = self._make_layer(block, 16, num_blocks[0], stride=1)
        self.layer2 = self._make_layer(block, 32, num_blocks[1], stride=2)
        self.layer3 = self._make_layer(block, 64, num_blocks[2], stride=2)
        self.layer4 = self._make_layer(block, 128, num_blocks[3], stride=2)
        self.linear = nn.Linear(128, num_classes)

    def _make_layer(self, block, planes, num_blocks, stride):
        strides = [stride] + [1] * (num_blocks - 1)
        layers = []
        for stride in strides:
            layers.append(block(self.in_planes, planes, stride))
            self.in_planes = planes * block.expansion
        return nn.Sequential(*layers)

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.layer1(out)
        out = self.layer2(out)
        out = self.layer3(out)
        out = self.layer4(out)
        out = F.avg_pool2d(out, 4)  # expect-here
        out = out.view(out.size(0), -1)
        return self.linear(out)


if __name__ == "__main__":
    visit_model = VisitNet(BasicBlock, [1, 1, 1, 1]).eval()
    x_vis = torch.rand(2, 7, 26, 24)
    with torch.no_grad():
        print(visit_model(x_vis).shape)
