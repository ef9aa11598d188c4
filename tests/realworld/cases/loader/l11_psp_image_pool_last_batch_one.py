# realworld-source: https://github.com/yassouali/pytorch-segmentation/issues/8
# realworld-family: loader
# realworld-error: ValueError: Expected more than 1 value per channel when training (the last iteration of the epoch has one example left)
# realworld-key: Expected more than 1 value per channel when training
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: loader-last-batch-single-sample
# realworld-why: pyramid pooling stages built in a list comprehension (AdaptiveAvgPool2d(1) + BatchNorm2d); 9 images with batch size 4
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


class VOCSubset(Dataset):
    def __len__(self):
        return 9

    def __getitem__(self, i):
        return torch.rand(3, 32, 32), torch.zeros(32, 32, dtype=torch.long)


class PSPModule(nn.Module):
    def __init__(self, in_channels, bin_sizes=(1, 2)):
        super(PSPModule, self).__init__()
        out_channels = in_channels // len(bin_sizes)
        self.stages = nn.ModuleList([self._make_stages(in_channels, out_channels, b) for b in bin_sizes])

    def _make_stages(self, in_channels, out_channels, bin_sz):
        prior = nn.AdaptiveAvgPool2d(output_size=bin_sz)
        conv = nn.Conv2d(in_channels, out_channels, kernel_size=1, bias=False)
        bn = nn.BatchNorm2d(out_channels)  # expect-here
        return nn.Sequential(prior, conv, bn, nn.ReLU(inplace=True))

    def forward(self, features):
        h, w = features.size()[2], features.size()[3]
        pyramids = [features]
        pyramids.extend([F.interpolate(stage(features), size=(h, w), mode='bilinear', align_corners=True)
                         for stage in self.stages])
        return torch.cat(pyramids, dim=1)


class PSPNet(nn.Module):
    def __init__(self, num_classes=21):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(inplace=True))
        self.master_branch = nn.Sequential(PSPModule(16), nn.Conv2d(32, num_classes, 1))

    def forward(self, x):
        return self.master_branch(self.backbone(x))


if __name__ == "__main__":
    model = PSPNet()
    model.train()
    loader = DataLoader(VOCSubset(), batch_size=4, shuffle=True)  # expect-here
    for data, target in loader:
        output = model(data)  # expect-here
        loss = F.cross_entropy(output, target[:, ::2, ::2])
        loss.backward()
    print("epoch done")
