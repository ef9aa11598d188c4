# realworld-source: https://github.com/pytorch/pytorch/issues/2290
# realworld-family: dtype
# realworld-error: RuntimeError: expected Byte tensor (got Float tensor)
# realworld-key: not implemented for 'Long'
# realworld-measured: torch 2.11.0 CPU (an int64 tensor into BatchNorm1d: NotImplementedError "batch_norm" not implemented for 'Long')
# realworld-expect: torch-integer-input
# realworld-why: integer features from a pandas-like int64 array via torch.tensor into an input BatchNorm1d of an MLP class
import numpy as np
import torch
import torch.nn as nn


class TabularNet(nn.Module):
    def __init__(self, n_cont, hidden=(64, 32), out_sz=2):
        super().__init__()
        self.bn_cont = nn.BatchNorm1d(n_cont)  # expect-here
        layers = []
        n_in = n_cont
        for h in hidden:
            layers += [nn.Linear(n_in, h), nn.ReLU(inplace=True), nn.BatchNorm1d(h)]
            n_in = h
        layers.append(nn.Linear(n_in, out_sz))
        self.layers = nn.Sequential(*layers)

    def forward(self, x_cont):
        x = self.bn_cont(x_cont)  # expect-here
        return self.layers(x)


if __name__ == "__main__":
    counts = np.random.randint(0, 100, size=(32, 6))  # int64 count columns
    conts = torch.tensor(counts)  # expect-here
    model = TabularNet(6)
    print(model(conts).shape)  # expect-here
