# realworld-source: https://github.com/milesial/Pytorch-UNet/issues/134
# realworld-family: shape
# realworld-error: RuntimeError: Given input size: (512x4x1). Calculated output size: (512x2x0). Output size is too small
# realworld-key: Output size is too small
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: conv-input-smaller-than-kernel
# realworld-why: nested blocks (DoubleConv inside Down), forward through attributes of a model class
import torch
import torch.nn as nn


class DoubleConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.double_conv = nn.Sequential(
            nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True),
            nn.Conv2d(out_channels, out_channels, kernel_size=3, padding=1),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        return self.double_conv(x)


class Down(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.maxpool_conv = nn.Sequential(nn.MaxPool2d(2), DoubleConv(in_channels, out_channels))  # expect-here

    def forward(self, x):
        return self.maxpool_conv(x)  # expect-here


class UNetEncoder(nn.Module):
    def __init__(self, n_channels):
        super().__init__()
        self.inc = DoubleConv(n_channels, 16)
        self.down1 = Down(16, 32)
        self.down2 = Down(32, 64)
        self.down3 = Down(64, 128)
        self.down4 = Down(128, 128)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(x1)
        x3 = self.down2(x2)
        x4 = self.down3(x3)
        x5 = self.down4(x4)  # expect-here
        return x5


if __name__ == "__main__":
    net = UNetEncoder(n_channels=1)
    net.eval()
    # a thin grayscale strip from the data set: 64 x 8 pixels
    img = torch.rand(1, 1, 64, 8)
    with torch.no_grad():
        print(net(img).shape)
