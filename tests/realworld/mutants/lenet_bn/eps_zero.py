# realworld-source: mutant of the lenet_bn tutorial model (written here): eps zero
# realworld-family: batchnorm
# realworld-error: ValueError: batch_norm eps must be positive, but got 0.0
# realworld-key: eps must be positive
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: bn-eps-zero
import torch
from torch import nn

BATCH_SIZE = 8
IMG_SIZE = 28


def lenet_bn(eps=0.0):  # expect-here
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5), nn.BatchNorm2d(6, eps=eps), nn.Sigmoid(),  # expect-here
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Conv2d(6, 16, kernel_size=5), nn.BatchNorm2d(16, eps=eps), nn.Sigmoid(),  # expect-here
        nn.AvgPool2d(kernel_size=2, stride=2), nn.Flatten(),
        nn.Linear(16 * 4 * 4, 120), nn.BatchNorm1d(120, eps=eps), nn.Sigmoid(),  # expect-here
        nn.Linear(120, 84), nn.BatchNorm1d(84, eps=eps), nn.Sigmoid(),  # expect-here
        nn.Linear(84, 10))


if __name__ == "__main__":
    net = lenet_bn()
    X = torch.rand(size=(BATCH_SIZE, 1, IMG_SIZE, IMG_SIZE), dtype=torch.float32)
    for layer in net:
        X = layer(X)  # expect-here
        print(layer.__class__.__name__, 'output shape:\t', X.shape)
