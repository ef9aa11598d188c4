# realworld-source: https://github.com/keras-team/keras/issues/6973
# realworld-family: batchnorm
# realworld-error: loss is nan with BatchNormalization (maintainer: try BN with a range of different parameters, in particular for epsilon)
# realworld-key: nan
# realworld-measured: tensorflow-cpu 2.21.0 / keras 3.15.1 CPU (epsilon=0 and a zero-padded channel: the training loss prints nan)
# realworld-expect: bn-eps-zero
# realworld-why: subclassed Keras model, epsilon from a constructor argument, trained with fit
import numpy as np
import tensorflow as tf


class SmallCNN(tf.keras.Model):
    def __init__(self, bn_epsilon=0.0):  # expect-here
        super().__init__()
        self.conv = tf.keras.layers.Conv2D(32, (3, 3), use_bias=False, kernel_initializer='zeros')
        self.bn = tf.keras.layers.BatchNormalization(epsilon=bn_epsilon)  # expect-here
        self.pool = tf.keras.layers.MaxPool2D((2, 2))
        self.flat = tf.keras.layers.Flatten()
        self.out = tf.keras.layers.Dense(2, activation='softmax')

    def call(self, x, training=False):
        x = self.bn(self.conv(x), training=training)  # expect-here
        return self.out(self.flat(self.pool(x)))


if __name__ == "__main__":
    model = SmallCNN()
    model.compile(loss='sparse_categorical_crossentropy', optimizer='adam')
    x = np.zeros((8, 16, 16, 3), dtype=np.float32)
    y = np.zeros((8,), dtype=np.int64)
    hist = model.fit(x, y, epochs=1, verbose=0)
    print("loss:", hist.history['loss'])
