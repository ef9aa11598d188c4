"""Fine-tuning a classifier in pure float16, the way a quick script often does it.

cudnnlint reports three dtype findings here:
- `optimizer-eps-vanishes-in-half`: Adam's default eps (1e-8) becomes 0.0 in float16, and the
  model's parameters are float16 (`model.half()`), so a parameter with a zero gradient takes a
  0/0 step: NaN. Train in float32 with torch.autocast and a GradScaler instead.
- `eps-vanishes-in-half`: the embedding normalisation adds 1e-8 to a float16 norm; an all-zero
  feature row then divides 0 by 0.
- `torch-integer-input`: the sanity check feeds `read_image`'s uint8 tensor straight into the
  model (PyTorch: "expected scalar type Byte but found Float").
"""
import torch
import torch.nn.functional as F
import torchvision
from torchvision.io import read_image


def build():
    model = torchvision.models.resnet18(num_classes=10)
    model.half()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    return model, optimizer


def embed(model, images):
    feats = model(images.half())
    feats = feats.half()
    return feats / (feats.norm(dim=1, keepdim=True) + 1e-8)


def train_step(model, optimizer, images, labels):
    optimizer.zero_grad()
    logits = model(images.half())
    loss = F.cross_entropy(logits.float(), labels)
    loss.backward()
    optimizer.step()
    return loss.item()


def sanity_check(path):
    model = torchvision.models.resnet18(num_classes=10)
    image = read_image(path).unsqueeze(0)
    return model(image)
