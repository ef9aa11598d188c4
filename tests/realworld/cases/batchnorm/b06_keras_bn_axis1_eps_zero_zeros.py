# realworld-source: https://github.com/tensorflow/tensorflow/issues/61287
# realworld-family: batchnorm
# realworld-error: normalization with epsilon=0 on a zero input returns nan
# realworld-key: nan
# realworld-measured: tensorflow-cpu 2.21.0 / keras 3.15.1 CPU (BatchNormalization(epsilon=0) in training on a zero-variance input prints nan)
# realworld-expect: bn-eps-zero
# realworld-why: Keras layer constructed and called directly with training=True
import tensorflow as tf

if __name__ == "__main__":
    data = tf.zeros(shape=(3, 4))
    layer1 = tf.keras.layers.LayerNormalization(axis=1, epsilon=1e-3)
    print(layer1(data))
    layer2 = tf.keras.layers.BatchNormalization(axis=1, epsilon=0)  # expect-here
    output2 = layer2(data, training=True)  # expect-here
    print(output2)
