# realworld-source: https://github.com/tensorflow/tensorflow/issues/8090
# realworld-family: batchnorm
# realworld-error: fused_batch_norm doesn't work with epsilon < 1e-5 (cuDNN exception); TensorFlow since raises epsilon to 1.001e-5 silently
# realworld-key: none
# realworld-measured: not a failure on CPU: tensorflow-cpu 2.21.0 runs it (the epsilon is clamped to 1.001e-5), see KB tensorflow/fused-bn-epsilon-clamped
# realworld-expect: bn-eps-silently-clamped
# realworld-why: tf.compat.v1.nn.fused_batch_norm in a helper, epsilon from a keyword default
import tensorflow as tf


def batch_norm(x, scale, offset, epsilon=1e-6):  # expect-here
    y, mean, var = tf.compat.v1.nn.fused_batch_norm(x, scale, offset, epsilon=epsilon, is_training=True)  # expect-here
    return y


if __name__ == "__main__":
    x = tf.random.normal([4, 8, 8, 16])
    scale = tf.ones([16])
    offset = tf.zeros([16])
    print(batch_norm(x, scale, offset).shape)
