# realworld-source: https://github.com/ZhengkunTian/OpenTransformer/issues/48
# realworld-family: shape
# realworld-error: RuntimeError: Calculated padded input size per channel: (2 x 42). Kernel size: (3 x 3). Kernel size can't be greater than actual input size
# realworld-key: Kernel size can't be greater than actual input size
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: conv-input-smaller-than-kernel
# realworld-why: layers are attributes used one by one in forward; input made by unsqueeze of a (B, T, F) tensor
import torch
import torch.nn as nn


class Conv2dSubsampling(nn.Module):
    def __init__(self, input_size, output_size, dropout=0.0):
        super(Conv2dSubsampling, self).__init__()
        self.conv1 = nn.Conv2d(1, output_size, 3, 2)
        self.conv2 = nn.Conv2d(output_size, output_size, 3, 2)  # expect-here
        self.linear = nn.Linear(output_size * (((input_size - 1) // 2 - 1) // 2), output_size)
        self.dropout = nn.Dropout(dropout)

    def forward(self, inputs):
        x = inputs.unsqueeze(1)  # (B, 1, T, F)
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(x))  # expect-here
        b, c, t, f = x.size()
        x = self.linear(x.transpose(1, 2).contiguous().view(b, t, c * f))
        return self.dropout(x)


if __name__ == "__main__":
    frontend = Conv2dSubsampling(input_size=80, output_size=32)
    # a 5-frame utterance (50 ms of audio) with 80 filterbank features
    feats = torch.randn(1, 5, 80)
    print(frontend(feats).shape)
