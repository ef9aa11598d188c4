# realworld-source: https://github.com/muhanzhang/pytorch_DGCNN/issues/24
# realworld-family: shape
# realworld-error: RuntimeError: Calculated padded input size per channel: (1). Kernel size: (5). Kernel size can't be greater than actual input size.
# realworld-key: Kernel size can't be greater than actual input size
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: conv-input-smaller-than-kernel
# realworld-why: Conv1d kernel and stride computed from constructor arguments (sum of a list), input length k * total_latent_dim
import torch
import torch.nn as nn
import torch.nn.functional as F


class DGCNNHead(nn.Module):
    def __init__(self, latent_dim=(32, 32, 32, 1), k=6, conv1d_channels=(16, 32), conv1d_kws=(0, 5)):
        super(DGCNNHead, self).__init__()
        self.k = k
        self.total_latent_dim = sum(latent_dim)
        conv1d_kws = list(conv1d_kws)
        conv1d_kws[0] = self.total_latent_dim
        self.conv1d_params1 = nn.Conv1d(1, conv1d_channels[0], conv1d_kws[0], conv1d_kws[0])
        self.maxpool1d = nn.MaxPool1d(2, 2)
        self.conv1d_params2 = nn.Conv1d(conv1d_channels[0], conv1d_channels[1], conv1d_kws[1], 1)  # expect-here

    def forward(self, batch_sortpooling_graphs):
        to_conv1d = batch_sortpooling_graphs.view((-1, 1, self.k * self.total_latent_dim))
        conv1d_res = F.relu(self.conv1d_params1(to_conv1d))
        conv1d_res = self.maxpool1d(conv1d_res)
        conv1d_res = F.relu(self.conv1d_params2(conv1d_res))  # expect-here
        return conv1d_res.view(len(batch_sortpooling_graphs), -1)


if __name__ == "__main__":
    head = DGCNNHead(k=6)
    graphs = torch.randn(4, head.k, head.total_latent_dim)
    print(head(graphs).shape)
