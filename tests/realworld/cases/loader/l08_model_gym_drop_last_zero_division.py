# realworld-source: https://github.com/arm/neural-graphics-model-gym/pull/147
# realworld-family: loader
# realworld-error: ZeroDivisionError (dataset smaller than the configured batch size with drop_last=True: the only batch is dropped)
# realworld-key: ZeroDivisionError
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: loader-drop-last-no-batches
# realworld-why: batch size and drop_last in a dataclass config; dataset length from a constant
from dataclasses import dataclass

import torch
from torch.utils.data import DataLoader, TensorDataset

NUM_FRAMES = 6


@dataclass
class TrainConfig:
    batch_size: int = 8
    drop_last: bool = True
    lr: float = 1e-3


def build_dataloader(cfg):
    ds = TensorDataset(torch.rand(NUM_FRAMES, 3, 16, 16), torch.rand(NUM_FRAMES, 3, 16, 16))
    return DataLoader(ds, batch_size=cfg.batch_size, shuffle=True, drop_last=cfg.drop_last)  # expect-here


def train_epoch(loader):
    total = 0.0
    for x, y in loader:
        total += torch.mean((x - y) ** 2).item()
    return total / len(loader)


if __name__ == "__main__":
    print(train_epoch(build_dataloader(TrainConfig())))
