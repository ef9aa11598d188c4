# realworld-source: https://github.com/afiaka87/glide-finetune/issues/5
# realworld-family: batchnorm
# realworld-error: Training on half precision leads to nan values after the first optimizer step (Adam's default eps 1e-8 is 0 in float16)
# realworld-key: nan
# realworld-measured: torch 2.11.0 CPU (float16 parameters on the CPU: the rows of the embedding that got no gradient become nan)
# realworld-expect: optimizer-eps-vanishes-in-half
# realworld-why: model converted with .half() after construction, Adam with its default eps, created in a helper
import torch
import torch.nn as nn


class TextEncoder(nn.Module):
    def __init__(self, vocab=32, dim=16):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab, dim)
        self.proj = nn.Linear(dim, 1)

    def forward(self, tokens):
        return self.proj(self.token_embedding(tokens).mean(1))


def make_optimizer(model, lr=1e-4):
    return torch.optim.Adam(model.parameters(), lr=lr)  # expect-here


if __name__ == "__main__":
    model = TextEncoder().half()  # expect-here
    optimizer = make_optimizer(model)
    tokens = torch.tensor([[1, 2, 3]])
    loss = model(tokens).float().pow(2).mean()
    loss.backward()
    optimizer.step()
    print("unused row after one step:", model.token_embedding.weight[0, :4].tolist())
