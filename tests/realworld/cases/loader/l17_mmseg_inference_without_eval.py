# realworld-source: https://github.com/open-mmlab/mmsegmentation/issues/2150
# realworld-family: loader
# realworld-error: ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 512, 1, 1])
# realworld-key: Expected more than 1 value per channel when training
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: single-sample-batch-in-training
# realworld-why: a segmentor built from its config and run on one image for inference, never put in eval(): the pyramid pooling's 1x1 stage ends in a BatchNorm2d
import torch
import torch.nn as nn
import torch.nn.functional as F


class PPMStage(nn.Module):
    def __init__(self, scale, in_channels, channels):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(scale)
        self.conv = nn.Conv2d(in_channels, channels, 1, bias=False)
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x):
        return F.relu(self.bn(self.conv(self.pool(x))))


class PSPSegmentor(nn.Module):
    def __init__(self, num_classes=19):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 32, 3, stride=2, padding=1), nn.ReLU())
        self.global_context = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(32, 16, 1, bias=False),
                                            nn.BatchNorm2d(16))  # expect-here
        self.cls_seg = nn.Conv2d(32 + 16, num_classes, 1)

    def forward(self, img):
        feats = self.backbone(img)
        context = self.global_context(feats)
        context = F.interpolate(context, size=feats.shape[2:])
        return self.cls_seg(torch.cat([feats, context], dim=1))


def build_segmentor(num_classes):
    return PSPSegmentor(num_classes)


if __name__ == "__main__":
    model = build_segmentor(19)
    img = torch.rand(1, 3, 64, 64)  # one image, as mmcv.imread and the test pipeline give it
    result = model(img)  # expect-here
    print(result.shape)
