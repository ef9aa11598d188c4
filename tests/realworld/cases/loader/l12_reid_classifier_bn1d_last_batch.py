# realworld-source: https://github.com/dapengchen123/video_reid/issues/4
# realworld-family: loader
# realworld-error: ValueError: Expected more than 1 value per channel when training, got input size [1, 128]
# realworld-key: Expected more than 1 value per channel when training
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: loader-last-batch-single-sample
# realworld-why: BatchNorm1d on the difference of two features inside a classifier class; 33 pairs, batch size 32
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


class Classifier(nn.Module):
    def __init__(self, feat_num=128, class_num=2):
        super(Classifier, self).__init__()
        self.classifierBN = nn.BatchNorm1d(feat_num)  # expect-here
        self.classifierlinear = nn.Linear(feat_num, class_num)

    def forward(self, probe, gallery):
        diff = torch.pow(probe - gallery, 2)
        diff = self.classifierBN(diff)  # expect-here
        return self.classifierlinear(diff)


if __name__ == "__main__":
    pairs = TensorDataset(torch.rand(33, 128), torch.rand(33, 128), torch.randint(0, 2, (33,)))
    loader = DataLoader(pairs, batch_size=32, shuffle=True)  # expect-here
    clf = Classifier()
    clf.train()
    for probe, gallery, label in loader:
        loss = nn.functional.cross_entropy(clf(probe, gallery), label)
        loss.backward()
    print("epoch done")
