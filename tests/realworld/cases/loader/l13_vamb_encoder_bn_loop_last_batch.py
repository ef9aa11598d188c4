# realworld-source: https://github.com/RasmussenLab/vamb/issues/5
# realworld-family: loader
# realworld-error: ValueError: Expected more than 1 value per channel when training
# realworld-key: Expected more than 1 value per channel when training
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: loader-last-batch-single-sample
# realworld-why: encoder layers and their BatchNorm1d in ModuleLists built in a loop, applied with zip in _encode; 257 contigs, batch size 256
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class VAE(nn.Module):
    def __init__(self, nsamples, nhiddens=(64, 32), nlatent=8, dropout=0.2):
        super(VAE, self).__init__()
        self.ntnf = 103
        self.encoderlayers = nn.ModuleList()
        self.encodernorms = nn.ModuleList()
        for nin, nout in zip([nsamples + self.ntnf] + list(nhiddens), nhiddens):
            self.encoderlayers.append(nn.Linear(nin, nout))
            self.encodernorms.append(nn.BatchNorm1d(nout))  # expect-here
        self.mu = nn.Linear(nhiddens[-1], nlatent)
        self.relu = nn.LeakyReLU()
        self.dropoutlayer = nn.Dropout(p=dropout)

    def _encode(self, tensor):
        for encoderlayer, encodernorm in zip(self.encoderlayers, self.encodernorms):
            tensor = encodernorm(self.dropoutlayer(self.relu(encoderlayer(tensor))))  # expect-here
        return self.mu(tensor)

    def forward(self, depths, tnf):
        return self._encode(torch.cat((depths, tnf), 1))


def make_dataloader(rpkm, tnf, batchsize=256):
    return DataLoader(TensorDataset(rpkm, tnf), batch_size=batchsize, shuffle=True, drop_last=False)  # expect-here


if __name__ == "__main__":
    ncontigs, nsamples = 257, 3
    dl = make_dataloader(torch.rand(ncontigs, nsamples), torch.rand(ncontigs, 103))
    vae = VAE(nsamples)
    vae.train()
    for depths_in, tnf_in in dl:
        vae(depths_in, tnf_in).sum().backward()
    print("epoch done")
