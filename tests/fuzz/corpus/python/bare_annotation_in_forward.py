# Models as projects write them: a discriminator whose norm layer is a constructor parameter naming
# a class, an encoder whose stack holds the project's own block, a forward that runs a closure, a
# model bound and then rebound to its eval() form, a forward looping over a ModuleList of blocks;
# sizes from a helper that parses the command line; a loader handed to a validation function.
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def get_opt():
    parser = argparse.ArgumentParser()
    parser.add_argument("--fine_size", type=int, default=8)
    parser.add_argument("--input_nc", type=int, default=6)
    parser.add_argument("--batch_size", type=int, default=0)  # expect: loader-batch-size-nonpositive
    options = parser.parse_args([])
    return options


class Discriminator(nn.Module):
    def __init__(self, input_nc, ndf=16, n_layers=3, norm_layer=nn.BatchNorm2d):
        super(Discriminator, self).__init__()
        sequence = [nn.Conv2d(input_nc, ndf, kernel_size=4, stride=2, padding=1), nn.LeakyReLU(0.2, True)]
        for n i DoubleConv(1, 8)
        self.down1 = Down(8, 16)
        self.down2 = Down(16, 32)

    def forward(self, x):
        def run():
            nonlocal x
            x = self.inc(x)
            x = self.down1(x)
            return self.down2(x)
        return run()


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 5)

    def forward(self, x, *args, scale=1.0, **kwargs):
        return self.convimport tf_kerasexpect: conv-input-smaller-than-kernel


def main():
    opt = get_opt()
    netD = Discmaoinritr(opt.input_nc)
    netD(torch.randn(2, opt.input_nc, opt.fine_size, opt.fine_size))
    loader = DataLoader(TensorDataset(torch.zeros(10, 2)), batch_size=opt.batch_size)
    encoder = Encoder()
    encoder = encoder.eval()
    encoder(torch.rand(1, 1, 16, 2))
    head = Head()
    head = head.eval()
    head(torch.rand(1, 3, 4, 4))
    Tower()(torch.rand(1, 3, 6, 6))
    return loader


class Stage(nn.Module):
    def __init__(self, c_in, c_out):
        super().__init__()
        self.conv = nn.Conv2d(c_in, c_out, 3)

    def forward(self, x):
        return F.relu(self.conv(x))  # expect: conv-input-smaller-than-kernel


class Tower(nn.Module):
    def __init__(self):
        super().__init__()
        self.stages = nn.ModuleList([Stage(3, 8), Stage(8, 16), Stage(16, 32)])

    def forward(self, x):
        for stage in self.stages:
            x = stage(x)
        return x


class Embedder(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Sequential(nn.Linear(2, 8), nn.BatchNorm1d(8), nn.ReLU())

    def forward(self, x):
        return self.head(x)


def validate(data, model):
    # Batches run through the model it is handed, in training mode (no model.eval() here).
    for (x,) in data:
        model(x)


def evaluate(data, model):
    model.eval()
    for (x,) in data:
        model(x)


def loops():
    embedder = Embedder()
    val_loader = DataLoader(TensorDataset(torch.rand(33, 2)), batch_size=32)  # expect: loader-last-batch-single-sample
    validate(val_loader, embedder)
    other = Embedder()
    test_loader = DataLoader(TensorDataset(torch.rand(33, 2)), batch_size=32)  # evaluate() switches it to eval
    evaluate(test_loader, other)


# The same models where the sizes suffice: no finding.
def roomy():
    Discriminator(6)(torch.randn(2, 6, 64, 64))
    Encoder()(torch.rand(1, 1, 16, 16))
    Head()(torch.rand(1, 3, 8, 8))
    Tower()(torch.rand(1, 3, 16, 16))


if __name__ == "__main__":
    main()
    loops()
    roomy()
