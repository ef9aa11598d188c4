# realworld-source: mutant of the keras_subclassed_resnet tutorial model (written here): eps negative
# realworld-family: batchnorm
# realworld-error: loss nan (BatchNormalization(epsilon=-1.0) in training)
# realworld-key: nan
# realworld-measured: tensorflow-cpu 2.21.0 / keras 3.15.1 CPU
# realworld-expect: bn-eps-negative
import numpy as np
import tensorflow as tf

IMG_SIZE = 32
BN_EPSILON = -1.0  # expect-here


class ResidualBlock(tf.keras.layers.Layer):
    def __init__(self, filters, strides=1):
        super().__init__()
        self.conv1 = tf.keras.layers.Conv2D(filters, 3, strides=strides, padding='valid', use_bias=False)
        self.bn1 = tf.keras.layers.BatchNormalization(epsilon=BN_EPSILON)  # expect-here
        self.conv2 = tf.keras.layers.Conv2D(filters, 3, padding='same', use_bias=False)
        self.bn2 = tf.keras.layers.BatchNormalization(epsilon=BN_EPSILON)  # expect-here
        self.proj = tf.keras.layers.Conv2D(filters, 3, strides=strides, padding='valid')

    def call(self, x, training=False):
        out = tf.nn.relu(self.bn1(self.conv1(x), training=training))
        out = self.bn2(self.conv2(out), training=training)
        return tf.nn.relu(out + self.proj(x))


class ResNetModel(tf.keras.Model):
    def __init__(self, num_classes=10):
        super().__init__()
        self.block1 = ResidualBlock(16, strides=2)
        self.block2 = ResidualBlock(32, strides=2)
        self.block3 = ResidualBlock(32, strides=2)
        self.pool = tf.keras.layers.GlobalAveragePooling2D()
        self.fc = tf.keras.layers.Dense(num_classes)

    def call(self, x, training=False):
        x = self.block1(x, training=training)
        x = self.block2(x, training=training)
        x = self.block3(x, training=training)
        return self.fc(self.pool(x))


if __name__ == "__main__":
    images = np.random.randint(0, 256, size=(16, IMG_SIZE, IMG_SIZE, 3)).astype(np.float32) / 255.0
    labels = np.random.randint(0, 10, size=(16,))
    model = ResNetModel()
    optimizer = tf.keras.optimizers.SGD(0.01)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    with tf.GradientTape() as tape:
        loss = loss_fn(labels, model(images, training=True))
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    print("loss", float(loss))
