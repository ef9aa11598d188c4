# realworld-source: https://github.com/Apm5/tensorflow_2.0_tutorial/issues/3
# realworld-family: dtype
# realworld-error: TypeError: Value passed to parameter 'input' has DataType uint8 not in list of allowed values: float16, bfloat16, float32, float64, int32
# realworld-key: has DataType uint8 not in list of allowed values
# realworld-measured: tensorflow-cpu 2.21.0 / keras 3.15.1 CPU (inside a tf.function the message is the TF op's)
# realworld-expect: tf-integer-input
# realworld-why: subclassed tf.keras.Model (call) with a residual block class; CIFAR images uint8 as loaded, passed to a tf.function test_step
import numpy as np
import tensorflow as tf


class BasicBlock(tf.keras.layers.Layer):
    def __init__(self, filters, strides=1):
        super(BasicBlock, self).__init__()
        self.conv1 = tf.keras.layers.Conv2D(filters, 3, strides, padding='same', use_bias=False)
        self.bn1 = tf.keras.layers.BatchNormalization()
        self.conv2 = tf.keras.layers.Conv2D(filters, 3, 1, padding='same', use_bias=False)
        self.bn2 = tf.keras.layers.BatchNormalization()

    def call(self, x, training=False):
        out = tf.nn.relu(self.bn1(self.conv1(x), training=training))
        out = self.bn2(self.conv2(out), training=training)
        return tf.nn.relu(out + x)


class ResNet(tf.keras.Model):
    def __init__(self, num_classes=10):
        super(ResNet, self).__init__()
        self.conv = tf.keras.layers.Conv2D(16, 3, padding='same', use_bias=False)  # expect-here
        self.block1 = BasicBlock(16)
        self.pool = tf.keras.layers.GlobalAveragePooling2D()
        self.fc = tf.keras.layers.Dense(num_classes)

    def call(self, x, training=False):
        x = self.conv(x)  # expect-here
        x = self.block1(x, training=training)
        return self.fc(self.pool(x))


@tf.function
def test_step(model, x):
    return model(x, training=False)  # expect-here


if __name__ == "__main__":
    model = ResNet()
    test_images = np.random.randint(0, 256, size=(8, 32, 32, 3)).astype(np.uint8)  # expect-here
    print(test_step(model, test_images).shape)  # expect-here
