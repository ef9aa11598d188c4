# realworld-source: https://github.com/pytorch/pytorch/issues/8860
# realworld-family: batchnorm
# realworld-error: NaN loss when using half precision (Adam; fixed by eps=1e-4)
# realworld-key: nan
# realworld-measured: torch 2.11.0 CPU (float16 on the CPU: a conv bias in front of a batch norm gets an exactly zero gradient, Adam's 0/(0+0) makes it nan)
# realworld-expect: optimizer-eps-vanishes-in-half
# realworld-why: optimizer eps a module constant; the net converted by net.half() in the training setup
import torch
import torch.nn as nn
import torch.nn.functional as F

ADAM_EPS = 1e-8  # expect-here


class HappyNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 7)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        return self.fc(x.mean((2, 3)))


if __name__ == "__main__":
    net = HappyNet()
    net = net.half()  # expect-here
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3, eps=ADAM_EPS)  # expect-here
    x = torch.rand(4, 1, 12, 12).half()
    y = torch.tensor([0, 1, 2, 3])
    for step in range(2):
        optimizer.zero_grad()
        loss = F.cross_entropy(net(x).float(), y)
        loss.backward()
        optimizer.step()
        print("step", step, "loss:", loss.item())
