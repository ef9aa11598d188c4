"""A Flax encoder. Flax computes batch norm in plain jnp, so the cuDNN floor does not
apply, but a zero epsilon still divides by sqrt(0) on a constant channel.

Expected: bn-eps-zero.
"""
import flax.linen as nn


class Encoder(nn.Module):
    features: int

    @nn.compact
    def __call__(self, x, train: bool = True):
        x = nn.Conv(self.features, (3, 3))(x)
        x = nn.BatchNorm(use_running_average=not train, epsilon=0.0)(x)
        return nn.relu(x)
