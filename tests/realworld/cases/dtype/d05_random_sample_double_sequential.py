# realworld-source: https://github.com/pytorch/pytorch/issues/2138
# realworld-family: dtype
# realworld-error: RuntimeError: expected Double tensor (got Float tensor)
# realworld-key: expected scalar type Double but found Float
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: torch-conv-dtype-mismatch
# realworld-why: float64 numpy array via torch.from_numpy(...).double() into an nn.Sequential conv (float32 weights)
import numpy as np
import torch
import torch.nn as nn

kernel = torch.from_numpy(np.random.random_sample((1, 3))).float()
input_ = torch.from_numpy(np.random.random_sample((1, 1, 1, 6))).double()  # expect-here

model = nn.Sequential(nn.Conv2d(1, 1, (1, 3), stride=1, padding=0, bias=False))  # expect-here
model[0].weight.data.copy_(kernel.view(1, 1, 1, 3))

if __name__ == "__main__":
    out = model(input_)  # expect-here
    print(out.data)
