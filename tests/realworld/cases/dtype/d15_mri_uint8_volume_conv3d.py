# realworld-source: https://github.com/pytorch/pytorch/issues/14186
# realworld-family: dtype
# realworld-error: TypeError: conv3d does not accept the type of torch.ByteTensor
# realworld-key: Input type (unsigned char) and bias type (float) should be the same
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: torch-integer-input
# realworld-why: a Dataset whose __getitem__ returns a uint8 volume, batches of a DataLoader over it, a 3-D CNN class
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class MRIDataset(Dataset):
    def __init__(self, n=4):
        self.volumes = [np.zeros((1, 16, 16, 16), dtype=np.uint8) for _ in range(n)]

    def __len__(self):
        return len(self.volumes)

    def __getitem__(self, idx):
        return torch.from_numpy(self.volumes[idx])  # expect-here


class CNN3D(nn.Module):
    def __init__(self):
        super(CNN3D, self).__init__()
        self.conv1 = nn.Conv3d(1, 8, kernel_size=3, padding=1)  # expect-here
        self.pool = nn.MaxPool3d(2)
        self.fc = nn.Linear(8 * 8 * 8 * 8, 2)

    def forward(self, x):
        x = self.pool(torch.relu(self.conv1(x)))  # expect-here
        return self.fc(x.flatten(1))


if __name__ == "__main__":
    loader = DataLoader(MRIDataset(), batch_size=2)
    model = CNN3D()
    for img in loader:
        print(model(img).shape)  # expect-here
