"""What TensorFlow and Keras do with a batch-norm epsilon that is NaN or infinite (bn-eps-not-finite).

For eps in {nan, inf, -inf}, in training and in inference, it runs
`tf.compat.v1.nn.fused_batch_norm`, `tf.raw_ops.FusedBatchNormV3`, `tf.nn.batch_normalization` and
`tf.keras.layers.BatchNormalization` (its default path) on an NHWC [4, 5, 5, 3] input with scale 1 and
offset 0.5, and records whether the call raised, whether the output holds NaN, and whether every
output equals the offset (the normalized part is 0: the layer is dead). TensorFlow <= 2.11 raised eps
below 1.001e-5 to 1.001e-5 in fused batch norm (tf_bn_clamp.py): this shows what that does to NaN.

    python3 tests/probes/bn_eps_nonfinite_tf.py
First line: the versions; then one JSON line per case. Not part of CI.
"""
import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from probe_case import case  # noqa: E402

keras = tf.keras
print(json.dumps({"tensorflow": tf.__version__, "keras": getattr(keras, "__version__", "?"),
                  "onednn": os.environ.get("TF_ENABLE_ONEDNN_OPTS", "default")}), flush=True)
x = tf.constant(np.random.default_rng(0).standard_normal((4, 5, 5, 3)), tf.float32)
scale, offset = tf.ones(3), tf.fill([3], 0.5)


def summary(y):
    y = np.asarray(y)
    return {"nan": bool(np.isnan(y).any()), "inf": bool(np.isinf(y).any()), "all_equal_offset": bool(np.all(y == 0.5))}


def keras_layer(eps, training):
    layer = keras.layers.BatchNormalization(epsilon=eps, beta_initializer=keras.initializers.Constant(0.5))
    return summary(layer(x, training=training))


for eps in (float("nan"), float("inf"), float("-inf")):
    for training in (True, False):
        mode = "training" if training else "inference"
        stats = {} if training else {"mean": tf.zeros(3), "variance": tf.ones(3)}
        case(f"tf.compat.v1.nn.fused_batch_norm(epsilon={eps}) {mode}",
             lambda: summary(tf.compat.v1.nn.fused_batch_norm(x, scale, offset, epsilon=eps, is_training=training,
                                                              **stats)[0]))
        case(f"tf.raw_ops.FusedBatchNormV3(epsilon={eps}) {mode}",
             lambda: summary(tf.raw_ops.FusedBatchNormV3(x=x, scale=scale, offset=offset, mean=tf.zeros(3) if not training
                                                         else tf.constant([], tf.float32),
                                                         variance=tf.ones(3) if not training else tf.constant([], tf.float32),
                                                         epsilon=eps, is_training=training)[0]))
        case(f"tf.nn.batch_normalization(variance_epsilon={eps}) {mode}",
             lambda: summary(tf.nn.batch_normalization(x, *(tf.nn.moments(x, [0, 1, 2]) if training
                                                            else (tf.zeros(3), tf.ones(3))), offset, scale, eps)))
        case(f"keras.layers.BatchNormalization(epsilon={eps}) {mode}", lambda: keras_layer(eps, training))
