# realworld-source: https://github.com/pytorch/pytorch/issues/882
# realworld-family: dtype
# realworld-error: TypeError: ByteTensor not working with F.conv2d (conv2d received an invalid combination of arguments)
# realworld-key: Input type (unsigned char) and bias type (float) should be the same
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: torch-integer-input
# realworld-why: Atari frames kept as a uint8 numpy buffer, torch.from_numpy then unsqueeze, fed to a DQN class
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class DQN(nn.Module):
    def __init__(self, in_channels=4, num_actions=18):
        super(DQN, self).__init__()
        self.conv1 = nn.Conv2d(in_channels, 32, kernel_size=8, stride=4)  # expect-here
        self.conv2 = nn.Conv2d(32, 64, kernel_size=4, stride=2)
        self.conv3 = nn.Conv2d(64, 64, kernel_size=3, stride=1)
        self.fc4 = nn.Linear(7 * 7 * 64, 512)
        self.fc5 = nn.Linear(512, num_actions)

    def forward(self, x):
        x = F.relu(self.conv1(x))  # expect-here
        x = F.relu(self.conv2(x))
        x = F.relu(self.conv3(x))
        x = F.relu(self.fc4(x.view(x.size(0), -1)))
        return self.fc5(x)


class ReplayBuffer(object):
    def __init__(self, size, frame_history_len=4):
        self.obs = np.zeros((size, frame_history_len, 84, 84), dtype=np.uint8)

    def encode_recent_observation(self):
        return self.obs[0]


def select_action(model, obs):
    obs = torch.from_numpy(obs).unsqueeze(0)  # expect-here
    with torch.no_grad():
        return model(obs).max(1)[1]  # expect-here


if __name__ == "__main__":
    Q = DQN()
    buf = ReplayBuffer(10)
    print(select_action(Q, buf.encode_recent_observation()))
