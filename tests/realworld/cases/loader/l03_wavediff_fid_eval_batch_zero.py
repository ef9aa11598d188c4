# realworld-source: https://github.com/VinAIResearch/WaveDiff/issues/14
# realworld-family: loader
# realworld-error: ValueError: batch_size should be a positive integer value, but got batch_size=0
# realworld-key: batch_size should be a positive integer value
# realworld-measured: torch 2.11.0 CPU
# realworld-expect: loader-batch-size-divides-to-zero
# realworld-why: the per-process FID batch is batch_size // world_size inside a helper; values from module constants
import torch
from torch.utils.data import DataLoader, TensorDataset

FID_BATCH_SIZE = 100
WORLD_SIZE = 128  # one process per GPU on the 16-node job


def get_activations_loader(images, batch_size, world_size):
    per_rank = batch_size // world_size  # expect-here
    return DataLoader(TensorDataset(images), batch_size=per_rank, shuffle=False)  # expect-here


if __name__ == "__main__":
    fake = torch.rand(10, 3, 8, 8)
    loader = get_activations_loader(fake, FID_BATCH_SIZE, WORLD_SIZE)
    print(sum(1 for _ in loader))
