# realworld-source: https://github.com/ml-explore/mlx/pull/4312
# realworld-family: batchnorm
# realworld-error: a negative eps makes rsqrt take the root of a negative number: part of the output is NaN, with no error
# realworld-key: nan
# realworld-measured: tensorflow-cpu 2.21.0 / keras 3.15.1 CPU (the same mistake written in Keras: training step on constant frames prints a nan loss)
# realworld-expect: bn-eps-negative
# realworld-why: functional model whose conv-bn blocks come from a helper with an epsilon keyword default
import numpy as np
import tensorflow as tf
from tensorflow.keras import layers


def conv_bn(x, filters, kernel_size, strides=1, epsilon=-1e-3):  # expect-here
    x = layers.Conv2D(filters, kernel_size, strides=strides, padding='same', use_bias=False)(x)
    x = layers.BatchNormalization(epsilon=epsilon)(x)  # expect-here
    return layers.Activation('relu')(x)


def build(num_classes=4):
    inp = layers.Input((32, 32, 3))
    x = conv_bn(inp, 16, 3)
    x = conv_bn(x, 32, 3, strides=2)
    x = layers.GlobalAveragePooling2D()(x)
    return tf.keras.Model(inp, layers.Dense(num_classes)(x))


if __name__ == "__main__":
    model = build()
    model.compile(optimizer='adam', loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    frames = np.zeros((8, 32, 32, 3), dtype=np.float32)  # black frames at the start of every clip
    labels = np.zeros((8,), dtype=np.int64)
    print("loss:", model.train_on_batch(frames, labels))
