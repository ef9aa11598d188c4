# realworld-source: https://github.com/ZiqiaoPeng/SyncTalk/issues/151
# realworld-family: shape
# realworld-error: RuntimeError: Calculated padded input size per channel: (2). Kernel size: (3). Kernel size can't be greater than actual input size
# realworld-key: Kernel size can't be greater than actual input size
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: conv-input-smaller-than-kernel
# realworld-why: dilated Conv1d stack in an nn.ModuleList built with a list comprehension, applied in a for loop; window length a constructor argument
import torch
import torch.nn as nn


class AudioTCN(nn.Module):
    """Audio-feature encoder: dilated convolutions without padding over a short window of frames."""

    def __init__(self, dim_in=29, dim_hidden=32, kernel_size=3, levels=4, win_size=16):
        super(AudioTCN, self).__init__()
        self.win_size = win_size
        self.convs = nn.ModuleList([
            nn.Conv1d(dim_in if i == 0 else dim_hidden, dim_hidden, kernel_size, dilation=2 ** i)  # expect-here
            for i in range(levels)
        ])
        self.act = nn.LeakyReLU(0.02, True)

    def forward(self, x):
        for conv in self.convs:
            x = self.act(conv(x))  # expect-here
        return x.mean(-1)


if __name__ == "__main__":
    enc = AudioTCN()
    feats = torch.randn(8, 29, enc.win_size)
    print(enc(feats).shape)
