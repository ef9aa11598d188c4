"""The part sizes torch's random_split and scikit-learn's train_test_split give (the loader family's
dataset sizes: python/extract/local_values.cpp split_sizes and train_test_split_part).

Run where torch, numpy and scikit-learn are installed:  python3 tests/probes/dataset_split_sizes.py
One JSON line per case: the parts' sizes, or the exception raised. Not part of CI.
"""
import json

import numpy as np
import sklearn
import torch
from sklearn.model_selection import train_test_split
from torch.utils.data import TensorDataset, random_split

from probe_case import case

print(json.dumps({"torch": torch.__version__, "sklearn": sklearn.__version__, "numpy": np.__version__}), flush=True)
data = TensorDataset(torch.rand(100, 3))
for lengths in ([95, 5], [0.97, 0.03], [0.9, 0.1], [0.5, 0.5], [90, 5]):
    case(f"random_split(100 samples, {lengths})", lambda: [len(p) for p in random_split(data, lengths)])
X = np.zeros((50, 3))
for kwargs in ({"test_size": 0.04}, {"test_size": 0.05}, {"test_size": 0.011}, {"test_size": 5}, {},
               {"train_size": 0.95}, {"train_size": 0.93, "test_size": 0.05}, {"test_size": 1.0}, {"test_size": 0}):
    case(f"train_test_split(50 rows, {kwargs})", lambda: [len(p) for p in train_test_split(X, **kwargs)])
