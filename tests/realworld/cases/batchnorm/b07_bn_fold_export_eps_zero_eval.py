# realworld-source: https://github.com/Tencent/ncnn/issues/303
# realworld-family: batchnorm
# realworld-error: zero-division when sqrt(var) is 0 with a BatchNorm epsilon of 0
# realworld-key: eps must be positive
# realworld-measured: torch 2.11.0 CPU (refused even in eval: "batch_norm eps must be positive, but got 0.0"; torch >= 2.12 allows it in eval)
# realworld-expect: bn-eps-zero
# realworld-why: eps set on an existing module by attribute assignment in a loop over model.modules()
import torch
import torch.nn as nn


def make_model():
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
        nn.Conv2d(8, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
    )


def prepare_for_export(model):
    # the converter adds eps to the variance itself, so the layers must not add it again
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eps = 0.0  # expect-here
    return model.eval()


if __name__ == "__main__":
    model = prepare_for_export(make_model())
    with torch.no_grad():
        print(model(torch.rand(1, 3, 16, 16)).shape)
