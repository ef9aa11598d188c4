# realworld-source: mutant of the tcn tutorial model (written here): drop last tiny dataset
# realworld-family: loader
# realworld-error: ZeroDivisionError: float division by zero (5 sequences, batch_size 8, drop_last=True)
# realworld-key: ZeroDivisionError
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: loader-drop-last-no-batches
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

SEQ_LEN = 64
N_SAMPLES = 5  # expect-here
BATCH_SIZE = 8


class Chomp1d(nn.Module):
    def __init__(self, chomp_size):
        super(Chomp1d, self).__init__()
        self.chomp_size = chomp_size

    def forward(self, x):
        return x[:, :, :-self.chomp_size].contiguous()


class TemporalBlock(nn.Module):
    def __init__(self, n_inputs, n_outputs, kernel_size, stride, dilation, padding, dropout=0.2):
        super(TemporalBlock, self).__init__()
        self.net = nn.Sequential(
            nn.Conv1d(n_inputs, n_outputs, kernel_size, stride=stride, padding=padding, dilation=dilation),
            Chomp1d(padding), nn.ReLU(), nn.Dropout(dropout),
            nn.Conv1d(n_outputs, n_outputs, kernel_size, stride=stride, padding=padding, dilation=dilation),
            Chomp1d(padding), nn.ReLU(), nn.Dropout(dropout))
        self.downsample = nn.Conv1d(n_inputs, n_outputs, 1) if n_inputs != n_outputs else None
        self.relu = nn.ReLU()

    def forward(self, x):
        out = self.net(x)
        res = x if self.downsample is None else self.downsample(x)
        return self.relu(out + res)


class TemporalConvNet(nn.Module):
    def __init__(self, num_inputs, num_channels, kernel_size=2, dropout=0.2):
        super(TemporalConvNet, self).__init__()
        layers = []
        for i in range(len(num_channels)):
            dilation_size = 2 ** i
            in_channels = num_inputs if i == 0 else num_channels[i - 1]
            layers += [TemporalBlock(in_channels, num_channels[i], kernel_size, stride=1, dilation=dilation_size,
                                     padding=(kernel_size - 1) * dilation_size, dropout=dropout)]
        self.network = nn.Sequential(*layers)

    def forward(self, x):
        return self.network(x)


if __name__ == "__main__":
    x = np.random.rand(N_SAMPLES, 1, SEQ_LEN).astype(np.float32)
    y = np.random.rand(N_SAMPLES, 1).astype(np.float32)
    loader = DataLoader(TensorDataset(torch.from_numpy(x), torch.from_numpy(y)), batch_size=BATCH_SIZE,  # expect-here
                        shuffle=True, drop_last=True)
    tcn = TemporalConvNet(1, [8, 8, 8])
    head = nn.Linear(8, 1)
    total = 0.0
    for xb, yb in loader:
        total += nn.functional.mse_loss(head(tcn(xb)[:, :, -1]), yb).item()
    print("mean loss", total / len(loader))
