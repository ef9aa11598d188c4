# realworld-source: https://github.com/pytorch/pytorch/issues/2458
# realworld-family: dtype
# realworld-error: RuntimeError: Input type (Byte) and weight type (Float) should be the same
# realworld-key: Input type (unsigned char) and bias type (float) should be the same
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: torch-integer-input
# realworld-why: images as a uint8 numpy array, torch.from_numpy, view to NCHW, through the MNIST example Net
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=5)  # expect-here
        self.conv2 = nn.Conv2d(10, 20, kernel_size=5)
        self.fc1 = nn.Linear(320, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x):
        x = F.relu(F.max_pool2d(self.conv1(x), 2))  # expect-here
        x = F.relu(F.max_pool2d(self.conv2(x), 2))
        x = x.view(-1, 320)
        return F.log_softmax(self.fc2(F.relu(self.fc1(x))), dim=1)


def load_images(n=16):
    # what the idx reader returns: raw pixels
    return np.random.randint(0, 256, size=(n, 28, 28)).astype(np.uint8)


if __name__ == "__main__":
    model = Net()
    images = torch.from_numpy(load_images())  # expect-here
    data = images.view(-1, 1, 28, 28)
    output = model(data)  # expect-here
    print(output.shape)
