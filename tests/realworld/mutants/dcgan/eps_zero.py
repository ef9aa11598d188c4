# realworld-source: mutant of the dcgan tutorial model (written here): eps zero
# realworld-family: batchnorm
# realworld-error: ValueError: batch_norm eps must be positive, but got 0
# realworld-key: eps must be positive
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: bn-eps-zero
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

nz = 16
ngf = 8
ndf = 8
nc = 3
image_size = 64
batch_size = 8
dataset_size = 32


class Generator(nn.Module):
    def __init__(self):
        super(Generator, self).__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 8, eps=0), nn.ReLU(True),  # expect-here
            nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 4), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
            nn.ConvTranspose2d(ngf, nc, 4, 2, 1, bias=False), nn.Tanh())

    def forward(self, input):
        return self.main(input)  # expect-here


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, ndf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 4), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 4, ndf * 8, 4, 2, 1, bias=False), nn.BatchNorm2d(ndf * 8), nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 8, 1, 4, 1, 0, bias=False), nn.Sigmoid())

    def forward(self, input):
        return self.main(input).view(-1, 1).squeeze(1)


if __name__ == "__main__":
    netG, netD = Generator(), Discriminator()
    criterion = nn.BCELoss()
    dataset = TensorDataset(torch.rand(dataset_size, nc, image_size, image_size) * 2 - 1)
    dataloader = DataLoader(dataset, batch_size=batch_size, shuffle=True, drop_last=True)
    errD_total = 0.0
    for (real,) in dataloader:
        b_size = real.size(0)
        output = netD(real)
        errD_real = criterion(output, torch.ones(b_size))
        noise = torch.randn(b_size, nz, 1, 1)
        fake = netG(noise)  # expect-here
        errD_fake = criterion(netD(fake.detach()), torch.zeros(b_size))
        errD_total += (errD_real + errD_fake).item()
    print("mean errD", errD_total / len(dataloader))
