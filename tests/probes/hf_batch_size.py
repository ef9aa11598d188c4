"""What Hugging Face transformers does with per_device_*_batch_size <= 0 (issue 9's loader family).

Run where transformers and torch are installed:  python3 tests/probes/hf_batch_size.py
One JSON line per case: where it fails (TrainingArguments, or the Trainer's DataLoader) and how.
Not part of CI.
"""
import json

import torch
import transformers
from transformers import Trainer, TrainingArguments

print(json.dumps({"transformers": transformers.__version__, "torch": torch.__version__}), flush=True)


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(3, 1)

    def forward(self, x, labels=None):
        out = self.linear(x)
        return {"loss": out.mean(), "logits": out}


data = [{"x": torch.randn(3), "labels": torch.tensor(0.0)} for _ in range(8)]
for field in ("per_device_train_batch_size", "per_device_eval_batch_size"):
    for value in (0, -1):
        row = {"case": f"TrainingArguments({field}={value})"}
        try:
            args = TrainingArguments(output_dir="/tmp/hf-probe", report_to=[], **{field: value})
            row["arguments"] = {"train_batch_size": args.train_batch_size, "eval_batch_size": args.eval_batch_size}
            trainer = Trainer(model=Tiny(), args=args, train_dataset=data, eval_dataset=data)
            loader = trainer.get_train_dataloader() if "train" in field else trainer.get_eval_dataloader()
            row["loader"] = f"{type(loader).__name__}, first batch: {len(next(iter(loader))['x'])}"
        except Exception as exc:
            row["error"] = f"{type(exc).__name__}: {str(exc)[:220]}"
        print(json.dumps(row), flush=True)
