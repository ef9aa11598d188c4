# realworld-source: mutant of the mlp_bn_loader tutorial model (written here): eps zero
# realworld-family: batchnorm
# realworld-error: ValueError: batch_norm eps must be positive, but got 0.0
# realworld-key: eps must be positive
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: bn-eps-zero
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

N_SAMPLES = 64
GLOBAL_BATCH = 64
WORLD_SIZE = 4
BN_EPS = 0.0  # expect-here


class MLP(nn.Module):
    def __init__(self, d_in=20, hidden=32, n_out=3):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(d_in, hidden), nn.BatchNorm1d(hidden, eps=BN_EPS), nn.ReLU(),  # expect-here
            nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden, eps=BN_EPS), nn.ReLU(),  # expect-here
            nn.Linear(hidden, n_out))

    def forward(self, x):
        return self.layers(x)


if __name__ == "__main__":
    ds = TensorDataset(torch.randn(N_SAMPLES, 20), torch.randint(0, 3, (N_SAMPLES,)))
    loader = DataLoader(ds, batch_size=GLOBAL_BATCH // WORLD_SIZE, shuffle=True)
    model = MLP()
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("loss", loss.item())
