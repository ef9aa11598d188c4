# realworld-source: https://github.com/azavea/raster-vision/pull/1029
# realworld-family: loader
# realworld-error: ValueError: Expected more than 1 value per channel when training (the last batch of the epoch has length one; fixed by drop_last=True)
# realworld-key: Expected more than 1 value per channel when training
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: loader-last-batch-single-sample
# realworld-why: classifier head built by a helper (fastai-style create_head with BatchNorm1d); Dataset with a fixed __len__ of 65, batch size 16
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class ChipDataset(Dataset):
    def __len__(self):
        return 65

    def __getitem__(self, i):
        return torch.rand(3, 16, 16), i % 4


def create_head(nf, n_out, ps=0.5):
    return nn.Sequential(
        nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.BatchNorm1d(nf),  # expect-here
        nn.Dropout(ps),
        nn.Linear(nf, n_out),
    )


class Learner:
    def __init__(self, batch_sz=16):
        self.model = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), create_head(32, 4))
        self.train_dl = DataLoader(ChipDataset(), batch_size=batch_sz, shuffle=True, num_workers=0)  # expect-here
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.01)

    def train_epoch(self):
        self.model.train()
        for x, y in self.train_dl:
            loss = nn.functional.cross_entropy(self.model(x), y)  # expect-here
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()


if __name__ == "__main__":
    Learner().train_epoch()
    print("epoch done")
