# realworld-source: https://github.com/Tianxiaomo/pytorch-YOLOv4/issues/459
# realworld-family: loader
# realworld-error: ValueError: batch_size should be a positive integer value, but got batch_size=0
# realworld-key: batch_size should be a positive integer value
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: loader-batch-size-divides-to-zero
# realworld-why: batch computed as Cfg.batch // Cfg.subdivisions from an EasyDict-like config module object
import torch
from torch.utils.data import DataLoader, Dataset


class EasyDict(dict):
    __getattr__ = dict.__getitem__
    __setattr__ = dict.__setitem__


Cfg = EasyDict()
Cfg.batch = 4
Cfg.subdivisions = 16
Cfg.width = 32
Cfg.height = 32


class Yolo_dataset(Dataset):
    def __init__(self, cfg, n=8):
        self.cfg = cfg
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, idx):
        return torch.rand(3, self.cfg.height, self.cfg.width), torch.zeros(5)


def train(config):
    train_dataset = Yolo_dataset(config)
    train_loader = DataLoader(train_dataset, batch_size=config.batch // config.subdivisions, shuffle=True,  # expect-here
                              num_workers=0, pin_memory=True, drop_last=True)
    return len(train_loader)


if __name__ == "__main__":
    print(train(Cfg))
