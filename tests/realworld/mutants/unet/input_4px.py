# realworld-source: mutant of the unet tutorial model (written here): input 4px
# realworld-family: shape
# realworld-error: RuntimeError: Given input size: (32x1x1). Calculated output size: (32x0x0). Output size is too small
# realworld-key: Output size is too small
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: conv-input-smaller-than-kernel
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

IMG_SIZE = 4  # expect-here
BATCH_SIZE = 4
NUM_GPUS = 1


class DoubleConv(nn.Module):
    def __init__(self, in_ch, out_ch):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(in_ch, out_ch, 3, padding=1), nn.BatchNorm2d(out_ch), nn.ReLU(inplace=True),
            nn.Conv2d(out_ch, out_ch, 3, padding=1), nn.BatchNorm2d(out_ch), nn.ReLU(inplace=True))

    def forward(self, x):
        return self.conv(x)


class UNet(nn.Module):
    def __init__(self, n_channels=1, n_classes=2, base=8):
        super().__init__()
        self.inc = DoubleConv(n_channels, base)
        self.pool = nn.MaxPool2d(2)  # expect-here
        self.down1 = DoubleConv(base, base * 2)
        self.down2 = DoubleConv(base * 2, base * 4)
        self.down3 = DoubleConv(base * 4, base * 4)
        self.up = nn.Upsample(scale_factor=2, mode='bilinear', align_corners=True)
        self.up1 = DoubleConv(base * 8, base * 2)
        self.up2 = DoubleConv(base * 4, base)
        self.up3 = DoubleConv(base * 2, base)
        self.outc = nn.Conv2d(base, n_classes, 1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down1(self.pool(x1))
        x3 = self.down2(self.pool(x2))
        x4 = self.down3(self.pool(x3))  # expect-here
        x = self.up1(torch.cat([self.up(x4), x3], 1))
        x = self.up2(torch.cat([self.up(x), x2], 1))
        x = self.up3(torch.cat([self.up(x), x1], 1))
        return self.outc(x)


if __name__ == "__main__":
    net = UNet()
    imgs = torch.rand(8, 1, IMG_SIZE, IMG_SIZE)
    masks = torch.randint(0, 2, (8, IMG_SIZE, IMG_SIZE))
    loader = DataLoader(TensorDataset(imgs, masks), batch_size=BATCH_SIZE // NUM_GPUS, shuffle=True)
    for x, y in loader:
        loss = nn.functional.cross_entropy(net(x), y)
        loss.backward()
    print("loss", loss.item())
