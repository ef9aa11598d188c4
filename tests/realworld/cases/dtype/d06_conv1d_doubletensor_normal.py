# realworld-source: https://github.com/pytorch/pytorch/issues/1498
# realworld-family: dtype
# realworld-error: RuntimeError: expected Double tensor (got Float tensor)
# realworld-key: Input type (double) and bias type (float) should be the same
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: torch-conv-dtype-mismatch
# realworld-why: torch.DoubleTensor(...).normal_() into a float32 Conv1d
import torch
import torch.nn as nn

x_stub = torch.DoubleTensor(100, 15, 12).normal_(0, 1)  # expect-here
conv_1 = nn.Conv1d(15, 15, 3)  # expect-here

if __name__ == "__main__":
    y = conv_1(x_stub)  # expect-here
    print(y.shape)
