# realworld-source: https://github.com/nv-tlabs/GSCNN/issues/83
# realworld-family: loader
# realworld-error: ValueError: batch_size should be a positive integer value, but got batch_size=0
# realworld-key: batch_size should be a positive integer value
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: loader-batch-size-nonpositive
# realworld-why: batch = bs_mult * ngpu where the single-card config sets ngpu = 0; values are class attributes of a config object
import torch
from torch.utils.data import DataLoader, TensorDataset


class cfg:
    bs_mult = 2
    ngpu = 0  # single card: no DataParallel replicas


def make_loader(args):
    train_batch_size = args.bs_mult * args.ngpu
    train_set = TensorDataset(torch.rand(8, 3, 16, 16), torch.zeros(8, 16, 16, dtype=torch.long))
    return DataLoader(train_set, batch_size=train_batch_size, num_workers=0, shuffle=True, drop_last=True)  # expect-here


if __name__ == "__main__":
    print(len(make_loader(cfg)))
