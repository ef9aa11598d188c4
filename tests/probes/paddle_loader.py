"""What Paddle's loaders do with a batch size <= 0 or None, and with drop_last over fewer samples
than one batch (rules/api_table.json's paddle.io.DataLoader and paddle.io.BatchSampler entries).

Run where paddlepaddle is installed:  python3 tests/probes/paddle_loader.py
One JSON line per case: len() of the loader or the first batch's shape, or the exception raised.
Not part of CI.
"""
import json

import numpy as np
import paddle
from paddle.io import BatchSampler, DataLoader, Dataset

from probe_case import case

print(json.dumps({"paddle": paddle.__version__, "numpy": np.__version__}), flush=True)


class Samples(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, index):
        return np.zeros(3, "float32")


for size in (0, -1, None):
    case(f"DataLoader(10 samples, batch_size={size})", lambda: len(DataLoader(Samples(10), batch_size=size)))
    case(f"BatchSampler(10 samples, batch_size={size})", lambda: len(BatchSampler(Samples(10), batch_size=size)))
case("DataLoader(10 samples, batch_size=16, drop_last=True)", lambda: len(DataLoader(Samples(10), batch_size=16, drop_last=True)))
case("DataLoader(10 samples, batch_size=8, drop_last=True)", lambda: len(DataLoader(Samples(10), batch_size=8, drop_last=True)))
case("DataLoader(33 samples, batch_size=16): the last batch", lambda: [b.shape[0] for b in DataLoader(Samples(33), batch_size=16)][-1])
case("paddle.batch(reader, batch_size=0) (the legacy reader API; not in the table)",
     lambda: str(paddle.batch(lambda: iter(range(10)), batch_size=0)))
