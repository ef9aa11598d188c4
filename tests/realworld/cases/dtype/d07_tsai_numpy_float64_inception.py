# realworld-source: https://github.com/timeseriesAI/tsai/issues/468
# realworld-family: dtype
# realworld-error: RuntimeError: Input type (torch.cuda.DoubleTensor) and weight type (torch.cuda.FloatTensor) should be the same
# realworld-key: Input type (double) and bias type (float) should be the same
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: torch-conv-dtype-mismatch
# realworld-why: np.random.randn (float64) -> torch.tensor without dtype -> InceptionTime-like model class with branches built in a list comprehension
import numpy as np
import torch
import torch.nn as nn


class InceptionModule(nn.Module):
    def __init__(self, ni, nf, ks=(9, 19, 39)):
        super().__init__()
        self.bottleneck = nn.Conv1d(ni, nf, 1, bias=False)
        self.convs = nn.ModuleList([nn.Conv1d(nf, nf, k, padding=k // 2, bias=False) for k in ks])
        self.maxconvpool = nn.Sequential(nn.MaxPool1d(3, stride=1, padding=1), nn.Conv1d(ni, nf, 1, bias=False))
        self.bn = nn.BatchNorm1d(nf * 4)
        self.act = nn.ReLU()

    def forward(self, x):
        input_tensor = x
        x = self.bottleneck(input_tensor)
        x = torch.cat([l(x) for l in self.convs] + [self.maxconvpool(input_tensor)], dim=1)
        return self.act(self.bn(x))


class InceptionTime(nn.Module):
    def __init__(self, c_in, c_out, nf=8):
        super().__init__()
        self.stem = nn.Conv1d(c_in, c_in, 1)  # expect-here
        self.block = InceptionModule(c_in, nf)
        self.gap = nn.AdaptiveAvgPool1d(1)
        self.fc = nn.Linear(nf * 4, c_out)

    def forward(self, x):
        x = self.block(self.stem(x))  # expect-here
        return self.fc(self.gap(x).squeeze(-1))


if __name__ == "__main__":
    X = np.random.randn(16, 3, 50)  # float64, as the features come out of the preprocessing
    xb = torch.tensor(X)  # expect-here
    model = InceptionTime(3, 2)
    print(model(xb).shape)  # expect-here
