# realworld-source: https://github.com/apache/tvm/issues/12590
# realworld-family: batchnorm
# realworld-error: BatchNorm gives incorrect output with eps=-1.0 (NaN where var < 1)
# realworld-key: eps must be positive
# realworld-measured: torch 2.11.0 CPU (2.11 refuses it: "batch_norm eps must be positive, but got -1.0"; older versions return NaN)
# realworld-expect: bn-eps-negative
# realworld-why: layers in a list of (layer, input) tuples iterated by a test loop, eval mode
import torch


def init_weight(m):
    torch.nn.init.normal_(m.weight, 0, 0.01)
    torch.nn.init.normal_(m.bias)


def test_forward_batchnorm():
    inp_2d = torch.rand((1, 16, 10, 10))
    inp_3d = torch.rand((1, 16, 10, 10, 10))
    outs = []
    for bn, inp in [(torch.nn.BatchNorm2d(16, eps=-1.0), inp_2d), (torch.nn.BatchNorm3d(16, eps=-1.0), inp_3d)]:  # expect-here
        init_weight(bn.eval())
        outs.append(bn(inp))  # expect-here
    return outs


if __name__ == "__main__":
    print([o.isnan().any().item() for o in test_forward_batchnorm()])
