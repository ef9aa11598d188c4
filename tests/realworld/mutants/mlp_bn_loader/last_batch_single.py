# realworld-source: mutant of the mlp_bn_loader tutorial model (written here): last batch single
# realworld-family: loader
# realworld-error: ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 32])
# realworld-key: Expected more than 1 value per channel when training
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: loader-last-batch-single-sample
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

N_SAMPLES = 65  # expect-here
GLOBAL_BATCH = 64
WORLD_SIZE = 4
BN_EPS = 1e-5


class MLP(nn.Module):
    def __init__(self, d_in=20, hidden=32, n_out=3):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(d_in, hidden), nn.BatchNorm1d(hidden, eps=BN_EPS), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden, eps=BN_EPS), nn.ReLU(),
            nn.Linear(hidden, n_out))

    def forward(self, x):
        return self.layers(x)


if __name__ == "__main__":
    ds = TensorDataset(torch.randn(N_SAMPLES, 20), torch.randint(0, 3, (N_SAMPLES,)))
    loader = DataLoader(ds, batch_size=GLOBAL_BATCH // WORLD_SIZE, shuffle=True)  # expect-here
    model = MLP()
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)  # expect-here
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("loss", loss.item())
