# realworld-source: https://github.com/open-mmlab/mmengine/issues/945
# realworld-family: loader
# realworld-error: AssertionError/ZeroDivisionError: the length of the Dataloader is 0 when the dataset is smaller than the batch size (drop_last=True)
# realworld-key: ZeroDivisionError
# realworld-measured: torch 2.11.0 CPU (the loader yields no batch; the epoch-length arithmetic divides by len(loader) = 0)
# realworld-expect: loader-drop-last-no-batches
# realworld-why: dataset class with a fixed __len__, loader settings in a config dict, scheduler arithmetic on len(loader)
import torch
from torch.utils.data import DataLoader, Dataset

train_dataloader = dict(batch_size=16, num_workers=0, shuffle=True, drop_last=True)  # expect-here


class CustomDataset(Dataset):
    def __init__(self):
        self.samples = [torch.rand(3, 8, 8) for _ in range(10)]

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        return self.samples[i]


if __name__ == "__main__":
    loader = DataLoader(CustomDataset(), **train_dataloader)  # expect-here
    epoch_length = len(loader)
    total_iters = 1000
    max_epochs = total_iters // epoch_length
    print(max_epochs)
