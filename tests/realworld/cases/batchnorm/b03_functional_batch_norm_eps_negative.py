# realworld-source: https://github.com/pytorch/pytorch/issues/166405
# realworld-family: batchnorm
# realworld-error: F.batch_norm accepts illegal negative epsilon values and produces inconsistent NaN (CPU) vs inf (CUDA) results
# realworld-key: eps must be positive
# realworld-measured: torch 2.11.0 CPU (refused since: "batch_norm eps must be positive, but got -1.0")
# realworld-expect: bn-eps-negative
# realworld-why: F.batch_norm with an eps keyword from a module constant, inside a custom normalization module
import torch
import torch.nn as nn
import torch.nn.functional as F

BN_EPS = -1.0  # expect-here


class FrozenStatsNorm(nn.Module):
    def __init__(self, num_features):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))

    def forward(self, x):
        return F.batch_norm(x, self.running_mean, self.running_var, eps=BN_EPS)  # expect-here


if __name__ == "__main__":
    torch.manual_seed(42)
    norm = FrozenStatsNorm(1)
    print(norm(torch.tensor([[[[1.0]]]])))
