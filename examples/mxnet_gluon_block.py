"""An MXNet Gluon block. Gluon hands epsilon to cuDNN unchanged.

Expected: bn-eps-below-cudnn-min. cuDNN before 7.5 rejects eps < 1e-5 with
CUDNN_STATUS_BAD_PARAM; run with --cudnn-version to get a definite verdict.
"""
from mxnet.gluon import nn

EPS = 1 / 1e6


class ConvBlock(nn.HybridBlock):
    def __init__(self, channels, **kwargs):
        super().__init__(**kwargs)
        self.conv = nn.Conv2D(channels, kernel_size=3, padding=1, use_bias=False)
        self.bn = nn.BatchNorm(epsilon=EPS)

    def hybrid_forward(self, F, x):
        return F.relu(self.bn(self.conv(x)))
