# realworld-source: https://github.com/NVIDIA/semantic-segmentation/issues/55
# realworld-family: loader
# realworld-error: ValueError: batch_size should be a positive integer value, but got batch_size=0
# realworld-key: batch_size should be a positive integer value
# realworld-measured: torch 2.11.0 CPU (here the argparse default -1, meant as "whole set", reaches the DataLoader: batch_size=-1)
# realworld-expect: loader-batch-size-nonpositive
# realworld-why: value behind an argparse default, passed through a setup function
import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset


def setup_loaders(args):
    train_set = TensorDataset(torch.rand(32, 3, 8, 8))
    val_set = TensorDataset(torch.rand(12, 3, 8, 8))
    train_loader = DataLoader(train_set, batch_size=args.bs_mult, shuffle=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=args.bs_mult_val, shuffle=False)  # expect-here
    return train_loader, val_loader


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description='Semantic Segmentation')
    parser.add_argument('--bs_mult', type=int, default=2)
    parser.add_argument('--bs_mult_val', type=int, default=-1, help='validation batch size (-1: the whole set)')  # expect-here
    args = parser.parse_args([])
    train_loader, val_loader = setup_loaders(args)
    print(len(val_loader))
