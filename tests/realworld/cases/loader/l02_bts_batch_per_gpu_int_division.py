# realworld-source: https://github.com/cleinc/bts/issues/120
# realworld-family: loader
# realworld-error: ValueError: batch_size should be a positive integer value, but got batch_size=0
# realworld-key: batch_size should be a positive integer value
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: loader-batch-size-divides-to-zero
# realworld-why: int(args.batch_size / ngpus_per_node) with both values argparse defaults; loader built in a wrapper class
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset


class BtsDataLoader(object):
    def __init__(self, args, mode):
        samples = TensorDataset(torch.rand(16, 3, 8, 8), torch.rand(16, 1, 8, 8))
        if mode == 'train':
            self.data = DataLoader(samples, args.batch_size, shuffle=True, num_workers=0)  # expect-here


def main_worker(gpu, ngpus_per_node, args):
    args.batch_size = int(args.batch_size / ngpus_per_node)  # expect-here
    dataloader = BtsDataLoader(args, 'train')
    return len(dataloader.data)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument('--batch_size', type=int, default=4)
    parser.add_argument('--ngpus', type=int, default=8)
    args = parser.parse_args([])
    print(main_worker(0, args.ngpus, args))
