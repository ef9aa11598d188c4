# realworld-source: https://github.com/vidursatija/BlazePalm/issues/5
# realworld-family: dtype
# realworld-error: RuntimeError: expected scalar type Byte but found Float
# realworld-key: Input type (unsigned char) and bias type (float) should be the same
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: torch-integer-input
# realworld-why: cv2-style HWC uint8 image, torch.from_numpy(...).permute((2, 0, 1)).unsqueeze(0) into a model of nested Sequentials
import numpy as np
import torch
import torch.nn as nn


class BlazeBlock(nn.Module):
    def __init__(self, in_channels, out_channels, stride=1):
        super(BlazeBlock, self).__init__()
        self.convs = nn.Sequential(
            nn.Conv2d(in_channels, in_channels, 5, stride, 2, groups=in_channels),
            nn.Conv2d(in_channels, out_channels, 1),
        )
        self.act = nn.ReLU(inplace=True)

    def forward(self, x):
        return self.act(self.convs(x))


class HandLandmarks(nn.Module):
    def __init__(self):
        super(HandLandmarks, self).__init__()
        self.backbone1 = nn.Sequential(
            nn.Conv2d(3, 24, 3, 2, 1),  # expect-here
            nn.ReLU(inplace=True),
            BlazeBlock(24, 24),
            BlazeBlock(24, 48, 2),
        )
        self.head = nn.Conv2d(48, 63, 1)

    def forward(self, x):
        b1 = self.backbone1(x)  # expect-here
        return self.head(b1).mean((2, 3))


if __name__ == "__main__":
    hl = HandLandmarks()
    cropped_hand = np.zeros((128, 128, 3), dtype=np.uint8)  # what cv2.resize returns for a frame crop
    landmarks = hl(torch.from_numpy(cropped_hand).permute((2, 0, 1)).unsqueeze(0))  # expect-here
    print(landmarks.shape)
