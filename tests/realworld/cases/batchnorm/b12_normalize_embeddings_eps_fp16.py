# realworld-source: https://github.com/pytorch/pytorch/issues/32137
# realworld-family: batchnorm
# realworld-error: torch.nn.functional.normalize epsilon too small for half precision: nan when the norm is zero
# realworld-key: nan
# realworld-measured: torch 2.11.0 CPU (float16 on the CPU: a zero embedding row normalizes to nan)
# realworld-expect: eps-vanishes-in-half
# realworld-why: eps stored on the module (self.eps = 1e-12) and passed to F.normalize on a half tensor
import torch
import torch.nn as nn
import torch.nn.functional as F


class EmbeddingHead(nn.Module):
    def __init__(self, dim=8, eps=1e-12):  # expect-here
        super().__init__()
        self.proj = nn.Linear(dim, dim, bias=False)
        self.eps = eps

    def forward(self, x):
        emb = self.proj(x)
        return F.normalize(emb, p=2, dim=-1, eps=self.eps)  # expect-here


if __name__ == "__main__":
    head = EmbeddingHead().half()  # expect-here
    x = torch.zeros(2, 8).half()  # padding rows are all zeros
    print(head(x))
