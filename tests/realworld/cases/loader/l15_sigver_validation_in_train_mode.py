# realworld-source: https://github.com/luizgh/sigver/issues/10
# realworld-family: loader
# realworld-error: ValueError: Expected more than 1 value per channel when training, got input size torch.Size([1, 2048])
# realworld-key: Expected more than 1 value per channel when training
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: loader-last-batch-single-sample
# realworld-why: validation loop runs the base model without model.eval(); 97 validation signatures, batch size 32; BatchNorm1d in a feature head
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class SigNet(nn.Module):
    def __init__(self, feature_dim=64):
        super(SigNet, self).__init__()
        self.conv_layers = nn.Sequential(nn.Conv2d(1, 16, 5, 2), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.fc_layers = nn.Sequential(nn.Linear(16, feature_dim), nn.BatchNorm1d(feature_dim), nn.ReLU())  # expect-here

    def forward(self, x):
        x = self.conv_layers(x)
        return self.fc_layers(x.view(x.shape[0], -1))


def test(val_loader, base_model, classification_layer):
    correct = 0
    with torch.no_grad():
        for x, y in val_loader:
            features = base_model(x)  # expect-here
            correct += (classification_layer(features).argmax(1) == y).sum().item()
    return correct


if __name__ == "__main__":
    base_model = SigNet()
    classification_layer = nn.Linear(64, 10)
    val_set = TensorDataset(torch.rand(97, 1, 32, 48), torch.randint(0, 10, (97,)))
    val_loader = DataLoader(val_set, batch_size=32)  # expect-here
    print(test(val_loader, base_model, classification_layer))
