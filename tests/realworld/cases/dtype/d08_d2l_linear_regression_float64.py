# realworld-source: https://github.com/OUCMachineLearning/OUCML/issues/24
# realworld-family: dtype
# realworld-error: RuntimeError: expected scalar type Double but found Float
# realworld-key: mat1 and mat2 must have the same dtype
# realworld-measured: torch 2.11.0 CPU (2.11 words it "mat1 and mat2 must have the same dtype, but got Double and Float")
# realworld-expect: torch-conv-dtype-mismatch
# realworld-why: float64 features from np.random.normal via torch.from_numpy into an nn.Linear model (no float64 rule yet; not a convolution)
import numpy as np
import torch
from torch import nn

num_inputs = 2
num_examples = 1000
true_w = [2, -3.4]
true_b = 4.2

features = torch.from_numpy(np.random.normal(0, 1, (num_examples, num_inputs)))  # expect-here
labels = true_w[0] * features[:, 0] + true_w[1] * features[:, 1] + true_b


class LinearNet(nn.Module):
    def __init__(self, n_feature):
        super(LinearNet, self).__init__()
        self.linear = nn.Linear(n_feature, 1)  # expect-here

    def forward(self, x):
        return self.linear(x)  # expect-here


if __name__ == "__main__":
    net = LinearNet(num_inputs)
    loss = nn.MSELoss()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.03)
    for i in range(0, num_examples, 10):
        X, y = features[i:i + 10], labels[i:i + 10]
        output = net(X)  # expect-here
        l = loss(output, y.view(-1, 1))
        optimizer.zero_grad()
        l.backward()
        optimizer.step()
