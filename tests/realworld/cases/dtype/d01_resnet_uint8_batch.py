# realworld-source: https://github.com/pytorch/pytorch/issues/64145
# realworld-family: dtype
# realworld-error: RuntimeError: expected scalar type Byte but found Float
# realworld-key: Input type (unsigned char) and bias type (float) should be the same
# realworld-measured: torch 2.11.0 CPU (2.11 words it "Input type (unsigned char) and bias type (float) should be the same")
# realworld-expect: torch-integer-input
# realworld-why: uint8 tensor literal into a ResNet model class (stem conv inside the class)
import torch
import torch.nn as nn


class Bottleneck(nn.Module):
    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.conv2 = nn.Conv2d(planes, planes, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.down = None if stride == 1 and inplanes == planes else nn.Conv2d(inplanes, planes, 1, stride, bias=False)

    def forward(self, x):
        idt = x if self.down is None else self.down(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + idt)


class TinyResNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, kernel_size=7, stride=2, padding=3)  # expect-here
        self.bn1 = nn.BatchNorm2d(16)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.layer1 = nn.Sequential(Bottleneck(16, 16), Bottleneck(16, 32, 2))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(32, num_classes)

    def _forward_impl(self, x):
        x = self.conv1(x)  # expect-here
        x = self.maxpool(self.relu(self.bn1(x)))
        x = self.layer1(x)
        return self.fc(torch.flatten(self.avgpool(x), 1))

    def forward(self, x):
        return self._forward_impl(x)


if __name__ == "__main__":
    model = TinyResNet()
    x = torch.zeros(4, 3, 128, 128, dtype=torch.uint8)  # expect-here
    model(x)  # expect-here
