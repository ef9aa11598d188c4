# realworld-source: https://github.com/pytorch/pytorch/issues/1623
# realworld-family: batchnorm
# realworld-error: RuntimeError: CUDNN_STATUS_BAD_PARAM (batch norm in cuDNN 5.1.10 does not support eps as small as 1e-6)
# realworld-key: none
# realworld-measured: not reproducible on CPU: GPU/cuDNN < 7.5 only (CUDNN_BN_MIN_EPSILON = 1e-5), see KB cuda/cudnn-bn-epsilon-too-small; runs clean on torch 2.11.0 CPU
# realworld-expect: bn-eps-below-cudnn-min
# realworld-why: eps passed through a constructor argument of a conv-bn-relu helper class
import torch
import torch.nn as nn


class ConvBNReLU(nn.Module):
    def __init__(self, c_in, c_out, eps=1e-6):  # expect-here
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(c_out, eps=eps)  # expect-here
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.relu(self.bn(self.conv(x)))  # expect-here


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(ConvBNReLU(3, 16), nn.MaxPool2d(2), ConvBNReLU(16, 32))
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        return self.fc(self.features(x).mean((2, 3)))


if __name__ == "__main__":
    net = SmallNet()
    print(net(torch.rand(4, 3, 16, 16)).shape)
