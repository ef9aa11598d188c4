# realworld-source: https://github.com/mindee/doctr/issues/1868
# realworld-family: shape
# realworld-error: RuntimeError: Given input size: (128x1x16). Calculated output size: (128x0x8). Output size is too small
# realworld-key: Output size is too small
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: conv-input-smaller-than-kernel
# realworld-why: VGG-style make_layers over a cfg list with 'M' markers, input height a module constant
import torch
import torch.nn as nn

CFG = [64, 'M', 128, 'M', 256, 256, 'M', 512, 512, 'M', 512, 'M']
INPUT_HEIGHT = 16
INPUT_WIDTH = 64


def make_layers(cfg, in_channels=3):
    layers = []
    for v in cfg:
        if v == 'M':
            layers += [nn.MaxPool2d(kernel_size=2, stride=2)]  # expect-here
        else:
            layers += [nn.Conv2d(in_channels, v, kernel_size=3, padding=1), nn.ReLU(inplace=True)]
            in_channels = v
    return nn.Sequential(*layers)


class CRNN(nn.Module):
    def __init__(self, vocab_size=30):
        super().__init__()
        self.feat_extractor = make_layers(CFG)
        self.decoder = nn.LSTM(512, 64, bidirectional=True, batch_first=True)
        self.linear = nn.Linear(128, vocab_size + 1)

    def forward(self, x):
        features = self.feat_extractor(x)  # expect-here
        b, c, h, w = features.shape
        features = features.reshape(b, c * h, w).transpose(1, 2)
        out, _ = self.decoder(features)
        return self.linear(out)


if __name__ == "__main__":
    model = CRNN().eval()
    crops = torch.rand(2, 3, INPUT_HEIGHT, INPUT_WIDTH)
    with torch.no_grad():
        print(model(crops).shape)
