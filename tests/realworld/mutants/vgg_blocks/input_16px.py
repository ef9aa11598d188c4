# realworld-source: mutant of the vgg_blocks tutorial model (written here): input 16px
# realworld-family: shape
# realworld-error: RuntimeError: Given input size: (32x1x1). Calculated output size: (32x0x0). Output size is too small
# realworld-key: Output size is too small
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: conv-input-smaller-than-kernel
import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

CONV_ARCH = ((1, 8), (1, 16), (2, 32), (2, 32), (2, 32))
IMG_SIZE = 16  # expect-here
BATCH_SIZE = 4


def vgg_block(num_convs, in_channels, out_channels):
    layers = []
    for _ in range(num_convs):
        layers.append(nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1))
        layers.append(nn.ReLU())
        in_channels = out_channels
    layers.append(nn.MaxPool2d(kernel_size=2, stride=2))  # expect-here
    return nn.Sequential(*layers)


def vgg(conv_arch):
    conv_blks = []
    in_channels = 1
    for (num_convs, out_channels) in conv_arch:
        conv_blks.append(vgg_block(num_convs, in_channels, out_channels))
        in_channels = out_channels
    return nn.Sequential(*conv_blks, nn.Flatten(), nn.LazyLinear(64), nn.ReLU(), nn.Linear(64, 10))


if __name__ == "__main__":
    net = vgg(CONV_ARCH)
    images = np.random.rand(8, 1, IMG_SIZE, IMG_SIZE).astype(np.float32)
    labels = np.random.randint(0, 10, size=(8,))
    train_iter = DataLoader(TensorDataset(torch.from_numpy(images), torch.from_numpy(labels)), batch_size=BATCH_SIZE)
    for X, y in train_iter:
        print(net(X).shape)  # expect-here
