# realworld-source: https://github.com/2014gaokao/pedestrian-attribute-recognition-with-GCN/issues/6
# realworld-family: shape
# realworld-error: RuntimeError: Given input size: (2048x7x7). Calculated output size: (2048x0x0). Output size is too small
# realworld-key: Output size is too small
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: conv-input-smaller-than-kernel
# realworld-why: backbone built by a helper from a list of strides; pooling kernel is a constructor default; image size a constant
import torch
import torch.nn as nn

IMAGE_SIZE = 112


def make_backbone(strides=(2, 2, 2, 2), width=32):
    layers = []
    in_ch = 3
    for s in strides:
        layers.append(nn.Conv2d(in_ch, width, kernel_size=3, stride=s, padding=1))
        layers.append(nn.BatchNorm2d(width))
        layers.append(nn.ReLU(inplace=True))
        in_ch = width
        width *= 2
    return nn.Sequential(*layers), in_ch


class GCNAttributeNet(nn.Module):
    def __init__(self, num_classes=26, pool_size=14):
        super(GCNAttributeNet, self).__init__()
        self.features, channels = make_backbone()
        self.pooling = nn.MaxPool2d(pool_size, pool_size)  # expect-here
        self.fc = nn.Linear(channels, num_classes)

    def forward(self, img):
        feature = self.features(img)
        feature = self.pooling(feature)  # expect-here
        feature = feature.view(feature.size(0), -1)
        return self.fc(feature)


if __name__ == "__main__":
    model = GCNAttributeNet().eval()
    img_trans = torch.rand(1, 3, IMAGE_SIZE, IMAGE_SIZE)
    with torch.no_grad():
        score = model(img_trans)
    print(score.shape)
