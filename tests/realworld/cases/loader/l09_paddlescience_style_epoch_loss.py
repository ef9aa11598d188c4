# realworld-source: https://github.com/PaddlePaddle/PaddleScience/pull/355
# realworld-family: loader
# realworld-error: empty dataloader when batch_size is bigger than the number of samples with drop_last=True (ZeroDivisionError in the epoch average)
# realworld-key: ZeroDivisionError
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: loader-drop-last-no-batches
# realworld-why: plain training loop, sizes as module constants, loader inline
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

N_POINTS = 10
BATCH_SIZE = 16

x = torch.rand(N_POINTS, 2)
u = torch.sin(x[:, :1]) * torch.cos(x[:, 1:])
loader = DataLoader(TensorDataset(x, u), batch_size=BATCH_SIZE, shuffle=True, drop_last=True)  # expect-here
model = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-3)

if __name__ == "__main__":
    epoch_loss = 0.0
    for xb, ub in loader:
        loss = ((model(xb) - ub) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        epoch_loss += loss.item()
    print("epoch loss", epoch_loss / len(loader))
