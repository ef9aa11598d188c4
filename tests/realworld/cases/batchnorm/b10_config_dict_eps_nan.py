# realworld-source: https://github.com/pytorch/pytorch/issues/166405
# realworld-family: batchnorm
# realworld-error: batch_norm lacks validation of its epsilon: a NaN epsilon is accepted and every output is NaN
# realworld-key: nan
# realworld-measured: torch 2.11.0 CPU (eps=float('nan') is not refused by the eps > 0 check; every output is NaN)
# realworld-expect: bn-eps-not-finite
# realworld-why: eps read from a config dict whose value is float('nan') (the "unset" marker of the config loader)
import math

import torch
import torch.nn as nn

DEFAULTS = {"bn_eps": float("nan"), "bn_momentum": 0.1, "width": 16}  # expect-here


def load_config(overrides=None):
    cfg = dict(DEFAULTS)
    cfg.update(overrides or {})
    return cfg


class Encoder(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        w = cfg["width"]
        self.conv = nn.Conv2d(3, w, 3, padding=1)
        self.bn = nn.BatchNorm2d(w, eps=cfg["bn_eps"], momentum=cfg["bn_momentum"])  # expect-here

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))  # expect-here


if __name__ == "__main__":
    cfg = load_config()
    enc = Encoder(cfg)
    out = enc(torch.rand(2, 3, 8, 8))
    print("output mean:", out.mean().item(), "eps is NaN:", math.isnan(cfg["bn_eps"]))
