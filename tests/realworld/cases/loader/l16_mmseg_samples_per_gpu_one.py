# realworld-source: https://github.com/open-mmlab/mmsegmentation/issues/272
# realworld-family: loader
# realworld-error: ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 512, 1, 1])
# realworld-key: Expected more than 1 value per channel when training
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: loader-last-batch-single-sample
# realworld-why: samples_per_gpu=1 in a config dict: every batch holds one sample, and the decode head's image pooling ends in a BatchNorm2d on 1x1
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

data = dict(samples_per_gpu=1, workers_per_gpu=0)


class ASPPHead(nn.Module):
    def __init__(self, in_channels=32, channels=16, num_classes=19):
        super().__init__()
        self.image_pool = nn.Sequential(
            nn.AdaptiveAvgPool2d(1),
            nn.Conv2d(in_channels, channels, 1, bias=False),
            nn.BatchNorm2d(channels),  # expect-here
            nn.ReLU(inplace=True),
        )
        self.cls_seg = nn.Conv2d(channels, num_classes, 1)

    def forward(self, x):
        pooled = self.image_pool(x)  # expect-here
        return self.cls_seg(pooled.expand(-1, -1, x.shape[2], x.shape[3]))


if __name__ == "__main__":
    head = ASPPHead()
    head.train()
    ds = TensorDataset(torch.rand(4, 32, 8, 8))
    loader = DataLoader(ds, batch_size=data['samples_per_gpu'], num_workers=data['workers_per_gpu'])  # expect-here
    for (feat,) in loader:
        head(feat).mean().backward()
    print("epoch done")
