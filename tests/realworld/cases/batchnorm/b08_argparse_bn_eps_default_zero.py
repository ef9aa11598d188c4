# realworld-source: https://github.com/pytorch/pytorch/issues/173337
# realworld-family: batchnorm
# realworld-error: ValueError: batch_norm eps must be positive, but got 0.0
# realworld-key: eps must be positive
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: bn-eps-zero
# realworld-why: eps behind an argparse default, threaded through a model builder and a make_layer loop
import argparse

import torch
import torch.nn as nn


def conv_bn(c_in, c_out, stride, bn_eps):
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False),
        nn.BatchNorm2d(c_out, eps=bn_eps),  # expect-here
        nn.ReLU(inplace=True),
    )


class Net(nn.Module):
    def __init__(self, widths=(16, 32, 64), bn_eps=1e-5):
        super().__init__()
        layers = []
        c_in = 3
        for i, w in enumerate(widths):
            layers.append(conv_bn(c_in, w, 1 if i == 0 else 2, bn_eps))
            c_in = w
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(c_in, 10)

    def forward(self, x):
        return self.head(self.body(x).mean((2, 3)))  # expect-here


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument('--bn-eps', type=float, default=0.0, help='batch-norm epsilon (0 = exact statistics)')  # expect-here
    args = parser.parse_args([])
    model = Net(bn_eps=args.bn_eps)
    print(model(torch.rand(2, 3, 16, 16)).shape)
