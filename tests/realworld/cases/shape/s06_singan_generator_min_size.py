# realworld-source: https://github.com/tamarott/SinGAN/issues/28
# realworld-family: shape
# realworld-error: RuntimeError: Calculated padded input size per channel: (1 x 4). Kernel size: (3 x 3). Kernel size can't be greater than actual input size
# realworld-key: Kernel size can't be greater than actual input size
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: conv-input-smaller-than-kernel
# realworld-why: ConvBlock subclass of nn.Sequential added with add_module in a loop; sizes in a config object
import torch
import torch.nn as nn


class Opt:
    nc_im = 3
    nfc = 32
    min_nfc = 32
    ker_size = 3
    padd_size = 0
    num_layer = 5
    min_size = 9


class ConvBlock(nn.Sequential):
    def __init__(self, in_channel, out_channel, ker_size, padd, stride):
        super(ConvBlock, self).__init__()
        self.add_module('conv', nn.Conv2d(in_channel, out_channel, kernel_size=ker_size, stride=stride, padding=padd))
        self.add_module('norm', nn.BatchNorm2d(out_channel))
        self.add_module('LeakyRelu', nn.LeakyReLU(0.2, inplace=True))


class GeneratorConcatSkip2CleanAdd(nn.Module):
    def __init__(self, opt):
        super(GeneratorConcatSkip2CleanAdd, self).__init__()
        N = opt.nfc
        self.head = ConvBlock(opt.nc_im, N, opt.ker_size, opt.padd_size, 1)
        self.body = nn.Sequential()
        for i in range(opt.num_layer - 2):
            N = int(opt.nfc / pow(2, (i + 1)))
            block = ConvBlock(max(2 * N, opt.min_nfc), max(N, opt.min_nfc), opt.ker_size, opt.padd_size, 1)
            self.body.add_module('block%d' % (i + 1), block)
        self.tail = nn.Sequential(
            nn.Conv2d(max(N, opt.min_nfc), opt.nc_im, kernel_size=opt.ker_size, stride=1, padding=opt.padd_size),  # expect-here
            nn.Tanh(),
        )

    def forward(self, x, y):
        x = self.head(x)
        x = self.body(x)
        x = self.tail(x)  # expect-here
        ind = int((y.shape[2] - x.shape[2]) / 2)
        y = y[:, :, ind:(y.shape[2] - ind), ind:(y.shape[3] - ind)]
        return x + y


if __name__ == "__main__":
    opt = Opt()
    G = GeneratorConcatSkip2CleanAdd(opt)
    noise = torch.randn(2, opt.nc_im, opt.min_size, opt.min_size)
    prev = torch.zeros(2, opt.nc_im, opt.min_size, opt.min_size)
    print(G(noise, prev).shape)
