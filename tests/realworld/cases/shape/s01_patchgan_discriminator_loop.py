# realworld-source: https://github.com/Ha0Tang/SelectionGAN/issues/5
# realworld-family: shape
# realworld-error: RuntimeError: Calculated padded input size per channel: (3 x 3). Kernel size: (4 x 4). Kernel size can't be greater than actual input size
# realworld-key: Kernel size can't be greater than actual input size
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: conv-input-smaller-than-kernel
# realworld-why: layers appended in a loop over n_layers, input size from an argparse default
import argparse

import torch
import torch.nn as nn


class NLayerDiscriminator(nn.Module):
    def __init__(self, input_nc, ndf=64, n_layers=3, norm_layer=nn.BatchNorm2d):
        super(NLayerDiscriminator, self).__init__()
        kw = 4
        padw = 1
        sequence = [nn.Conv2d(input_nc, ndf, kernel_size=kw, stride=2, padding=padw), nn.LeakyReLU(0.2, True)]
        nf_mult = 1
        for n in range(1, n_layers):
            nf_mult_prev = nf_mult
            nf_mult = min(2 ** n, 8)
            sequence += [
                nn.Conv2d(ndf * nf_mult_prev, ndf * nf_mult, kernel_size=kw, stride=2, padding=padw),
                norm_layer(ndf * nf_mult),
                nn.LeakyReLU(0.2, True),
            ]
        nf_mult_prev = nf_mult
        nf_mult = min(2 ** n_layers, 8)
        sequence += [
            nn.Conv2d(ndf * nf_mult_prev, ndf * nf_mult, kernel_size=kw, stride=1, padding=padw),
            norm_layer(ndf * nf_mult),
            nn.LeakyReLU(0.2, True),
        ]
        sequence += [nn.Conv2d(ndf * nf_mult, 1, kernel_size=kw, stride=1, padding=padw)]  # expect-here
        self.model = nn.Sequential(*sequence)

    def forward(self, input):
        return self.model(input)  # expect-here


def get_opt():
    parser = argparse.ArgumentParser()
    parser.add_argument('--fineSize', type=int, default=16, help='crop images to this size')
    parser.add_argument('--input_nc', type=int, default=6)
    parser.add_argument('--ndf', type=int, default=16)
    return parser.parse_args([])


if __name__ == "__main__":
    opt = get_opt()
    netD = NLayerDiscriminator(opt.input_nc, opt.ndf, n_layers=3)
    real_AB = torch.randn(2, opt.input_nc, opt.fineSize, opt.fineSize)
    pred_real = netD(real_AB)
    print(pred_real.shape)
